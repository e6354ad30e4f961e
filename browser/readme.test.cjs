// The README's Playwright example, run as written: the fixture (e2e/mock.ts)
// and the test are read from docs/frontend.md (between their markers), saved as
// files and run by @playwright/test's own runner against the mock and a
// small app page, so the README cannot drift from what works. Only the
// browser and the addresses differ from a developer's machine: Debian's
// Chromium, named in the config, and ports of this run, given as MOCK_URL
// and APP_URL. No key is given: the fixture opens its worker's account
// (the mock runs with --open-keys 'test-*', as make run does).
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { MOCK_URL, APP_KEY, startModelApp, runPlaywright, readmeBlock, playwrightProject } = require('./harness.cjs');

let app;
let dir;

before(async () => {
  app = await startModelApp(APP_KEY);
});

after(async () => {
  if (app) await app.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('every variable the README\'s Playwright example reads has a default', () => {
  for (const block of ['e2e-fixture', 'e2e-example']) {
    const code = readmeBlock(block);
    const reads = [...code.matchAll(/process\.env\.([A-Z_]+)(\s*\?\?)?/g)];
    for (const m of reads) assert.ok(m[2], `${block}: process.env.${m[1]} has no default (?? ...)`);
    assert.doesNotMatch(code, /API_KEY/, `${block} needs an API key variable`);
  }
});

test('the README\'s Playwright example passes as written, under @playwright/test', async () => {
  dir = playwrightProject({ 'model-page.spec.ts': readmeBlock('e2e-example') });
  const { code, out } = await runPlaywright(dir, ['-c', 'playwright.config.mjs'], { MOCK_URL, APP_URL: app.url });
  assert.equal(code, 0, 'npx playwright test failed:\n' + out);
  assert.match(out, /1 passed/, out);
});
