// Where the page runs a large forward (web/compute/placement.js, web/explorer/forwards.js): measured at load, the fastest
// place kept, measured again when the size changes; the status line says where each forward really ran. A test cannot
// time reliably, so the times are injected (window.mhaPlaceTimes: the page records them instead of its own) and the test
// checks the decision and that the status line and getCompute() tell where the forward ran (workers report each part's
// forward: partMs, one per worker; the main thread none). Two cores (CDP), so the pool has two workers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, openPage } from './helpers.mjs';

const env = suite();
const words = (n) => encodeURIComponent(Array.from({ length: n }, (_, i) => 'w' + (i % 97)).join(' '));

// The last forward: where it ran, its parts, the status line.
const last = (page) =>
  page.evaluate(() => {
    const c = window.mhaExplorer.getCompute();
    return {
      where: c.where,
      parts: c.partMs ? c.partMs.length : 0,
      note: c.note,
      status: document.getElementById('status').textContent,
    };
  });
function truthful(r) {
  assert.ok(r.status.endsWith(' · ' + r.where + r.note), 'the status line says where the forward ran: ' + r.status);
  assert.equal(
    r.parts,
    r.where === 'main thread' ? 0 : r.where === 'Web Worker' ? 1 : Number(r.where.split(' ')[0]),
    'the forward ran where it says: ' + JSON.stringify(r),
  );
}

test(
  'the fastest place measured at load runs the forwards; a new size is measured again; the status line tells',
  { timeout: 120000 },
  async () => {
    await env.ready;
    const g = await env.page(env.own),
      page = g.page;
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setHardwareConcurrencyOverride', { hardwareConcurrency: 2 });
    // workers lose on this "machine": the page never computes in them once measured
    await page.addInitScript(() => {
      window.mhaPlaceTimes = { main: 30, worker: 50, split: 45 };
    });
    await openPage(page, env.srv.origin + '/index.html?dmodel=512&heads=8&text=' + words(300));
    let r = await last(page);
    truthful(r);
    assert.equal(r.where, 'main thread');
    assert.equal(r.note, ' (fastest here: 30 ms; 1 worker 50 ms, 2 workers 45 ms)');
    for (const change of [{ causal: true }, { causal: false }, { seed: 2 }]) {
      await page.evaluate((c) => window.mhaExplorer.set(c), change);
      r = await last(page);
      truthful(r);
      assert.equal(r.where, 'main thread', 'decided: ' + JSON.stringify(change));
    }
    // a new size where splitting pays: the first forward runs where the last did, then each place is measured, then
    // every forward is split across the two workers
    await page.evaluate(() => {
      window.mhaPlaceTimes = { main: 80, worker: 60, split: 35 };
    });
    const seen = [];
    for (let i = 0; i < 8; i++) {
      await page.evaluate(
        (t) => window.mhaExplorer.set({ text: t, causal: !window.mhaExplorer.getState().causal }),
        decodeURIComponent(words(512)),
      );
      r = await last(page);
      truthful(r);
      seen.push(r.where);
    }
    assert.equal(seen[0], 'main thread');
    assert.deepEqual(
      [...new Set(seen.slice(0, 6))].sort(),
      ['2 Web Workers', 'Web Worker', 'main thread'],
      'each place measured: ' + seen,
    );
    assert.deepEqual(seen.slice(6), ['2 Web Workers', '2 Web Workers']);
    assert.equal(r.note, ' (fastest here: 35 ms; main thread 80 ms, 1 worker 60 ms)');
    // the first size keeps its own choice
    await page.evaluate((t) => window.mhaExplorer.set({ text: t }), decodeURIComponent(words(300)));
    r = await last(page);
    truthful(r);
    assert.equal(r.where, 'main thread');
    // the weights are the same wherever they were computed (the pool's parts joined bit for bit)
    const data = () => page.evaluate(() => Array.from(window.mhaExplorer.getWeights().data));
    const here = await data();
    await page.evaluate((t) => window.mhaExplorer.set({ text: t }), decodeURIComponent(words(512)));
    const split = await data();
    await page.evaluate(() => {
      window.mhaPoolCost = Infinity;
      return window.mhaExplorer.render();
    });
    const main = await data();
    assert.equal((await last(page)).where, 'main thread');
    assert.ok(
      split.length === main.length && split.every((v, i) => Object.is(v, main[i])),
      'split = main thread, bit for bit',
    );
    assert.equal(here.length, 8 * 300 * 300);
  },
);

test('small forwards run on the main thread without measuring', { timeout: 60000 }, async () => {
  await env.ready;
  const g = await env.page(env.own),
    page = g.page;
  await openPage(page, env.srv.origin + '/index.html?dmodel=64&heads=4&text=' + words(512));
  const r = await last(page);
  truthful(r);
  assert.equal(r.where, 'main thread');
  assert.equal(r.note, '');
});
