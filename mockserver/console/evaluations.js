// The evaluations panel: list (by status), create, start, run the RAGAS
// example, delete. A running evaluation is polled (GET of the evaluation)
// and shows how long it has run; its Delete can be tried, and the API's
// refusal (409) is shown as the API words it.
import { $, el, badge, emptyRow, enc, fresh, labelCells, movedOn, say, setText } from './dom.js';
import { ApiError, act, call, confirmed, envelope, errText, latest, req } from './http.js';

const POLL_MS = 1000;
const METRICS = [['faithfulness', 'faithfulness'], ['answer_relevancy', 'relevancy'], ['context_precision', 'precision'], ['context_recall', 'recall']];
export const RAGAS_EXAMPLE = {
  question: 'How long is the standard warranty?',
  answer: 'The standard warranty period is 24 months.',
  contexts: ['The standard warranty period is 24 months from the date of delivery.'],
  ground_truth: '24 months from delivery.',
};

let evaluations = [];
let total = 0;
let timer = 0;

// loadEvaluations lists the evaluations; auto marks a call the user did
// not ask for.
export async function loadEvaluations(auto) {
  const current = latest('evaluations');
  const params = new URLSearchParams({ per_page: '100' });
  const status = $('ev-filter').value;
  if (status) params.set('status', status);
  const page = await envelope(await call(`/api/v1/evaluations?${params}`, req('GET', undefined, { auto })));
  if (!current()) return;
  evaluations = page && Array.isArray(page.evaluations) ? page.evaluations : [];
  total = page && typeof page.total === 'number' ? page.total : evaluations.length;
  render();
  schedulePoll();
}

export async function refreshEvaluations(auto) {
  try {
    await loadEvaluations(auto || 'refresh');
  } catch (e) {
    stopPoll();
    say($('ev-msg'), errText(e), 'error');
  }
}

export function stopPoll() {
  clearTimeout(timer);
  timer = 0;
  setText($('ev-poll'), '');
}

export function clearEvaluations() {
  stopPoll();
  evaluations = [];
}

// scores lists the RAGAS scores of an evaluation's last run, one per line,
// or why the run failed.
function scores(e) {
  const r = e && e.results;
  if (!r || typeof r !== 'object') return [];
  if (r.error) return [String(r.error)];
  const s = r.scores || {};
  return METRICS.map(([k, label]) => label + ' ' + (typeof s[k] === 'number' ? s[k].toFixed(2) : '–'));
}

// scoreCells lists the scores one per line, or a failed run's reason as
// text that wraps: the column stays narrow enough for the table to fit.
function scoreCells(e) {
  const r = e && e.results;
  if (r && r.error) return [el('div', { className: 'why' }, String(r.error))];
  return scores(e).map((line) => el('div', {}, line));
}

// progress is what the API tells of a run under way: since when it runs
// (started_at) and over how many questions (question_count).
function progress(e) {
  const started = Date.parse(e.started_at || '');
  const secs = isFinite(started) ? Math.max(0, Math.round((Date.now() - started) / 1000)) : null;
  const words = ['running'];
  if (secs !== null) words.push('for ' + secs + ' s');
  if (typeof e.question_count === 'number') words.push('over ' + e.question_count + ' question(s)');
  return el('div', { className: 'running-note' },
    el('progress', { 'aria-label': 'Evaluation ' + e.name + ' is running' }), ' ', words.join(' '));
}

function render() {
  const rows = evaluations.map((e) => {
    const model = e.model && e.model.name ? e.model.name + ' (#' + e.model_id + ')' : '#' + e.model_id;
    const button = (label, cls, aria, fn) => el('button', { type: 'button', className: 'small' + (cls ? ' ' + cls : ''), 'aria-label': aria, on: { click: (ev) => fn(ev.currentTarget, e) } }, label);
    const running = e.status === 'running';
    return el('tr', {},
      el('td', { className: 'num' }, e.id),
      el('td', { className: 'name' }, el('div', {}, e.name), el('div', { className: 'hint' }, model)),
      el('td', {}, badge(e.status), running ? progress(e) : null),
      el('td', { className: 'scores' }, ...scoreCells(e)),
      el('td', {}, el('div', { className: 'actions stack' },
        e.status === 'pending' ? button('Start', '', 'Start evaluation ' + e.name, startEvaluation) : null,
        running ? null : button('RAGAS example', '', 'Run the RAGAS example on evaluation ' + e.name, runRagas),
        button('Delete', 'danger', 'Delete evaluation ' + e.name, deleteEvaluation))));
  });
  $('ev-rows').replaceChildren(...(rows.length ? rows : [emptyRow(5, 'No evaluations.')]));
  labelCells($('ev-rows'));
  fresh('evaluations', evaluations.map((e, i) => [e.id, rows[i]]));
  if (total > evaluations.length) say($('ev-msg'), 'Showing ' + evaluations.length + ' of ' + total + '.');
  else movedOn($('ev-msg'), evaluations);
}

