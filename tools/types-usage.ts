// Compiled by `make types` against the types the npm package ships
// (npm/mock/types: the generated api.d.ts, which make types first checks is
// fresh against spec/openapi.yaml, and the /admin types): proof that a
// frontend can type its client with them, through openapi-fetch's own
// signatures too.
import createClient from "openapi-fetch";
import type { components, paths, RequestBody, OverrideRequest, JournalEntry, Envelope as AdminEnvelope } from "../npm/mock/types";
import { formData } from "../npm/mock/lib/form";

type Model = components["schemas"]["Model"];
type Envelope<T> = { status: "success"; data: T };

export function modelName(env: Envelope<Model>): string {
  return env.data.name;
}

export type ListModels = paths["/api/v1/user/model"]["get"]["responses"][200]["content"]["application/json"];
export type Chunk = components["schemas"]["InferenceChunk"];
export type Status = components["schemas"]["EvaluationStatus"];

export const statuses: Status[] = ["pending", "running", "completed", "failed"];

// The chunk is a union keyed by `type` (D-03): narrowing on it gives each
// shape its fields, typed (a token's content is a string, an error's
// message too, neither optional).
export function tokenText(chunks: Chunk[]): string {
  let text = "";
  for (const c of chunks) {
    switch (c.type) {
      case "token":
      case "delta": {
        const piece: string = c.content;
        text += piece;
        break;
      }
      case "error": {
        const why: string = c.message;
        throw new Error(why);
      }
      case "done":
        console.log(`${c.tokens_used ?? 0} tokens in ${c.latency_ms ?? 0} ms`);
        break;
    }
  }
  return text;
}
type TokenChunk = Extract<Chunk, { type: "token" }>;
export type TokenIsAShapeOfItsOwn = Assert<[TokenChunk] extends [never] ? false : true>;
// @ts-expect-error an error chunk names what failed (D-03)
export const errorWithoutMessage: Extract<Chunk, { type: "error" }> = { type: "error" };
// @ts-expect-error "message" is no chunk type of the contract (D-03)
export const unknownChunk: Chunk = { type: "message", content: "x" };

// The seed's §4.1 table makes `model_name` and `dataset_id` (a string)
// required; these assertions stop compiling if the generated type makes
// either optional or changes its type.
type ModelCreate = components["schemas"]["ModelCreateRequest"];
type IsRequired<T, K extends keyof T> = {} extends Pick<T, K> ? false : true;
type Assert<T extends true> = T;
export type ModelNameRequired = Assert<IsRequired<ModelCreate, "model_name">>;
export type DatasetIdRequired = Assert<IsRequired<ModelCreate, "dataset_id">>;
export type DatasetIdIsString = Assert<ModelCreate["dataset_id"] extends string ? true : false>;

export const declaredCreate: ModelCreate = { model_name: "Support assistant", dataset_id: "12" };

// The minimal requests the reference shows compile as they are: fields
// with a default are optional to send (openapi-typescript runs with
// --default-non-nullable false; without it, every field with a default
// would be required). Typed as a client such as openapi-fetch types a body:
// from the operation's request body.
type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { "application/json": infer B } };
}
  ? B
  : never;
type InferenceBody = Body<"/api/v1/user/inference", "post">;
type ConversationBody = Body<"/api/v1/user/conversations", "post">;
type EvaluationBody = Body<"/api/v1/evaluations", "post">;
type ModelBody = Body<"/api/v1/user/model", "post">;

export const inference: InferenceBody = { query: "How many days of paid leave do employees get?", model_id: 42 };
export const inferenceSchema: components["schemas"]["InferenceRequest"] = { query: "Hi", model_id: 42 };
export const conversation: ConversationBody = { model_id: 42, title: "Leave questions" };
export const conversationUntitled: ConversationBody = { model_id: 42 }; // title defaults to "" (D-09)
export const evaluation: EvaluationBody = { name: "Weekly check", model_id: 42 };
export const evaluationSchema: components["schemas"]["EvaluationCreateRequest"] = { name: "Weekly check", model_id: 42 };
export const model: ModelBody = { model_name: "HR bot", dataset_id: "12" };

// What the reference requires stays required (each line must not compile).
// @ts-expect-error query is required (§4.4)
export const inferenceWithoutQuery: InferenceBody = { model_id: 42 };
// @ts-expect-error model_id is required (§4.4)
export const inferenceWithoutModel: InferenceBody = { query: "Hi" };
// @ts-expect-error model_id is an integer (§4.4)
export const inferenceModelAsText: InferenceBody = { query: "Hi", model_id: "42" };
// @ts-expect-error model_id is required (§4.2)
export const conversationWithoutModel: ConversationBody = { title: "Leave questions" };
// @ts-expect-error name is required (D-09)
export const evaluationWithoutName: EvaluationBody = { model_id: 42 };
// @ts-expect-error model_id is required (D-09)
export const evaluationWithoutModel: EvaluationBody = { name: "Weekly check" };
// @ts-expect-error dataset_id is required (§4.1)
export const modelWithoutDataset: ModelBody = { model_name: "HR bot" };
// @ts-expect-error model_name is required (§4.1)
export const modelWithoutName: ModelBody = { dataset_id: "12" };

