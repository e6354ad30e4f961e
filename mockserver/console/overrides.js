// The Overrides panel: the key's active overrides (/admin/overrides) with
// their uses left, a form that adds one (the operation chosen from the
// contract, the example from that operation's named examples, the status
// from those it documents), and removing one or all. It follows the
// key's overrides by itself (pollOverrides, live.js): one a test sets, or a
// use an app spends, shows without a click.
import { $, el, emptyRow, enc, fillSelect, fresh, labelCells, say } from './dom.js';
import { act, call, confirmed, envelope, errText, latest, req, state } from './http.js';
import { opById, opItems } from './contract.js';

// UNDOCUMENTED: a status an operation does not document, offered too (a
// gateway's 503 is what an app must survive); the override says so.
const UNDOCUMENTED = '503';

let overrides = [];
let shownSig = '';
let soon = 0;

// loadOverrides reads the key's overrides (quiet: the live poll) and draws
// the table again when they changed, so a Remove button under the pointer
// stays while nothing did.
export async function loadOverrides(quiet) {
  const current = latest('overrides');
  const data = await envelope(await call('/admin/overrides', req('GET', undefined, { quiet })));
  if (!current()) return;
  overrides = Array.isArray(data) ? data : [];
  const sig = JSON.stringify(overrides);
  if (sig === shownSig && $('ov-rows').children.length) return;
  shownSig = sig;
  render();
}

// pollOverrides is the live read.
export function pollOverrides() {
  return loadOverrides(true);
}

export async function refreshOverrides() {
  try { await loadOverrides(); } catch (e) { say($('ov-msg'), errText(e), 'error'); }
}

// overridesSoon reads the uses left shortly after an API call, while
// overrides are set.
export function overridesSoon(path) {
  if (soon || !overrides.length || !state.key || !path.startsWith('/api/v1/')) return;
  soon = setTimeout(() => { soon = 0; refreshOverrides(); }, 300);
}

export function clearOverrides() {
  clearTimeout(soon);
  soon = 0;
  overrides = [];
  shownSig = '';
  $('ov-rows').replaceChildren();
}

// span is a delay as an override shows it: "2s", "100ms..900ms" or
// {min, max}.
const span = (d) => (d && typeof d === 'object' ? d.min + '..' + d.max : String(d));

// answer says in words what an override answers: its answer, the delay
// before it, the pace of its stream.
function answer(r) {
  const x = r || {};
  let what;
  if (x.example) what = 'the example "' + x.example + '"';
  else if (x.stream_fault) what = 'the stream fault "' + x.stream_fault + '"';
  else if (x.data !== undefined) what = x.status + ' with literal data';
  else if (x.status) what = 'status ' + x.status + (x.message ? ': ' + x.message : '');
  else if (x.delay) return 'a delay of ' + span(x.delay) + ', then as usual' + (x.token_interval ? ', tokens every ' + span(x.token_interval) : '');
  else if (x.token_interval) return 'the usual stream, tokens every ' + span(x.token_interval);
  else return JSON.stringify(x);
  return what + (x.delay ? ' after a delay of ' + span(x.delay) : '') + (x.token_interval ? ', tokens every ' + span(x.token_interval) : '');
}

function render() {
  const rows = overrides.map((o) => {
    const del = el('button', {
      type: 'button', className: 'small danger', 'aria-label': 'Remove override ' + o.id,
      on: { click: (ev) => removeOne(ev.currentTarget, o) },
    }, 'Remove');
    const m = o.match || {};
    const only = Object.entries(m.headers || {}).map(([k, v]) => k + ': ' + v).concat(m.console ? ['the console\'s own calls too'] : []);
    return el('tr', {},
      el('td', { className: 'num' }, o.id),
      el('td', { className: 'wrap' }, el('div', {}, o.operation), el('div', { className: 'hint' }, m.method + ' ' + m.path),
        only.length ? el('div', { className: 'hint' }, 'only: ' + only.join('; ')) : null),
      el('td', { className: 'wrap' }, answer(o.respond), o.documented === false ? el('div', { className: 'hint' }, 'not a status the contract documents here') : null),
      el('td', { className: 'num' }, o.remaining === null || o.remaining === undefined ? 'until removed' : o.remaining),
      el('td', { className: 'num' }, typeof o.used === 'number' ? o.used : ''),
      el('td', {}, el('div', { className: 'actions' }, del)));
  });
  $('ov-rows').replaceChildren(...(rows.length ? rows : [emptyRow(6, 'No overrides: every call is served as usual.')]));
  labelCells($('ov-rows'));
  fresh('overrides', overrides.map((o, i) => [o.id, rows[i]]));
}

