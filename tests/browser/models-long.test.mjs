// Long work never freezes the model page (issue 39 item 6): on a tiny GPT-2 with 1024 positions
// (tests/browser/long_gpt2.py), a 1,000-token text computes in the model's worker while the page answers a click
// within 200 ms; the busy sign says so with Cancel and the previous text's heads stay, marked stale; Cancel stops the
// work (the worker ends and starts again: a short text is then shown well before the long forward would have ended)
// and leaves the previous view, said; a text longer than the positions leaves the grid marked as the previous text's;
// the Colours control's per-layer and per-head ranges are the weights' own 99th percentiles. Screenshots at 1280 and
// 390 px in tests/browser/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ARTIFACTS, guardedPage, repo } from './helpers.mjs';
import { modelSite, python } from './models-oracle.mjs';

let site, folder, page, g;
const SENTENCE = "The chicken didn't cross the road because it was too wide. ";

before(async () => {
  site = await modelSite('mha-long-');
  folder = mkdtempSync(join(tmpdir(), 'mha-long-gpt2-'));
  execFileSync(python(), [join(repo, 'tests', 'browser', 'long_gpt2.py'), folder, join(site.models, 'gpt2')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  g = await guardedPage(site.browser.context, (u) => u.startsWith(site.srv.origin + '/') || /^(data|blob):/.test(u));
  page = g.page;
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(site.srv.origin + '/models.html');
  await page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready);
  await page.setInputFiles(
    '#pick-files',
    readdirSync(folder).map((f) => join(folder, f)),
  );
  assert.equal(await page.evaluate(() => window.mhaExplorer.ready), true);
});
after(async () => {
  await site?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

// The sentence repeated into a text of at most n tokens (the page's tokenizer counts them).
const textOf = (n, tail = '') =>
  page.evaluate(
    ([s, n, tail]) => {
      const m = window.mhaExplorer.getModel();
      let k = 1;
      while (m.tokenize(s.repeat(k + 1) + tail).ids.length <= n) k++;
      return s.repeat(k) + tail;
    },
    [SENTENCE, n, tail],
  );
const busy = () => page.evaluate(() => window.mhaExplorer.getBusy());
const tokens = () => page.evaluate(() => window.mhaExplorer.getTokens().length);
// set({text}) without waiting: → when it was asked (Date.now())
const ask = async (text) => {
  await page.evaluate((t) => {
    window.mhaExplorer.set({ text: t });
  }, text);
  return Date.now();
};
const computing = () => page.waitForFunction(() => window.mhaExplorer.getBusy().computing, null, { timeout: 60000 });

let longTime = 0;
test('1,000 tokens compute in the worker: the page answers a click within 200 ms, the old heads stay marked stale', async () => {
  assert.equal((await busy()).worker, true, 'the model runs in its worker');
  const before = await tokens();
  const long = await textOf(1000);
  await page.evaluate((t) => (window.longText = t), long);
  const t0 = await ask(long);
  await computing();
  const b = await busy();
  assert.equal(b.stale, true, 'the previous view is marked stale');
  assert.match(
    b.words,
    new RegExp('Computing the attention of (9\\d\\d|1,0\\d\\d) tokens… .*previous text’s \\(' + before + ' tokens\\)'),
  );
  assert.equal(await tokens(), before, 'the grid still shows the previous text');
  assert.equal(await page.evaluate(() => document.querySelector('.content').classList.contains('mp-stale')), true);
  // the click before the screenshot: a forward that ends while the screenshot is taken would leave nothing to click
  // through (CI saw it finish first once)
  await page.evaluate(() => {
    document.querySelector('#grid-note').addEventListener(
      'click',
      (e) =>
        (window.clickDelay = {
          delay: performance.now() - e.timeStamp,
          computing: window.mhaExplorer.getBusy().computing,
        }),
      { once: true },
    );
  });
  const c0 = Date.now();
  await page.click('#grid-note');
  const click = await page.evaluate(() => window.clickDelay);
  const roundTrip = Date.now() - c0;
  assert.ok(click && click.computing, 'the click came while the forward computed');
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, 'models-long-busy-1280.png') });
  console.log(
    'a click while it computed: handled ' +
      click.delay.toFixed(1) +
      ' ms after the input, ' +
      roundTrip +
      ' ms from the test and back',
  );
  assert.ok(click.delay < 200, 'the click waited ' + click.delay + ' ms for the page');
  // The handler's own delay is what a student feels; the round trip adds the test's
  // DevTools hops, which a loaded machine stretches past 200 ms. A blocked main thread
  // would hold it for the whole forward (seconds), so 2 s still tells the two apart.
  assert.ok(roundTrip < 2000, 'the click took ' + roundTrip + ' ms from the test to its handler and back');
  assert.equal(await page.evaluate(() => window.mhaExplorer.ready), true);
  longTime = Date.now() - t0;
  console.log('the 1,000-token change took ' + longTime + ' ms');
  assert.ok((await tokens()) > 990);
  const after = await busy();
  assert.deepEqual([after.computing, after.stale, after.words], [false, false, '']);
  await page.screenshot({ path: join(ARTIFACTS, 'models-long-1280.png') });
});