// aboutEvaluation is what a message about e in status says when e moves on.
const aboutEvaluation = (e, status, tail) => ({ id: e.id, status, label: 'Evaluation ' + e.name, tail });

// schedulePoll reads every running evaluation each second; when one of
// them has moved on, the list is read again.
function schedulePoll() {
  clearTimeout(timer);
  timer = 0;
  const n = evaluations.filter((e) => e.status === 'running').length;
  setText($('ev-poll'), n ? 'Polling every second while ' + n + ' evaluation(s) run…' : '');
  if (n) timer = setTimeout(pollRunning, POLL_MS);
}

async function pollRunning() {
  try {
    const current = latest('evaluations');
    const running = evaluations.filter((e) => e.status === 'running');
    const now = await Promise.all(running.map(async (e) => envelope(await call(`/api/v1/evaluations/${enc(e.id)}`, req('GET', undefined, { auto: 'poll' })))));
    if (!current()) return;
    if (now.some((e) => !e || e.status !== 'running')) {
      await loadEvaluations('poll');
      return;
    }
    const byId = new Map(now.map((e) => [e.id, e]));
    evaluations = evaluations.map((e) => byId.get(e.id) || e);
    render();
    schedulePoll();
  } catch (e) {
    stopPoll();
    say($('ev-msg'), errText(e), 'error');
  }
}

function createEvaluation(ev) {
  ev.preventDefault();
  const form = ev.currentTarget;
  return act(form.querySelector('button[type=submit]'), $('ev-msg'), async () => {
    const modelId = $('ev-model').value;
    if (!modelId) throw new Error('pick a model first');
    const body = { name: $('ev-name').value.trim(), model_id: Number(modelId) };
    const desc = $('ev-desc').value.trim();
    if (desc) body.description = desc;
    const e = await envelope(await call('/api/v1/evaluations', req('POST', body)));
    form.reset();
    await loadEvaluations('refresh');
    return { text: 'Created evaluation ' + e.name + ' (#' + e.id + '), status ' + e.status + '.', about: aboutEvaluation(e, e.status) };
  });
}

function startEvaluation(button, e) {
  return act(button, $('ev-msg'), async () => {
    const r = await envelope(await call(`/api/v1/evaluations/${enc(e.id)}/start`, req('POST')));
    await loadEvaluations('refresh');
    return { text: (r && r.message ? r.message : 'Started') + ': ' + e.name, about: aboutEvaluation(e, 'running') };
  });
}

function runRagas(button, e) {
  return act(button, $('ev-msg'), async () => {
    const r = await envelope(await call(`/api/v1/evaluations/${enc(e.id)}/run-ragas`, req('POST', { samples: [RAGAS_EXAMPLE] })));
    await loadEvaluations('refresh');
    return 'Scored ' + e.name + ': ' + (scores(r).join(', ') || 'no scores') + '.';
  });
}

// deleteEvaluation tries the delete whatever the status: the API decides
// (a running one is refused with 409, and that message is shown).
function deleteEvaluation(button, e) {
  if (!confirmed('Delete evaluation ' + e.name + '?' + (e.status === 'running' ? ' It is running: the API may refuse (409).' : ''))) return;
  return act(button, $('ev-msg'), async () => {
    let r;
    try {
      r = await envelope(await call(`/api/v1/evaluations/${enc(e.id)}`, req('DELETE')));
    } catch (err) {
      // A refusal states the evaluation's state: it holds while that does.
      if (err instanceof ApiError && err.status === 409) err.about = aboutEvaluation(e, e.status, ': the 409 no longer holds');
      throw err;
    }
    await loadEvaluations('refresh');
    return (r && r.message ? r.message : 'Deleted') + ': ' + e.name;
  });
}

export function wireEvaluations() {
  $('ragas-sample').textContent = JSON.stringify({ samples: [RAGAS_EXAMPLE] }, null, 2);
  $('ev-filter').addEventListener('change', () => refreshEvaluations());
  $('ev-refresh').addEventListener('click', (ev) => act(ev.currentTarget, $('ev-msg'), () => loadEvaluations().then(() => 'Refreshed.')));
  $('ev-create').addEventListener('submit', createEvaluation);
}
