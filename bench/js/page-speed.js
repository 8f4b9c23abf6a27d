// The speed issue's page numbers (bench/js/page.js runs them after its views; alone: node bench/js/page-speed.js
// [--quick] [--json FILE] [--dist DIR]); the method and one run's numbers: docs/page-speed.md.
//  - the headline, page ÷ core, paired: the same change on the page and on the core, as a student makes it: the causal
//    toggle, alternating (each round sets the other mask setting), at 512 tokens for d_model 512 / 8 heads and 64 / 4
//    heads, from file://. Each round times, in one tab and in alternating order, the core's forward of the round's
//    setting (MultiHeadAttention.forward on the main thread, weights formed, the mask as the page applies it) and the
//    page's change to that setting (explorer.set({causal}) until the task after the next painted frame, started 20 ms
//    after the last painted frame, as a click between frames comes; not right after a frame: see below). The round's ratio is page ÷
//    core; the headline is the median of the rounds' ratios (each mask setting's too), so a burst of load on the machine
//    hits both sides of a ratio. The page runs its forward where it measured it fastest (compute/placement.js): "where".
//  - where the paired changes go (medians): the settings read before the forward, the forward (the embedding, the core,
//    the weights copied out; explorer.getTiming()), the redraw (the average head, the colours, the heatmaps, the texts)
//    and the frame (from the end of the change's script to the task after the painted frame: style, layout, paint,
//    the commit).
//  - right after a frame: the same toggle started right after a painted frame. Chromium runs with
//    --disable-frame-rate-limit and --disable-gpu-vsync, but its compositor still issues a BeginFrame at most every
//    16.7 ms after the last one (trace: Scheduler::BeginFrame, interval_us 16666), so such a change waits for that tick
//    whenever its work is shorter; the floor of that kind is a change of one text (no forward), right after a frame.
//  - cold / warm: the first render's forward after load ÷ the median forward of later renders; the page is ready
//    once its core and the pool are warm and it measured where its forwards run (load → ready is reported too).
//  - workers: the page's forward at 512 tokens, 512 / 8, split across the pool (window.mhaPoolCost = 0: whatever the
//    page would choose) with navigator.hardwareConcurrency overridden (CDP) to 1, 2, 4: the pool's size; the speed-up
//    is the 1-worker median ÷ the n-worker median (rounds alternate), with the slowest part's own forward in its worker
//    (parts running at once take about the whole ÷ n); and where the page itself runs it on this machine.
const path = require('path');
const { pathToFileURL } = require('url');
const { installAfterPaint } = require('./lib/after-paint.js');

const TEXT_512 = encodeURIComponent(Array.from({ length: 512 }, (_, i) => 'w' + (i % 97)).join(' '));
const SHAPES = [
  { D: 512, H: 8, target: 1.5 },
  { D: 64, H: 4, target: 3 },
];
const { median: med } = require('./lib/timing.js');

async function openAt(browser, url, cores) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  if (cores) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setHardwareConcurrencyOverride', { hardwareConcurrency: cores });
  }
  await page.addInitScript(installAfterPaint);
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready, null, { timeout: 60000 });
  if (!(await page.evaluate(() => window.mhaExplorer.ready))) throw new Error('the page did not become ready: ' + url);
  return { page, loadMs: Date.now() - t0 };
}

// In the page: n paired rounds (after 2 unpaired ones), each the core's forward and the page's change to one mask
// setting, alternating the setting and which side goes first; then n toggles right after a frame and n text changes.
async function pairedRounds(page, D, H, n) {
  return page.evaluate(
    async ({ D, H, n }) => {
      const X = window.mhaExplorer,
        M = X.module;
      const afterPaint = window.afterPaint; // lib/after-paint.js
      const pause = (ms) => new Promise((res) => setTimeout(res, ms));
      const g = new M.Generator(0),
        mha = new M.MultiHeadAttention({ dModel: D, numHeads: H, generator: g }).eval();
      const x = g.randn([1, 512, D]);
      const rounds = [],
        quick = [],
        floor = [],
        parts = [],
        where = new Set();
      const core = async (causal) => {
        await afterPaint();
        await pause(20);
        const t = performance.now();
        mha.forward(x, x, x, causal ? { causal: true, fill: -Infinity } : {});
        return performance.now() - t;
      };
      const change = async (causal, gap) => {
        await afterPaint();
        if (gap) await pause(gap);
        const t = performance.now();
        await X.set({ causal });
        const js = performance.now() - t,
          timing = X.getTiming();
        await afterPaint();
        where.add(X.getCompute().where);
        const ms = performance.now() - t;
        parts.push({ setup: timing.setupMs, forward: timing.forwardMs, redraw: timing.redrawMs, frame: ms - js });
        return ms;
      };
      for (let i = 0; i < n + 2; i++) {
        const causal = !X.getState().causal;
        let c, p;
        if (i % 4 < 2) {
          c = await core(causal);
          p = await change(causal, 20);
        } else {
          p = await change(causal, 20);
          c = await core(causal);
        }
        if (i >= 2) rounds.push({ causal, core: c, page: p });
      }
      for (let i = 0; i < n; i++) quick.push(await change(!X.getState().causal, 0));
      const status = document.querySelector('.mhx [id$="status"]');
      for (let i = 0; i < n; i++) {
        await afterPaint();
        const t = performance.now();
        status.textContent = status.textContent + ' ';
        await afterPaint();
        floor.push(performance.now() - t);
      }
      await X.render(); // the status as the page says it
      mha.delete();
      g.delete();
      return {
        rounds,
        quick,
        floor,
        parts: parts.slice(2, n + 2),
        where: [...where].join(', '),
        status: status.textContent,
      };
    },
    { D, H, n },
  );
}

