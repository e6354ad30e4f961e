// The Ask panel: conversations of the chosen model, their messages, and a
// streamed answer read as an app reads it. A stream that stalls or is cut
// is named as such, not as a bare "network error".
import { $, el, enc, fillSelect, say, setText } from './dom.js';
import { act, call, envelope, errText, latest, req, state } from './http.js';
import { readEvents } from './sse.js';

// STALL_MS: a stream with no event for this long is reported stalled.
const STALL_MS = 2000;

let abort = null;

async function loadConversations() {
  const current = latest('conversations');
  const modelId = $('ask-model').value;
  const select = $('ask-conv');
  if (!modelId) {
    fillSelect(select, [], 'None: a one-off question');
    return loadMessages();
  }
  const data = await envelope(await call(`/api/v1/user/conversations?model_id=${enc(modelId)}&limit=100`, req('GET', undefined, { auto: 'refresh' })));
  if (!current()) return;
  const items = (Array.isArray(data) ? data : []).map((c) => [c.id, (c.title || 'Untitled') + ' (' + c.total_messages + ' messages)']);
  fillSelect(select, items, 'None: a one-off question');
  return loadMessages();
}

export async function refreshConversations() {
  try { await loadConversations(); } catch (e) { say($('ask-msg'), errText(e), 'error'); }
}

async function loadMessages() {
  const current = latest('messages');
  const id = $('ask-conv').value;
  const list = $('messages');
  if (!id) {
    list.replaceChildren(el('li', { className: 'hint' }, 'Pick or create a conversation to keep the questions and answers.'));
    return;
  }
  const data = await envelope(await call(`/api/v1/user/conversations/${enc(id)}/messages`, req('GET', undefined, { auto: 'refresh' })));
  if (!current()) return;
  const items = (Array.isArray(data) ? data : []).map((m) => el('li', {}, el('span', { className: 'role' }, m.role + ': '), m.content));
  list.replaceChildren(...(items.length ? items : [el('li', { className: 'hint' }, 'No messages yet.')]));
}

async function refreshMessages() {
  try { await loadMessages(); } catch (e) { say($('ask-msg'), errText(e), 'error'); }
}

function createConversation(ev) {
  return act(ev.currentTarget, $('ask-msg'), async () => {
    const modelId = $('ask-model').value;
    if (!modelId) throw new Error('pick a model first');
    const body = { model_id: Number(modelId), title: $('conv-title').value.trim() };
    const c = await envelope(await call('/api/v1/user/conversations', req('POST', body)));
    $('conv-title').value = '';
    await loadConversations();
    $('ask-conv').value = c.id;
    await loadMessages();
    return 'Created conversation ' + (c.title || 'Untitled') + '.';
  });
}

function setAsking(on) {
  $('ask-go').disabled = on;
  $('ask-stop').disabled = !on;
  $('answer').setAttribute('aria-busy', on ? 'true' : 'false');
}

