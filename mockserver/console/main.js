// The console's start: the key (offered, checked, forgotten on a 401), the
// Admin panel, loading every panel once, and the wiring of the modules.
import { $, fillSelect, forgetFresh, say } from './dom.js';
import { act, call, confirmed, envelope, errText, req, state } from './http.js';
import { loadContract } from './contract.js';
import { controlsFor, fillControls, wireControls } from './controls.js';
import { clearDatasets, refreshDatasets, wireDatasets } from './datasets.js';
import { clearModels, refreshModels, wireModels } from './models.js';
import { clearAsk, wireAsk } from './ask.js';
import { clearEvaluations, refreshEvaluations, wireEvaluations } from './evaluations.js';
import { clearJournalView, inspectSoon, refreshJournal, wireInspector } from './inspector.js';
import { clearOverrides, fillOverrideForm, overridesSoon, refreshOverrides, wireOverrides } from './overrides.js';
import { startLive, stopLive } from './live.js';

const KEY_STORAGE = 'contractkit.console.apiKey';
// The server fills this tag only when it runs with its generated
// development key; a configured key is never written into the page.
const DEV_KEY = (document.querySelector('meta[name="mock-dev-key"]') || {}).content || '';
const MESSAGES = ['ds-msg', 'md-msg', 'ask-msg', 'ev-msg', 'adm-msg', 'ov-msg', 'in-msg'];

// reloadAll reads every panel once: each list is asked for one time.
function reloadAll() {
  for (const id of MESSAGES) say($(id), '');
  return Promise.all([refreshDatasets(), refreshModels('refresh', true), refreshEvaluations(), refreshOverrides(), refreshJournal()])
    .then(() => { document.body.dataset.loaded = 'true'; });
}

// clearPanels empties every panel: nothing of another key stays on screen.
function clearPanels() {
  stopLive();
  delete document.body.dataset.loaded;
  clearDatasets();
  clearModels();
  clearEvaluations();
  clearJournalView();
  clearOverrides();
  clearAsk();
  forgetFresh();
  for (const id of ['ds-rows', 'md-rows', 'ev-rows', 'in-rows']) $(id).replaceChildren();
  for (const id of ['ds-target', 'md-dataset', 'ask-model', 'ev-model']) fillSelect($(id), [], 'Enter a key first');
  for (const id of MESSAGES) say($(id), '');
}

// keyRefused runs on a 401: the key is forgotten, the panels emptied.
function keyRefused() {
  if (!state.key) return;
  state.key = '';
  try { sessionStorage.removeItem(KEY_STORAGE); } catch (e) { /* storage disabled */ }
  clearPanels();
  say($('key-msg'), 'The key was refused (401 Invalid API key): the panels are cleared. Enter a valid key.', 'error');
}

async function startWith(key) {
  clearPanels();
  state.key = key;
  try { sessionStorage.setItem(KEY_STORAGE, key); } catch (e) { /* storage disabled: the field still works */ }
  say($('key-msg'), 'Checking the key…');
  try {
    const who = await envelope(await call('/admin/account', req('GET')));
    say($('key-msg'), 'Key accepted: ' + (who && who.account ? who.account : 'an account') + (key === DEV_KEY ? ' (the development key)' : '') + '. Every call below uses it.', 'ok');
  } catch (e) {
    if (!state.key) return; // refused: keyRefused said so
    say($('key-msg'), errText(e), 'error');
    return;
  }
  await reloadAll();
  if (key === state.key) startLive();
}

function useKey(ev) {
  ev.preventDefault();
  const key = $('api-key').value.trim();
  if (!key) { say($('key-msg'), 'Enter an API key first.', 'error'); return; }
  startWith(key);
}

function advance(ev) {
  return act(ev.currentTarget, $('adm-msg'), async () => {
    const r = await envelope(await call('/admin/advance', req('POST')));
    await reloadAll();
    return (r && r.message ? r.message : 'Done') + (r && r.advanced_by ? ' by ' + r.advanced_by : '') + '.';
  });
}

function reset(ev) {
  if (!confirmed('Reset the account? Every dataset, model, conversation and evaluation of this key is replaced by the fixtures.')) return;
  return act(ev.currentTarget, $('adm-msg'), async () => {
    const r = await envelope(await call('/admin/reset', req('POST')));
    $('answer').replaceChildren();
    $('sources').replaceChildren();
    await reloadAll();
    return (r && r.message ? r.message : 'Reset') + ': the fixtures are loaded again.';
  });
}

state.controlsFor = controlsFor;
state.onRefused = keyRefused;
state.afterCall = (path) => { inspectSoon(path); overridesSoon(path); };

let saved = null;
try { saved = sessionStorage.getItem(KEY_STORAGE); } catch (e) { saved = null; }
$('api-key').value = saved || '';
if (DEV_KEY) $('use-dev-key').hidden = false;

$('key-form').addEventListener('submit', useKey);
$('use-dev-key').addEventListener('click', () => { $('api-key').value = DEV_KEY; startWith(DEV_KEY); });
$('adm-advance').addEventListener('click', advance);
$('adm-reset').addEventListener('click', reset);
wireControls();
wireDatasets();
wireModels();
wireAsk();
wireEvaluations();
wireInspector();
wireOverrides();

clearPanels();
fillControls();
fillOverrideForm();
// The contract names the operations, their statuses and named examples the
// controls offer; it needs no key.
loadContract().then(() => { fillControls(); fillOverrideForm(); }).catch((e) => say($('key-msg'), 'The contract could not be read: ' + errText(e), 'error'));
if (saved) {
  startWith(saved);
} else {
  say($('key-msg'), DEV_KEY
    ? 'This mock runs with its development key: use it, or enter another key. Nothing is called until you do.'
    : 'Enter an API key to start; nothing is called until you do.');
}
