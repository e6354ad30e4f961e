// The README's Playwright example, run as written: it is read from README.md
// (between the e2e-example markers), saved as a spec file and run by
// @playwright/test's own runner against the mock and a small app page, so
// the README cannot drift from what works. Only the browser differs from a
// developer's machine: Debian's Chromium, named in the config.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { MOCK_URL, MOCK_API_KEY } = require('./harness.cjs');

const ROOT = path.join(__dirname, '..');
const TOOLS = path.join(ROOT, 'tools', 'node_modules');

// readmeExample is the fenced code between the markers.
function readmeExample() {
  const md = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const m = md.match(/<!-- e2e-example:start -->\s*```(?:js|ts)\n([\s\S]*?)```\s*<!-- e2e-example:end -->/);
  assert.ok(m, 'README.md has no example between <!-- e2e-example:start --> and <!-- e2e-example:end -->');
  return m[1];
}

// The app under test: its model page reads one model from the mock (with the
// same key, as the README says) and shows its name, or the error message.
const page = (mock, key) => `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Model</title></head><body><main id="model">loading</main>
<script>
(async () => {
  const id = location.pathname.split('/').pop();
  const resp = await fetch(${JSON.stringify(mock)} + '/api/v1/user/model/' + encodeURIComponent(id), { headers: { Authorization: 'Bearer ' + ${JSON.stringify(key)} } });
  const body = await resp.json();
  document.getElementById('model').textContent = resp.ok ? body.data.name + ' (' + body.data.status + ')' : body.message;
})();
</script></body></html>`;

let app;
let appURL;
let dir;

before(async () => {
  app = http.createServer((req, res) => {
    if (!/^\/models\/[0-9]+$/.test(req.url)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(page(MOCK_URL, MOCK_API_KEY));
  });
  await new Promise((ok) => app.listen(0, '127.0.0.1', ok));
  appURL = 'http://127.0.0.1:' + app.address().port;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contractkit-readme-e2e-'));
  fs.symlinkSync(TOOLS, path.join(dir, 'node_modules')); // the spec imports @playwright/test
});

after(async () => {
  if (app) await new Promise((ok) => app.close(ok));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('the README\'s Playwright example passes as written, under @playwright/test', async () => {
  // The example's model 4 is the first fixture model of the first key.
  const reset = await fetch(MOCK_URL + '/admin/reset', { method: 'POST', headers: { Authorization: 'Bearer ' + MOCK_API_KEY } });
  assert.equal(reset.status, 200, 'reset the account');
  fs.writeFileSync(path.join(dir, 'model-page.spec.ts'), readmeExample());
  fs.writeFileSync(path.join(dir, 'playwright.config.mjs'), `export default {
  testDir: '.', workers: 1, timeout: 60000, reporter: 'list',
  use: { headless: true, launchOptions: { executablePath: ${JSON.stringify(process.env.CHROMIUM || '/usr/bin/chromium')}, args: ['--no-sandbox'] } },
};
`);
  // Run asynchronously: the app page is served by this very process.
  const child = spawn(process.execPath, [path.join(TOOLS, '@playwright', 'test', 'cli.js'), 'test', '-c', path.join(dir, 'playwright.config.mjs')], {
    cwd: dir, env: { ...process.env, MOCK_URL, APP_URL: appURL, API_KEY: MOCK_API_KEY, CI: '1', PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
  });
  let out = '';
  child.stdout.on('data', (b) => { out += b; });
  child.stderr.on('data', (b) => { out += b; });
  const timer = setTimeout(() => child.kill(), 180000);
  const code = await new Promise((ok) => child.on('close', ok));
  clearTimeout(timer);
  assert.equal(code, 0, 'npx playwright test failed:\n' + out);
  assert.match(out, /1 passed/, out);
});