// Request bodies are closed (D-29): a misspelt field does not compile, at
// the top of a body or inside one of its objects the contract lists the
// keys of. Answers stay open (the reference lets them carry more, §2).
// @ts-expect-error titel is not a field of a new conversation (title is)
export const conversationTypo: ConversationBody = { model_id: 42, titel: "Leave questions" };
// @ts-expect-error temprature is not a field of an inference (temperature is)
export const inferenceTypo: InferenceBody = { query: "Hi", model_id: 42, temprature: 0.2 };
// @ts-expect-error descripton is not a field of a new model (description is)
export const modelTypo: ModelBody = { model_name: "HR bot", dataset_id: "12", descripton: "x" };
// @ts-expect-error benchmark is not a field of a new evaluation (benchmark_type is)
export const evaluationTypo: EvaluationBody = { name: "Weekly check", model_id: 42, benchmark: "beir" };
// @ts-expect-error widht is not a key of image_parameters (width is)
export const imageTypo: InferenceBody = { query: "Hi", model_id: 42, image_parameters: { widht: 512 } };
// persona and an evaluation's config are open maps (D-18, D-09): any key compiles.
export const openPersona: InferenceBody = { query: "Hi", model_id: 42, persona: { name: "Ada", mood: "calm" } };
export const openConfig: EvaluationBody = { name: "Weekly check", model_id: 42, config: { retries: 2 } };
// An answer may carry fields the contract does not list.
export const modelWithMore: Model = { id: 7, name: "HR bot", shiny_new_field: true };

// Through openapi-fetch (pinned in tools/package.json), the client most
// teams pair with these types: paths, parameters, bodies and answers are
// checked by its real signatures.
const client = createClient<paths>({ baseUrl: "http://127.0.0.1:8080" });

export async function openapiFetchCalls(): Promise<string> {
  const { data, error } = await client.GET("/api/v1/user/model/{model_id}", { params: { path: { model_id: "4" } } });
  if (error) throw new Error(error.message);
  const name: string = data.data.name;
  await client.POST("/api/v1/user/conversations", { body: { model_id: 42, title: "Leave questions" } });
  await client.POST("/api/v1/user/inference", { body: { query: "Hi", model_id: 42 }, parseAs: "stream" });
  // @ts-expect-error model_id is required (§4.2), and openapi-fetch checks it
  await client.POST("/api/v1/user/conversations", { body: { title: "Leave questions" } });
  // @ts-expect-error model_id is an integer (§4.4)
  await client.POST("/api/v1/user/inference", { body: { query: "Hi", model_id: "42" } });
  // @ts-expect-error no such path in the contract
  await client.GET("/api/v1/user/modle/{model_id}", { params: { path: { model_id: "4" } } });
  return name;
}

// openapi-fetch 0.17 does not check excess properties of a body
// (openapi-typescript issue #1769): this typo compiles. If it stops
// compiling, openapi-fetch has closed the gap and docs/frontend.md's advice
// below can say so.
export const typoThroughOpenapiFetch = () =>
  client.POST("/api/v1/user/conversations", { body: { model_id: 42, titel: "Leave questions" } });

// docs/frontend.md's pattern closes it: `satisfies` the body's type (the
// package's RequestBody<path, method>, or the schema) makes a misspelt
// field a compile error again, and the call compiles as before.
export const withSatisfies = () =>
  client.POST("/api/v1/user/conversations", {
    body: { model_id: 42, title: "Leave questions" } satisfies RequestBody<"/api/v1/user/conversations", "post">,
  });
export const typoCaught = () =>
  client.POST("/api/v1/user/conversations", {
    // @ts-expect-error titel is not a field of a new conversation (title is)
    body: { model_id: 42, titel: "Leave questions" } satisfies RequestBody<"/api/v1/user/conversations", "post">,
  });
export const typoCaughtBySchema = () =>
  client.POST("/api/v1/user/inference", {
    // @ts-expect-error temprature is not a field of an inference (temperature is)
    body: { query: "Hi", model_id: 42, temprature: 0.2 } satisfies components["schemas"]["InferenceRequest"],
  });

// Uploads (multipart/form-data, §4.3): a file part is a Blob in the shipped
// types (a File is one), so a File goes in with no cast, and the package's
// formData sends the typed body as a form through openapi-fetch's
// bodySerializer. A string where a file goes, or a misspelt field, does not
// compile; the answer is typed as any other.
export async function uploads(file: File): Promise<number> {
  const created = await client.POST("/api/v1/user/dataset", {
    body: { dataset_name: "Handbook", description: "HR rules", files: [file] },
    bodySerializer: formData,
  });
  if (created.error) throw new Error(created.error.message);
  const id: number = created.data.data.id;
  const added = await client.POST("/api/v1/user/dataset/upload", {
    body: { dataset_id: String(id), files: [file, new Blob(["# More\n"], { type: "text/markdown" })] },
    bodySerializer: formData,
  });
  if (added.error) throw new Error(added.error.message);
  const uploaded: number | undefined = added.data.data.files_uploaded;
  // @ts-expect-error a file part is a Blob (a File), not the file's text
  await client.POST("/api/v1/user/dataset/upload", { body: { dataset_id: "1", files: ["# Rules"] }, bodySerializer: formData });
  // @ts-expect-error dataset_id is required (§4.3)
  await client.POST("/api/v1/user/dataset/upload", { body: { files: [file] }, bodySerializer: formData });
  return uploaded ?? 0;
}
export const uploadForm: FormData = formData({ dataset_name: "Handbook", files: [new File(["x"], "x.md")] } satisfies components["schemas"]["DatasetCreateForm"]);

// The /admin types the package ships: an override set from a test, and a
// journal entry read back, typed.
export const override: OverrideRequest = {
  match: { method: "GET", path: "/api/v1/user/model/{model_id}" },
  respond: { status: 503, message: "The model service is down" },
  times: 1,
};
// @ts-expect-error stauts is not a field of an answer (status is)
export const overrideTypo: OverrideRequest = { match: { method: "GET", path: "/api/v1/user/model/4" }, respond: { stauts: 503 } };
export function overrideOf(body: AdminEnvelope<JournalEntry[]>): number | undefined {
  if (body.status !== "success") throw new Error(body.message);
  const [call] = body.data;
  return call?.override?.use;
}