test('Cancel stops the work and leaves the previous view, said; a short text then comes', async () => {
  const shown = await tokens(),
    restarts = (await busy()).restarts;
  await ask(await textOf(1010, ' Once more.'));
  await computing();
  await page.click('.mp-busy button');
  // the long forward's promise is refused (its worker is ended, not waited for): no clock compared, the loaded
  // machine's timings vary; the restart, the kept previous heads and the words below show it
  assert.equal(await page.evaluate(() => window.mhaExplorer.ready), false);
  const b = await busy();
  assert.equal(b.restarts, restarts + 1, 'the worker was ended and another started');
  assert.equal(b.computing, false);
  assert.equal(b.stale, true);
  assert.match(b.words, /previous text’s \(\d+ tokens\): cancelled/);
  assert.equal(await tokens(), shown, 'the previous text’s heads stay');
  assert.ok((await page.evaluate(() => window.mhaExplorer.getMessages())).some((m) => /^Cancelled/.test(m)));
  // the new worker has the model again: the next text is computed
  assert.equal(
    await page.evaluate(() => window.mhaExplorer.set({ text: 'A short text.' })),
    true,
    (await page.evaluate(() => window.mhaExplorer.getMessages())).join(' '),
  );
  assert.equal((await busy()).stale, false);
  assert.equal(
    await tokens(),
    await page.evaluate(() => window.mhaExplorer.getModel().tokenize('A short text.').ids.length),
    'the short text is shown',
  );
});

test('a text longer than the positions leaves the grid marked as the previous text’s', async () => {
  const shown = await tokens();
  const long = await textOf(1100);
  assert.equal(await page.evaluate((t) => window.mhaExplorer.set({ text: t }), long), false);
  const b = await busy();
  assert.equal(b.stale, true);
  assert.match(
    b.words,
    new RegExp(
      'previous text’s \\(' +
        shown +
        ' tokens\\): the text in the box is not shown \\(the text has 1,?\\d+ tokens; this model reads at most 1024',
    ),
  );
  assert.equal(await tokens(), shown);
  assert.equal(await page.isVisible('.mp-busy button'), false, 'nothing to cancel');
});

test('the Colours control: each card from 0 to its layer’s or its own 99th percentile weight, said in the legend', async () => {
  await page.evaluate(() =>
    window.mhaExplorer.set({ text: 'Heads on their own scale: the chicken crossed the road.' }),
  );
  const read = (range) =>
    page.evaluate((range) => {
      const sel = document.querySelector('#range');
      sel.value = range;
      sel.dispatchEvent(new Event('change'));
      const w = window.mhaExplorer.getWeights(),
        [L, , H, T] = w.shape,
        n = T * T;
      // the 99th percentile of the values, by sorting: with the n values sorted, the one at floor(0.99 · (n − 1))
      const max = (from, count) => {
        const v = w.data.slice(from, from + count).sort(),
          top = v[Math.floor(0.99 * (count - 1))];
        return top > 0 ? top : v[count - 1] > 0 ? v[count - 1] : 1;
      };
      const cards = [...document.querySelectorAll('#grid .mg-card canvas')].map((c) => c._vmax);
      const heads = [],
        layers = [];
      for (let l = 0; l < L; l++) {
        layers.push(max(l * H * n, H * n));
        for (let h = 0; h < H; h++) heads.push(max((l * H + h) * n, n));
      }
      return {
        cards,
        heads,
        layers,
        H,
        legend: document.querySelector('#legend').textContent,
        note: document.querySelector('#grid-note').textContent,
      };
    }, range);
  const head = await read('head');
  assert.deepEqual(head.cards, head.heads, 'per head: each card to its own 99th percentile weight');
  assert.match(head.legend, /p99.*per head/);
  assert.match(head.note, /each head from 0 to its own 99th percentile weight/);
  assert.ok(
    head.cards.some((v) => v < 1),
    'a causal head’s range is not 0 to 1 again',
  );
  const layer = await read('layer');
  assert.deepEqual(
    layer.cards,
    layer.heads.map((_, i) => layer.layers[Math.floor(i / layer.H)]),
  );
  assert.match(layer.legend, /per layer/);
  const one = await read('one');
  assert.ok(one.cards.every((v) => v === 1));
  assert.doesNotMatch(one.legend, /per/);
  // the long text per head, at both widths
  await page.evaluate(() => window.mhaExplorer.set({ text: window.longText }));
  await read('head');
  await page.evaluate(() => document.querySelector('#grid-title').scrollIntoView());
  await page.screenshot({ path: join(ARTIFACTS, 'models-long-head-1280.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await new Promise((r) => setTimeout(r, 300));
  await page.evaluate(() => document.querySelector('#grid-title').scrollIntoView());
  await page.screenshot({ path: join(ARTIFACTS, 'models-long-head-390.png') });
  assert.deepEqual(g.errors, [], 'no console error');
  assert.deepEqual(g.foreign, [], 'no request off the page’s server');
});

test('a worker that cannot start: the model loads on the page’s thread, said, and still computes', async () => {
  const h = await guardedPage(
    site.browser.context,
    (u) => u.startsWith(site.srv.origin + '/') || /^(data|blob):/.test(u),
  );
  await h.page.addInitScript(() => {
    window.Worker = function () {
      throw new Error('workers are off in this test');
    };
  });
  await h.page.goto(site.srv.origin + '/models.html?model=models/gpt2/');
  assert.equal(
    await h.page
      .waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready)
      .then(() => h.page.evaluate(() => window.mhaExplorer.ready)),
    true,
  );
  assert.equal((await h.page.evaluate(() => window.mhaExplorer.getBusy())).worker, false);
  const said = (await h.page.evaluate(() => window.mhaExplorer.getMessages())).join(' ');
  assert.match(said, /runs on the page’s own thread \(its worker did not start: workers are off in this test\)/);
  assert.equal(await h.page.evaluate(() => window.mhaExplorer.set({ text: 'Still computed here.' })), true);
  assert.ok((await h.page.evaluate(() => window.mhaExplorer.getWeights().shape))[3] > 1);
  assert.deepEqual(h.errors, []);
  await h.page.close();
});
