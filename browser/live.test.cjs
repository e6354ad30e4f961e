// The console follows the mock live, and an app on another origin that
// sends credentials works: with the console open (and no click on a
// Refresh button), an app's call appears in the Inspector, an override a
// test sets appears in the Overrides panel and its use is counted, and a
// preflight whose call the browser never sent shows as a probable CORS
// failure. The account is one of its own (an --open-keys key), so no other
// test file's calls are in its journal.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { MOCK_URL, launch, shot, waitText } = require('./harness.cjs');

const KEY = 'test-live-console';
const headers = { Authorization: 'Bearer ' + KEY, 'Content-Type': 'application/json' };
const api = async (method, path, body) => {
  const resp = await fetch(MOCK_URL + path, { method, headers, body: body && JSON.stringify(body) });
  return { status: resp.status, body: await resp.json() };
};

// The app: ?do=model reads one model, with credentials (an app written for
// a cookie backend); ?do=purge sends a method the mock does not allow, so
// the browser refuses the preflight's answer and never sends the call.
const APP = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>App</title></head><body><p id="out">starting</p>
<script>
(async () => {
  const q = new URLSearchParams(location.search);
  const out = document.getElementById('out');
  const init = { headers: { Authorization: 'Bearer ' + q.get('key') }, credentials: 'include' };
  if (q.get('do') === 'purge') init.method = 'PURGE';
  try {
    const resp = await fetch(q.get('base') + '/api/v1/user/model/' + encodeURIComponent(q.get('id')), init);
    const body = await resp.json();
    out.textContent = resp.ok ? 'model: ' + body.data.name : 'error ' + resp.status + ': ' + body.message;
  } catch (e) {
    out.textContent = 'failed: ' + e.message;
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
  assert.equal((await api('POST', '/admin/reset')).status, 200, 'the key opens its account');
  assert.equal((await api('DELETE', '/admin/requests')).status, 200);
  assert.equal((await api('DELETE', '/admin/overrides')).status, 200);
});

after(async () => {
  if (browser) await browser.close();
  if (app) await new Promise((ok) => app.close(ok));
});

const appPage = (what, id) => appURL + '?do=' + what + '&id=' + id + '&base=' + encodeURIComponent(MOCK_URL) + '&key=' + encodeURIComponent(KEY);

test('the Inspector and the Overrides panel follow an app and a test without a click; credentials pass CORS; an orphan preflight shows', async () => {
  const model = (await api('GET', '/api/v1/user/model')).body.data.find((m) => m.name === 'Northwind Support Assistant');
  assert.ok(model, 'the open account has the fixtures');
  const con = await browser.context.newPage();
  const appTab = await browser.context.newPage();
  const adminReads = [];
  con.on('request', (r) => { if (new URL(r.url()).pathname.startsWith('/admin/')) adminReads.push(r.url()); });
  await shot(con, 'console-live', async () => {
    await con.goto(MOCK_URL + '/');
    await con.fill('#api-key', KEY);
    await con.click('#key-form button[type=submit]');
    await waitText(con, '#key-msg', /Key accepted: open-\d+/);
    await con.waitForSelector('body[data-loaded]');
    await waitText(con, '#in-live', /^Live:/);

    // An app's call, with credentials: it passes CORS and shows in the Inspector by itself.
    await appTab.goto(appPage('model', model.id));
    await waitText(appTab, '#out', /^(model|error|failed)/);
    assert.equal(await appTab.locator('#out').textContent(), 'model: ' + model.name, 'a fetch with credentials: include gets its answer');
    await con.locator('#in-rows tr', { hasText: '/api/v1/user/model/' + model.id }).filter({ hasText: '200' }).first().waitFor({ timeout: 5000 });

    // An override a test sets shows in the panel by itself; the app spends it, and the panel follows.
    const set = await api('POST', '/admin/overrides', {
      match: { method: 'GET', path: '/api/v1/user/model/{model_id}' }, respond: { status: 503, message: 'Down for the live test' }, times: 1,
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const row = con.locator('#ov-rows tr', { hasText: 'getModel' });
    await row.waitFor({ timeout: 5000 });
    assert.match(await row.textContent(), /status 503: Down for the live test/);
    await appTab.reload();
    await waitText(appTab, '#out', /^error 503: Down for the live test$/);
    await con.locator('#ov-rows tr td.empty').waitFor({ timeout: 5000 }); // used up: gone from the panel
    const spent = con.locator('#in-rows tr', { hasText: 'override ' + set.body.data.id });
    await spent.first().waitFor({ timeout: 5000 });

    // No stray "null" in a call's detail.
    await spent.first().click();
    await waitText(con, '#in-detail', /Response body/);
    const lines = (await con.locator('#in-detail').evaluate((n) => n.innerText)).split('\n').map((l) => l.trim());
    assert.ok(!lines.includes('null'), 'a line of the detail reads "null": ' + lines.slice(0, 6).join(' | '));

    // A method the mock does not allow: the browser sends the preflight and
    // never the call; after the preflight's window the Inspector names it.
    await appTab.goto(appPage('purge', model.id));
    await waitText(appTab, '#out', /^failed: /);
    const orphan = con.locator('#in-rows tr', { hasText: 'probable CORS failure' });
    await orphan.first().waitFor({ timeout: 15000 });
    assert.match(await orphan.first().textContent(), /OPTIONS/);
    await orphan.first().click();
    await waitText(con, '#in-detail', /does not allow the method PURGE/);
    assert.ok(await con.locator('#in-refresh').isEnabled(), 'Refresh is still there, and was never needed');
    assert.ok(adminReads.some((u) => /\/admin\/requests\?preflight=true&since=[1-9]/.test(u)), 'the console read the journal from its last entry');
  });
  await appTab.close();
  await con.close();
});
