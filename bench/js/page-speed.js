'use strict';
// The speed issue's page numbers (bench/js/page.js runs them after its views; alone: node bench/js/page-speed.js
// [--quick] [--json FILE] [--dist DIR]):
//  - change → painted: a change (the causal toggle) until the next painted frame, ÷ the core's own forward of that
//    shape with weights on the main thread of the same tab, from file://, at 512 tokens for d_model 512 / 8 heads and
//    64 / 4 heads. The frame is the first requestAnimationFrame after the redraw, then a task after its paint.
//    Chromium runs with --disable-frame-rate-limit and --disable-gpu-vsync, but its compositor still issues a
//    BeginFrame at most every 16.7 ms after the last one (trace: Scheduler::BeginFrame, interval_us 16666), so a change
//    started right after a painted frame waits for that tick (with every thread idle) whenever its work is shorter.
//    So each load also times "settled" changes, started 20 ms after the last painted frame (as a click between frames
//    comes): the change's own work, forward and page, until its frame is painted. And the floor of the first kind: a
//    change of one text (no forward) right after a painted frame, until the next one is painted.
//  - cold / warm: the first render's forward after load ÷ the median forward of later renders; the page is ready
//    once its core and the pool are warm (load → ready is reported too).
//  - workers: the page's forward at 512 tokens, 512 / 8, with navigator.hardwareConcurrency overridden (CDP) to
//    1, 2, 4: the pool's size; the speed-up is the 1-worker median ÷ the n-worker median (rounds alternate), with
//    the slowest part's own forward in its worker (parts running at once take about the whole ÷ n).
const path = require('path');
const { pathToFileURL } = require('url');

const TEXT_512 = encodeURIComponent(Array.from({ length: 512 }, (_, i) => 'w' + (i % 97)).join(' '));
const SHAPES = [{ D: 512, H: 8, target: 1.5 }, { D: 64, H: 4, target: 3 }];
const med = (v) => { const s = v.slice().sort((a, b) => a - b), k = s.length >> 1; return s.length % 2 ? s[k] : (s[k - 1] + s[k]) / 2; };

async function openAt(browser, url, cores) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  if (cores) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setHardwareConcurrencyOverride', { hardwareConcurrency: cores });
  }
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready, null, { timeout: 60000 });
  if (!await page.evaluate(() => window.mhaExplorer.ready)) throw new Error('the page did not become ready: ' + url);
  return { page, loadMs: Date.now() - t0 };
}

// In the page: n causal toggles, each timed from the change to the task after the next painted frame, and the
// core's own forward of the shape (weights formed) on the main thread, alternating.
async function changeToPaint(page, D, H, n) {
  return page.evaluate(async ({ D, H, n }) => {
    const X = window.mhaExplorer, M = X.module;
    const afterPaint = () => new Promise((res) => requestAnimationFrame(() => { const ch = new MessageChannel(); ch.port1.onmessage = res; ch.port2.postMessage(0); }));
    const g = new M.Generator(0), mha = new M.MultiHeadAttention({ dModel: D, numHeads: H, generator: g }).eval();
    const x = g.randn([1, 512, D]);
    const change = [], settled = [], core = [], where = new Set();
    const toggle = async (gap) => {
      await afterPaint();
      if (gap) await new Promise((res) => setTimeout(res, 20));
      const t = performance.now();
      await X.set({ causal: !X.getState().causal });
      await afterPaint();
      where.add(X.getCompute().where);
      return performance.now() - t;
    };
    for (let i = 0; i < n + 3; i++) {
      await afterPaint();
      const t = performance.now();
      mha.forward(x, x, x, {});
      const c = performance.now() - t;
      // both kinds of change, each toggling either way in turn
      const first = await toggle(i % 2), second = await toggle(1 - i % 2);
      if (i >= 3) { change.push(i % 2 ? second : first); settled.push(i % 2 ? first : second); core.push(c); }
    }
    const floor = [], status = document.querySelector('.mhx [id$="status"]');
    for (let i = 0; i < n; i++) {
      await afterPaint();
      const t = performance.now();
      status.textContent = status.textContent + ' ';
      await afterPaint();
      floor.push(performance.now() - t);
    }
    await X.render();   // the status as the page says it
    mha.delete(); g.delete();
    return { change, settled, core, floor, where: [...where].join(', ') };
  }, { D, H, n });
}

