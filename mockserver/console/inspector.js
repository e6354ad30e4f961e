// The Inspector: the request journal of this key (GET /admin/requests),
// filtered by method, path and status; the console's own refreshes (sent
// with X-Mock-Console, which the journal records like any header) are
// hidden unless asked for, or unless an override answered one. A stream a
// fault ended is named (stream.fault), a CORS preflight as such, one no
// call followed as a probable CORS failure (orphan, always shown), the
// fields a body sent that the contract does not name (unknown_fields,
// D-29), and which use of an override a call spent. It follows the journal
// by itself (pollJournal, live.js): new calls appear without a click.
import { $, el, bytes, emptyRow, enc, fresh, labelCells, say, setText } from './dom.js';
import { ApiError, act, call, confirmed, envelope, errText, req, state } from './http.js';

const KEEP = 500; // the journal's own ring size
const FAULTS = { cut: 'stream cut', stall: 'stream stalled', error: 'error in the stream' };

let journal = [];
let lastId = 0;
let picked = 0;
let soon = 0;

// own reports whether the console made the call by itself.
const own = (e) => {
  const h = (e.request && e.request.headers) || {};
  return Object.keys(h).some((k) => k.toLowerCase() === 'x-mock-console');
};

const orphanOf = (e) => (e.orphan && e.orphan.reason) || '';
const faultOf = (e) => (e.response && e.response.stream && e.response.stream.fault) || '';
const unknownOf = (e) => (Array.isArray(e.unknown_fields) ? e.unknown_fields : []).concat(e.unknown_fields_more ? ['and ' + e.unknown_fields_more + ' more'] : []);
const overrideText = (o) => 'override ' + o.id + (o.use ? ', use ' + o.use : '');

// inspectSoon reads the new journal entries shortly after a call, once
// for a burst of calls.
export function inspectSoon(path) {
  if (soon || !state.key || !path.startsWith('/api/v1/')) return;
  soon = setTimeout(() => { soon = 0; refreshJournal(); }, 250);
}

// loadJournal reads the entries after the last one shown (quiet: the live
// poll). Two reads at once give the same entries: each is added once.
async function loadJournal(quiet) {
  const key = state.key;
  const resp = await call(`/admin/requests?preflight=true&since=${enc(lastId)}`, req('GET', undefined, { quiet }));
  if (resp.status === 401) { state.onRefused(); throw new ApiError(401, 'the key was refused'); }
  const data = await envelope(resp);
  if (key !== state.key) return 0;
  let added = 0;
  for (const e of data) {
    if (e.id <= lastId) continue;
    journal.push(e);
    lastId = e.id;
    added++;
  }
  journal = journal.slice(-KEEP);
  return added;
}

// pollJournal is the live read: the table is drawn again only when calls
// came, so a row the user is on stays as it is.
export async function pollJournal() {
  if (await loadJournal(true)) render(true);
}

export async function refreshJournal() {
  try { render((await loadJournal()) > 0); } catch (e) { say($('in-msg'), errText(e), 'error'); }
}

export function clearJournalView() {
  clearTimeout(soon);
  soon = 0;
  journal = [];
  lastId = 0;
  picked = 0;
  $('in-detail').replaceChildren();
}

function statusClass(n) {
  return n >= 400 ? 's-failed' : n >= 200 && n < 300 ? 's-ready' : '';
}

// shown is the entries that pass the filters, and how many of the
// console's own calls were left out.
function shown() {
  const method = $('in-method').value;
  const path = $('in-path').value.trim().toLowerCase();
  const status = $('in-filter').value;
  const withOwn = $('in-own').checked;
  const withPreflights = $('in-preflight').checked;
  let hidden = 0;
  const out = journal.filter((e) => {
    if (method && e.method !== method) return false;
    if (path && !(e.path + (e.query ? '?' + e.query : '')).toLowerCase().includes(path)) return false;
    if (status && String(e.status)[0] !== status[0]) return false;
    // A preflight no call followed always shows: it is why the app's call failed.
    if (!withPreflights && e.preflight && !e.orphan) return false;
    // A call an override answered always shows: a use it spent is never hidden.
    if (!withOwn && own(e) && !e.override) { hidden++; return false; }
    return true;
  });
  return [out, hidden];
}

const rowLabel = (e) => 'Call ' + e.id + ': ' + e.method + ' ' + e.path + ', status ' + e.status +
  (e.orphan ? ', a CORS preflight no call followed: probable CORS failure' : e.preflight ? ', a CORS preflight' : '') + (faultOf(e) ? ', ' + FAULTS[faultOf(e)] : '') +
  (e.override ? ', answered by ' + overrideText(e.override) : '') +
  (unknownOf(e).length ? ', fields the contract does not name: ' + unknownOf(e).join(', ') : '');

