// A frontend on ANOTHER origin (a tiny static server on another port) calls
// the mock with fetch: it lists the models and reads a streamed answer with
// getReader(), which needs the mock's CORS answers. Also the docs page.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { MOCK_URL, MOCK_API_KEY, launch, shot, waitText } = require('./harness.cjs');

const APP = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>App</title></head><body>
<ul id="models"></ul><p id="reads"></p><p id="answer"></p><p id="status">starting</p><p id="model"></p>
<script>
(async () => {
  const q = new URLSearchParams(location.search);
  const base = q.get('base'), key = q.get('key');
  const status = document.getElementById('status');
  if (q.get('page') === 'model') { // the app's model page: one GET, its answer or the service's error message
    const resp = await fetch(base + '/api/v1/user/model/' + encodeURIComponent(q.get('id')), { headers: { Authorization: 'Bearer ' + key } });
    const body = await resp.json();
    document.getElementById('model').textContent = resp.ok ? body.data.name + ' is ' + body.data.status : 'Could not load the model: ' + body.message;
    status.textContent = 'done';
    return;
  }
  if (q.get('page') === 'evaluations') { // the app's evaluations page: one list
    const resp = await fetch(base + '/api/v1/evaluations', { headers: { Authorization: 'Bearer ' + key } });
    const body = await resp.json();
    document.getElementById('model').textContent = resp.ok ? body.data.total + ' evaluation(s)' : 'Could not load the evaluations: ' + body.message;
    status.textContent = 'done';
    return;
  }
  if (q.get('page') === 'traced') { // an app whose fetches carry tracing headers (Sentry, OpenTelemetry) and its own
    try {
      const traced = { Authorization: 'Bearer ' + key, 'sentry-trace': '771a43a4192642f0b136d5159a501700-b7ad6b7169203331-1',
        baggage: 'sentry-environment=dev,sentry-release=app@1.0.0', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        'X-Request-Id': 'req-42' };
      const list = await fetch(base + '/api/v1/user/model', { headers: traced });
      const models = (await list.json()).data;
      for (const m of models) { const li = document.createElement('li'); li.textContent = m.name; document.getElementById('models').append(li); }
      const created = await fetch(base + '/api/v1/user/conversations', {
        method: 'POST', headers: { ...traced, 'Content-Type': 'application/json' },
        body: JSON.stringify({ model_id: models[0].id, titel: 'A typo' }),
      });
      document.getElementById('answer').textContent = created.status + ' ' + (created.headers.get('X-Mock-Unknown-Fields') || '(no unknown fields named)');
      status.textContent = 'done';
    } catch (e) {
      status.textContent = 'error: ' + e;
    }
    return;
  }
  try {
    const list = await fetch(base + '/api/v1/user/model', { headers: { Authorization: 'Bearer ' + key } });
    const models = (await list.json()).data;
    for (const m of models) { const li = document.createElement('li'); li.textContent = m.name + ' ' + m.status; document.getElementById('models').append(li); }
    const ready = models.find((m) => m.status === 'ready');
    const resp = await fetch(base + '/api/v1/user/inference', {
      method: 'POST',
      headers: { Authorization: 'Bearer ' + key, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'What does the warranty cover?', model_id: ready.id }),
    });
    const reader = resp.body.getReader();
    const dec = new TextDecoder();
    let all = '', reads = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      reads++;
      all += dec.decode(value, { stream: true });
      document.getElementById('reads').textContent = String(reads);
    }
    const tokens = all.split('\\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6))).filter((c) => c.type === 'token');
    document.getElementById('answer').textContent = tokens.map((c) => c.content).join('');
    status.textContent = all.includes('data: [DONE]') ? 'done' : 'no [DONE]';
  } catch (e) {
    status.textContent = 'error: ' + e;
  }
})();
</script></body></html>`;

let browser;
let app;
let appURL;

before(async () => {
  app = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(APP);
  });
  await new Promise((ok) => app.listen(0, '127.0.0.1', ok));
  appURL = 'http://127.0.0.1:' + app.address().port + '/';
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
  if (app) await new Promise((ok) => app.close(ok));
});

test('an app on another origin lists models and reads a stream with fetch and getReader()', async () => {
  const page = await browser.context.newPage();
  await shot(page, 'cross-origin-app', async () => {
    assert.notEqual(new URL(appURL).origin, new URL(MOCK_URL).origin);
    await page.goto(appURL + '?base=' + encodeURIComponent(MOCK_URL) + '&key=' + encodeURIComponent(MOCK_API_KEY));
    await waitText(page, '#status', /^(done|no \[DONE\]|error: .*)$/, 20000);
    assert.equal(await page.locator('#status').textContent(), 'done');
    assert.ok(await page.locator('#models li').count() > 0, 'the app listed models');
    assert.ok(Number(await page.locator('#reads').textContent()) > 1, 'the stream arrived in more than one read');
    assert.ok(((await page.locator('#answer').textContent()) || '').length > 10, 'the app joined the tokens');
  });
  await page.close();
});

// The README's Playwright example ("a test forces one failure through
// /admin/overrides and asserts what the app shows"), run for real against
// the app page above: the test sets the override from outside, the app's
// requests are unchanged.
test('a test forces one failure through /admin/overrides and asserts what the app shows', async () => {
  const headers = { Authorization: 'Bearer ' + MOCK_API_KEY, 'Content-Type': 'application/json' };
  const api = async (method, path, body) => {
    const resp = await fetch(MOCK_URL + path, { method, headers, body: body && JSON.stringify(body) });
    return { status: resp.status, body: await resp.json() };
  };
  const model = (await api('GET', '/api/v1/user/model')).body.data.find((m) => m.status === 'ready');
  assert.ok(model, 'the account has a ready model');
  assert.equal((await api('DELETE', '/admin/overrides')).status, 200);
  const set = await api('POST', '/admin/overrides', {
    match: { method: 'GET', path: '/api/v1/user/model/{model_id}' },
    respond: { status: 503, message: 'The model service is down' },
    times: 1,
  });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  const override = set.body.data;
  assert.equal(override.remaining, 1);

  const page = await browser.context.newPage();
  await shot(page, 'override-app', async () => {
    const url = appURL + '?page=model&id=' + model.id + '&base=' + encodeURIComponent(MOCK_URL) + '&key=' + encodeURIComponent(MOCK_API_KEY);
    await page.goto(url);
    await waitText(page, '#model', /\S/);
    assert.equal(await page.locator('#model').textContent(), 'Could not load the model: The model service is down');

    assert.deepEqual((await api('GET', '/admin/overrides')).body.data, [], 'used once, gone');
    const calls = (await api('GET', '/admin/requests?path=/api/v1/user/model/')).body.data;
    assert.deepEqual(calls.find((c) => c.override).override, { id: override.id, kind: 'status', use: 1 });

    await page.reload(); // the next GET is served as usual
    await waitText(page, '#model', /\S/);
    assert.equal(await page.locator('#model').textContent(), model.name + ' is ' + model.status);
  });
  await page.close();
});

// An app whose every fetch carries Sentry's and OpenTelemetry's headers and
// one of its own: the mock's preflight answer allows them, so the browser
// lets the calls through; the preflights are in the journal, and the
// Inspector shows them and the unknown field the app sent.
test('an app on another origin that sends sentry-trace, baggage and its own header gets its answers', async () => {
  const api = async (path) => (await (await fetch(MOCK_URL + path, { headers: { Authorization: 'Bearer ' + MOCK_API_KEY } })).json()).data;
  await fetch(MOCK_URL + '/admin/requests', { method: 'DELETE', headers: { Authorization: 'Bearer ' + MOCK_API_KEY } });
  const page = await browser.context.newPage();
  await shot(page, 'traced-app', async () => {
    await page.goto(appURL + '?page=traced&base=' + encodeURIComponent(MOCK_URL) + '&key=' + encodeURIComponent(MOCK_API_KEY));
    await waitText(page, '#status', /^(done|error: .*)$/, 20000);
    assert.equal(await page.locator('#status').textContent(), 'done');
    assert.ok(await page.locator('#models li').count() > 0, 'the app listed the models');
    assert.equal(await page.locator('#answer').textContent(), '200 titel', 'the conversation was created, and the page read which field the mock ignored');

    const calls = await api('/admin/requests?preflight=true');
    const preflights = calls.filter((c) => c.preflight);
    assert.deepEqual(preflights.map((c) => c.method + ' ' + c.path), ['OPTIONS /api/v1/user/model', 'OPTIONS /api/v1/user/conversations']);
    const asked = preflights[0].request.headers['Access-Control-Request-Headers'][0];
    for (const h of ['authorization', 'baggage', 'sentry-trace', 'traceparent', 'x-request-id']) assert.ok(asked.includes(h), 'the preflight asked for ' + h + ': ' + asked);
    const list = calls[calls.indexOf(preflights[0]) + 1];
    assert.equal(list.method + ' ' + list.status, 'GET 200', 'the call follows its preflight');
    assert.deepEqual(list.request.headers['Sentry-Trace'], ['771a43a4192642f0b136d5159a501700-b7ad6b7169203331-1']);
    assert.equal((await api('/admin/requests')).filter((c) => c.preflight).length, 0, 'without preflight=true the journal lists the app\'s calls only');

    // The console's Inspector names the preflights and the unknown field.
    const con = await browser.context.newPage();
    await con.goto(MOCK_URL + '/');
    await con.fill('#api-key', MOCK_API_KEY);
    await con.click('#key-form button[type=submit]');
    await con.waitForSelector('body[data-loaded]');
    await con.click('#in-refresh');
    await con.locator('#in-rows tr', { hasText: 'OPTIONS' }).filter({ hasText: 'CORS preflight' }).first().waitFor();
    const typo = con.locator('#in-rows tr', { hasText: '/api/v1/user/conversations' }).filter({ hasText: 'unknown field: titel' });
    await typo.first().click();
    await waitText(con, '#in-detail', /the contract does not name; the mock ignored them \(D-29\): titel/);
    await con.close();
  });
  await page.close();
});

// The console polls and refreshes by itself while it is open; an override
// set for the app's next request must reach the app, not the console.
test('with the console open, a times: 1 override reaches the app, not the console\'s refreshes and polls', async () => {
  const headers = { Authorization: 'Bearer ' + MOCK_API_KEY, 'Content-Type': 'application/json' };
  const api = async (method, path, body) => {
    const resp = await fetch(MOCK_URL + path, { method, headers, body: body && JSON.stringify(body) });
    return (await resp.json()).data;
  };
  await api('DELETE', '/admin/overrides');
  await api('DELETE', '/admin/requests');
  const override = await api('POST', '/admin/overrides', {
    match: { method: 'GET', path: '/api/v1/evaluations' },
    respond: { status: 503, message: 'The evaluation service is down' },
    times: 1,
  });
  const con = await browser.context.newPage();
  con.on('dialog', (d) => d.accept());
  const page = await browser.context.newPage();
  await shot(con, 'override-console-open', async () => {
    // The console loads every list (its own refreshes), then a started
    // evaluation is polled until it ends, and the list read again (its polls).
    await con.goto(MOCK_URL + '/');
    await con.fill('#api-key', MOCK_API_KEY);
    await con.click('#key-form button[type=submit]');
    await con.waitForSelector('body[data-loaded]');
    assert.doesNotMatch(await con.locator('#ev-msg').textContent(), /503/, 'the console\'s own list read was answered by the override');
    await con.locator('#ev-rows tr td.num').first().waitFor();
    const polledList = con.waitForRequest((r) => new URL(r.url()).pathname === '/api/v1/evaluations' && r.headers()['x-mock-console'] === 'poll', { timeout: 20000 });
    await con.fill('#ev-name', 'Console open');
    await con.click('#ev-create button[type=submit]');
    await waitText(con, '#ev-msg', /^Created evaluation/);
    await con.locator('#ev-rows tr', { hasText: 'Console open' }).locator('button', { hasText: 'Start' }).click();
    await polledList; // the run ended and the console read the list again, by itself
    await con.locator('#ev-rows tr', { hasText: 'Console open' }).locator('.badge', { hasText: /^completed$/ }).waitFor();

    await page.goto(appURL + '?page=evaluations&base=' + encodeURIComponent(MOCK_URL) + '&key=' + encodeURIComponent(MOCK_API_KEY));
    await waitText(page, '#model', /\S/);
    assert.equal(await page.locator('#model').textContent(), 'Could not load the evaluations: The evaluation service is down');
    assert.deepEqual(await api('GET', '/admin/overrides'), [], 'the app spent the one use');

    const calls = await api('GET', '/admin/requests?path=/api/v1/evaluations&method=GET');
    const spent = calls.filter((c) => c.override);
    assert.equal(spent.length, 1, 'one call spent the override');
    assert.deepEqual(spent[0].override, { id: override.id, kind: 'status', use: 1 });
    assert.equal(spent[0].request.headers['X-Mock-Console'], undefined, 'the call that spent it is the app\'s');
    const own = calls.filter((c) => c.request.headers['X-Mock-Console']);
    assert.ok(own.some((c) => c.path === '/api/v1/evaluations' && c.request.headers['X-Mock-Console'][0] === 'poll'), 'the console polled the list meanwhile');
    assert.ok(own.every((c) => !c.override), 'no console call was answered by the override');
  });
  await page.close();
  await con.close();
});

test('the docs page names the mock\'s address and "Try it out" finds the example model', async () => {
  const page = await browser.context.newPage();
  await shot(page, 'docs-try-it-out', async () => {
    await page.goto(MOCK_URL + '/docs');
    const servers = page.locator('.servers select');
    await servers.waitFor({ timeout: 20000 });
    const label = (await servers.textContent()) || '';
    assert.ok(label.includes(MOCK_URL), `server label ${JSON.stringify(label)} names ${MOCK_URL}`);
    assert.ok(!label.includes('{'), `server label ${JSON.stringify(label)} shows a raw {variable}`);

    await page.locator('.btn.authorize').first().click();
    await page.locator('.auth-container input').first().fill(MOCK_API_KEY);
    await page.locator('.auth-btn-wrapper .authorize').first().click();
    await page.locator('.btn-done').first().click();

    const op = page.locator('#operations-models-getModel');
    await op.locator('.opblock-summary').first().click();
    await op.locator('.try-out__btn').click();
    const id = await op.locator('tr[data-param-name="model_id"] input').inputValue();
    assert.match(id, /^[0-9]+$/, 'the example model id is filled in');
    await op.locator('.execute').click();
    const status = op.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor({ timeout: 10000 });
    assert.equal(((await status.textContent()) || '').trim().slice(0, 3), '200', `GET of example model ${id}`);
  });
  await page.close();
});

// A frontend developer opening /docs first reads what the API is, the key
// and where to start; the contract's own notes (x-decision, seed clauses,
// --strict) are there, folded, below it.
for (const vp of [{ name: '1366x900', width: 1366, height: 900 }, { name: '390px', width: 390, height: 844 }]) {
  test(`${vp.name}: /docs opens with a plain introduction, the contract notes folded below it`, async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: vp.width, height: vp.height });
    await shot(page, 'docs-intro-' + vp.name, async () => {
      await page.goto(MOCK_URL + '/docs');
      const info = page.locator('.information-container .info');
      await info.locator('.description').waitFor({ timeout: 20000 });
      const shown = await info.locator('.description').evaluate((n) => n.innerText); // what is rendered, folded parts left out
      const first = shown.trim().split('\n')[0];
      assert.match(first, /^A JSON API /, 'the page opens with ' + JSON.stringify(first));
      for (const words of ['Authorization: Bearer', 'Authorize', 'GET /api/v1/user/model', 'POST /api/v1/user/inference']) {
        assert.ok(shown.includes(words), 'the introduction names ' + words);
      }
      for (const jargon of ['x-decision', 'seed §', '--strict', 'x-stored', 'declared', 'decided']) {
        assert.ok(!shown.includes(jargon), 'the opening shows ' + JSON.stringify(jargon) + ': ' + shown.slice(0, 300));
      }
      const notes = info.locator('details');
      assert.equal(await notes.count(), 1, 'the contract notes are one folded section');
      assert.equal(await notes.evaluate((d) => d.open), false, 'folded at first');
      await notes.locator('summary').click();
      assert.match(await notes.evaluate((d) => d.innerText), /x-decision/, 'the notes are the contract\'s own, unfolded on demand');
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= vp.width, 'the page is ' + width + ' px wide');
    });
    await page.close();
  });
}

// Each operation opens with what it does and what a client gets, in plain
// words; the contract's notes (seed sections, decisions, marks) are folded
// below them.
test('/docs: an operation opens with plain words, its contract notes folded', async () => {
  const page = await browser.context.newPage();
  await shot(page, 'docs-operation-notes', async () => {
    await page.goto(MOCK_URL + '/docs');
    const op = page.locator('#operations-models-createModel');
    await op.locator('.opblock-summary').first().click();
    const desc = op.locator('.opblock-description-wrapper').first();
    await desc.waitFor({ timeout: 20000 });
    const shown = await desc.evaluate((n) => n.innerText); // folded parts are not rendered
    assert.match(shown.trim(), /^Creates a model from one of your datasets/, 'the operation opens with ' + JSON.stringify(shown.slice(0, 80)));
    assert.match(shown, /You get the new model in data/);
    for (const jargon of ['seed §', 'D-21', 'x-lenient', 'Declared body']) {
      assert.ok(!shown.includes(jargon), 'the opening shows ' + JSON.stringify(jargon) + ': ' + shown.slice(0, 300));
    }
    const notes = desc.locator('details');
    assert.equal(await notes.count(), 1, 'the notes are one folded part');
    assert.equal(await notes.evaluate((d) => d.open), false, 'folded at first');
    await notes.locator('summary').click();
    const all = await notes.evaluate((d) => d.innerText);
    assert.match(all, /x-lenient/, 'the notes are the contract\'s own, unfolded on demand');
    assert.match(all, /seed §4\.1/);
  });
  await page.close();
});

test('the docs page renders the contract under its CSP, and /openapi.yaml shows as text', async () => {
  const page = await browser.context.newPage();
  const csp = [];
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) csp.push(m.text()); });
  await shot(page, 'docs', async () => {
    await page.goto(MOCK_URL + '/docs');
    await page.locator('.opblock-summary-path', { hasText: '/api/v1/user/inference' }).first().waitFor({ timeout: 20000 });
    assert.ok(await page.locator('.opblock').count() > 10, 'Swagger UI lists the operations');
    assert.deepEqual(csp, [], 'no CSP violation');
    const resp = await page.goto(MOCK_URL + '/openapi.yaml');
    assert.match(resp.headers()['content-type'], /^text\/yaml/);
    assert.match(await page.locator('body').textContent(), /openapi: 3\.0\.3/);
  });
  await page.close();
});
