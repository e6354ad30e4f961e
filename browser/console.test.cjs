// The console at GET / as a frontend developer uses it, in one page, step by
// step: each test starts from the state the previous one left.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { MOCK_URL, MOCK_API_KEY, launch, shot, text, waitText } = require('./harness.cjs');

let browser;
let page;
const apiCalls = []; // every /api/v1 request the page makes
const ownCalls = []; // the same, with the X-Mock-Console mark of the console's own refreshes
const cspErrors = [];

before(async () => {
  // The steps below read the account's journal and lists: start them from
  // the fixtures and an empty journal, whatever other test files did.
  const headers = { Authorization: 'Bearer ' + MOCK_API_KEY };
  for (const [method, path] of [['POST', '/admin/reset'], ['DELETE', '/admin/requests']]) {
    const resp = await fetch(MOCK_URL + path, { method, headers });
    assert.equal(resp.status, 200, method + ' ' + path);
  }
  browser = await launch();
  page = await browser.context.newPage();
  page.on('request', (r) => {
    if (!new URL(r.url()).pathname.startsWith('/api/v1/')) return;
    apiCalls.push(r.method() + ' ' + r.url());
    ownCalls.push({ call: r.method() + ' ' + r.url(), mark: r.headers()['x-mock-console'] || '' });
  });
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

    ownCalls.length = 0;
    await page.fill('#api-key', MOCK_API_KEY);
    await page.click('#key-form button[type=submit]');
    await waitText(page, '#key-msg', /Key accepted: account-1/);
    await page.waitForSelector('#ds-rows tr td.num');
    await page.waitForSelector('body[data-loaded]');
    assert.deepEqual(cspErrors, [], 'no CSP violation');
  });
});

