// The console's details that misled a new user, each checked on a laptop
// screen (1366×900) and a phone (390 px wide): the evaluations table fits
// its card and shows several rows, a message about a state goes once the
// state has moved on, a failed model does not show a full progress bar,
// the Inspector's chunk numbers show in full, models name their dataset.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { MOCK_URL, MOCK_API_KEY, launch, shot, waitText } = require('./harness.cjs');

const VIEWPORTS = [
  { name: '1366x900', width: 1366, height: 900 },
  { name: '390px', width: 390, height: 844 },
];

let browser;

before(async () => {
  browser = await launch();
  // Start from the fixtures: four evaluations, a failed model.
  const resp = await fetch(MOCK_URL + '/admin/reset', { method: 'POST', headers: { Authorization: 'Bearer ' + MOCK_API_KEY } });
  assert.equal(resp.status, 200);
});

after(async () => {
  if (browser) await browser.close();
});

// open loads the console at the viewport with the key in use.
async function open(vp) {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: vp.width, height: vp.height });
  page.on('dialog', (d) => d.accept());
  await page.goto(MOCK_URL + '/');
  await page.fill('#api-key', MOCK_API_KEY);
  await page.click('#key-form button[type=submit]');
  await page.waitForSelector('body[data-loaded]');
  return page;
}

// api calls the mock with the key, as a test beside the console would.
async function api(method, path, body) {
  const resp = await fetch(MOCK_URL + path, {
    method, body: body && JSON.stringify(body),
    headers: { Authorization: 'Bearer ' + MOCK_API_KEY, 'Content-Type': 'application/json' },
  });
  return (await resp.json()).data;
}

// boxOf measures a scroll box and what lies in it, at its scroll origin.
async function measure(page, boxSelector, rowSelector, controlSelector) {
  return page.evaluate(([b, r, c]) => {
    const box = document.querySelector(b);
    box.scrollTop = 0;
    box.scrollLeft = 0;
    const bb = box.getBoundingClientRect();
    const visible = { left: bb.left, right: bb.left + box.clientWidth, top: bb.top, bottom: bb.top + box.clientHeight };
    const rows = [...document.querySelectorAll(r)];
    const full = rows.filter((tr) => { const x = tr.getBoundingClientRect(); return x.top >= visible.top - 1 && x.bottom <= visible.bottom + 1; }).length;
    const clipped = [...document.querySelectorAll(c)].filter((n) => {
      const x = n.getBoundingClientRect();
      return x.left < visible.left - 1 || x.right > visible.right + 1;
    }).map((n) => (n.getAttribute('aria-label') || n.textContent) + ' at ' + Math.round(n.getBoundingClientRect().right) + ' > ' + Math.round(visible.right));
    return { overflow: box.scrollWidth - box.clientWidth, rows: rows.length, full, clipped, height: box.clientHeight };
  }, [boxSelector, rowSelector, controlSelector]);
}

