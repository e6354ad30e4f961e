// DOM helpers of the console: every node is built from text, never from
// HTML, so no server value is ever parsed as markup.

export const $ = (id) => document.getElementById(id);

const FRESH_MS = 5000;
const KNOWN_STATUS = new Set(['pending', 'training', 'building', 'ready', 'completed', 'running', 'failed']);

export function el(tag, attrs, ...kids) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'on') {
      for (const [ev, fn] of Object.entries(v)) n.addEventListener(ev, fn);
    } else if (k.startsWith('aria-') || k.startsWith('data-') || k === 'role' || k === 'scope') {
      n.setAttribute(k, String(v));
    } else {
      n[k] = v;
    }
  }
  for (const kid of kids) {
    if (kid === null || kid === undefined) continue;
    n.append(typeof kid === 'object' ? kid : String(kid)); // strings become text nodes
  }
  return n;
}

// setText changes a text only when it differs, so live regions are not
// announced again for the same words.
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

// say shows an outcome; kind is ok, error, warn or wait (or none). A new
// message ends what an old one was about (sayAbout).
export function say(out, text, kind) {
  setText(out, text);
  out.className = 'msg' + (kind ? ' ' + kind : '');
  delete out.dataset.about;
}

// about marks the message in out as a statement about one resource in one
// state ({ id, status, label, tail }): when a later list shows it in
// another state, movedOn replaces the message, so "status pending" or a
// 409 about a running evaluation never outlives the state it describes.
export function about(out, what) {
  out.dataset.about = JSON.stringify(what);
}

// movedOn checks the message in out against the resources just listed: a
// resource in another state replaces it ("<label> is now <status><tail>.",
// still followed), one no longer listed ends it.
export function movedOn(out, list) {
  if (!out.dataset.about) return;
  let a;
  try { a = JSON.parse(out.dataset.about); } catch (e) { delete out.dataset.about; return; }
  const r = list.find((x) => String(x.id) === String(a.id));
  if (!r) {
    say(out, '');
    return;
  }
  if (r.status === a.status) return;
  say(out, a.label + ' is now ' + (r.status || 'without a status') + (a.tail || '') + '.', r.status === 'failed' ? 'warn' : 'ok');
  about(out, { ...a, status: r.status, tail: '' });
}

export function badge(status) {
  const s = status === null || status === undefined ? 'none' : String(status);
  return el('span', { className: 'badge' + (KNOWN_STATUS.has(s) ? ' s-' + s : '') }, s);
}

export function emptyRow(cols, text) {
  return el('tr', {}, el('td', { className: 'empty', colSpan: cols }, text));
}

// labelCells prepares the rows of tbody for the card layout of narrow
// screens: each cell is named after its column header (td::before shows
// data-label) and its content is one box beside that name.
export function labelCells(tbody) {
  const heads = [...tbody.closest('table').querySelectorAll('thead th')].map((th) => th.textContent.trim());
  for (const tr of tbody.children) {
    [...tr.children].forEach((td, i) => {
      if (td.colSpan !== 1 || !heads[i]) return;
      td.dataset.label = heads[i];
      td.replaceChildren(el('div', { className: 'cell' }, ...td.childNodes));
    });
  }
}

export function bytes(n) {
  if (typeof n !== 'number' || !isFinite(n)) return '';
  if (n < 1024) return n + ' B';
  if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KiB';
  return (n / 1024 / 1024).toFixed(1) + ' MiB';
}

export const enc = (v) => encodeURIComponent(String(v));

// fillSelect replaces the options of a select only when they changed, so
// a refresh every second does not close an open list, and keeps the
// selected value when it still exists. It reports whether the value changed.
export function fillSelect(select, items, placeholder) {
  const sig = JSON.stringify([placeholder || '', items]);
  if (select.dataset.sig === sig) return false;
  select.dataset.sig = sig;
  const before = select.value;
  const opts = [];
  if (placeholder) opts.push(el('option', { value: '' }, placeholder));
  for (const [value, label] of items) opts.push(el('option', { value: String(value) }, label));
  select.replaceChildren(...opts);
  if (items.some(([v]) => String(v) === before)) select.value = before;
  return select.value !== before;
}

// fresh marks the rows whose ids were not there at the previous render
// (never on the first), keeps them highlighted a few seconds, and scrolls
// the newest into view. marks holds, per kind, the ids seen and the
// highlight deadlines.
const seen = {};
const marks = {};
export function fresh(kind, pairs) {
  const now = Date.now();
  const before = seen[kind];
  const m = marks[kind] || (marks[kind] = new Map());
  let newest = null;
  for (const [id, tr] of pairs) {
    const k = String(id);
    if (before && !before.has(k)) { m.set(k, now + FRESH_MS); newest = tr; }
    if ((m.get(k) || 0) > now) tr.classList.add('new');
  }
  seen[kind] = new Set(pairs.map(([id]) => String(id)));
  if (newest) requestAnimationFrame(() => newest.scrollIntoView({ block: 'nearest' }));
}

// forgetFresh drops what fresh remembers (another key, another account).
export function forgetFresh() {
  for (const k of Object.keys(seen)) delete seen[k];
  for (const k of Object.keys(marks)) delete marks[k];
}