async function measurePageSpeed(browser, dist, quick) {
  const file = pathToFileURL(path.join(dist, 'index.html')).href;
  const rounds = quick ? 1 : 3, n = quick ? 3 : 10;
  const out = { ratios: [], cold: [], workers: [] };
  for (const s of SHAPES) {
    const url = `${file}?dmodel=${s.D}&heads=${s.H}&text=${TEXT_512}`;
    const change = [], settled = [], core = [], floor = [], cold = [], warm = [], ready = [];
    let where = '';
    for (let r = 0; r < rounds; r++) {
      const { page, loadMs } = await openAt(browser, url);
      try {
        cold.push((await page.evaluate(() => window.mhaExplorer.getTiming())).forwardMs); ready.push(loadMs);
        warm.push((await page.evaluate(() => window.mhaExplorer.benchmarkRecompute(5))).forwardMs);
        const m = await changeToPaint(page, s.D, s.H, n);
        change.push(...m.change); settled.push(...m.settled); core.push(...m.core); floor.push(...m.floor); where = m.where;
      } finally { await page.close(); }
    }
    out.ratios.push({ D: s.D, H: s.H, tokens: 512, changeMs: med(change), coreMs: med(core), ratio: med(change) / med(core),
      settledMs: med(settled), settledRatio: med(settled) / med(core), floorMs: med(floor), target: s.target, where,
      samples: { change, settled, core, floor } });
    out.cold.push({ D: s.D, H: s.H, readyMs: med(ready), firstMs: med(cold), warmMs: med(warm), ratio: med(cold) / med(warm), samples: { cold, warm, ready } });
  }
  const counts = quick ? [1, 2] : [1, 2, 4], byCount = new Map(counts.map((c) => [c, []])), partsBy = new Map(counts.map((c) => [c, []]));
  let coreMs = [];
  for (let r = 0; r < rounds; r++) {
    for (const c of counts) {
      const { page } = await openAt(browser, `${file}?dmodel=512&heads=8&text=${TEXT_512}`, c);
      try {
        // forced recomputes, one per frame: the page's forward (posting, the workers, the join) and each part's
        // forward in its worker (parts that ran at once take about the whole ÷ n each)
        const b = await page.evaluate(async (k) => {
          const X = window.mhaExplorer, forward = [], part = [];
          for (let i = 0; i < k; i++) {
            await new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0)));
            await X.render();
            forward.push(X.getTiming().forwardMs);
            part.push(Math.max(...(X.getCompute().partMs || [NaN])));
          }
          return { forward, part };
        }, quick ? 3 : 10);
        byCount.get(c).push(...b.forward);
        partsBy.get(c).push(...b.part);
        if (c === 1) coreMs.push(...(await changeToPaint(page, 512, 8, 2)).core);
      } finally { await page.close(); }
    }
  }
  const one = med(byCount.get(1));
  for (const c of counts) out.workers.push({ workers: c, forwardMs: med(byCount.get(c)), partMs: med(partsBy.get(c)), speedup: one / med(byCount.get(c)), samples: byCount.get(c) });
  out.coreForwardMs = med(coreMs);
  out.method = `file://, ${rounds} page loads per row, medians; change → painted: ${n} causal toggles of each kind per load`;
  return out;
}

// The tables as markdown lines.
function formatPageSpeed(r) {
  const f = (v, d = 1) => (Number.isFinite(v) ? v.toFixed(d) : 'n/a'), lines = [];
  lines.push(`Page speed (${r.method}):`);
  lines.push('| tokens | d_model / heads | change → painted ms (right after a frame) | core forward ms | ratio | settled change → painted ms (20 ms after a frame) | ratio | target | one text changed right after a frame ms | where |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const v of r.ratios) lines.push(`| ${v.tokens} | ${v.D} / ${v.H} | ${f(v.changeMs)} | ${f(v.coreMs)} | ${f(v.ratio, 2)}× | ${f(v.settledMs)} | ${f(v.settledRatio, 2)}× | ≤ ${v.target}× | ${f(v.floorMs)} | ${v.where} |`);
  lines.push('| d_model / heads | load → ready ms (cores warmed up) | first forward after load ms | warm forward ms | ratio (target ≤ 1.5×) |');
  lines.push('|---|---|---|---|---|');
  for (const v of r.cold) lines.push(`| ${v.D} / ${v.H} | ${f(v.readyMs, 0)} | ${f(v.firstMs)} | ${f(v.warmMs)} | ${f(v.ratio, 2)}× |`);
  lines.push(`| workers (512 tokens, 512 / 8) | page forward ms | slowest part's forward in its worker ms | speed-up over 1 worker (target ≥ 1.6× at 2) |`);
  lines.push('|---|---|---|---|');
  for (const v of r.workers) lines.push(`| ${v.workers} | ${f(v.forwardMs)} | ${f(v.partMs)} | ${f(v.speedup, 2)}× |`);
  lines.push(`core forward on the main thread, same shape: ${f(r.coreForwardMs)} ms`);
  return lines;
}

module.exports = { measurePageSpeed, formatPageSpeed };

if (require.main === module) {
  (async () => {
    const root = path.resolve(__dirname, '..', '..');
    const { CHROMIUM } = await import(path.join(root, 'scripts', 'chromium.mjs'));
    const { chromium } = require(require.resolve('playwright-core', { paths: [root] }));
    const browser = await chromium.launch({ ...CHROMIUM, args: [...(CHROMIUM.args || []), '--disable-frame-rate-limit', '--disable-gpu-vsync'] });
    try {
      const arg = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : null);
      // --dist DIR: another build's dist/ (a before/after in the same conditions)
      const r = await measurePageSpeed(browser, path.resolve(arg('--dist') || path.join(root, 'dist')), process.argv.includes('--quick'));
      console.log(formatPageSpeed(r).join('\n'));
      if (arg('--json')) require('fs').writeFileSync(arg('--json'), JSON.stringify(r, null, 1));
    } finally { await browser.close(); }
  })().catch((e) => { console.error(e); process.exit(1); });
}
