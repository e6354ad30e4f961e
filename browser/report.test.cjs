// The conformance suite's HTML report (report/report.html) in
// Chromium: it opens with the failures, its filter hides and shows checks
// by outcome and area, and without JavaScript every check shows.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { pathToFileURL } = require('node:url');
const { launch, shot, text } = require('./harness.cjs');

const REPORT = process.env.REPORT_HTML;
if (!REPORT || !fs.existsSync(REPORT)) throw new Error('REPORT_HTML must name a generated report (browser/run.sh writes it)');
const reportURL = pathToFileURL(REPORT).href;

let browser;

before(async () => {
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
});

// visible returns the outcome and area of every check shown.
function visible(page) {
  return page.locator('[data-outcome]:visible').evaluateAll((els) => els.map((e) => e.dataset.outcome + ' ' + e.dataset.area));
}

test('the HTML report opens with the failures and filters by outcome and area', async () => {
  const page = await browser.context.newPage();
  await shot(page, 'report-filter', async () => {
    await page.goto(reportURL);
    const all = await visible(page);
    const failed = all.filter((c) => c.startsWith('failed ')).length;
    assert.ok(failed > 0 && all.some((c) => c.startsWith('passed ')) && all.some((c) => c.startsWith('skipped ')),
      'the run has failed, passed and skipped checks: ' + all.join(', '));
    assert.deepEqual(all.slice(0, failed), all.filter((c) => c.startsWith('failed ')), 'the failures come first');
    assert.match(await text(page, '#shown'), new RegExp('^' + all.length + ' check'));

    // Outcome: hide the passed checks.
    await page.locator('input[name=outcome][value=passed]').uncheck();
    let shown = await visible(page);
    assert.ok(shown.length > 0 && shown.every((c) => !c.startsWith('passed ')), 'no passed check shows: ' + shown.join(', '));
    assert.equal(shown.length, all.filter((c) => !c.startsWith('passed ')).length);

    // Area: only isolation (its checks skipped without a second key).
    await page.locator('select[name=area]').selectOption('isolation');
    shown = await visible(page);
    assert.ok(shown.length > 0 && shown.every((c) => c === 'skipped isolation'), 'only isolation: ' + shown.join(', '));
    assert.equal(await page.locator('#failures').isVisible(), false, 'a section with no check shown is hidden');

    // Everything again.
    await page.locator('input[name=outcome][value=passed]').check();
    await page.locator('select[name=area]').selectOption('');
    assert.equal((await visible(page)).length, all.length);
    assert.ok(await page.locator('#coverage .code.unseen').count() > 0, 'the coverage table marks never-seen statuses');
  });
  await page.close();
});

test('without JavaScript the report shows every check and no filter', async () => {
  const off = await launch({ javaScriptEnabled: false });
  try {
    const page = await off.context.newPage();
    await shot(page, 'report-no-js', async () => {
      await page.goto(reportURL);
      assert.equal(await page.locator('#filter').isVisible(), false, 'the filter form stays hidden');
      const total = await page.locator('[data-outcome]').count();
      assert.ok(total > 0);
      assert.equal(await page.locator('[data-outcome]:visible').count(), total, 'every check shows');
    });
  } finally {
    await off.close();
  }
});
