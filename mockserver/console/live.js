// Live updates: while a key is in use and the page is shown, the Inspector
// and the Overrides panel read the mock every second by themselves — the
// journal from the last entry shown (GET /admin/requests?since=ID), the
// overrides whole (a short list) — so an app's call and an override a test
// sets appear without a click. The reads are /admin calls: the journal
// never records them, and no override sees them. A read that fails pauses
// the updates a few seconds, and says so.
import { $, setText } from './dom.js';
import { errText, state } from './http.js';
import { pollJournal } from './inspector.js';
import { pollOverrides } from './overrides.js';

const EVERY_MS = 1000;
const AFTER_ERROR_MS = 5000;
const FOLLOWING = 'Live: new calls and overrides show by themselves.';

let timer = 0;
let on = false;

function schedule(ms) {
  clearTimeout(timer);
  timer = on ? setTimeout(tick, ms) : 0;
}

async function tick() {
  timer = 0;
  const key = state.key;
  if (!key || document.hidden) return; // visibilitychange starts it again
  try {
    await Promise.all([pollJournal(), pollOverrides()]);
    if (key === state.key) setText($('in-live'), FOLLOWING);
    schedule(EVERY_MS);
  } catch (e) {
    if (key !== state.key) return;
    setText($('in-live'), 'Live updates paused (' + errText(e) + '); trying again in ' + AFTER_ERROR_MS / 1000 + ' s.');
    schedule(AFTER_ERROR_MS);
  }
}

// startLive follows the mock for the key in use.
export function startLive() {
  on = true;
  setText($('in-live'), FOLLOWING);
  schedule(EVERY_MS);
}

// stopLive ends it (another key, or none).
export function stopLive() {
  on = false;
  schedule(0);
  setText($('in-live'), '');
}

document.addEventListener('visibilitychange', () => {
  if (on && !document.hidden && !timer) schedule(0);
});
