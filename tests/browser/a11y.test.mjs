// Accessibility audit with axe-core (WCAG 2.0/2.1 A and AA rules) of the explorer's lessons and views,
// its embed mode and the training lab, over http, at a desktop and a phone width, in the light and the
// dark theme; every case must have zero violations; on the hosted pages (index.html, lab.html) and on the
// one-file pages (mha-explorer.html, mha-explorer-lab.html: their shell, on three of the views). A full-page screenshot of each case goes to
// tests/browser/artifacts/a11y/<page>[-one-file]-<desktop|phone>-<light|dark>.png.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { ARTIFACTS, VARIANTS, guardedPage, openPage, suite } from './helpers.mjs';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');
const SHOTS = join(ARTIFACTS, 'a11y');
mkdirSync(SHOTS, { recursive: true });

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const WIDTHS = { desktop: { width: 1360, height: 900 }, phone: { width: 390, height: 844 } };
const THEMES = ['light', 'dark'];

// The one-file pages are the same modules in another shell (its inline core loader): their shell is audited on the
// first view, a lesson and the lab; every lesson and view on the hosted pages.
const ONE_FILE_PAGES = new Set(['index', 'lesson004', 'lab-two-offsets']);
// [name, path with query (without the theme)] of each variant
const PAGES = VARIANTS.flatMap(({ oneFile, page, lab }) =>
  [
    ['index', `/${page}`],
    ['lesson000', `/${page}?preset=lesson000`],
    ['lesson001', `/${page}?preset=lesson001`],
    ...['heads', 'pipeline', 'module', 'loop', 'causal'].map((v) => [
      `lesson002-${v}`,
      `/${page}?preset=lesson002&view=${v}`,
    ]),
    ['lesson003', `/${page}?preset=lesson003`],
    ['lesson004', `/${page}?preset=lesson004`],
    ['embed-lesson000', `/${page}?embed=1&preset=lesson000`],
    ['lab-two-offsets', `/${lab}?preset=train-two-offsets`],
  ]
    .filter(([name]) => !oneFile || ONE_FILE_PAGES.has(name))
    .map(([name, path]) => [oneFile ? name + '-one-file' : name, path]),
);

const env = suite();
const report = {}; // label → violations, written to artifacts/a11y/violations.json
after(() => {
  writeFileSync(join(SHOTS, 'violations.json'), JSON.stringify(report, null, 1) + '\n');
});

const withTheme = (path, theme) => path + (path.includes('?') ? '&' : '?') + 'theme=' + theme;

// Waits until the page has drawn: the explorer's weights exist and its status line has stopped saying
// "Computing"; the lab's trainer is ready. Then two animation frames and the end of CSS transitions.
async function ready(page, url) {
  if (/lab\.html/.test(url)) {
    await page.goto(url);
    await page.evaluate(() => window.mhaExplorer.ready);
  } else {
    await openPage(page, url);
    await page.waitForFunction(
      () => {
        const s = document.getElementById('status');
        return !s || !/Computing/.test(s.textContent);
      },
      null,
      { timeout: 20000 },
    );
  }
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.waitForTimeout(200);
}

function describe(violations) {
  return violations
    .map((v) => {
      const targets = v.nodes
        .slice(0, 5)
        .map(
          (n) =>
            '      ' +
            n.target.join(' >>> ') +
            (n.failureSummary
              ? '  — ' +
                n.failureSummary
                  .split('\n')
                  .slice(1)
                  .map((x) => x.trim())
                  .join('; ')
              : ''),
        )
        .join('\n');
      return (
        `  ${v.id} [${v.impact}] ${v.help} (${v.nodes.length} node${v.nodes.length === 1 ? '' : 's'})\n${targets}` +
        (v.nodes.length > 5 ? `\n      … and ${v.nodes.length - 5} more` : '')
      );
    })
    .join('\n');
}

const cases = [];
for (const [name, path] of PAGES)
  for (const [wname, size] of Object.entries(WIDTHS))
    for (const theme of THEMES) {
      cases.push({ name, path, wname, size, theme, label: `${name} · ${wname} · ${theme}` });
    }

test('axe-core: zero WCAG 2.1 A/AA violations', { concurrency: 2 }, async (t) => {
  await Promise.all(
    cases.map((c) =>
      t.test(c.label, async (st) => {
        // not in the suite's end check: console errors go to the diagnostics, axe's violations are the assertion
        const g = await guardedPage(env.browser.context, () => true);
        const { page } = g;
        try {
          await page.setViewportSize(c.size);
          await ready(page, env.srv.origin + withTheme(c.path, c.theme));
          assert.equal(
            await page.evaluate(() =>
              (document.querySelector('.mhx') || document.documentElement).getAttribute('data-theme'),
            ),
            c.theme,
            'theme applied',
          );
          await page.screenshot({ path: join(SHOTS, `${c.name}-${c.wname}-${c.theme}.png`), fullPage: true });
          await page.addScriptTag({ path: AXE });
          const result = await page.evaluate(
            (values) => window.axe.run(document, { runOnly: { type: 'tag', values } }),
            TAGS,
          );
          if (g.errors.length) st.diagnostic('console errors: ' + g.errors.join(' | '));
          const v = result.violations;
          report[c.label] = v.map((x) => ({
            id: x.id,
            impact: x.impact,
            help: x.help,
            targets: x.nodes.map((n) => ({ target: n.target, html: n.html, summary: n.failureSummary })),
          }));
          assert.equal(v.length, 0, `${v.length} axe violation(s) on ${c.label} (${c.path}):\n${describe(v)}`);
        } finally {
          await page.close();
        }
      }),
    ),
  );
});
