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
    '/host/attributes.html':
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Attributes</title></head><body>' +
      '<script src="/mha-explorer-element.js"></script>' +
      '<mha-explorer id="page" heads="8" text="the cat sat on the mat"></mha-explorer>' +
      '<mha-explorer id="mount" heads="many" text="the cat sat on the mat"></mha-explorer>' +
      '<mha-explorer id="lab" preset="train-two-offsets" heads="2"></mha-explorer></body></html>',
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

// An attribute changed to a value the page refuses is said in the element's messages, as the same value at mount is
// (the explorer and the lab keep their own value, and the message says which); a good value then clears it.
test('custom element: a refused attribute change gets the message a refused attribute at mount gets', async () => {
  const g = await env.page(env.own);
  const { page } = g;
  await page.goto(env.srv.origin + '/host/attributes.html');
  const messages = (id) =>
    page.evaluate((i) => document.getElementById(i).shadowRoot.querySelector('.messages').textContent, id);
  await page.waitForFunction(
    () =>
      ['page', 'mount', 'lab'].every((i) => {
        const e = document.getElementById(i);
        return e.mhaExplorer && e.mhaExplorer.getWeights();
      }),
    null,
    { timeout: 60000 },
  );
  const atMount = await messages('mount');
  assert.match(atMount, /heads must be a whole number from 1 to 1024; using 4 instead of "many"\./);

  await page.evaluate(() => document.getElementById('page').setAttribute('heads', 'many'));
  await page.waitForFunction(() => /heads must/.test(document.getElementById('page').shadowRoot.textContent));
  assert.match(
    await messages('page'),
    /heads must be a whole number from 1 to 1024; keeping 8 instead of "many"\./,
    'the words of the mount message, naming the value kept',
  );
  assert.equal(await page.evaluate(() => document.getElementById('page').mhaExplorer.getState().heads), 8);
  await page.evaluate(() => document.getElementById('page').setAttribute('heads', '2'));
  await page.waitForFunction(() => document.getElementById('page').mhaExplorer.getWeights().shape[1] === 2);
  assert.doesNotMatch(await messages('page'), /heads must/);

  await page.evaluate(() => document.getElementById('lab').setAttribute('heads', 'many'));
  await page.waitForFunction(() => /heads must/.test(document.getElementById('lab').shadowRoot.textContent));
  assert.match(await messages('lab'), /heads must be [^;]*; keeping 2 instead of "many"\./);
  assert.deepEqual(g.errors, []);
});
