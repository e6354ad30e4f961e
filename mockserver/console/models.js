// The models panel: list (polled every second while one trains), create
// from a dataset, delete. It fills the model pickers of Ask and Evaluations.
import { $, el, badge, emptyRow, enc, fillSelect, fresh, labelCells, movedOn, say, setText } from './dom.js';
import { act, call, confirmed, envelope, errText, latest, req } from './http.js';
import { refreshConversations } from './ask.js';
import { datasetLabel, onDatasets } from './datasets.js';

const POLL_MS = 1000;
const SETTLED = new Set(['ready', 'completed', 'failed']);
const busy = (m) => typeof m.status === 'string' && !SETTLED.has(m.status);

let models = [];
let timer = 0;

// loadModels lists the models; auto marks a call the user did not ask for.
// When the Ask panel's model changed, its conversations are reloaded; it
// reports whether they were.
export async function loadModels(auto) {
  const current = latest('models');
  const data = await envelope(await call('/api/v1/user/model', req('GET', undefined, { auto })));
  if (!current()) return false;
  models = Array.isArray(data) ? data : [];
  const changed = render();
  schedulePoll();
  if (changed) await refreshConversations();
  return changed;
}

// refreshModels loads the models and, when withConversations, the Ask
// panel's conversations too: once, never twice (on start they used to be
// listed by the model picker's change and again after it).
export async function refreshModels(auto, withConversations) {
  try {
    const changed = await loadModels(auto || 'refresh');
    if (!changed && withConversations) await refreshConversations();
  } catch (e) {
    stopPoll();
    say($('md-msg'), errText(e), 'error');
  }
}

export function stopPoll() {
  clearTimeout(timer);
  timer = 0;
  setText($('md-poll'), '');
}

export function clearModels() {
  stopPoll();
  models = [];
}

// graph shows the knowledge graph's build: a bar while it may go on, and
// where it stopped when it failed (a full-looking bar would read as done).
function graph(m) {
  const p = typeof m.graph_build_progress === 'number' ? Math.max(0, Math.min(100, m.graph_build_progress)) : 0;
  if (m.graph_status === 'failed' || m.status === 'failed') {
    return [badge(m.graph_status || m.status), ' ', el('span', { className: 'stopped' }, 'stopped at ' + p + '%')];
  }
  const bar = el('progress', { max: 100, value: p, 'aria-label': 'Knowledge graph of ' + m.name + ': ' + p + ' percent' });
  return [badge(m.graph_status), ' ', bar, ' ', p + '%'];
}

function render() {
  const rows = models.map((m) => {
    const del = el('button', {
      type: 'button', className: 'small danger', 'aria-label': 'Delete model ' + m.name,
      on: { click: (ev) => deleteModel(ev.currentTarget, m) },
    }, 'Delete');
    return el('tr', {},
      el('td', { className: 'num' }, m.id),
      el('td', {}, m.name),
      el('td', { className: 'wrap' }, datasetLabel(m.dataset_id)),
      el('td', {}, badge(m.status)),
      el('td', {}, ...graph(m)),
      el('td', {}, el('div', { className: 'actions' }, del)));
  });
  $('md-rows').replaceChildren(...(rows.length ? rows : [emptyRow(6, 'No models.')]));
  labelCells($('md-rows'));
  fresh('models', models.map((m, i) => [m.id, rows[i]]));
  movedOn($('md-msg'), models);
  const items = models.map((m) => [m.id, m.name + ' (#' + m.id + ', ' + (m.status || 'no status') + ')']);
  const changed = fillSelect($('ask-model'), items, items.length ? '' : 'No models');
  fillSelect($('ev-model'), items, items.length ? '' : 'No models');
  return changed;
}

// schedulePoll refreshes the models every second while one of them is
// training, and stops when none is.
function schedulePoll() {
  clearTimeout(timer);
  timer = 0;
  const n = models.filter(busy).length;
  setText($('md-poll'), n ? 'Refreshing every second while ' + n + ' model(s) train…' : '');
  if (n) timer = setTimeout(() => refreshModels('poll'), POLL_MS);
}

function deleteModel(button, m) {
  if (!confirmed('Delete model ' + m.name + '?')) return;
  return act(button, $('md-msg'), async () => {
    const res = await envelope(await call(`/api/v1/user/model/${enc(m.id)}`, req('DELETE')));
    await loadModels('refresh');
    return (res && res.message ? res.message : 'Deleted') + ': ' + m.name;
  });
}

function createModel(ev) {
  ev.preventDefault();
  const form = ev.currentTarget;
  return act(form.querySelector('button[type=submit]'), $('md-msg'), async () => {
    const datasetId = $('md-dataset').value;
    if (!datasetId) throw new Error('pick a dataset first');
    const body = { model_name: $('md-name').value.trim(), dataset_id: datasetId };
    const m = await envelope(await call('/api/v1/user/model', req('POST', body)));
    $('md-name').value = '';
    await loadModels('refresh');
    return {
      text: 'Created model ' + m.name + ' (#' + m.id + '), status ' + m.status + '.',
      about: { id: m.id, status: m.status, label: 'Model ' + m.name + ' (#' + m.id + ')' },
    };
  });
}

export function wireModels() {
  onDatasets(() => { if (models.length) render(); });
  $('md-refresh').addEventListener('click', (ev) => act(ev.currentTarget, $('md-msg'), () => loadModels().then(() => 'Refreshed.')));
  $('md-create').addEventListener('submit', createModel);
}
