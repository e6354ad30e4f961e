// The mock's real /admin answers, one of each shape the /admin types of the
// package describe (npm/mock/types/admin.d.ts), and the TypeScript module
// that holds them to those types (npm/package.test.cjs compiles it):
//
//   - each answer `satisfies` its type: a field the mock sends and the type
//     lacks, or a field the type requires and the mock leaves out, or a
//     value of another type, fails to compile;
//   - every key of each type appears in one answer at least: a field the
//     type promises and the mock never sends fails to compile too.
'use strict';

// call sends one request with the key and returns the parsed answer; a
// status other than want fails.
async function call(base, key, method, path, { body, headers = {}, want = 200 } = {}) {
  const init = { method, headers: { Authorization: `Bearer ${key}`, ...headers } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const resp = await fetch(base + path, init);
  const text = await resp.text();
  if (resp.status !== want) throw new Error(`${method} ${path}: ${resp.status}, want ${want}: ${text}`);
  return text === '' ? null : parseJSON(text, `${method} ${path}`);
}

function parseJSON(text, what) {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${what}: not JSON: ${text.slice(0, 200)}`);
  }
}

// sampleCalls drives one account of the mock at base (key opens it) through
// every /admin shape and returns the answers by name.
async function sampleCalls(base, key) {
  const c = (method, path, opts) => call(base, key, method, path, opts);
  const a = {};
  a.account = await c('GET', '/admin/account');
  a.reset = await c('POST', '/admin/reset');
  a.advance = await c('POST', '/admin/advance?by=1s');
  const models = (await c('GET', '/api/v1/user/model')).data;
  const model = models.find((m) => m.status === 'ready') || models[0];
  const id = model.id;

  // One override of each kind of answer, each kind of match.
  const set = (o) => c('POST', '/admin/overrides', { body: o });
  a.overrideStatus = await set({ match: { method: 'get', path: `/api/v1/user/model/${id}`, headers: { origin: 'http://127.0.0.1:5173' } },
    respond: { status: 503, message: 'The model service is down', delay: { min: '1ms', max: '2ms' } }, times: 1 });
  a.overrideData = await set({ match: { method: 'GET', path: '/api/v1/user/conversations', query: { limit: '5' } },
    respond: { status: 200, data: [{ id: 1, name: 'Literal', surprise: true }], unchecked: true }, times: 1 });
  a.overrideExample = await set({ match: { method: 'GET', path: '/api/v1/user/model/{model_id}', console: true }, respond: { example: 'training' }, times: 1 });
  a.overrideDelay = await set({ match: { method: 'POST', path: '/api/v1/user/conversations', body: { model_id: id } }, respond: { delay: '1ms..2ms' } });
  a.overrideFault = await set({ match: { method: 'POST', path: '/api/v1/user/inference' },
    respond: { stream_fault: 'cut', delay: '1ms', token_interval: '1ms' }, times: 1 });
  a.overridePace = await set({ match: { method: 'POST', path: '/api/v1/user/inference' }, respond: { token_interval: '1ms..2ms' }, times: 1 });
  a.overrides = await c('GET', '/admin/overrides');

  // Calls the journal then holds: each override used, an unknown field,
  // past 20 of them, a stream cut by a fault, a CORS preflight.
  await c('GET', `/api/v1/user/model/${id}`, { headers: { Origin: 'http://127.0.0.1:5173' }, want: 503 });
  await c('GET', `/api/v1/user/conversations?model_id=${id}&limit=5`);
  await c('GET', `/api/v1/user/model/${id}`, { headers: { 'X-Mock-Console': 'refresh' } });
  await c('POST', '/api/v1/user/conversations', { body: { model_id: id, titel: 'Leave questions' } });
  const many = Object.fromEntries(Array.from({ length: 22 }, (_, i) => [`extra_${i}`, i]));
  await c('POST', '/api/v1/user/conversations', { body: { model_id: id, ...many } });
  for (let i = 0; i < 2; i++) { // cut halfway by the fault, then paced to its end
    const stream = await fetch(base + '/api/v1/user/inference', {
      method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: 'How many days of paid leave do employees get?', model_id: id }),
    });
    await stream.text().catch(() => {});
  }
  const pre = await fetch(base + `/api/v1/user/model/${id}`, {
    method: 'OPTIONS', headers: { Origin: 'http://127.0.0.1:5173', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' },
  });
  await pre.text();
  await c('GET', `/api/v1/user/model/${id}`, { headers: { Origin: 'http://127.0.0.1:5173' } });
  // Preflights no call follows: past the mock's bound of waiting ones
  // (256), the oldest is journaled at once as an orphan, in the account
  // that last called from the origin: this one. (Waiting out the window
  // would take seconds.)
  for (let i = 0; i < 257; i++) {
    const orphan = await fetch(base + `/api/v1/user/model/${900000 + i}`, {
      method: 'OPTIONS', headers: { Origin: 'http://127.0.0.1:5173', 'Access-Control-Request-Method': 'DELETE' },
    });
    await orphan.text();
  }
  a.requests = await c('GET', '/admin/requests?preflight=true');

  a.seedBody = {
    datasets: [{ key: 'kb', name: 'Lunar base handbook', description: '', tags: ['moon'], urls: [],
      files: [{ name: 'rules.md', content: '# Rules\n\nThe airlock code changes every 19 days.\n' }] }],
    models: [{ key: 'bot', name: 'Base bot', dataset: 'kb' }, { key: 'broken', name: 'Broken bot', dataset: 'kb', state: 'failed' }],
    conversations: [{ model: 'bot', title: 'Airlock', messages: [{ role: 'user', content: 'How often?' }] }],
    evaluations: [{ name: 'Base check', model: 'bot', status: 'completed' }],
  };
  a.seed = await c('POST', '/admin/seed', { body: a.seedBody });
  a.removedOne = await c('DELETE', `/admin/overrides/${a.overrideDelay.data.id}`);
  a.removedAll = await c('DELETE', '/admin/overrides');
  a.cleared = await c('DELETE', '/admin/requests');
  a.refused = await c('POST', '/admin/overrides', { body: { match: { method: 'GET', path: '/api/v1/user/modle' }, respond: { status: 503 } }, want: 422 });
  return a;
}

// samplesModule is the TypeScript module that holds the answers to the types.
function samplesModule(a, pkg) {
  const lit = (v) => JSON.stringify(v, null, 2);
  return `// Generated by npm/samples.cjs from the mock's real answers.
import type {
  AccountInfo, AdvanceResult, ErrorEnvelope, JournalEntry, JournalOverride, JournalResponse, JournalStream,
  Override, OverrideMatch, OverrideRespond, Removed, ResetResult, SeededRecord, SeedRequest, SeedResult, SuccessEnvelope,
} from "${pkg}/types";

export const account = ${lit(a.account)} satisfies SuccessEnvelope<AccountInfo>;
export const reset = ${lit(a.reset)} satisfies SuccessEnvelope<ResetResult>;
export const advance = ${lit(a.advance)} satisfies SuccessEnvelope<AdvanceResult>;
export const set = [
  ${[a.overrideStatus, a.overrideData, a.overrideExample, a.overrideDelay, a.overrideFault, a.overridePace].map(lit).join(',\n  ')}
] satisfies SuccessEnvelope<Override>[];
export const listed = ${lit(a.overrides)} satisfies SuccessEnvelope<Override[]>;
export const removedOne = ${lit(a.removedOne)} satisfies SuccessEnvelope<Override>;
export const removedAll = ${lit(a.removedAll)} satisfies SuccessEnvelope<Removed>;
export const cleared = ${lit(a.cleared)} satisfies SuccessEnvelope<Removed>;
export const refused = ${lit(a.refused)} satisfies ErrorEnvelope;
export const requests = ${lit(a.requests)} satisfies SuccessEnvelope<JournalEntry[]>;
export const seedBody = ${lit(a.seedBody)} satisfies SeedRequest;
export const seed = ${lit(a.seed)} satisfies SuccessEnvelope<SeedResult>;

// Every key of each type is in one answer at least.
type Keys<T> = T extends unknown ? keyof T : never;
type Never<T extends never> = T;
type Entry = (typeof requests)["data"][number];
type Set = (typeof set)[number]["data"] | (typeof listed)["data"][number];
export type AllOfAccountInfo = Never<Exclude<keyof AccountInfo, Keys<(typeof account)["data"]>>>;
export type AllOfOverride = Never<Exclude<keyof Override, Keys<Set>>>;
export type AllOfMatch = Never<Exclude<keyof OverrideMatch, Keys<Set["match"]>>>;
export type AllOfRespond = Never<Exclude<Keys<OverrideRespond>, Keys<Set["respond"]>>>;
export type AllOfEntry = Never<Exclude<keyof JournalEntry, Keys<Entry>>>;
export type AllOfResponse = Never<Exclude<keyof JournalResponse, Keys<Entry["response"]>>>;
export type AllOfStream = Never<Exclude<keyof JournalStream, Keys<Extract<Entry["response"], { stream: unknown }>["stream"]>>>;
export type AllOfSeeded = Never<Exclude<keyof SeededRecord, Keys<(typeof seed)["data"][keyof SeedResult][number]>>>;
export type AllOfOverrideUse = Never<Exclude<keyof JournalOverride, Keys<Extract<Entry, { override: unknown }>["override"]>>>;
`;
}

module.exports = { sampleCalls, samplesModule };
