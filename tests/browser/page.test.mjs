// End-to-end: the page over http://127.0.0.1 — typing, heatmaps, weights, URL round trip, embed mode,
// bad input, keyboard reach, themes; no console errors and no request beyond the page's own files. Every test
// runs on the hosted page (index.html and its files) and on the one-file page (mha-explorer.html).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { suite, guardedPage, openPage, checkForwardPool, ARTIFACTS, VARIANTS } from './helpers.mjs';
import { RELAXED_PROBE } from '../../wasm/relaxed-probe.mjs';

const env = suite();
for (const variant of VARIANTS) {
  const v = variant.name === 'hosted' ? '' : ` (${variant.name})`; // test names and screenshots of the one-file page
  const shot = (name) => join(ARTIFACTS, variant.oneFile ? name.replace(/\.png$/, '-one-file.png') : name);
  async function open(query = '', opts = {}) {
    const g = await env.page(env.allowed(variant));
    if (opts.width) await g.page.setViewportSize({ width: opts.width, height: 900 });
    await openPage(g.page, env.srv.origin + '/' + variant.page + query);
    return g;
  }
  const weights = (page) =>
    page.evaluate(() => {
      const w = window.mhaExplorer.getWeights();
      return { shape: w.shape, data: Array.from(w.data) };
    });
  function rowSums(w) {
    const S = w.shape[3],
      sums = [];
    for (let r = 0; r < w.data.length / S; r++) sums.push(w.data.slice(r * S, r * S + S).reduce((a, b) => a + b, 0));
    return sums;
  }
  const settle = (page) => page.waitForFunction(() => !/Computing/.test(document.getElementById('status').textContent));

  test('typing a sentence: heatmaps per head, labels, rows sum to 1, causal zeros' + v, async () => {
    const { page } = await open('?dmodel=32&heads=4');
    await page.fill('#c-text', 'Attention is all you need , really');
    await page.waitForFunction(() => window.mhaExplorer.getLabels().length === 7);
    await settle(page);
    assert.equal(await page.locator('[data-head]').count(), 4);
    const tokens = ['Attention', 'is', 'all', 'you', 'need', ',', 'really'];
    assert.deepEqual(await page.evaluate(() => window.mhaExplorer.getLabels()), tokens);
    assert.deepEqual(await page.$$eval('#chips .chip', (n) => n.map((c) => c.firstChild.textContent)), tokens);
    let w = await weights(page);
    assert.deepEqual(w.shape, [1, 4, 7, 7]);
    for (const s of rowSums(w)) assert.ok(Math.abs(s - 1) < 1e-5, 'row sums to 1: ' + s);
    await page.check('#c-causal');
    await page.waitForFunction(
      () => window.mhaExplorer.getState().causal && window.mhaExplorer.getWeights().data[1] === 0,
    );
    w = await weights(page);
    const S = 7;
    for (let bh = 0; bh < 4; bh++)
      for (let i = 0; i < S; i++)
        for (let j = i + 1; j < S; j++) {
          assert.equal(w.data[(bh * S + i) * S + j], 0, `causal: [${bh}, ${i}, ${j}] is 0`);
        }
    for (const s of rowSums(w)) assert.ok(Math.abs(s - 1) < 1e-5);
    // the trace: one row per forward step, each with data-step
    const trace = await page.evaluate(() => window.mhaExplorer.getTrace());
    assert.equal(await page.locator('#trace-body tr[data-step]').count(), trace.length);
    assert.ok(trace.length >= 8);
    assert.deepEqual(trace[3].shape, [1, 4, 7, 8]);
    // heads offered are the divisors of d_model only
    assert.deepEqual(await page.$$eval('#c-heads option', (o) => o.map((x) => +x.value)), [1, 2, 4, 8, 16, 32]);
  });

  test('URL round trip reproduces the view' + v, async () => {
    const { page } = await open();
    await page.selectOption('#c-dmodel', '48');
    await page.selectOption('#c-heads', '6');
    await page.fill('#c-seed', '7');
    await page.press('#c-seed', 'Enter');
    await page.locator('#c-fill').focus();
    await page.selectOption('#c-fill', '-1e9');
    await page.check('#c-causal');
    await page.fill('#c-text', 'Shared links rebuild the same heads');
    await page.waitForFunction(
      () => window.mhaExplorer.getLabels().length === 6 && window.mhaExplorer.getState().seed === 7,
    );
    await settle(page);
    // the address follows the state once a burst of changes settles
    await page.waitForFunction(
      () => new URL(location.href).searchParams.get('text') === 'Shared links rebuild the same heads',
    );
    const url = page.url();
    const q = new URL(url).searchParams;
    assert.equal(q.get('dmodel'), '48');
    assert.equal(q.get('heads'), '6');
    assert.equal(q.get('seed'), '7');
    assert.equal(q.get('causal'), '1');
    assert.equal(q.get('fill'), '-1e9');
    assert.equal(q.get('text'), 'Shared links rebuild the same heads');
    const a = await weights(page);
    const g2 = await open(new URL(url).search);
    const b = await weights(g2.page);
    assert.deepEqual(b.shape, [1, 6, 6, 6]);
    assert.deepEqual(b.data, a.data);
    assert.equal(await g2.page.inputValue('#c-text'), 'Shared links rebuild the same heads');
  });

  test('embed mode: compact layout, hidden sections, heatmaps still drawn' + v, async () => {
    const { page } = await open('?embed=1&preset=lesson003&hide=controls,lesson', { width: 760 });
    assert.ok(await page.evaluate(() => document.body.classList.contains('embed')));
    assert.ok(await page.locator('[data-section="controls"]').isHidden());
    assert.ok(await page.locator('[data-section="lesson"]').isHidden());
    assert.ok(await page.locator('#open-full').isVisible());
    assert.equal(await page.locator('[data-head]').count(), 4);
    await page.screenshot({ path: shot('embed-lesson003.png'), fullPage: true });
  });

  test('bad input gives inline messages and a working page; URL text is text' + v, async () => {
    const hostile = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';
    let g = await open('?text=' + encodeURIComponent(hostile) + '&dmodel=10&heads=3&seed=-4&dropout=7&theme=<b>');
    const p = g.page;
    const msgs = await p.$$eval('.msg', (n) => n.map((x) => x.textContent).join('\n'));
    assert.match(msgs, /d_model \(10\) must be divisible by num_heads \(3\); head counts that work: 1, 2, 5, 10/);
    assert.match(msgs, /seed/);
    assert.match(msgs, /dropout/);
    assert.match(msgs, /theme/);
    assert.equal(await p.evaluate(() => window.__pwned), undefined);
    assert.equal(await p.locator('#chips img, #chips script').count(), 0);
    assert.equal(await p.inputValue('#c-text'), hostile);
    assert.ok((await p.locator('[data-head]').count()) > 0);
    // empty sentence
    await p.fill('#c-text', '   ');
    await p.waitForFunction(() => /no tokens/.test(document.getElementById('messages').textContent));
    assert.ok(await p.locator('#controls').isVisible());
    await p.fill('#c-text', 'back again');
    await p.waitForFunction(
      () => window.mhaExplorer.getLabels().length === 2 && document.querySelectorAll('[data-head]').length > 0,
    );
    // a 5,000-word paste: the first 512 tokens are used, the page stays usable
    const words = Array.from({ length: 5000 }, (_, i) => 'w' + (i % 97)).join(' ');
    await p.evaluate((t) => {
      const el = document.getElementById('c-text');
      el.value = t;
      el.dispatchEvent(new Event('input'));
    }, words);
    await p.waitForFunction(() => window.mhaExplorer.getLabels().length === 512, null, { timeout: 30000 });
    await settle(p);
    assert.match(await p.textContent('#messages'), /first 512/);
    const w = await p.evaluate(() => window.mhaExplorer.getWeights().shape);
    assert.deepEqual(w.slice(2), [512, 512]);
    await p.screenshot({ path: shot('long-512-tokens.png') });
  });

  test('keyboard navigation reaches every control' + v, async () => {
    const { page } = await open('?preset=lesson003');
    const controls = await page.$$eval('select, input, textarea, button, [tabindex="0"]', (els) =>
      els
        .filter((e) => e.offsetParent !== null && !e.disabled)
        .map((e) => e.id || e.getAttribute('data-head') || e.textContent.trim().slice(0, 20)),
    );
    const reached = new Set();
    await page.focus('body');
    for (let i = 0; i < 140; i++) {
      await page.keyboard.press('Tab');
      const id = await page.evaluate(() => {
        const e = document.activeElement;
        return e ? e.id || e.getAttribute('data-head') || e.textContent.trim().slice(0, 20) : '';
      });
      reached.add(id);
    }
    const missing = controls.filter((c) => !reached.has(c));
    assert.deepEqual(missing, [], 'controls never reached by Tab');
    // every form control has a label
    const unlabelled = await page.$$eval('select, input, textarea', (els) =>
      els.filter((e) => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')).map((e) => e.id),
    );
    assert.deepEqual(unlabelled, []);
    // the heatmap reads out with the arrow keys
    await page.focus('#detail-canvas');
    await page.keyboard.press('ArrowRight');
    assert.match(
      await page.textContent('#cell-readout'),
      /query “t0” \(0\) → key “t1” \(1\): 0 \(masked: a later key\)/,
    );
  });

  test('themes, phone width, table alternative, exports' + v, async () => {
    for (const theme of ['light', 'dark']) {
      const { page } = await open('?theme=' + theme);
      assert.equal(await page.getAttribute('.mhx', 'data-theme'), theme);
      await page.screenshot({ path: shot(`theme-${theme}.png`), fullPage: true });
    }
    const { page } = await open('?preset=lesson000', { width: 390 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, 'no horizontal scrolling at phone width: ' + overflow);
    await page.screenshot({ path: shot('phone-lesson000.png'), fullPage: true });
    await page.click('#show-table');
    assert.equal(await page.locator('#table-box table tbody tr').count(), 5);
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#export-svg')]);
    assert.equal(dl.suggestedFilename(), 'mha-heads.svg');
    const [dl2] = await Promise.all([page.waitForEvent('download'), page.click('#export-png')]);
    assert.equal(dl2.suggestedFilename(), 'mha-heads.png');
  });

  test(
    'large inputs run split by heads across Web Workers over http, never mixing two configurations' + v,
    async () => {
      const text = Array.from({ length: 300 }, (_, i) => 'tok' + i).join(' ');
      const { page } = await open('?dmodel=512&heads=8&text=' + encodeURIComponent(text));
      await checkForwardPool(page);
      const c = await page.evaluate(() => window.mhaExplorer.getCompute());
      // the fastest build this browser runs: the FMA one where relaxed SIMD validates
      const relaxed = await page.evaluate(
        (probe) => WebAssembly.validate(new Uint8Array(probe)),
        Array.from(RELAXED_PROBE),
      );
      assert.ok(relaxed, "Debian's Chromium (114+) has relaxed SIMD: the probe must validate there");
      assert.equal(c.implementation, 'wasmsimd-relaxed');
      assert.deepEqual(await page.evaluate(() => window.mhaExplorer.getWeights().shape), [1, 8, 300, 300]);
    },
  );

  if (!variant.oneFile)
    test('a host without mha-relaxed.js falls back to mha.js', async () => {
      // not in the suite's end check: the 404 below logs a console error
      const g = await guardedPage(env.browser.context, env.own);
      await g.page.route('**/mha-relaxed.js', (route) => route.fulfill({ status: 404, body: 'not found' }));
      await openPage(g.page, env.srv.origin + '/index.html');
      assert.equal(await g.page.evaluate(() => window.mhaExplorer.getCompute().implementation), 'wasmsimd');
      assert.equal((await weights(g.page)).shape.length, 4);
      await g.page.close();
    });

  test(
    'incremental redraw: unchanged DOM is kept, changed data is redrawn, printed output stays exact' + v,
    async () => {
      const { page } = await open('?dmodel=32&heads=4');
      const mark = () =>
        page.evaluate(() => {
          const q = (s) => document.querySelector(s);
          q('#heads .head-card').__kept = 1;
          q('#trace-body tr').__kept = 1;
          q('#chips .chip').__kept = 1;
          q('#cells .cell').__kept = 1;
        });
      const kept = () =>
        page.evaluate(() =>
          ['#heads .head-card', '#trace-body tr', '#chips .chip', '#cells .cell'].map(
            (s) => document.querySelector(s).__kept === 1,
          ),
        );
      const pixel = () =>
        page.evaluate(() => {
          const c = document.querySelector('[data-head="0"]'),
            g = c._geom,
            d = window.devicePixelRatio || 1;
          return Array.from(
            c
              .getContext('2d')
              .getImageData(Math.floor((g.x0 + g.cell * 1.5) * d), Math.floor((g.y0 + g.cell * 0.5) * d), 1, 1).data,
          );
        });
      await mark();
      await page.evaluate(() => window.mhaExplorer.render());
      assert.deepEqual(await kept(), [true, true, true, true], 'a redraw of the same state keeps the DOM');
      const px0 = await pixel();
      // a new seed: same structure (kept), new weights (canvas and printed output follow)
      await page.evaluate(() => window.mhaExplorer.set({ seed: 5 }));
      assert.deepEqual(await kept(), [true, true, true, true]);
      assert.notDeepEqual(await pixel(), px0, 'the heatmap shows the new weights');
      const check = await page.evaluate(() => {
        const w = window.mhaExplorer.getWeights(),
          S = w.shape[3];
        const row = Array.from(w.data.slice(0, Math.min(S, 5)))
          .map((v) => v.toFixed(4))
          .join(', '); // a 10-wide row wraps at 80 columns
        const printed = window.mhaExplorer.getPrinted().page;
        return {
          row,
          printed,
          shown: document.querySelector('[data-out="page"]').textContent,
          code: document.querySelector('[data-cell="page"] pre.code').textContent,
        };
      });
      assert.ok(check.printed.includes('[[' + check.row + ', '), 'getPrinted() has the new weights: ' + check.row);
      assert.equal(check.shown, check.printed, 'the printed panel shows what getPrinted() returns');
      assert.match(check.code, /torch\.manual_seed\(5\)/);
      // a new sentence: the token-dependent parts are rebuilt
      await page.evaluate(() => window.mhaExplorer.set({ text: 'one two three' }));
      assert.deepEqual(await page.$$eval('#chips .chip', (n) => n.map((c) => c.firstChild.textContent)), [
        'one',
        'two',
        'three',
      ]);
      assert.deepEqual(await page.evaluate(() => window.mhaExplorer.getWeights().shape), [1, 4, 3, 3]);
      assert.equal(
        await page.locator('#trace-body tr[data-step]').count(),
        (await page.evaluate(() => window.mhaExplorer.getTrace())).length,
      );
      assert.match(await page.evaluate(() => window.mhaExplorer.getPrinted().page), /torch\.Size\(\[1, 4, 3, 3\]\)/);
    },
  );

  test('benchmarkRecompute(n): forced recompute+redraw cycles, medians' + v, async () => {
    const { page } = await open('?dmodel=64&heads=4');
    const before = await page.evaluate(() => window.mhaExplorer.getCompute().ms);
    const r = await page.evaluate(() => window.mhaExplorer.benchmarkRecompute(4));
    assert.equal(r.runs, 4);
    for (const k of ['forwardMs', 'redrawMs', 'totalMs', 'layoutMs'])
      assert.ok(Number.isFinite(r[k]) && r[k] >= 0, k + ': ' + r[k]);
    assert.ok(r.totalMs >= r.redrawMs, 'total includes the redraw');
    assert.equal(r.where, 'main thread');
    assert.equal(typeof before, 'number');
    assert.deepEqual(await page.evaluate(() => window.mhaExplorer.getWeights().shape), [1, 4, 10, 10]);
  });
}
