// The mock's own API under /admin: overrides, the request journal, the
// account controls. It is the mock's, not the service's: the contract
// (paths, components) does not describe it, these types do. They are
// written by hand and kept honest by a test that compiles the mock's real
// answers against them (npm/package.test.cjs).
import type { paths } from "./api.js";

/** A successful answer: every answer of the mock, /admin included, is an envelope. */
export interface SuccessEnvelope<T> {
  status: "success";
  data: T;
}

/** A refused or failed call: what went wrong, in words. */
export interface ErrorEnvelope {
  status: "error";
  message: string;
}

/** Any answer of the mock: `if (body.status === "success") body.data`. */
export type Envelope<T> = SuccessEnvelope<T> | ErrorEnvelope;

/** A path of the contract, such as "/api/v1/user/model/{model_id}". */
export type ApiPath = keyof paths;

/**
 * The request body an operation takes, as openapi-fetch types `body`:
 * `{...} satisfies RequestBody<"/api/v1/user/conversations", "post">`
 * makes a misspelt field a compile error, which openapi-fetch alone does not.
 */
export type RequestBody<P extends ApiPath, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: infer C };
}
  ? C[keyof C]
  : never;

/** Which calls an override answers: one operation, and optionally more conditions. */
export interface OverrideMatch {
  /** "GET", "POST", "PUT", "PATCH" or "DELETE" (any case; answered in upper case). */
  method: string;
  /**
   * A path of the contract, "/api/v1/user/model/{model_id}" (every model), or
   * a concrete one, "/api/v1/user/model/7" (that model only).
   */
  path: ApiPath | (string & {});
  /** Query parameters the call must carry with these values. */
  query?: Record<string, string>;
  /** Top-level fields a JSON body must have with these values. */
  body?: Record<string, unknown>;
  /** Headers the call must carry with these values, e.g. { Origin: "http://localhost:5173" } (answered with canonical names). */
  headers?: Record<string, string>;
  /** Let the console's own calls (its refreshes and polls) match and spend a use too. */
  console?: boolean;
}

/**
 * A duration, "250ms" or "2s", or a range drawn from per call, "100ms..900ms"
 * or { min: "100ms", max: "900ms" }: the same draws in every run with the same --seed.
 */
export type Delay = string | { min: string; max: string };

/** A wait before the answer (at most 60s), whatever the override answers. */
export interface WithDelay {
  delay?: Delay;
}

/** An event stream's pause between tokens, instead of the server's --token-interval. */
export interface WithPace {
  token_interval?: Delay;
}

/** An error answer: the error envelope with this status. */
export interface RespondStatus extends WithDelay {
  /** 400 to 599; a status the operation does not document is served too ("documented": false). */
  status: number;
  /** The envelope's message; default: the status text and the override's id. */
  message?: string;
}

/** A success answer given literally: the envelope around `data`. */
export interface RespondData extends WithDelay {
  /** 200 to 299; default 200. */
  status?: number;
  data: unknown;
  /** Serve `data` even when it breaks the operation's answer schema (refused otherwise). */
  unchecked?: boolean;
}

/** The named example of the operation's answer, from the contract. */
export interface RespondExample extends WithDelay {
  example: string;
}

/** The inference stream as usual, broken: stalls after one token, drops the connection halfway, or sends an error chunk. */
export interface RespondStreamFault extends WithDelay, WithPace {
  stream_fault: "stall" | "cut" | "error";
}

/** A wait, then the usual answer (an event stream paced, if token_interval says so). */
export interface RespondDelay extends WithPace {
  delay: Delay;
}

/** The usual event stream at a pace of its own. */
export interface RespondPace {
  token_interval: Delay;
}

/** What an override answers: one of these (each answer with a delay before it, if you like). */
export type OverrideRespond = RespondStatus | RespondData | RespondExample | RespondStreamFault | RespondDelay | RespondPace;

/** The body of POST /admin/overrides. */
export interface OverrideRequest {
  match: OverrideMatch;
  respond: OverrideRespond;
  /** How many calls it answers (1 to 1000000); absent or null: until removed. */
  times?: number | null;
}

/** An override as the mock answers it (POST, GET and DELETE on /admin/overrides). */
export interface Override {
  id: number;
  /** The operation the match resolved to, its operationId: "getModel". */
  operation: string;
  match: OverrideMatch;
  respond: OverrideRespond;
  /** As set; null: until removed. */
  times: number | null;
  /** Uses left; null: until removed. */
  remaining: number | null;
  /** Whether the operation documents the status this override answers with. */
  documented: boolean;
  /** Uses taken so far. */
  used: number;
}

/** Headers as the journal keeps them: canonical names, each a list of values (the key masked: "Bearer ****"). */
export type JournalHeaders = Record<string, string[]>;

/** A request or an answer, as the journal keeps it. */
export interface JournalMessage {
  headers: JournalHeaders;
  /** The body as sent (up to 64 KiB; a multipart body summarised). */
  body: string;
  body_size: number;
  body_truncated: boolean;
}

