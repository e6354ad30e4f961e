// How the console calls the mock: the key in use, the mock controls of the
// operation called, the header that marks the console's own refreshes, the
// waiting state of slow calls, and the reading of the answer's envelope.
import { $, about, say, setText } from './dom.js';

// WAIT_MS: a call still unanswered after this long shows its waiting state.
const WAIT_MS = 300;

// state is what the modules share: the key last submitted (not what is
// typed), and the hooks main.js wires (controlsFor from controls.js,
// onRefused and afterCall).
export const state = {
  key: '',
  controlsFor: () => ({}),
  onRefused: () => {},
  afterCall: () => {},
};

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// req builds the fetch options of one call: the method, the key, a JSON or
// multipart body (the browser writes the multipart boundary), extra
// headers, and for a call the user did not ask for (auto: 'poll' for a
// timer's refresh, 'refresh' for a list reloaded after an action or on
// start) the X-Mock-Console header, which the journal records and the
// Inspector uses to hide the console's own calls. quiet marks a read the
// console makes on a timer (the live polls of /admin, live.js): call does
// not show it as waiting, nor reads anything after it.
export function req(method, body, opts) {
  const o = opts || {};
  const h = { Accept: 'application/json', ...(state.key ? { Authorization: 'Bearer ' + state.key } : {}), ...(o.headers || {}) };
  if (o.auto) h['X-Mock-Console'] = o.auto;
  const init = { method, headers: h, cache: 'no-store' };
  if (o.quiet) quietCalls.add(init);
  if (body instanceof FormData) {
    init.body = body;
  } else if (body !== undefined) {
    h['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  return init;
}

const pending = new Map(); // call number → { label, start }
const quietCalls = new WeakSet(); // the inits req made quiet
let seq = 0;
let ticker = 0;
const forced = new WeakSet(); // answers whose status a control forced

// showBusy names the oldest call still waiting, once it waits WAIT_MS.
function showBusy() {
  const now = Date.now();
  const waiting = [...pending.values()].filter((p) => now - p.start >= WAIT_MS);
  if (!waiting.length) {
    setText($('busy'), '');
    if (!pending.size) { clearInterval(ticker); ticker = 0; }
    return;
  }
  const p = waiting[0];
  setText($('busy'), 'Waiting for ' + p.label + '… ' + ((now - p.start) / 1000).toFixed(1) + ' s' +
    (waiting.length > 1 ? ' (and ' + (waiting.length - 1) + ' more)' : ''));
}

// call sends one request: the API calls get the mock controls set for
// their operation; the call is shown as waiting while it takes long (a
// quiet one is not, and reads nothing after it).
export async function call(path, init) {
  const loud = !quietCalls.has(init);
  if (loud && path.startsWith('/api/v1/')) {
    Object.assign(init.headers, state.controlsFor(init.method, path.split('?')[0]));
  }
  const n = ++seq;
  if (loud) {
    pending.set(n, { label: init.method + ' ' + path.split('?')[0], start: Date.now() });
    if (!ticker) ticker = setInterval(showBusy, 100);
  }
  try {
    const resp = await window.fetch(path, init);
    if (/(^|[,;\s])code=/.test(init.headers.Prefer || '')) forced.add(resp);
    return resp;
  } finally {
    if (loud) {
      pending.delete(n);
      showBusy();
      state.afterCall(path);
    }
  }
}

// envelope returns the data of a success envelope, or throws an ApiError
// carrying the error envelope's message. A 401 that neither a control nor
// an override (X-Mock-Override) forced means the key is refused.
export async function envelope(resp) {
  if (resp.status === 401 && !forced.has(resp) && !resp.headers.get('X-Mock-Override')) state.onRefused();
  const text = await resp.text();
  let body = null;
  try { body = JSON.parse(text); } catch (e) { body = null; }
  if (resp.ok && body && body.status === 'success') return body.data;
  if (body && typeof body.message === 'string' && body.message) throw new ApiError(resp.status, body.message);
  throw new ApiError(resp.status, 'unexpected answer: ' + text.slice(0, 200));
}

export function errText(e) {
  if (e instanceof ApiError) return 'Error ' + e.status + ': ' + e.message;
  return 'Error: ' + (e && e.message ? e.message : String(e));
}

// act runs one user action: the button is disabled meanwhile, a wait
// longer than WAIT_MS is shown in out with its duration, and the outcome
// is shown there: fn returns a text (ok) or { text, kind, about }, or
// throws an error (with an about of its own when it states a resource's
// state: see about in dom.js).
export async function act(button, out, fn) {
  say(out, ''); // an old message no longer describes the state
  if (button) { button.disabled = true; button.setAttribute('aria-busy', 'true'); }
  const start = Date.now();
  const tick = setInterval(() => {
    const ms = Date.now() - start;
    if (ms >= WAIT_MS) say(out, 'Waiting for the answer… ' + (ms / 1000).toFixed(1) + ' s', 'wait');
  }, 100);
  try {
    const r = await fn();
    clearInterval(tick);
    if (typeof r === 'string') say(out, r, 'ok');
    else if (r && r.text) say(out, r.text, r.kind || 'ok');
    else say(out, '');
    if (r && r.about) about(out, r.about);
  } catch (e) {
    clearInterval(tick);
    say(out, errText(e), 'error');
    if (e && e.about) about(out, e.about);
  } finally {
    clearInterval(tick);
    if (button) {
      button.removeAttribute('aria-busy');
      if (button.isConnected) button.disabled = button.dataset.off === 'true';
    }
  }
}

// confirmed asks before a destructive call.
export function confirmed(text) {
  return window.confirm(text);
}

// latest numbers the calls of one loader, so a slow old answer never
// overwrites a newer one.
const latestSeq = {};
export function latest(name) {
  const n = (latestSeq[name] || 0) + 1;
  latestSeq[name] = n;
  return () => latestSeq[name] === n;
}
