// Change → painted ÷ the core forward (page-speed.js's method) for two builds in alternation, one browser, from
// file://: node bench/js/page-ab.mjs BASE_DIST [DIST] (DIST: this worktree's dist/). 3 loads per build and shape,
// 10 causal toggles per load; medians, and each load's own ratio (its toggles ÷ its core forwards, measured
// alternately in the same tab, so that a burst of load on the machine hits both). For a before/after of a change on a machine whose speed drifts.
import path from 'path';
import { pathToFileURL } from 'url';
import { createRequire } from 'module';
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const require = createRequire(root + '/package.json');
const { chromium } = require('playwright-core');
const { CHROMIUM } = await import(root + '/scripts/chromium.mjs');
const TEXT = encodeURIComponent(Array.from({ length: 512 }, (_, i) => 'w' + (i % 97)).join(' '));
if (!process.argv[2]) { console.error('usage: node bench/js/page-ab.mjs BASE_DIST [DIST]'); process.exit(2); }
const dists = { before: path.resolve(process.argv[2]), after: path.resolve(process.argv[3] || path.join(root, 'dist')) };
const med = (v) => { const s = v.slice().sort((a, b) => a - b), k = s.length >> 1; return s.length % 2 ? s[k] : (s[k - 1] + s[k]) / 2; };
const browser = await chromium.launch({ ...CHROMIUM, args: [...CHROMIUM.args, '--disable-frame-rate-limit', '--disable-gpu-vsync'] });
const res = {};
for (const [D, H] of [[64, 4], [512, 8]]) for (let round = 0; round < 3; round++) for (const [name, dist] of Object.entries(dists)) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(pathToFileURL(path.join(dist, 'index.html')).href + `?dmodel=${D}&heads=${H}&text=${TEXT}`);
  await page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready, null, { timeout: 60000 });
  const m = await page.evaluate(async ({ D, H, n }) => {
    const X = window.mhaExplorer, M = X.module;
    const afterPaint = () => new Promise((res) => requestAnimationFrame(() => { const ch = new MessageChannel(); ch.port1.onmessage = res; ch.port2.postMessage(0); }));
    const g = new M.Generator(0), mha = new M.MultiHeadAttention({ dModel: D, numHeads: H, generator: g }).eval();
    const x = g.randn([1, 512, D]);
    const change = [], core = [];
    for (let i = 0; i < n + 3; i++) {
      await afterPaint(); let t = performance.now(); mha.forward(x, x, x, {}); const c = performance.now() - t;
      await afterPaint(); t = performance.now(); await X.set({ causal: !X.getState().causal }); await afterPaint();
      if (i >= 3) { change.push(performance.now() - t); core.push(c); }
    }
    return { change, core };
  }, { D, H, n: 10 });
  await page.close();
  const k = `${D}/${H} ${name}`; res[k] = res[k] || { change: [], core: [], ratio: [] };
  res[k].change.push(...m.change); res[k].core.push(...m.core); res[k].ratio.push(med(m.change) / med(m.core));
}
for (const [k, v] of Object.entries(res)) console.log(`${k}: change ${med(v.change).toFixed(1)} ms, core ${med(v.core).toFixed(1)} ms, ratio ${(med(v.change) / med(v.core)).toFixed(2)}×, per load ${v.ratio.map((r) => r.toFixed(2)).join(' ')}`);
await browser.close();
