// Shared by the browser tests: one headless Chromium (Debian's, through
// playwright-core) with a fresh profile, the mock's address and key, and a
// wrapper that saves a screenshot under build/ when a test fails.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');

const MOCK_URL = process.env.MOCK_URL;
const MOCK_API_KEY = process.env.MOCK_API_KEY;
if (!MOCK_URL || !MOCK_API_KEY) throw new Error('MOCK_URL and MOCK_API_KEY must be set (browser/run.sh sets them)');
const BUILD = path.join(__dirname, '..', 'build');

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// launch starts Chromium with a fresh user-data-dir (removed by close);
// options are more context options ({ javaScriptEnabled: false }).
async function launch(options) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contractkit-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
    ...options,
  });
  context.setDefaultTimeout(15000);
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// shot runs fn(page); on failure it saves the page as build/browser-NAME.png
// and rethrows.
async function shot(page, name, fn) {
  try {
    await fn();
  } catch (err) {
    fs.mkdirSync(BUILD, { recursive: true });
    const file = path.join(BUILD, 'browser-' + name.replace(/[^a-z0-9]+/gi, '-') + '.png');
    await page.screenshot({ path: file, fullPage: true }).catch(() => {});
    err.message += '\n(screenshot: ' + file + ')';
    throw err;
  }
}

// text returns an element's text, trimmed.
async function text(page, selector) {
  return ((await page.locator(selector).textContent()) || '').trim();
}

// waitText waits until the element's text matches re.
async function waitText(page, selector, re, timeout) {
  await page.waitForFunction(([sel, src, flags]) => {
    const n = document.querySelector(sel);
    return !!n && new RegExp(src, flags).test(n.textContent);
  }, [selector, re.source, re.flags], { timeout: timeout || 15000 });
}

// The app the README's Playwright tests drive: its model page
// (/models/ID) reads one model from the mock with the app's own key and
// shows its name, or the service's error message. It loads its data twice,
// one call after the other, as React's StrictMode does in development: the
// page shows the second answer, and counts its loads in data-loads.
const modelPage = (mock, key) => `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Model</title></head><body><main id="model">loading</main>
<script>
(async () => {
  const id = location.pathname.split('/').pop();
  const out = document.getElementById('model');
  const load = async () => {
    const resp = await fetch(${JSON.stringify(mock)} + '/api/v1/user/model/' + encodeURIComponent(id), { headers: { Authorization: 'Bearer ' + ${JSON.stringify(key)} } });
    const body = await resp.json();
    out.textContent = resp.ok ? body.data.name + ' (' + body.data.status + ')' : body.message;
    out.dataset.loads = String(Number(out.dataset.loads || 0) + 1);
  };
  await load();
  await load();
})();
</script></body></html>`;

// startModelApp serves the model page on a port of its own (another
// origin than the mock's); the page calls the mock with key. It resolves
// to { url, close }.
async function startModelApp(key) {
  const http = require('node:http');
  const app = http.createServer((req, res) => {
    if (!/^\/models\/[0-9]+$/.test(req.url)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(modelPage(MOCK_URL, key));
  });
  await new Promise((ok) => app.listen(0, '127.0.0.1', ok));
  return { url: 'http://127.0.0.1:' + app.address().port, close: () => new Promise((ok) => app.close(ok)) };
}

// APP_KEY is the key the app page sends: no key of the mock, so a call
// reaches an account only when the test's fixture gives it the worker's key.
const APP_KEY = 'the-app-s-own-key';

// runPlaywright runs @playwright/test's CLI in dir with args and env added,
// asynchronously (the app page is served by this very process); it
// resolves to { code, out }.
async function runPlaywright(dir, args, env, timeoutMs) {
  const { spawn } = require('node:child_process');
  const cli = path.join(__dirname, '..', 'tools', 'node_modules', '@playwright', 'test', 'cli.js');
  const child = spawn(process.execPath, [cli, 'test', ...args], {
    cwd: dir, env: { ...process.env, CI: '1', PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', ...env },
  });
  let out = '';
  child.stdout.on('data', (b) => { out += b; });
  child.stderr.on('data', (b) => { out += b; });
  const timer = setTimeout(() => child.kill(), timeoutMs || 180000);
  const code = await new Promise((ok) => child.on('close', ok));
  clearTimeout(timer);
  return { code, out };
}

// readmeBlock is the fenced code between <!-- NAME:start --> and
// <!-- NAME:end --> in docs/frontend.md (the README's frontend guide).
function readmeBlock(name) {
  const md = fs.readFileSync(path.join(__dirname, '..', 'docs', 'frontend.md'), 'utf8');
  const m = md.match(new RegExp('<!-- ' + name + ':start -->\\s*```(?:js|ts)\\n([\\s\\S]*?)```\\s*<!-- ' + name + ':end -->'));
  if (!m) throw new Error('docs/frontend.md has no code between <!-- ' + name + ':start --> and <!-- ' + name + ':end -->');
  return m[1];
}

// playwrightProject writes a project for @playwright/test into a new
// directory: the README's fixture as mock.ts, the given spec files, a
// config that names Debian's Chromium. It returns the directory.
function playwrightProject(specs, config) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contractkit-e2e-'));
  fs.symlinkSync(path.join(__dirname, '..', 'tools', 'node_modules'), path.join(dir, 'node_modules')); // @playwright/test
  fs.writeFileSync(path.join(dir, 'mock.ts'), readmeBlock('e2e-fixture'));
  for (const [name, text] of Object.entries(specs)) fs.writeFileSync(path.join(dir, name), text);
  fs.writeFileSync(path.join(dir, 'playwright.config.mjs'), `export default {
  testDir: '.', timeout: 60000, reporter: 'list', ${config || 'workers: 1'},
  use: { headless: true, launchOptions: { executablePath: ${JSON.stringify(process.env.CHROMIUM || '/usr/bin/chromium')}, args: ${JSON.stringify(ARGS)} } },
};
`);
  return dir;
}

module.exports = { MOCK_URL, MOCK_API_KEY, APP_KEY, launch, shot, text, waitText, startModelApp, runPlaywright, readmeBlock, playwrightProject };
