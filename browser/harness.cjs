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

module.exports = { MOCK_URL, MOCK_API_KEY, launch, shot, text, waitText };
