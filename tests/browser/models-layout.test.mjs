// The model page's layout with a model loaded (issue 39, item 7), at 1280, 901, 390 and 320 px wide, checked by
// element boxes: no sideways scroll of the page; the shape trace table fits its box (at 1280 px) or scrolls inside it
// with its Step column readable; the Python snippet wraps; "where a token looks" shows every key inside its box; the
// attention view's small heatmaps carry column labels only where they do not overlap; the line view's header counts
// what its caption says; a link that opens a new tab says so and one that does not has no ↗; axe-core finds no
// violation. Screenshots: tests/browser/artifacts/models-layout-<width>.png (and -long-<width> at 60 tokens).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';

import { ARTIFACTS, axeViolations, guardedPage } from './helpers.mjs';
import { modelSite } from './models-oracle.mjs';

const WIDTHS = [1280, 901, 390, 320];
const SHORT = "The chicken didn't cross the road because it was too wide, so it stayed.";
let srv, browser, site;
before(async () => {
  site = await modelSite('mha-layout-');
  ({ srv, browser } = site);
});
after(() => site?.close());

// The boxes the checks read, in the page.
function boxes() {
  const r = (e) => e.getBoundingClientRect();
  const over = (e) => e.scrollWidth - e.clientWidth;
  const table = document.querySelector('.mhav table.trace'),
    box = table.closest('.mhav-scroll');
  const region = document.querySelector('#look').closest('.mp-scroll');
  const keysOut = Array.from(document.querySelectorAll('#look .mp-key')).filter(
    (k) => r(k).right > r(region).right + 1 || r(k).left < r(region).left - 1,
  ).length;
  // the view's cards and enlarged head: a canvas with labels has a left margin (x0 > 1); its cells then are at least 14 px
  const cards = Array.from(document.querySelectorAll('.mhav canvas')).map((c) => c._geom);
  const lines = document.querySelector('.mhav-lines');
  const header = lines ? Array.from(lines.querySelectorAll('text.lv-head')).map((t) => t.textContent) : [];
  return {
    page: over(document.documentElement),
    trace: { table: r(table).width, box: box.clientWidth, step: r(table.querySelector('tbody td:nth-child(2)')).width },
    snippet: over(document.querySelector('#snippet')),
    keysOut,
    labelled: cards.filter((g) => g && g.x0 > 1).map((g) => g.cell),
    header,
    caption: lines ? lines.querySelector('figcaption').textContent : '',
    links: Array.from(document.querySelectorAll('a')).map((a) => ({
      text: a.textContent,
      blank: a.target === '_blank',
    })),
  };
}

for (const [what, text] of [
  ['16 tokens', SHORT],
  ['60 tokens', (SHORT + ' ').repeat(4).trim()],
]) {
  test('the layout holds at 1280, 901, 390 and 320 px (' + what + '): boxes, links, axe-core', async () => {
    const g = await guardedPage(browser.context, (u) => u.startsWith(srv.origin + '/') || /^(data|blob):/.test(u));
    const { page } = g;
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(srv.origin + '/models.html?model=models/gpt2/');
      await page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready);
      assert.equal(await page.evaluate((t) => window.mhaExplorer.set({ text: t }), text), true);
      await page.evaluate(() => (document.querySelector('.mp-snippet').open = true));
      const T = (await page.evaluate(() => window.mhaExplorer.getTokens())).length;
      const b = await page.evaluate(boxes);
      const at = what + ' at ' + width + ' px: ';
      assert.ok(b.page <= 0, at + 'the page scrolls sideways by ' + b.page);
      if (width >= 1280) assert.ok(b.trace.table <= b.trace.box + 1, at + 'trace ' + JSON.stringify(b.trace));
      else assert.ok(b.trace.table <= b.trace.box + 1 || b.trace.step >= 120, at + 'trace ' + JSON.stringify(b.trace));
      assert.ok(b.snippet <= 0, at + 'the snippet cuts its lines by ' + b.snippet);
      assert.equal(b.keysOut, 0, at + 'keys of "where a token looks" outside its box');
      for (const cell of b.labelled) assert.ok(cell >= 14, at + 'labels on ' + cell + ' px cells overlap');
      if (T > 48) {
        assert.match(b.caption, /up to 8/);
        const n = /its (\d+) strongest keys|the (one|\d+) keys? it weighs/.exec(b.header.join(' '));
        assert.ok(n, at + 'header ' + b.header);
        if (n[1]) assert.equal(+n[1], 8);
      }
      for (const l of b.links) {
        assert.equal(/↗/.test(l.text), l.blank, at + 'link ' + l.text);
        if (l.blank) assert.match(l.text, /opens in a new tab/);
      }
      assert.deepEqual(await axeViolations(page), [], at + 'axe-core');
      await page.screenshot({
        path: join(ARTIFACTS, 'models-layout-' + (T > 48 ? 'long-' : '') + width + '.png'),
        fullPage: true,
      });
    }
    assert.deepEqual(g.errors, []);
    await page.close();
  });
}