async function ask(ev) {
  ev.preventDefault();
  if (abort) return;
  const out = $('ask-msg');
  const modelId = $('ask-model').value;
  const query = $('ask-query').value.trim();
  if (!modelId) { say(out, 'Error: pick a model first', 'error'); return; }
  if (!query) { say(out, 'Error: type a question first', 'error'); return; }
  const conv = $('ask-conv').value;
  const body = { query, model_id: Number(modelId) };
  if (conv) body.conversation_id = conv;

  const answer = document.createTextNode('');
  $('answer').replaceChildren(answer);
  $('sources').replaceChildren();
  const ctl = new AbortController();
  abort = ctl;
  setAsking(true);
  say(out, 'Asking…');
  let finished = null;
  let failure = '';
  let tokens = 0;
  let streaming = false; // the answer's headers arrived: a stream is open
  let stalled = false;
  let last = Date.now(); // the last event, or the request
  // The watchdog: a wait for the answer shows as waiting, a stream with no
  // event for STALL_MS as stalled (Stop ends it).
  const watch = setInterval(() => {
    const s = ((Date.now() - last) / 1000).toFixed(1);
    if (!streaming) {
      if (Date.now() - last >= 300) say(out, 'Waiting for the answer… ' + s + ' s', 'wait');
    } else if (Date.now() - last >= STALL_MS) {
      stalled = true;
      say(out, 'The stream has stalled: no event for ' + s + ' s after ' + tokens + ' token(s). Stop ends it.', 'warn');
    }
  }, 250);
  const onData = (d) => {
    last = Date.now();
    if (d === '[DONE]') return true;
    let c;
    try { c = JSON.parse(d); } catch (e) { failure = 'an event is not JSON: ' + d.slice(0, 120); return false; }
    if (!c || typeof c !== 'object') return false;
    switch (c.type) {
      case 'status':
        say(out, 'Streaming… (' + (c.content || 'status') + ')');
        break;
      case 'context': {
        const sources = Array.isArray(c.sources) ? c.sources : [];
        $('sources').replaceChildren(...sources.map((s) => el('li', {}, s)));
        break;
      }
      case 'token':
      case 'delta': // another spelling of a token (D-03)
        if (typeof c.content === 'string') answer.appendData(c.content);
        tokens++;
        say(out, 'Streaming… ' + tokens + ' token(s) so far');
        break;
      case 'done':
        finished = c;
        break;
      case 'error':
        failure = c.message || c.content || 'the stream reported an error';
        break;
      default:
        break;
    }
    return false;
  };
  try {
    const resp = await call('/api/v1/user/inference', { ...req('POST', body, { headers: { Accept: 'text/event-stream' } }), signal: ctl.signal });
    const type = (resp.headers.get('Content-Type') || '').toLowerCase();
    if (!resp.ok || !type.startsWith('text/event-stream') || !resp.body) {
      const data = await envelope(resp); // throws the error envelope's message
      answer.appendData(data && typeof data.response === 'string' ? data.response : JSON.stringify(data));
      say(out, 'Answered with one JSON result (not a stream).', 'ok');
    } else {
      streaming = true;
      last = Date.now();
      const sawDone = await readEvents(resp.body, onData);
      if (failure) {
        say(out, 'Error in the stream: ' + failure, 'error');
      } else if (!sawDone) {
        say(out, 'The stream ended without [DONE] after ' + tokens + ' token(s).', 'error');
      } else if (finished) {
        say(out, 'Done: ' + (finished.tokens_used ?? tokens) + ' tokens in ' + (finished.latency_ms ?? '?') + ' ms.', 'ok');
      } else {
        say(out, 'Done: ' + tokens + ' tokens.', 'ok');
      }
    }
  } catch (e) {
    if (e && e.name === 'AbortError') {
      say(out, 'Stopped after ' + tokens + ' token(s)' + (stalled ? ', the stream had stalled.' : '.'));
    } else if (streaming) {
      // The body's read failed mid-stream: the server dropped the connection.
      say(out, 'The stream was cut: the connection closed after ' + tokens + ' token(s), without [DONE] (' + (e && e.message ? e.message : 'network error') + ').', 'error');
    } else {
      say(out, errText(e), 'error');
    }
  } finally {
    clearInterval(watch);
    abort = null;
    setAsking(false);
    // The journal records a stream once it has ended: read it now.
    state.afterCall('/api/v1/user/inference');
  }
  if (conv) await refreshConversations();
}

export function clearAsk() {
  for (const id of ['answer', 'sources', 'messages']) $(id).replaceChildren();
  fillSelect($('ask-conv'), [], 'None: a one-off question');
  setText($('ask-msg'), '');
}

export function wireAsk() {
  $('ask-model').addEventListener('change', refreshConversations);
  $('ask-conv').addEventListener('change', refreshMessages);
  $('conv-create').addEventListener('click', createConversation);
  $('conv-title').addEventListener('keydown', (ev) => { // Enter creates the conversation, not a question
    if (ev.key === 'Enter') { ev.preventDefault(); $('conv-create').click(); }
  });
  $('ask-form').addEventListener('submit', ask);
  $('ask-stop').addEventListener('click', () => { if (abort) abort.abort(); });
}