function render(grew) {
  const [list, hidden] = shown();
  const rows = list.map((e) => el('tr', {
    className: 'pick' + (e.id === picked ? ' sel' : ''), tabIndex: 0, 'aria-label': rowLabel(e), 'data-id': e.id,
    on: { click: () => pick(e.id), keydown: (ev) => { if (ev.key === 'Enter') pick(e.id); } },
  },
  el('td', { className: 'num' }, e.id),
  el('td', {}, e.method),
  el('td', { className: 'wrap' }, e.path + (e.query ? '?' + e.query : '')),
  el('td', {}, el('span', { className: 'badge ' + statusClass(e.status) }, e.status),
    faultOf(e) ? el('span', { className: 'fault' }, FAULTS[faultOf(e)] || faultOf(e)) : null,
    e.override ? el('span', { className: 'override' }, overrideText(e.override)) : null,
    e.orphan ? el('span', { className: 'orphan' }, 'probable CORS failure: no call followed')
      : e.preflight ? el('span', { className: 'preflight' }, 'CORS preflight') : null,
    unknownOf(e).length ? el('span', { className: 'unknown' }, 'unknown field' + (unknownOf(e).length > 1 ? 's' : '') + ': ' + unknownOf(e).join(', ')) : null),
  el('td', { className: 'num' }, typeof e.duration_ms === 'number' ? e.duration_ms.toFixed(1) : '')));
  $('in-rows').replaceChildren(...(rows.length ? rows : [emptyRow(5, journal.length ? 'No call matches the filters.' : 'No calls yet.')]));
  labelCells($('in-rows'));
  setText($('in-hidden'), hidden ? hidden + ' refresh(es) of the console itself hidden.' : '');
  fresh('journal', list.map((e, i) => [e.id, rows[i]]));
  if (grew && !picked && list.length) pick(list[list.length - 1].id, true);
}

function headerText(h) {
  return Object.entries(h || {}).map(([k, vs]) => k + ': ' + (Array.isArray(vs) ? vs.join(', ') : vs)).join('\n');
}

function sizeNote(m) {
  return bytes(m.body_size) + (m.body_truncated ? ' (truncated in the journal)' : '');
}

// pick shows one call in full; quiet keeps the user's own pick.
function pick(id, quiet) {
  const e = journal.find((x) => x.id === id);
  if (!e) return;
  if (!quiet) picked = id;
  for (const tr of $('in-rows').children) tr.classList.toggle('sel', tr.dataset.id === String(id));
  const copy = el('button', { type: 'button', className: 'small', on: { click: () => copyCommand(e) } }, 'Copy as curl');
  const st = e.response.stream;
  const fault = faultOf(e);
  $('in-detail').replaceChildren(...[
    el('h3', {}, 'Call ' + e.id + ': ' + e.method + ' ' + e.path + (e.query ? '?' + e.query : '') + ' → ' + e.status + (fault ? ', ' + FAULTS[fault] : '') + ' in ' + e.duration_ms + ' ms'),
    el('p', { className: 'hint' }, e.time + (own(e) ? ' · sent by the console by itself' : '') +
      (e.override ? ' · answered by ' + overrideText(e.override) + ' (' + e.override.kind + ')' : '') +
      (e.orphan ? ' · a CORS preflight no call followed (no key)'
        : e.preflight ? ' · a CORS preflight: the browser asked whether the page may send this call (no key); the call follows it' : '')),
    orphanOf(e) ? el('p', { className: 'msg warn' }, orphanOf(e).charAt(0).toUpperCase() + orphanOf(e).slice(1) + '.') : null,
    unknownOf(e).length ? el('p', { className: 'msg warn' }, 'The body sent fields the contract does not name; the mock ignored them (D-29): ' + unknownOf(e).join(', ')) : null,
    el('div', { className: 'row' }, copy, el('span', { id: 'in-copied', className: 'hint', role: 'status' })),
    el('pre', { className: 'curl' }, e.curl),
    el('h3', {}, 'Request headers'), el('pre', {}, headerText(e.request.headers)),
    el('h3', {}, 'Request body, ' + sizeNote(e.request)), el('pre', {}, e.request.body || '(none)'),
    el('h3', {}, 'Response headers'), el('pre', {}, headerText(e.response.headers)),
    ...(st ? [
      el('h3', {}, 'Streamed chunks: ' + st.chunk_count + (st.truncated ? ' (the journal kept ' + st.chunks.length + ')' : '') + (fault ? '; ended by the fault "' + fault + '"' : '')),
      el('ol', { className: 'chunks' }, ...st.chunks.map((c, i) => el('li', {}, el('span', { className: 'n', 'aria-hidden': 'true' }, String(i + 1)), el('span', {}, c.replace(/\n+$/, ''))))),
    ] : [el('h3', {}, 'Response body, ' + sizeNote(e.response)), el('pre', {}, e.response.body || '(none)')]),
  ].filter((n) => n)); // a part that does not apply is left out (replaceChildren would write "null")
}

async function copyCommand(e) {
  try {
    await navigator.clipboard.writeText(e.curl);
    setText($('in-copied'), 'Copied; set API_KEY in your shell first.');
  } catch (err) {
    setText($('in-copied'), 'The browser refused the clipboard: select the command below.');
  }
}

function clearJournal(ev) {
  if (!confirmed('Clear the journal of this key?')) return;
  return act(ev.currentTarget, $('in-msg'), async () => {
    await envelope(await call('/admin/requests', req('DELETE')));
    clearJournalView();
    render(false);
    return 'Journal cleared.';
  });
}

export function wireInspector() {
  $('in-refresh').addEventListener('click', (ev) => act(ev.currentTarget, $('in-msg'), () => loadJournal().then((n) => { render(n > 0); return 'Refreshed.'; })));
  for (const id of ['in-method', 'in-filter', 'in-own', 'in-preflight']) $(id).addEventListener('change', () => render(false));
  $('in-path').addEventListener('input', () => render(false));
  $('in-clear').addEventListener('click', clearJournal);
}