/** An event stream, as the journal keeps it: one chunk per write. */
export interface JournalStream {
  /** "data: {...}\n\n" ... "data: [DONE]\n\n". */
  chunks: string[];
  chunk_count: number;
  truncated: boolean;
  /** The fault that ended the stream, when one did. */
  fault?: "stall" | "cut" | "error";
}

/** The answer, as the journal keeps it. */
export interface JournalResponse extends JournalMessage {
  /** Present for an event stream; `body` is then its chunks joined. */
  stream?: JournalStream;
}

/** The override that answered or steered a call, and which of its uses the call took. */
export interface JournalOverride {
  id: number;
  kind: "status" | "data" | "example" | "delay" | "stream_fault" | "pace";
  /** 1 for the first use. */
  use: number;
  /** The wait this use drew from the override's delay, when it has one. */
  delay_ms?: number;
}

/** One call, as GET /admin/requests lists it (oldest first). */
export interface JournalEntry {
  id: number;
  /** RFC 3339, e.g. "2026-03-01T08:00:05.123456Z". */
  time: string;
  method: string;
  path: string;
  /** The raw query string, without "?" ("" for none). */
  query: string;
  status: number;
  duration_ms: number;
  request: JournalMessage;
  response: JournalResponse;
  /** The call as a curl command, reading the key from $API_KEY. */
  curl: string;
  /** Present when an override answered or steered the call. */
  override?: JournalOverride;
  /** Fields the body sent that the contract does not name (at most 20). */
  unknown_fields?: string[];
  /** How many more such fields there were. */
  unknown_fields_more?: number;
  /** Present (true) on a CORS preflight, listed with ?preflight=true. */
  preflight?: true;
  /** On a preflight no call followed: a probable CORS failure, and its probable reason. */
  orphan?: { reason: string };
}

/** The filters of GET /admin/requests. */
export interface JournalQuery {
  method?: string;
  /** A path prefix: "/api/v1/user/model". */
  path?: string;
  /** A status, "404", or a class, "4xx". */
  status?: string;
  /** Only entries with a larger id: for polling. */
  since?: number;
  /** List CORS preflights too. */
  preflight?: boolean;
}

/** GET /admin/account: which account the key opens. */
export interface AccountInfo {
  /** "account-1" for the first --api-key, "open-1" for the first key --open-keys let in. */
  account: string;
  /** Whether the key opened its account on first use (--open-keys). */
  open: boolean;
  /** The --open-keys pattern the key matched, for an open account. */
  pattern?: string;
}

/** POST /admin/reset. */
export interface ResetResult {
  message: string;
}

/** POST /admin/advance?by=30s (without `by`: every training and evaluation finished now). */
export interface AdvanceResult {
  message: string;
  /** A Go duration, "30s". */
  advanced_by: string;
  /** How far the account's clock is ahead of the real one. */
  clock_offset: string;
}

/** DELETE /admin/requests and DELETE /admin/overrides. */
export interface Removed {
  message: string;
  removed: number;
}

/** A dataset of POST /admin/seed, its files given inline. */
export interface SeedDataset {
  /** What models refer to it by. */
  key: string;
  name: string;
  description?: string;
  tags?: string[];
  urls?: string[];
  files: { name: string; content: string }[];
  /** Seeded soft-deleted: gone from the API's reads, its models still answer from it. */
  deleted?: boolean;
}

/**
 * A model of POST /admin/seed: ready and fine-tuned with lora unless said
 * otherwise. It reads back in its state at once, then trains on the mock's
 * clock (POST /admin/advance moves it on).
 */
export interface SeedModel {
  key?: string;
  name: string;
  /** The key of a dataset of the same seed. */
  dataset: string;
  description?: string;
  category?: string;
  base_model_name?: string;
  fine_tune?: string;
  state?: "pending" | "training" | "ready" | "failed";
}

/** A conversation of POST /admin/seed. */
export interface SeedConversation {
  /** The key of a model of the same seed. */
  model: string;
  title?: string;
  messages?: { role: "user" | "assistant"; content: string }[];
}

/** An evaluation of POST /admin/seed: pending unless said otherwise; a running one ends --eval-duration later. */
export interface SeedEvaluation {
  name: string;
  /** The key of a model of the same seed. */
  model: string;
  type?: string;
  benchmark_type?: string;
  question_count?: number;
  description?: string;
  status?: "pending" | "running" | "completed" | "failed";
}

/** The body of POST /admin/seed[?replace=true]: records added to the caller's account, checked against the contract. */
export interface SeedRequest {
  datasets?: SeedDataset[];
  models?: SeedModel[];
  conversations?: SeedConversation[];
  evaluations?: SeedEvaluation[];
}

/** One seeded record and the id it got (a conversation's is a UUID). */
export interface SeededRecord {
  key?: string;
  title?: string;
  name?: string;
  id: number | string;
}

/** The answer of POST /admin/seed: each record's id, so a test needs no lookup. */
export interface SeedResult {
  datasets: SeededRecord[];
  models: SeededRecord[];
  conversations: SeededRecord[];
  evaluations: SeededRecord[];
}