for (const vp of VIEWPORTS) {
  test(`${vp.name}: the evaluations table fits its card, and shows several evaluations at once`, async () => {
    const page = await open(vp);
    await shot(page, 'evaluations-fit-' + vp.name, async () => {
      await page.waitForSelector('#ev-rows tr td.num');
      const m = await measure(page, '#evaluations .scroll', '#ev-rows tr', '#ev-rows button, #ev-rows td');
      assert.ok(m.rows >= 4, 'the fixtures give four evaluations, saw ' + m.rows);
      assert.ok(m.overflow <= 1, 'the table is ' + m.overflow + ' px wider than its box');
      assert.deepEqual(m.clipped, [], 'cells or buttons cut off by the box');
      const want = vp.width > 600 ? 3 : 2;
      assert.ok(m.full >= want, m.full + ' evaluation(s) fully visible in a ' + m.height + ' px box, want ' + want);
    });
    await page.close();
  });

  test(`${vp.name}: a failed model shows where its knowledge graph stopped, not a full bar`, async () => {
    const page = await open(vp);
    await shot(page, 'failed-model-' + vp.name, async () => {
      const row = page.locator('#md-rows tr', { hasText: 'Northwind Sales Copilot' });
      await row.waitFor();
      const graph = row.locator('td[data-label="Knowledge graph"]');
      assert.match(await graph.textContent(), /failed.*stopped at \d+%/);
      assert.equal(await graph.locator('progress').count(), 0, 'no progress bar for a build that will not go on');
      const ready = page.locator('#md-rows tr', { hasText: 'Northwind Support Assistant' }).locator('td[data-label="Knowledge graph"] progress');
      assert.equal(await ready.getAttribute('value'), '100', 'a ready model keeps its full bar');
    });
    await page.close();
  });

  test(`${vp.name}: the models table names each model's dataset`, async () => {
    const page = await open(vp);
    await shot(page, 'model-dataset-' + vp.name, async () => {
      const names = new Map((await api('GET', '/api/v1/user/dataset')).map((d) => [d.id, d.name]));
      const models = await api('GET', '/api/v1/user/model');
      await page.waitForSelector('#md-rows tr td.num');
      for (const m of models) {
        const cell = page.locator('#md-rows tr', { hasText: m.name }).locator('td[data-label="Dataset"]');
        await waitText(page, '#md-rows', new RegExp(names.get(m.dataset_id).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
        const text = (await cell.textContent()).trim();
        assert.ok(text.includes(names.get(m.dataset_id)) && text.includes('#' + m.dataset_id), m.name + ': dataset cell ' + JSON.stringify(text));
      }
    });
    await page.close();
  });

  test(`${vp.name}: "status pending" of a created model goes once it has trained`, async () => {
    const page = await open(vp);
    await shot(page, 'model-message-' + vp.name, async () => {
      const name = 'Stale check ' + vp.name;
      await page.fill('#md-name', name);
      await page.click('#md-create button[type=submit]');
      await waitText(page, '#md-msg', /^Created model Stale check .*status (pending|training)/);
      await page.locator('#md-rows tr', { hasText: name }).locator('.badge', { hasText: /^ready$/ }).first().waitFor({ timeout: 20000 });
      await waitText(page, '#md-msg', new RegExp('^Model ' + name + ' .* is now ready\\.$'), 5000);
    });
    await page.close();
  });

  test(`${vp.name}: a 409 about a running evaluation goes once it has moved on`, async () => {
    const page = await open(vp);
    await shot(page, 'evaluation-message-' + vp.name, async () => {
      const name = 'Stale 409 ' + vp.name;
      await page.fill('#ev-name', name);
      await page.click('#ev-create button[type=submit]');
      await waitText(page, '#ev-msg', /^Created evaluation/);
      const row = page.locator('#ev-rows tr', { hasText: name });
      await row.locator('button', { hasText: 'Start' }).click();
      await row.locator('.running-note').waitFor();
      await row.locator('button', { hasText: 'Delete' }).click();
      await waitText(page, '#ev-msg', /^Error 409: /);
      await row.locator('.badge', { hasText: /^completed$/ }).waitFor({ timeout: 20000 });
      await waitText(page, '#ev-msg', new RegExp('^Evaluation ' + name + ' is now completed: the 409 no longer holds\\.$'), 5000);
    });
    await page.close();
  });

  test(`${vp.name}: the Inspector's chunk numbers show in full from 10 up`, async () => {
    const page = await open(vp);
    await shot(page, 'chunk-numbers-' + vp.name, async () => {
      const v = await page.locator('#ask-model option', { hasText: 'Northwind Support Assistant' }).first().getAttribute('value');
      await page.selectOption('#ask-model', v);
      await page.fill('#ask-query', 'How long is the standard warranty and how do I file a claim?');
      await page.click('#ask-go');
      await waitText(page, '#ask-msg', /^Done: \d+ tokens/, 20000);
      await page.click('#in-refresh');
      const row = page.locator('#in-rows tr', { hasText: '/api/v1/user/inference' }).last();
      await row.click();
      await waitText(page, '#in-detail', /Streamed chunks: \d+/);
      const numbers = await page.evaluate(() => {
        const list = document.querySelector('#in-detail ol.chunks');
        const lb = list.getBoundingClientRect();
        return [...list.querySelectorAll('li')].map((li, i) => {
          const n = li.querySelector('.n');
          if (!n) return { i, text: null };
          const r = n.getBoundingClientRect();
          return { i, text: n.textContent, inside: r.left >= lb.left - 0.5 && r.right <= lb.left + list.clientWidth + 0.5, whole: n.scrollWidth <= n.clientWidth + 0.5 };
        });
      });
      assert.ok(numbers.length >= 12, 'a stream of ' + numbers.length + ' chunks: want 12 or more');
      for (const n of numbers) {
        assert.equal(n.text, String(n.i + 1), 'chunk ' + (n.i + 1) + ' is numbered ' + JSON.stringify(n.text));
        assert.ok(n.inside && n.whole, 'chunk number ' + n.text + ' is cut off');
      }
    });
    await page.close();
  });
}

// An override the Overrides panel limits to an app's origin is listed with
// that limit, and leaves the console's own calls (another origin) alone.
test('an override limited to the app\'s origin, set from the panel, leaves the console alone', async () => {
  const page = await open(VIEWPORTS[0]);
  await shot(page, 'override-origin', async () => {
    await page.selectOption('#ov-op', 'listDatasets');
    await page.selectOption('#ov-kind', 'status');
    await page.selectOption('#ov-status', '503');
    await page.fill('#ov-origin', 'http://127.0.0.1:5173');
    await page.fill('#ov-times', '');
    await page.click('#ov-add button[type=submit]');
    await waitText(page, '#ov-msg', /^Override \d+ set: listDatasets answers status 503 until removed\.$/);
    const row = page.locator('#ov-rows tr', { hasText: 'listDatasets' });
    await waitText(page, '#ov-rows', /only: Origin: http:\/\/127\.0\.0\.1:5173/);
    const listed = await api('GET', '/admin/overrides');
    assert.deepEqual(listed.map((o) => o.match.headers), [{ Origin: 'http://127.0.0.1:5173' }]);
    await page.click('#ds-refresh'); // the console's own page, another origin: served as usual
    await waitText(page, '#ds-msg', /^Refreshed\.$/);
    assert.equal(await row.locator('td[data-label="Used"]').textContent(), '0');
    await page.click('#ov-clear');
    await waitText(page, '#ov-msg', /^Removed 1 override\(s\)\.$/);
  });
  await page.close();
});
