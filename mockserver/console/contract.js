// The contract as the console needs it: every operation with its method,
// path template, documented error statuses and the names of its 200
// answer's named examples, read from GET /openapi.json (never retyped).
import { call, req } from './http.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

// ops: every operation, those with fewer path parameters first, so a
// literal path (/evaluations/check-name) wins over a template.
export const contract = { ops: [] };

export async function loadContract() {
  const resp = await call('/openapi.json', req('GET'));
  if (!resp.ok) throw new Error('GET /openapi.json answered ' + resp.status);
  const doc = await resp.json();
  const ops = [];
  for (const [path, item] of Object.entries(doc.paths || {})) {
    for (const m of METHODS) {
      const op = item[m];
      if (!op || !op.operationId) continue;
      const responses = op.responses || {};
      const ok = responses['200'] && responses['200'].content && responses['200'].content['application/json'];
      const params = (path.match(/\{[^}]+\}/g) || []).length;
      ops.push({
        id: op.operationId,
        method: m.toUpperCase(),
        path,
        summary: op.summary || '',
        params,
        re: new RegExp('^' + path.split('/').map((s) => (/^\{.+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))).join('/') + '$'),
        examples: ok && ok.examples ? Object.keys(ok.examples) : [],
        errors: Object.keys(responses).filter((c) => /^[45]\d\d$/.test(c)).sort(),
        stream: path === '/api/v1/user/inference',
      });
    }
  }
  ops.sort((a, b) => a.params - b.params);
  contract.ops = ops;
  return ops;
}

// opFor is the operation a call addresses, or undefined.
export function opFor(method, path) {
  return contract.ops.find((o) => o.method === method && o.re.test(path));
}

// opById finds an operation by its operationId.
export function opById(id) {
  return contract.ops.find((o) => o.id === id);
}

// opLabel is how a picker names an operation.
export function opLabel(o) {
  return o.method + ' ' + o.path + ' (' + o.id + ')';
}

// opItems lists the operations for fillSelect, in the contract's order of paths.
export function opItems(filter) {
  return contract.ops.filter(filter || (() => true))
    .slice().sort((a, b) => a.path.localeCompare(b.path) || METHODS.indexOf(a.method.toLowerCase()) - METHODS.indexOf(b.method.toLowerCase()))
    .map((o) => [o.id, opLabel(o)]);
}
