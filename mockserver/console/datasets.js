// The datasets panel: list, create with files and URLs, add files, delete.
// A create or an upload names every refused file with its reason (the
// API's failures, D-16/D-27), never a bare success.
import { $, el, bytes, emptyRow, enc, fillSelect, fresh, labelCells, say } from './dom.js';
import { act, call, confirmed, envelope, errText, latest, req } from './http.js';

let datasets = [];
const listeners = [];

// onDatasets calls fn after every new list of datasets (the models panel
// names each model's dataset from it).
export function onDatasets(fn) {
  listeners.push(fn);
}

// datasetLabel names a dataset by its name and id, or by its id alone when
// the list does not hold it (not read yet, or deleted).
export function datasetLabel(id) {
  if (id === null || id === undefined) return '';
  const d = datasets.find((x) => String(x.id) === String(id));
  return d ? d.name + ' (#' + d.id + ')' : '#' + id;
}

// loadDatasets lists the datasets; auto marks a call the user did not ask for.
export async function loadDatasets(auto) {
  const current = latest('datasets');
  const data = await envelope(await call('/api/v1/user/dataset', req('GET', undefined, { auto })));
  if (!current()) return;
  datasets = Array.isArray(data) ? data : [];
  render();
}

export async function refreshDatasets() {
  try { await loadDatasets('refresh'); } catch (e) { say($('ds-msg'), errText(e), 'error'); }
}

export function clearDatasets() {
  datasets = [];
  for (const fn of listeners) fn();
  $('ds-failures').replaceChildren();
}

function render() {
  const rows = datasets.map((d) => {
    const files = (Array.isArray(d.files) ? d.files : []).map((f) => f && f.name).filter(Boolean);
    const urls = Array.isArray(d.urls) ? d.urls : [];
    const del = el('button', {
      type: 'button', className: 'small danger', 'aria-label': 'Delete dataset ' + d.name,
      on: { click: (ev) => deleteDataset(ev.currentTarget, d) },
    }, 'Delete');
    return el('tr', {},
      el('td', { className: 'num' }, d.id),
      el('td', {}, d.name),
      el('td', {}, d.type),
      el('td', { className: 'wrap' }, files.concat(urls).join(', ')),
      el('td', { className: 'num' }, d.rows),
      el('td', { className: 'num' }, bytes(d.size)),
      el('td', {}, el('div', { className: 'actions' }, del)));
  });
  $('ds-rows').replaceChildren(...(rows.length ? rows : [emptyRow(7, 'No datasets.')]));
  labelCells($('ds-rows'));
  fresh('datasets', datasets.map((d, i) => [d.id, rows[i]]));
  const items = datasets.map((d) => [d.id, d.name + ' (#' + d.id + ')']);
  fillSelect($('ds-target'), items, items.length ? '' : 'No datasets');
  fillSelect($('md-dataset'), items, items.length ? '' : 'No datasets');
  for (const fn of listeners) fn();
}

function deleteDataset(button, d) {
  const permanent = $('ds-permanent').checked;
  if (!confirmed('Delete dataset ' + d.name + (permanent ? ' and its files, permanently' : '') + '?')) return;
  $('ds-failures').replaceChildren();
  return act(button, $('ds-msg'), async () => {
    const res = await envelope(await call(`/api/v1/user/dataset/${enc(d.id)}?permanent=${permanent}`, req('DELETE')));
    await loadDatasets('refresh');
    return (res && res.message ? res.message : 'Deleted') + ': ' + d.name + (permanent ? ' (permanently)' : '');
  });
}

// refused lists the files the API did not keep, with their reasons
// (failures), or their names alone (failed_files) from a server that
// gives no reasons; it returns how many.
function refused(r) {
  const failures = Array.isArray(r && r.failures) ? r.failures : [];
  const names = Array.isArray(r && r.failed_files) ? r.failed_files : [];
  const items = failures.length
    ? failures.map((f) => el('li', {}, String(f && f.name) + ': ' + String(f && f.reason)))
    : names.map((n) => el('li', {}, String(n)));
  $('ds-failures').replaceChildren(...items);
  return items.length;
}

function createDataset(ev) {
  ev.preventDefault();
  const form = ev.currentTarget;
  $('ds-failures').replaceChildren();
  return act(form.querySelector('button[type=submit]'), $('ds-msg'), async () => {
    const fd = new FormData();
    fd.append('dataset_name', $('ds-name').value.trim());
    for (const f of $('ds-files').files) fd.append('files', f, f.name);
    const urls = $('ds-urls').value.split(/\s+/).filter(Boolean);
    if (urls.length) fd.append('urls', urls.join('\n'));
    const d = await envelope(await call('/api/v1/user/dataset', req('POST', fd)));
    form.reset();
    await loadDatasets('refresh');
    $('md-dataset').value = String(d.id);
    const text = 'Created dataset ' + d.name + ' (#' + d.id + '): ' + d.file_count + ' file(s) kept, ' + d.rows + ' rows, type ' + d.type + '.';
    const n = refused(d);
    return n ? { text: text + ' ' + n + ' file(s) refused:', kind: 'warn' } : text;
  });
}

function uploadFiles(ev) {
  ev.preventDefault();
  const form = ev.currentTarget;
  $('ds-failures').replaceChildren();
  return act(form.querySelector('button[type=submit]'), $('ds-msg'), async () => {
    const id = $('ds-target').value;
    if (!id) throw new Error('pick a dataset first');
    const fd = new FormData();
    fd.append('dataset_id', id);
    for (const f of $('ds-more').files) fd.append('files', f, f.name);
    const r = await envelope(await call('/api/v1/user/dataset/upload', req('POST', fd)));
    $('ds-more').value = '';
    await loadDatasets('refresh');
    const text = 'Dataset #' + r.dataset_id + ': ' + r.files_uploaded + ' file(s) added (' + bytes(r.total_size) + ').';
    const n = refused(r);
    return n ? { text: text + ' ' + n + ' file(s) refused:', kind: 'warn' } : text;
  });
}

export function wireDatasets() {
  $('ds-refresh').addEventListener('click', (ev) => act(ev.currentTarget, $('ds-msg'), () => loadDatasets().then(() => 'Refreshed.')));
  $('ds-create').addEventListener('submit', createDataset);
  $('ds-upload').addEventListener('submit', uploadFiles);
}