test('on load every list is asked for once, marked as the console\'s own refresh', async () => {
  // The loads (not the timers' polls, marked poll) that the key's start made.
  const load = ownCalls.filter((c) => c.mark !== 'poll');
  const seen = new Set();
  for (const c of load) {
    assert.ok(!seen.has(c.call), 'sent twice on load: ' + c.call + ' in ' + JSON.stringify(load.map((x) => x.call)));
    seen.add(c.call);
    assert.equal(c.mark, 'refresh', c.call + ' is marked X-Mock-Console: refresh');
  }
  for (const p of ['/api/v1/user/dataset', '/api/v1/user/model', '/api/v1/evaluations', '/api/v1/user/conversations']) {
    assert.ok(load.some((c) => new URL(c.call.split(' ')[1]).pathname === p), 'the load asked for ' + p);
  }
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

test('refused files are named with their reasons after a create and an upload', async () => {
  await shot(page, 'refused-files', async () => {
    await page.fill('#ds-name', 'Browser mixed');
    await page.setInputFiles('#ds-files', [
      { name: 'good.txt', mimeType: 'text/plain', buffer: Buffer.from('Shipping takes three business days.\n') },
      { name: 'empty.txt', mimeType: 'text/plain', buffer: Buffer.alloc(0) },
      { name: 'blob.bin', mimeType: 'application/octet-stream', buffer: Buffer.from([0, 1, 2, 255, 254, 0, 7]) },
    ]);
    await page.click('#ds-create button[type=submit]');
    await waitText(page, '#ds-msg', /Created dataset Browser mixed .*1 file\(s\) kept.*2 file\(s\) refused/);
    assert.match(await page.locator('#ds-msg').getAttribute('class'), /warn/, 'a create with refused files is not shown as a plain success');
    const items = await page.locator('#ds-failures li').allTextContents();
    assert.equal(items.length, 2, 'both refused files are listed: ' + JSON.stringify(items));
    assert.match(items.find((t) => t.startsWith('empty.txt')) || '', /^empty\.txt: empty file/);
    assert.match(items.find((t) => t.startsWith('blob.bin')) || '', /^blob\.bin: \S/);

    const v = await page.locator('#ds-target option', { hasText: 'Browser mixed' }).first().getAttribute('value');
    await page.selectOption('#ds-target', v);
    await page.setInputFiles('#ds-more', [
      { name: 'more.txt', mimeType: 'text/plain', buffer: Buffer.from('Returns are free within 30 days.\n') },
      { name: 'void.md', mimeType: 'text/markdown', buffer: Buffer.alloc(0) },
    ]);
    // The form is submitted as its button would (validation, then the
    // submit event) without a pointer click: the panels the console keeps
    // live may scroll the page between Playwright's aim and its click.
    assert.equal(await page.inputValue('#ds-target'), v, 'the dataset to add files to is chosen');
    await page.locator('#ds-upload').evaluate((f) => f.requestSubmit());
    await waitText(page, '#ds-msg', /1 file\(s\) added.*1 file\(s\) refused/);
    assert.deepEqual(await page.locator('#ds-failures li').allTextContents(), ['void.md: empty file']);
  });
});

test('named examples are offered per operation from the contract, never typed', async () => {
  await shot(page, 'examples', async () => {
    await page.click('#controls summary');
    assert.equal(await page.locator('#ctl-example').isDisabled(), true, 'no example before an operation is chosen');
    assert.equal(await page.locator('#ctl-example').evaluate((n) => n.tagName), 'SELECT', 'the example is picked, not typed');
    await page.selectOption('#ctl-op', 'getModel');
    assert.deepEqual(await page.locator('#ctl-example option').allTextContents(), ['none', 'ready', 'training']);
    await page.selectOption('#ctl-op', 'listModels');
    assert.deepEqual(await page.locator('#ctl-example option').allTextContents(), ['none', 'twoModels', 'empty']);
    await page.selectOption('#ctl-example', 'empty');
    await waitText(page, '#ctl-active', /Active on listModels calls: Prefer: example=empty/);
    await page.click('#md-refresh');
    await waitText(page, '#md-rows', /No models\./);
    await page.click('#ds-refresh'); // another operation: the example is not sent, no 422
    await waitText(page, '#ds-msg', /^Refreshed\.$/);
    await page.selectOption('#ctl-op', '');
    await waitText(page, '#ctl-active', /No control is set/);
    await page.click('#md-refresh');
    await waitText(page, '#md-rows', /Browser model/);
    await page.click('#controls summary');
  });
});

test('a delayed call shows that it waits, where its answer will appear', async () => {
  await shot(page, 'waiting', async () => {
    await page.click('#controls summary');
    await page.selectOption('#ctl-op', 'listDatasets');
    await page.fill('#ctl-delay', '1500ms');
    await waitText(page, '#ctl-active', /X-Mock-Delay: 1500ms/);
    await page.click('#ds-refresh');
    await waitText(page, '#ds-msg', /^Waiting for the answer… \d+\.\d s$/);
    await waitText(page, '#busy', /Waiting for GET \/api\/v1\/user\/dataset… \d/);
    assert.equal(await page.locator('#ds-refresh').isDisabled(), true, 'the button waits too');
    await waitText(page, '#ds-msg', /^Refreshed\.$/, 5000);
    await waitText(page, '#busy', /^$/);
    await page.fill('#ctl-delay', '');
    await page.selectOption('#ctl-op', '');
    await waitText(page, '#ctl-active', /No control is set/);
    await page.click('#controls summary');
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
    await waitText(page, '#ask-msg', /^The stream has stalled: no event for \d/, 10000);
    await page.click('#ask-stop');
    await waitText(page, '#ask-msg', /^Stopped after 1 token\(s\), the stream had stalled/);
    await page.selectOption('#ctl-fault', '');
    await waitText(page, '#ctl-active', /No control is set/);
    await page.click('#controls summary');
  });
});

test('a cut stream is named as cut, in the answer and in the Inspector', async () => {
  await shot(page, 'cut', async () => {
    await page.click('#controls summary');
    await page.selectOption('#ctl-op', 'runInference');
    await page.selectOption('#ctl-fault', 'cut');
    await waitText(page, '#ctl-active', /Active on runInference calls: X-Mock-Stream-Fault: cut/);
    await page.click('#ask-go');
    await waitText(page, '#ask-msg', /^The stream was cut: the connection closed after \d+ token\(s\), without \[DONE\]/, 20000);
    await page.selectOption('#ctl-fault', '');
    await page.selectOption('#ctl-op', '');
    await waitText(page, '#ctl-active', /No control is set/);
    await page.click('#controls summary');
    await page.click('#in-refresh');
    const row = page.locator('#in-rows tr', { hasText: '/api/v1/user/inference' }).last();
    await row.locator('.fault', { hasText: 'stream cut' }).waitFor();
    await row.click();
    await waitText(page, '#in-detail', /→ 200, stream cut/);
    await waitText(page, '#in-detail', /ended by the fault "cut"/);
    const stalled = page.locator('#in-rows tr', { hasText: '/api/v1/user/inference' }).filter({ has: page.locator('.fault', { hasText: 'stream stalled' }) });
    assert.equal(await stalled.count(), 1, 'the stalled stream is marked too');
  });
});

test('a running evaluation shows its progress; its delete can be tried and the 409 is shown', async () => {
  await shot(page, 'evaluation', async () => {
    await page.fill('#ev-name', 'Browser evaluation');
    const v = await page.locator('#ev-model option', { hasText: 'Browser model' }).first().getAttribute('value');
    await page.selectOption('#ev-model', v);
    await page.click('#ev-create button[type=submit]');
    await waitText(page, '#ev-msg', /Created evaluation Browser evaluation/);
    const row = page.locator('#ev-rows tr', { hasText: 'Browser evaluation' });
    await row.locator('button', { hasText: 'Start' }).click();
    await row.locator('.running-note', { hasText: /running for \d+ s over \d+ question/ }).waitFor();
    assert.equal(await row.locator('button', { hasText: 'Start' }).count(), 0, 'no Start on a running evaluation');
    const del = row.locator('button', { hasText: 'Delete' });
    assert.equal(await del.isEnabled(), true, 'Delete can be tried while running');
    await del.click();
    await waitText(page, '#ev-msg', /^Error 409: \S/);
    assert.equal(await row.count(), 1, 'the refused evaluation is still listed');
    await row.locator('.badge', { hasText: /^completed$/ }).waitFor({ timeout: 20000 });
    assert.equal(await row.locator('.running-note').count(), 0, 'no progress once completed');
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

test('the Inspector filters by method and path, and hides the console\'s own refreshes unless asked', async () => {
  await shot(page, 'inspector-filters', async () => {
    await page.click('#in-refresh');
    await waitText(page, '#in-hidden', /^\d+ refresh\(es\) of the console itself hidden\.$/);
    const all = await page.locator('#in-rows tr').count();
    await page.check('#in-own');
    await waitText(page, '#in-hidden', /^$/);
    assert.ok(await page.locator('#in-rows tr').count() > all, 'the console\'s own refreshes show when asked');
    await page.uncheck('#in-own');

    await page.selectOption('#in-method', 'POST');
    const methods = await page.locator('#in-rows tr td:nth-child(2)').allTextContents();
    assert.ok(methods.length > 0 && methods.every((m) => m === 'POST'), 'only POST calls: ' + JSON.stringify(methods));

    await page.fill('#in-path', '/api/v1/user/inference');
    const paths = await page.locator('#in-rows tr td:nth-child(3)').allTextContents();
    assert.ok(paths.length >= 3 && paths.every((p) => p.startsWith('/api/v1/user/inference')), 'only inference calls: ' + JSON.stringify(paths));

    await page.selectOption('#in-method', 'GET');
    await page.fill('#in-path', '/api/v1/evaluations');
    await waitText(page, '#in-rows', /No call matches the filters\./); // the evaluation reads were all the console's own
    await page.check('#in-own');
    const own = await page.locator('#in-rows tr td:nth-child(3)').allTextContents();
    assert.ok(own.length > 0 && own.every((p) => p.startsWith('/api/v1/evaluations')), 'the console\'s own evaluation reads: ' + JSON.stringify(own));
    await page.locator('#in-rows tr').first().click();
    await waitText(page, '#in-detail', /sent by the console by itself/);
    await waitText(page, '#in-detail', /X-Mock-Console: refresh|X-Mock-Console: poll/);

    await page.uncheck('#in-own');
    await page.selectOption('#in-method', '');
    await page.fill('#in-path', '');
  });
});

test('overrides from the console: add one, see the forced failure and its uses, remove one or all', async () => {
  await shot(page, 'overrides', async () => {
    await waitText(page, '#ov-rows', /No overrides/);
    // The operation comes from the contract, the example from its named examples.
    await page.selectOption('#ov-op', 'getModel');
    assert.equal(await page.inputValue('#ov-path'), '/api/v1/user/model/{model_id}');
    await page.selectOption('#ov-kind', 'example');
    assert.deepEqual(await page.locator('#ov-example option').allTextContents(), ['ready', 'training']);
    assert.equal(await page.locator('#ov-kind option[value=stream_fault]').isDisabled(), true, 'a stream fault only for inference');

    await page.selectOption('#ov-op', 'listDatasets');
    await page.selectOption('#ov-kind', 'status');
    await page.selectOption('#ov-status', '503');
    await page.fill('#ov-message', 'The dataset service is down');
    await page.fill('#ov-times', '2');
    await page.click('#ov-add button[type=submit]');
    await waitText(page, '#ov-msg', /^Override \d+ set: listDatasets answers status 503: The dataset service is down, 2 time\(s\)\.$/);
    const uses = page.locator('#ov-rows tr', { hasText: 'listDatasets' }).locator('td[data-label="Uses left"]');
    await uses.filter({ hasText: /^2$/ }).waitFor();

    await page.click('#ds-refresh');
    await waitText(page, '#ds-msg', /^Error 503: The dataset service is down$/);
    await uses.filter({ hasText: /^1$/ }).waitFor(); // the count follows the calls
    await page.click('#ds-refresh');
    await waitText(page, '#ds-msg', /^Error 503: The dataset service is down$/);
    await waitText(page, '#ov-rows', /No overrides/); // used up, gone
    await page.click('#ds-refresh');
    await waitText(page, '#ds-msg', /^Refreshed\.$/); // served as usual again
    await page.click('#in-refresh');
    const forced = page.locator('#in-rows tr', { hasText: '/api/v1/user/dataset' }).filter({ has: page.locator('.override') });
    // The Inspector follows the journal live: the second forced answer may
    // join the table after the first is drawn, so wait for it before counting.
    await forced.nth(1).waitFor();
    assert.equal(await forced.count(), 2, 'the Inspector names the two answers the override gave');

    // Until removed: the contract's example "one" for the dataset list, removed with its button.
    await page.selectOption('#ov-op', 'listDatasets');
    await page.selectOption('#ov-kind', 'example');
    await page.selectOption('#ov-example', 'one');
    await page.fill('#ov-times', '');
    await page.click('#ov-add button[type=submit]');
    await waitText(page, '#ov-msg', /answers the example "one" until removed\.$/);
    await page.click('#ds-refresh');
    await waitText(page, '#ds-rows', /Northwind Handbook.*214/);
    assert.equal(await page.locator('#ds-rows tr').count(), 1, 'the example lists one dataset');
    await page.locator('#ov-rows tr', { hasText: 'listDatasets' }).locator('button', { hasText: 'Remove' }).click();
    await waitText(page, '#ov-msg', /^Override \d+ removed\.$/);
    await page.click('#ds-refresh');
    await waitText(page, '#ds-rows', /Browser mixed/);

    // Remove all.
    await page.selectOption('#ov-op', 'runInference');
    await page.selectOption('#ov-kind', 'stream_fault');
    await page.selectOption('#ov-fault', 'cut');
    await page.click('#ov-add button[type=submit]');
    await waitText(page, '#ov-msg', /runInference answers the stream fault "cut"/);
    await page.selectOption('#ov-op', 'listEvaluations');
    await page.selectOption('#ov-kind', 'delay');
    await page.fill('#ov-delay', '1s');
    await page.click('#ov-add button[type=submit]');
    await waitText(page, '#ov-msg', /listEvaluations answers a delay of 1s/);
    assert.equal(await page.locator('#ov-rows tr').count(), 2);
    await page.click('#ov-clear');
    await waitText(page, '#ov-msg', /^Removed 2 override\(s\)\.$/);
    await waitText(page, '#ov-rows', /No overrides/);
  });
});

test('reset asks first, then reloads the fixtures', async () => {
  await shot(page, 'reset', async () => {
    await page.click('#adm-reset');
    await waitText(page, '#adm-msg', /Account reset/);
    await page.waitForFunction(() => !document.getElementById('md-rows').textContent.includes('Browser model'));
  });
});

test('usable at 390 px: no horizontal overflow, every table cell reachable', async () => {
  await shot(page, 'narrow', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForFunction(() => document.documentElement.clientWidth <= 390);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, 'the page is ' + width + ' px wide at a 390 px viewport');
    // No cell may lie outside the visible width of whatever clips it (its
    // scroll box, the page): a column cut off with no cue fails here.
    const clipped = await page.evaluate(() => {
      const out = [];
      for (const td of document.querySelectorAll('main td')) {
        const r = td.getBoundingClientRect();
        if (!r.width && !r.height) continue;
        let box = { left: 0, right: document.documentElement.clientWidth };
        for (let n = td.parentElement; n && n !== document.body; n = n.parentElement) {
          if (getComputedStyle(n).overflowX !== 'visible') {
            const b = n.getBoundingClientRect();
            box = { left: Math.max(box.left, b.left), right: Math.min(box.right, b.left + n.clientWidth) };
          }
        }
        if (r.left < box.left - 1 || r.right > box.right + 1) out.push((td.dataset.label || td.cellIndex) + ' in ' + td.closest('tbody').id + ': ' + Math.round(r.left) + '..' + Math.round(r.right));
      }
      return out;
    });
    assert.deepEqual(clipped, [], 'cells cut off at 390 px');
    for (const label of ['Rows', 'Size']) {
      const cell = page.locator('#ds-rows td[data-label="' + label + '"]').first();
      assert.equal(await cell.isVisible(), true, 'the ' + label + ' column is shown');
    }
    const del = page.locator('#ds-rows button', { hasText: 'Delete' }).first();
    const box = await del.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390, 'a dataset Delete button is on screen: ' + JSON.stringify(box));
    assert.deepEqual(cspErrors, [], 'no CSP violation');
  });
});