// fillOverrideForm offers the operations and, for the one chosen, its
// path template, documented statuses, named examples and the kinds of
// answer it can give.
export function fillOverrideForm() {
  fillSelect($('ov-op'), opItems(), '');
  const op = opById($('ov-op').value);
  if (!op) return;
  if ($('ov-op').dataset.path !== op.id) { // a new operation: its template, not the old path
    $('ov-path').value = op.path;
    $('ov-op').dataset.path = op.id;
  }
  const codes = op.errors.includes(UNDOCUMENTED) ? op.errors : op.errors.concat([UNDOCUMENTED]);
  fillSelect($('ov-status'), codes.map((c) => [c, op.errors.includes(c) ? c : c + ' (not documented)']));
  fillSelect($('ov-example'), op.examples.map((n) => [n, n]), op.examples.length ? '' : 'No named example');
  const kind = $('ov-kind');
  for (const o of kind.options) o.disabled = (o.value === 'example' && !op.examples.length) || (o.value === 'stream_fault' && !op.stream);
  if (kind.selectedOptions[0] && kind.selectedOptions[0].disabled) kind.value = 'status';
  for (const f of document.querySelectorAll('#ov-add [data-kind]')) f.hidden = f.dataset.kind !== kind.value;
}

function respond() {
  switch ($('ov-kind').value) {
    case 'example':
      if (!$('ov-example').value) throw new Error('this operation has no named example');
      return { example: $('ov-example').value };
    case 'delay':
      return { delay: $('ov-delay').value.trim() };
    case 'stream_fault':
      return { stream_fault: $('ov-fault').value };
    default: {
      const r = { status: Number($('ov-status').value) };
      if ($('ov-message').value.trim()) r.message = $('ov-message').value.trim();
      return r;
    }
  }
}

function addOverride(ev) {
  ev.preventDefault();
  const form = ev.currentTarget;
  return act(form.querySelector('button[type=submit]'), $('ov-msg'), async () => {
    const op = opById($('ov-op').value);
    if (!op) throw new Error('pick an operation first');
    const body = { match: { method: op.method, path: $('ov-path').value.trim() }, respond: respond() };
    const origin = $('ov-origin').value.trim();
    if (origin) body.match.headers = { Origin: origin };
    if ($('ov-console').checked) body.match.console = true;
    const times = $('ov-times').value.trim();
    if (times) body.times = Number(times);
    const o = await envelope(await call('/admin/overrides', req('POST', body)));
    await loadOverrides();
    return 'Override ' + o.id + ' set: ' + o.operation + ' answers ' + answer(o.respond) + (o.remaining === null ? ' until removed.' : ', ' + o.remaining + ' time(s).');
  });
}

function removeOne(button, o) {
  return act(button, $('ov-msg'), async () => {
    await envelope(await call(`/admin/overrides/${enc(o.id)}`, req('DELETE')));
    await loadOverrides();
    return 'Override ' + o.id + ' removed.';
  });
}

function removeAll(ev) {
  if (!confirmed('Remove every override of this key?')) return;
  return act(ev.currentTarget, $('ov-msg'), async () => {
    const r = await envelope(await call('/admin/overrides', req('DELETE')));
    await loadOverrides();
    return 'Removed ' + (r && typeof r.removed === 'number' ? r.removed : 'every') + ' override(s).';
  });
}

export function wireOverrides() {
  $('ov-op').addEventListener('change', fillOverrideForm);
  $('ov-kind').addEventListener('change', fillOverrideForm);
  $('ov-add').addEventListener('submit', addOverride);
  $('ov-refresh').addEventListener('click', (ev) => act(ev.currentTarget, $('ov-msg'), () => loadOverrides().then(() => 'Refreshed.')));
  $('ov-clear').addEventListener('click', removeAll);
}
