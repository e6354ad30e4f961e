'use strict';
// What npm/package.test.cjs reads from the frontend guide (docs/frontend.md,
// the README's link for a frontend team): the blocks a frontend team copies
// (each between <!-- NAME:start --> and <!-- NAME:end --> markers), and the
// claims it makes about the package in words (those of every guide).
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const GUIDE = path.join(ROOT, 'docs', 'frontend.md');

function text() {
  return fs.readFileSync(GUIDE, 'utf8');
}

// everyGuide is the README and every guide under docs/, one text.
function everyGuide() {
  const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join(ROOT, 'docs', f));
  return [path.join(ROOT, 'README.md'), ...docs].map((f) => fs.readFileSync(f, 'utf8')).join('\n\n');
}

// block is the fenced code between <!-- name:start --> and <!-- name:end -->.
function block(name, md = text()) {
  const m = md.match(new RegExp(`<!-- ${name}:start -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${name}:end -->`));
  assert.ok(m, `docs/frontend.md has no block between <!-- ${name}:start --> and <!-- ${name}:end -->`);
  return m[1];
}

// recipe is the npm section's Playwright files (every block between
// <!-- npm-recipe:start FILE --> and <!-- npm-recipe:end -->) with the
// worker fixture and the test of "End-to-end tests with Playwright"
// (e2e-fixture and e2e-example markers), by file.
function recipe() {
  const md = text();
  const files = {};
  const re = /<!-- npm-recipe:start ([\w./-]+) -->\s*```\w*\n([\s\S]*?)```\s*<!-- npm-recipe:end -->/g;
  for (const m of md.matchAll(re)) files[m[1]] = m[2];
  assert.deepEqual(Object.keys(files).sort(), ['e2e/models.spec.ts', 'playwright.config.ts'],
    'docs/frontend.md\'s npm section gives playwright.config.ts and e2e/models.spec.ts between npm-recipe markers');
  files['e2e/mock.ts'] = block('e2e-fixture', md);
  files['e2e/model-page.spec.ts'] = block('e2e-example', md);
  return files;
}

// sizes are the package sizes "What is installed" states, in npm's units:
// the main package installed, and the linux-x64 package downloaded and on
// disk.
function sizes() {
  const md = text();
  const main = md.match(/\(the launcher, the types and the form helper, (\d+ kB)\s+installed\)/);
  const platform = md.match(/\*\*([\d.]+ MB)\s+to download and ([\d.]+ MB) on disk\*\* for linux-x64/);
  assert.ok(main && platform, 'docs/frontend.md\'s "What is installed" no longer states the sizes as this test reads them: "(the launcher, the types and the form helper, N kB installed)" and "**N MB to download and N MB on disk** for linux-x64"');
  return { main: main[1], download: platform[1], disk: platform[2] };
}

// tscClaims are the README's and the guides' passages (paragraphs and list items) that say
// something "fails `tsc`": each must say with what (`satisfies`), since a
// misspelt body field through openapi-fetch alone compiles (the npm-types
// block holds both halves to tsc).
function tscClaims() {
  return everyGuide().split(/\n\s*\n|\n(?=\s*- )/).filter((p) => /fails `tsc`/.test(p));
}

module.exports = { block, recipe, sizes, tscClaims };
