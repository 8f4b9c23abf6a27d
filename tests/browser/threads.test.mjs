// The model page's threads in Chromium: served cross-origin isolated (COOP/COEP from scripts/serve.mjs) it runs
// dist/mha-threads.js on 2 threads, every call split (window.mhaSplitThreshold = 0), with the single-threaded page's
// bits on one case of each family; served without the headers it runs one thread and says why; with the pthread
// worker missing it falls back to one thread with a message, never a hang.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { serve } from '../../scripts/serve.mjs';
import { DIST, guardedPage, launch, repo } from './helpers.mjs';

const models = join(repo, 'build', 'models');
const CASES = ['gpt2-f16', 'bert-bf16', 'distilbert', 'llama', 'pythia', 'tinystories', 'opt', 'qwen3'];
const TEXT = 'The threads split every head and every column block, and each sum keeps its order, so the bits agree.';
let site, noWorker, isolated, plain, broken, browser;

function siteOf(skip) {
  const dir = mkdtempSync(join(tmpdir(), 'mha-threads-'));
  for (const f of readdirSync(DIST)) if (f !== skip) symlinkSync(join(DIST, f), join(dir, f));
  symlinkSync(models, join(dir, 'models'));
  return dir;
}
before(async () => {
  site = siteOf(null);
  noWorker = siteOf('mha-threads.worker.js');
  isolated = await serve(site, { isolated: true });
  plain = await serve(site);
  broken = await serve(noWorker, { isolated: true });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  for (const s of [isolated, plain, broken]) await s?.close();
  for (const d of [site, noWorker]) if (d) rmSync(d, { recursive: true, force: true });
});

// The model page of case c from a server: its status, threads, and a hash of the attention bits and the top rows.
// simd: the page's SIMD128 build (mha.js, the threaded build's kernels) instead of mha-relaxed.js (FMA: other bits).
async function run(srv, c, { startMs, simd } = {}) {
  const g = await guardedPage(browser.context, (u) => u.startsWith(srv.origin + '/') || /^(data|blob):/.test(u));
  if (simd) await g.page.route('**/mha-relaxed.js', (r) => r.fulfill({ status: 404, body: 'not here' }));
  await g.page.addInitScript((ms) => {
    window.mhaSplitThreshold = 0;
    if (ms) window.mhaThreadsStartMs = ms;
  }, startMs || 0);
  await g.page.goto(`${srv.origin}/models.html?model=models/${c}/&threads=2&text=${encodeURIComponent(TEXT)}`);
  await g.page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready, null, { timeout: 60000 });
  const out = await g.page.evaluate(async () => {
    const ok = await window.mhaExplorer.ready;
    const w = window.mhaExplorer.getWeights();
    const bits = new Uint32Array(w.data.buffer, w.data.byteOffset, w.data.length);
    let h = 2166136261;
    for (const b of bits) h = Math.imul(h ^ b, 16777619) >>> 0;
    return {
      ok,
      isolated: window.crossOriginIsolated,
      status: document.getElementById('status').textContent,
      threads: window.mhaExplorer.getInfo().threads,
      worker: window.mhaExplorer.getBusy().worker,
      weights: [w.shape.join('x'), h],
      top: window.mhaExplorer.getInfo().hasLmHead ? JSON.stringify(window.mhaExplorer.getTop()) : null,
    };
  });
  out.errors = g.errors.filter((e) => !/Failed to load resource: the server responded with a status of 404/.test(e));
  await g.page.close();
  return out;
}

test('cross-origin isolated: 2 threads with the single-threaded bits, one case of each family', async () => {
  for (const c of CASES) {
    const many = await run(isolated, c);
    const one = await run(plain, c, { simd: true });
    assert.ok(many.ok && one.ok, c + ': the page loaded the model');
    assert.equal(many.isolated, true);
    assert.equal(many.threads, 2, c + ': ' + many.status);
    assert.ok(
      many.worker && one.worker,
      c + ": the model runs in the page's model worker (its pthreads started from it)",
    );
    assert.match(many.status, /\(2 threads\)/);
    assert.deepEqual(many.weights, one.weights, c + ': the attentions differ');
    assert.equal(many.top, one.top, c + ': the predictions differ');
    assert.deepEqual(many.errors, [], c + ': console errors');
  }
});

test('without COOP/COEP the page runs one thread and says why', async () => {
  const one = await run(plain, 'gpt2');
  assert.equal(one.isolated, false);
  assert.equal(one.threads, 1);
  assert.match(
    one.status,
    /1 thread: the page is not cross-origin isolated: its server did not send Cross-Origin-Opener-Policy/,
  );
});

test('a pthread worker that cannot start: one thread, with a message, no hang', async () => {
  const t0 = Date.now();
  const one = await run(broken, 'gpt2', { startMs: 3000 });
  assert.ok(one.ok, 'the page fell back to a single-threaded core');
  assert.equal(one.threads, 1);
  assert.match(one.status, /1 thread: the threaded core did not start \(its Web Workers did not start within 3 s\)/);
  assert.ok(Date.now() - t0 < 30000, 'the fallback took ' + (Date.now() - t0) + ' ms');
});
