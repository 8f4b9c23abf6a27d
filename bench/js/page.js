'use strict';
// Page recompute+redraw time for the default view (dist/index.html, no query string) in headless
// Chromium via playwright-core (from the repository's root node_modules). dist/ is served over a
// throwaway local HTTP server (as a course site would serve it, so the page may use its worker).
//
// Hook used: window.mhaExplorer.render() recomputes the forward pass for the current state and
// redraws; its promise resolves after the DOM is updated. We time N calls of
//   t0 → await render() → t1 → requestAnimationFrame → setTimeout(0) → t2
// and report median(t1 - t0) ("recompute+redraw") and median(t2 - t0) ("+ next frame", includes
// style/layout/paint of the new DOM). getCompute().ms gives the forward's own share.
const fs = require('fs');
const path = require('path');
const http = require('http');

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png' };

function serve(dir) {
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '') || 'index.html';
    const file = path.resolve(dir, rel);
    if (!file.startsWith(path.resolve(dir)) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404); res.end(); return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream', 'Cache-Control': 'no-store' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function measurePage(dist, quick) {
  const root = path.resolve(__dirname, '..', '..');
  if (!fs.existsSync(path.join(dist, 'index.html'))) return { available: false, reason: 'dist/index.html not built' };
  const exe = process.env.CHROMIUM || '/usr/bin/chromium';
  if (!fs.existsSync(exe)) return { available: false, reason: `${exe} not found` };
  let chromium;
  try { ({ chromium } = require(require.resolve('playwright-core', { paths: [root] }))); }
  catch (e) { return { available: false, reason: 'playwright-core not installed in the repository root (npm ci)' }; }

  const server = await serve(dist);
  const url = `http://127.0.0.1:${server.address().port}/index.html`;
  const browser = await chromium.launch({ executablePath: exe, args: CHROMIUM_ARGS, headless: true });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const t0 = Date.now();
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready, null, { timeout: 30000 });
    const ok = await page.evaluate(() => window.mhaExplorer.ready);
    const loadMs = Date.now() - t0;
    if (!ok) throw new Error(`the page did not become ready (${errors.join('; ') || 'mhaExplorer.ready resolved false'})`);
    const runs = quick ? 3 : 30;
    const r = await page.evaluate(async ({ runs, warm }) => {
      const X = window.mhaExplorer;
      const frame = () => new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0)));
      const a = [], b = [], c = [];
      let where = '';
      for (let i = 0; i < warm + runs; i++) {
        await frame();
        const t0 = performance.now();
        await X.render();
        const t1 = performance.now();
        await frame();
        const t2 = performance.now();
        if (i >= warm) {
          a.push(t1 - t0); b.push(t2 - t0);
          const cmp = X.getCompute ? X.getCompute() : null;
          if (cmp) { c.push(cmp.ms); where = cmp.where; }
        }
      }
      return { a, b, c, where, implementation: X.module && X.module.implementation,
        hasHook: typeof X.benchmarkRecompute === 'function', state: X.getState ? X.getState() : null,
        tokens: X.getLabels ? X.getLabels().length : null };
    }, { runs, warm: quick ? 1 : 3 });
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    const med = (v) => { const s = [...v].sort((x, y) => x - y); const n = s.length; return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : NaN; };
    const st = r.state || {};
    return {
      available: true, runs, loadMs, browserVersion: browser.version(),
      medianMs: med(r.a), frameMedianMs: med(r.b), computeMedianMs: med(r.c), where: r.where || 'n/a',
      implementation: r.implementation, samples: r.a,
      defaultView: { preset: st.preset || '', view: st.view || '', tokens: r.tokens, D: st.dmodel, H: st.heads },
      method: 'N× (await window.mhaExplorer.render(); then rAF+setTimeout(0) for the next frame) in the default view',
    };
  } finally {
    await browser.close();
    server.close();
  }
}

module.exports = { measurePage };