// One shape's paired rounds over `loads` page loads → its row of the headline table.
async function headline(browser, url, s, loads, n) {
  const rounds = [],
    parts = [],
    quick = [],
    floor = [],
    cold = [],
    warm = [],
    ready = [];
  let where = '',
    status = '';
  for (let r = 0; r < loads; r++) {
    const { page, loadMs } = await openAt(browser, url);
    try {
      cold.push((await page.evaluate(() => window.mhaExplorer.getTiming())).forwardMs);
      ready.push(loadMs);
      warm.push((await page.evaluate(() => window.mhaExplorer.benchmarkRecompute(5))).forwardMs);
      const m = await pairedRounds(page, s.D, s.H, n);
      rounds.push(...m.rounds);
      parts.push(...m.parts);
      quick.push(...m.quick);
      floor.push(...m.floor);
      where = m.where;
      status = m.status;
    } finally {
      await page.close();
    }
  }
  const ratio = (rs) => med(rs.map((x) => x.page / x.core));
  const on = rounds.filter((x) => x.causal),
    off = rounds.filter((x) => !x.causal);
  return {
    row: {
      D: s.D,
      H: s.H,
      tokens: 512,
      target: s.target,
      ratio: ratio(rounds),
      causalRatio: ratio(on),
      fullRatio: ratio(off),
      pageMs: med(rounds.map((x) => x.page)),
      coreMs: med(rounds.map((x) => x.core)),
      quickMs: med(quick),
      quickRatio: med(quick) / med(rounds.map((x) => x.core)),
      floorMs: med(floor),
      partsMs: Object.fromEntries(['setup', 'forward', 'redraw', 'frame'].map((k) => [k, med(parts.map((x) => x[k]))])),
      where,
      status,
      rounds: rounds.length,
      samples: { rounds, quick, floor },
    },
    cold: {
      D: s.D,
      H: s.H,
      readyMs: med(ready),
      firstMs: med(cold),
      warmMs: med(warm),
      ratio: med(cold) / med(warm),
      samples: { cold, warm, ready },
    },
  };
}

async function measurePageSpeed(browser, dist, quick) {
  const file = pathToFileURL(path.join(dist, 'index.html')).href;
  const loads = quick ? 1 : 3,
    n = quick ? 4 : 16;
  const out = { ratios: [], cold: [], workers: [] };
  for (const s of SHAPES) {
    const h = await headline(browser, `${file}?dmodel=${s.D}&heads=${s.H}&text=${TEXT_512}`, s, loads, n);
    out.ratios.push(h.row);
    out.cold.push(h.cold);
  }
  const counts = quick ? [1, 2] : [1, 2, 4],
    byCount = new Map(counts.map((c) => [c, []])),
    partsBy = new Map(counts.map((c) => [c, []]));
  for (let r = 0; r < loads; r++) {
    for (const c of counts) {
      const { page } = await openAt(browser, `${file}?dmodel=512&heads=8&text=${TEXT_512}`, c);
      try {
        // forced recomputes split across the pool, one per frame: the page's forward (posting, the workers, the join)
        // and each part's forward in its worker (parts that ran at once take about the whole ÷ n each)
        const b = await page.evaluate(
          async (k) => {
            const X = window.mhaExplorer,
              forward = [],
              part = [];
            window.mhaPoolCost = 0;
            for (let i = 0; i < k; i++) {
              await new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0)));
              await X.render();
              forward.push(X.getTiming().forwardMs);
              part.push(Math.max(...(X.getCompute().partMs || [NaN])));
            }
            return { forward, part };
          },
          quick ? 3 : 10,
        );
        byCount.get(c).push(...b.forward);
        partsBy.get(c).push(...b.part);
      } finally {
        await page.close();
      }
    }
  }
  const one = med(byCount.get(1));
  for (const c of counts)
    out.workers.push({
      workers: c,
      forwardMs: med(byCount.get(c)),
      partMs: med(partsBy.get(c)),
      speedup: one / med(byCount.get(c)),
      samples: byCount.get(c),
    });
  out.method = `file://, ${loads} page load(s) per shape, ${n} paired rounds per load (causal toggle, alternating), medians`;
  return out;
}

