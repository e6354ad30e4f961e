// The console at GET / as a frontend developer uses it, in one page, step by
// step: each test starts from the state the previous one left.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { MOCK_URL, MOCK_API_KEY, launch, shot, text, waitText } = require('./harness.cjs');

let browser;
let page;
const apiCalls = []; // every /api/v1 request the page makes
const cspErrors = [];

before(async () => {
  browser = await launch();
  page = await browser.context.newPage();
  page.on('request', (r) => { if (new URL(r.url()).pathname.startsWith('/api/v1/')) apiCalls.push(r.method() + ' ' + r.url()); });
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text()); });
  page.on('dialog', (d) => d.accept()); // the confirmations before delete and reset
});

after(async () => {
  if (browser) await browser.close();
});

test('first load asks for a key and calls nothing; a wrong key is refused and clears the panels', async () => {
  await shot(page, 'first-load', async () => {
    await page.goto(MOCK_URL + '/');
    await waitText(page, '#key-msg', /Enter an API key/);
    assert.equal(await page.locator('#api-key').inputValue(), '', 'the key field starts empty');
    await page.waitForTimeout(300);
    assert.deepEqual(apiCalls, [], 'no API call before a key is entered');
    assert.equal(await page.locator('#use-dev-key').isHidden(), true, 'a configured key: the development key is not offered');

    await page.fill('#api-key', 'not-the-key');
    await page.click('#key-form button[type=submit]');
    await waitText(page, '#key-msg', /refused \(401/);
    assert.equal(await page.locator('#ds-rows tr').count(), 0, 'the panels are empty after a 401');

    await page.fill('#api-key', MOCK_API_KEY);
    await page.click('#key-form button[type=submit]');
    await waitText(page, '#key-msg', /Key accepted: account-1/);
    await page.waitForSelector('#ds-rows tr td.num');
    assert.deepEqual(cspErrors, [], 'no CSP violation');
  });
});

test('upload a file, create a model, watch it train until ready', async () => {
  await shot(page, 'upload-training', async () => {
    await page.fill('#ds-name', 'Browser docs');
    await page.setInputFiles('#ds-files', {
      name: 'warranty.txt', mimeType: 'text/plain',
      buffer: Buffer.from('The standard warranty lasts 24 months from delivery.\nReturns are accepted within 30 days.\nSupport answers within one business day.\n'),
    });
    await page.click('#ds-create button[type=submit]');
    await waitText(page, '#ds-msg', /Created dataset Browser docs/);
    await page.waitForSelector('#ds-rows tr.new', { timeout: 5000 }); // the new row is highlighted

    await page.fill('#md-name', 'Browser model');
    await page.click('#md-create button[type=submit]');
    await waitText(page, '#md-msg', /Created model Browser model/);
    const row = page.locator('#md-rows tr', { hasText: 'Browser model' });
    await row.locator('.badge', { hasText: /^ready$/ }).first().waitFor({ timeout: 20000 });
  });
});

test('a streamed answer arrives incrementally; the status line says streaming', async () => {
  await shot(page, 'stream', async () => {
    const v = await page.locator('#ask-model option', { hasText: 'Browser model' }).first().getAttribute('value');
    await page.selectOption('#ask-model', v);
    await page.fill('#ask-query', 'How long is the standard warranty, and how fast does support answer?');
    // Record the answer's length at every change, and the status line.
    await page.evaluate(() => {
      window.__lengths = [];
      window.__statuses = [];
      new MutationObserver(() => window.__lengths.push(document.getElementById('answer').textContent.length))
        .observe(document.getElementById('answer'), { subtree: true, characterData: true, childList: true });
      new MutationObserver(() => window.__statuses.push(document.getElementById('ask-msg').textContent))
        .observe(document.getElementById('ask-msg'), { subtree: true, characterData: true, childList: true });
    });
    await page.click('#ask-go');
    await waitText(page, '#ask-msg', /^Done: \d+ tokens/, 20000);
    const lengths = await page.evaluate(() => window.__lengths);
    const statuses = await page.evaluate(() => window.__statuses);
    const distinct = new Set(lengths.filter((n) => n > 0));
    assert.ok(distinct.size >= 3, 'the answer grew in steps, saw lengths ' + JSON.stringify([...distinct]));
    assert.ok(statuses.some((s) => /^Streaming…/.test(s)), 'the status line said streaming: ' + JSON.stringify(statuses.slice(0, 5)));
    assert.ok((await text(page, '#answer')).length > 10);
  });
});

test('Stop ends a stalled stream', async () => {
  await shot(page, 'stop', async () => {
    await page.click('#controls summary');
    await page.selectOption('#ctl-fault', 'stall');
    await waitText(page, '#ctl-active', /X-Mock-Stream-Fault: stall/);
    await page.click('#ask-go');
    await waitText(page, '#ask-msg', /Streaming/);
    assert.equal(await page.locator('#ask-stop').isEnabled(), true);
    await page.click('#ask-stop');
    await waitText(page, '#ask-msg', /^Stopped after 1 token/);
    await page.selectOption('#ctl-fault', '');
    await waitText(page, '#ctl-active', /No control is set/);
  });
});

test('a running evaluation offers no Start and explains why it cannot be deleted', async () => {
  await shot(page, 'evaluation', async () => {
    await page.fill('#ev-name', 'Browser evaluation');
    const v = await page.locator('#ev-model option', { hasText: 'Browser model' }).first().getAttribute('value');
    await page.selectOption('#ev-model', v);
    await page.click('#ev-create button[type=submit]');
    await waitText(page, '#ev-msg', /Created evaluation Browser evaluation/);
    const row = page.locator('#ev-rows tr', { hasText: 'Browser evaluation' });
    await row.locator('button', { hasText: 'Start' }).click();
    await row.locator('.refusal', { hasText: 'Cannot be deleted while running.' }).waitFor();
    assert.equal(await row.locator('button', { hasText: 'Delete' }).isDisabled(), true, 'Delete is disabled while running');
    assert.equal(await row.locator('button', { hasText: 'Start' }).count(), 0, 'no Start on a running evaluation');
    await row.locator('.badge', { hasText: /^completed$/ }).waitFor({ timeout: 20000 });
    assert.equal(await row.locator('button', { hasText: 'Delete' }).isEnabled(), true, 'Delete comes back once completed');
  });
});

test('the inspector shows the calls: status, headers with the key masked, streamed chunks, curl', async () => {
  await shot(page, 'inspector', async () => {
    await page.click('#in-refresh');
    const row = page.locator('#in-rows tr', { hasText: '/api/v1/user/inference' }).first();
    await row.waitFor();
    await row.click();
    await waitText(page, '#in-detail', /Streamed chunks: \d+/);
    const detail = await text(page, '#in-detail');
    assert.match(detail, /Authorization: Bearer \*\*\*\*/);
    assert.ok(!detail.includes(MOCK_API_KEY), 'the key is masked in the inspector');
    assert.match(detail, /curl -sS -N -X POST/);
    assert.match(detail, /\$API_KEY/);
    const all = await text(page, '#in-rows');
    for (const p of ['/api/v1/user/dataset', '/api/v1/user/model', '/api/v1/evaluations']) assert.ok(all.includes(p), 'the inspector lists ' + p);
  });
});

test('reset asks first, then reloads the fixtures', async () => {
  await shot(page, 'reset', async () => {
    await page.click('#adm-reset');
    await waitText(page, '#adm-msg', /Account reset/);
    await page.waitForFunction(() => !document.getElementById('md-rows').textContent.includes('Browser model'));
  });
});

test('usable at 390 px: no horizontal overflow', async () => {
  await shot(page, 'narrow', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(200);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, 'the page is ' + width + ' px wide at a 390 px viewport');
    assert.deepEqual(cspErrors, [], 'no CSP violation');
  });
});
