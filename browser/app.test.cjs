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
    assert.deepEqual(calls.find((c) => c.override).override, { id: override.id, kind: 'status' });

    await page.reload(); // the next GET is served as usual
    await waitText(page, '#model', /\S/);
    assert.equal(await page.locator('#model').textContent(), model.name + ' is ' + model.status);
  });
  await page.close();
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
