// dist/index.html and the one-file dist/mha-explorer.html opened directly from file:// (no server, classic
// scripts; the forward pool's workers from blob: URLs of the core's text), and the <mha-explorer> custom element on a
// plain host page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { suite, openPage, checkForwardPool, fileURL, allowedFor, ARTIFACTS, DIST, VARIANTS } from './helpers.mjs';
import { pathToFileURL } from 'node:url';

const env = suite({
  extra: {
    '/host/plain.html':
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Course page</title></head><body>' +
      '<h1>Lesson 003</h1><script src="/mha-explorer-element.js"></script>' +
      '<mha-explorer preset="lesson003" heads="4" hide="lesson,share"></mha-explorer></body></html>',
  },
});

for (const variant of VARIANTS)
  test(`file:// — the page works without a server (${variant.name})`, async () => {
    const g = await env.page(allowedFor(variant, pathToFileURL(DIST).href));
    // large enough for the forward pool: its workers start from blob: URLs, which Chromium allows on file://
    const text = Array.from({ length: 200 }, (_, i) => 'word' + (i % 50)).join(' ');
    await openPage(g.page, fileURL(variant.page) + '?dmodel=512&heads=8&causal=1&text=' + encodeURIComponent(text));
    const w = await g.page.evaluate(() => window.mhaExplorer.getWeights().shape);
    assert.deepEqual(w, [1, 8, 200, 200]);
    await checkForwardPool(g.page);
    assert.equal(await g.page.locator('[data-head]').count(), 8);
    await g.page.fill('#c-text', 'It opens from a file');
    await g.page.waitForFunction(() => window.mhaExplorer.getLabels().length === 5);
    await g.page.screenshot({
      path: join(ARTIFACTS, variant.oneFile ? 'file-url-one-file.png' : 'file-url.png'),
      fullPage: true,
    });
    assert.deepEqual(g.errors, []);
    assert.deepEqual(g.foreign, []);
  });

test('custom element on a plain host page', async () => {
  const g = await env.page(env.own);
  await g.page.goto(env.srv.origin + '/host/plain.html');
  // the explorer in the element's shadow root (no iframe), in the focused embed layout
  await g.page.waitForFunction(
    () => {
      const e = document.querySelector('mha-explorer');
      return e && e.mhaExplorer && e.mhaExplorer.getWeights() !== null;
    },
    null,
    { timeout: 20000 },
  );
  assert.equal(await g.page.locator('mha-explorer [data-head]').count(), 4);
  assert.equal(await g.page.locator('mha-explorer iframe').count(), 0);
  assert.ok(
    await g.page.evaluate(() =>
      document.querySelector('mha-explorer').shadowRoot.querySelector('.mhx').classList.contains('embed'),
    ),
  );
  assert.deepEqual(
    await g.page.evaluate(() => document.querySelector('mha-explorer').mhaExplorer.getWeights().shape),
    [2, 4, 8, 8],
  );
  // it takes the height of its content, and leaves the host page's address alone
  assert.ok(await g.page.evaluate(() => document.querySelector('mha-explorer').getBoundingClientRect().height > 720));
  assert.equal(await g.page.evaluate(() => location.href), env.srv.origin + '/host/plain.html');
  await g.page.screenshot({ path: join(ARTIFACTS, 'custom-element.png'), fullPage: true });
  assert.deepEqual(g.errors, []);
  assert.deepEqual(g.foreign, []);
});