// The tables as markdown lines.
function formatPageSpeed(r) {
  const f = (v, d = 1) => (Number.isFinite(v) ? v.toFixed(d) : 'n/a'),
    lines = [];
  lines.push(`Page speed (${r.method}):`);
  lines.push(
    '| tokens | d_model / heads | page ÷ core, paired (median of rounds) | causal on | causal off | target | page change → painted ms | core forward ms | where the page ran it | rounds |',
  );
  lines.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const v of r.ratios)
    lines.push(
      `| ${v.tokens} | ${v.D} / ${v.H} | **${f(v.ratio, 2)}×** | ${f(v.causalRatio, 2)}× | ${f(v.fullRatio, 2)}× | ≤ ${v.target}× | ${f(v.pageMs)} | ${f(v.coreMs)} | ${v.where} | ${v.rounds} |`,
    );
  lines.push(
    '| d_model / heads | change right after a frame → painted ms | ÷ core | one text changed right after a frame ms (the frame floor) | the status line |',
  );
  lines.push('|---|---|---|---|---|');
  for (const v of r.ratios)
    lines.push(`| ${v.D} / ${v.H} | ${f(v.quickMs)} | ${f(v.quickRatio, 2)}× | ${f(v.floorMs)} | ${v.status} |`);
  lines.push(
    '| d_model / heads | the paired changes, medians: settings → forward ms | the forward (embedding, core, weights copied out) ms | the redraw (average, colours, heatmaps, texts) ms | the frame (style, layout, paint, commit) ms |',
  );
  lines.push('|---|---|---|---|---|');
  for (const v of r.ratios) {
    const p = v.partsMs;
    lines.push(`| ${v.D} / ${v.H} | ${f(p.setup)} | ${f(p.forward)} | ${f(p.redraw)} | ${f(p.frame)} |`);
  }
  lines.push(
    '| d_model / heads | load → ready ms (cores warmed up, places measured) | first forward after load ms | warm forward ms | ratio (target ≤ 1.5×) |',
  );
  lines.push('|---|---|---|---|---|');
  for (const v of r.cold)
    lines.push(`| ${v.D} / ${v.H} | ${f(v.readyMs, 0)} | ${f(v.firstMs)} | ${f(v.warmMs)} | ${f(v.ratio, 2)}× |`);
  lines.push(
    `| workers, split by heads (512 tokens, 512 / 8) | page forward ms | slowest part's forward in its worker ms | speed-up over 1 worker |`,
  );
  lines.push('|---|---|---|---|');
  for (const v of r.workers) lines.push(`| ${v.workers} | ${f(v.forwardMs)} | ${f(v.partMs)} | ${f(v.speedup, 2)}× |`);
  return lines;
}

module.exports = { measurePageSpeed, formatPageSpeed, headline, SHAPES, TEXT_512 };

if (require.main === module) {
  (async () => {
    const root = path.resolve(__dirname, '..', '..');
    const { CHROMIUM } = await import(path.join(root, 'scripts', 'chromium.mjs'));
    const { chromium } = require(require.resolve('playwright-core', { paths: [root] }));
    const browser = await chromium.launch({
      ...CHROMIUM,
      args: [...(CHROMIUM.args || []), '--disable-frame-rate-limit', '--disable-gpu-vsync'],
    });
    try {
      const arg = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : null);
      // --dist DIR: another build's dist/ (a before/after in the same conditions)
      const r = await measurePageSpeed(
        browser,
        path.resolve(arg('--dist') || path.join(root, 'dist')),
        process.argv.includes('--quick'),
      );
      console.log(formatPageSpeed(r).join('\n'));
      if (arg('--json')) require('fs').writeFileSync(arg('--json'), JSON.stringify(r, null, 1));
    } finally {
      await browser.close();
    }
  })().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
