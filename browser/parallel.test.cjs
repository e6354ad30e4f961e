// Playwright's parallel workers against one mock, through the README's
// fixture (e2e/mock.ts, read from docs/frontend.md): 4 workers run 4 files of 2
// tests, each repeated, and every test forces its own error with a
// `times: 2` override, sees it on its page (which loads its data twice),
// and finds in its journal exactly the two calls of its page, both
// answered by its override. One account per worker (test-<parallelIndex>,
// opened by --open-keys) is what keeps them apart.
//
// With SHARED_KEY_PROOF=1 the same run is made with the fixture's key
// replaced by one key for every worker, and must FAIL: the proof that the
// tests above can see interference (a run of its own, not part of make
// browser-test: which test another one disturbs is a matter of timing).
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { MOCK_URL, APP_KEY, startModelApp, runPlaywright, playwrightProject } = require('./harness.cjs');

const FILES = 4;
const TESTS = 2;
const REPEAT = 2;
const WORKERS = 4;

// spec is one test file: TESTS tests, each with its own error message.
const spec = (file) => `import { test, expect } from './mock';

const APP = process.env.APP_URL ?? 'http://127.0.0.1:5173';

for (const n of [${Array.from({ length: TESTS }, (_, i) => i + 1).join(', ')}]) {
  test('file ${file}, test ' + n, async ({ page, mock }) => {
    const list = await mock.api.get('/api/v1/user/model');
    const model = (await list.json()).data.find((m: { name: string }) => m.name === 'Northwind Support Assistant');
    const message = 'down for file ${file}, test ' + n + ', run ' + test.info().repeatEachIndex;
    const set = await mock.api.post('/admin/overrides', { data: {
      match: { method: 'GET', path: '/api/v1/user/model/{model_id}' },
      respond: { status: 503, message },
      times: 2,
    } });
    expect(set.status(), await set.text()).toBe(200);
    const { data: override } = await set.json();

    await page.goto(APP + '/models/' + model.id);
    await expect(page.locator('#model')).toHaveAttribute('data-loads', '2');
    await expect(page.locator('#model')).toHaveText(message);

    const calls = (await (await mock.api.get('/admin/requests?method=GET&path=/api/v1/user/model/')).json()).data;
    expect(calls.map((c: any) => [c.status, c.override?.id, c.override?.use])).toEqual([[503, override.id, 1], [503, override.id, 2]]);
    expect((await (await mock.api.get('/admin/overrides')).json()).data).toEqual([]);
  });
}
`;

let app;
const dirs = [];

before(async () => {
  app = await startModelApp(APP_KEY);
});

after(async () => {
  if (app) await app.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function project(sharedKey) {
  const specs = {};
  for (let f = 1; f <= FILES; f++) specs[`file-${f}.spec.ts`] = spec(f);
  const dir = playwrightProject(specs, `workers: ${WORKERS}, fullyParallel: true`);
  dirs.push(dir);
  if (sharedKey) {
    const file = path.join(dir, 'mock.ts');
    const text = fs.readFileSync(file, 'utf8');
    const one = text.replace('`test-${workerInfo.parallelIndex}`', "'test-shared'");
    assert.notEqual(one, text, 'the README fixture no longer names its key as test-${workerInfo.parallelIndex}');
    fs.writeFileSync(file, one);
  }
  return dir;
}

const total = FILES * TESTS * REPEAT;

if (process.env.SHARED_KEY_PROOF === '1') {
  test(`with one key for ${WORKERS} workers, the same ${total} tests fail`, async () => {
    const { code, out } = await runPlaywright(project(true), ['-c', 'playwright.config.mjs', '--repeat-each', String(REPEAT)], { MOCK_URL, APP_URL: app.url }, 300000);
    const lines = out.split('\n');
    console.log(lines.filter((l) => /^\s+\d+ (passed|failed|flaky)/.test(l)).join('\n'));
    console.log(lines.filter((l) => /Expected:|Received:/.test(l)).slice(0, 12).join('\n'));
    assert.notEqual(code, 0, 'the run passed with one shared key:\n' + out);
  });
} else {
  test(`${WORKERS} workers × ${FILES} files × ${TESTS} tests, each repeated ${REPEAT} times, against one mock: no test sees another's`, async () => {
    const { code, out } = await runPlaywright(project(false), ['-c', 'playwright.config.mjs', '--repeat-each', String(REPEAT)], { MOCK_URL, APP_URL: app.url }, 300000);
    assert.equal(code, 0, 'npx playwright test failed:\n' + out);
    assert.match(out, new RegExp(`${total} passed`), out);
    // Each worker used an account of its own, and its calls are there.
    const names = new Set();
    for (let i = 0; i < WORKERS; i++) {
      const headers = { Authorization: 'Bearer test-' + i };
      const who = (await (await fetch(MOCK_URL + '/admin/account', { headers })).json()).data;
      assert.equal(who.open, true, 'test-' + i + ' opened an account: ' + JSON.stringify(who));
      names.add(who.account);
      const calls = (await (await fetch(MOCK_URL + '/admin/requests', { headers })).json()).data;
      assert.ok(calls.length > 0, 'worker ' + i + ' left its last test\'s calls in its own journal');
    }
    assert.equal(names.size, WORKERS, 'one account per worker: ' + [...names].join(', '));
  });
}
