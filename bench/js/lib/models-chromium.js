'use strict';
/* global ModelsBench, createMhaModule -- page globals of bench/js/lib/models-page.js and the scripts it loads */
// bench/js/models.js's Chromium lines: a page served by scripts/serve.mjs that loads lib/models-page.js, where ours
// (dist/mha-relaxed.js where relaxed SIMD validates, else dist/mha.js) and ONNX Runtime Web run in paired rounds
// (speedPage), and the loads, each in a fresh context with its renderer's peak memory (loadOnce).
// run: {TOKENS, runsFor(T), WARM, LOADS, ort, load} from models.js's options.
const fs = require('fs');
const path = require('path');
const { idsFor, failedChecks } = require('./models-checks.js');
const { rendererPids, procMemory, resetPeak } = require('./renderer-memory.js');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const log = (...a) => process.stderr.write(a.join(' ') + '\n');

const HOST =
  '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>GPT-2 benchmark</title>' +
  '<input type="file" id="files" multiple><script src="/bench/js/lib/models-page.js"></script>';
const ORT_DIR = '/bench/js/node_modules/onnxruntime-web/dist/';

async function openPage(browser, cdp, origin) {
  const before = await rendererPids(cdp);
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${origin}/models-bench.html`);
  const pids = [...(await rendererPids(cdp))].filter((p) => !before.has(p));
  return { context, page, errors, pids };
}

// Picks the build as the page does: mha-relaxed.js where relaxed SIMD validates.
async function initOurs(page, probe) {
  return page.evaluate(
    async (probeBytes) => {
      let relaxed;
      try {
        relaxed = WebAssembly.validate(new Uint8Array(probeBytes));
      } catch {
        relaxed = false;
      }
      const build = relaxed ? 'mha-relaxed.js' : 'mha.js';
      await ModelsBench.loadScript(`/dist/${build}`);
      const r = await ModelsBench.ours.init(createMhaModule);
      return { build, ...r };
    },
    [...probe],
  );
}

async function speedPage(browser, cdp, origin, ck, probe, problems, run) {
  const { context, page, errors } = await openPage(browser, cdp, origin);
  try {
    const build = await initOurs(page, probe);
    await page.setInputFiles('#files', [ck.file('config.json'), ck.file('model.safetensors')]);
    const load = await page.evaluate(() => ModelsBench.ours.load(document.getElementById('files').files));
    const refUrl = `/${path.relative(ROOT, ck.refBin)}`;
    const oursCheck = await page.evaluate(
      async ([ref, url]) => ModelsBench.check('ours', ref, await (await fetch(url)).arrayBuffer()),
      [ck.ref, refUrl],
    );
    const bad = failedChecks(oursCheck);
    if (bad.length) problems.push(`ours in Chromium (${build.build}) disagrees with transformers: ${bad.join('; ')}`);
    let ort = null;
    if (run.ort) {
      try {
        ort = await page.evaluate(
          async ([dir, url, layers, ref, refUrl]) => {
            await ModelsBench.loadScript(`${dir}ort.wasm.min.js`);
            ort.env.wasm.wasmPaths = dir;
            const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
            const init = await ModelsBench.ort.init(ort, bytes, layers);
            return { ...init, check: await ModelsBench.check('ort', ref, await (await fetch(refUrl)).arrayBuffer()) };
          },
          [ORT_DIR, `/${path.relative(ROOT, ck.file('model.onnx'))}`, ck.meta.config.n_layer, ck.ref, refUrl],
        );
        const badOrt = failedChecks(ort.check);
        if (badOrt.length) {
          problems.push(`ONNX Runtime Web on model.onnx disagrees with transformers: ${badOrt.join('; ')} (not timed)`);
          ort.error = 'disagrees with transformers';
        }
      } catch (e) {
        problems.push(`ONNX Runtime Web: ${e.message}`);
        ort = { error: e.message };
      }
    }
    const names = ['ours', ...(ort && !ort.error ? ['ort'] : [])];
    const tokens = {};
    for (const T of run.TOKENS) {
      tokens[T] = await page.evaluate(
        ([n, ids, runs, warm]) => ModelsBench.paired(n, ids, runs, warm),
        [names, idsFor(T, load.info.vocab), run.runsFor(T), run.WARM],
      );
      log(
        `  chromium ${T} tokens: ${names.map((n) => `${n} ${tokens[T].medianMs[n].toFixed(1)} ms`).join(', ')}` +
          `${tokens[T].ratios.ort ? `; ORT ÷ ours ${tokens[T].ratios.ort.toFixed(2)}` : ''}`,
      );
    }
    if (errors.length) problems.push(`Chromium page errors: ${errors.join('; ')}`);
    return { ...build, browser: browser.version(), loadMs: load.ms, info: load.info, check: oursCheck, ort, tokens };
  } finally {
    await context.close();
  }
}

// The least memory a forward that returns every layer's attentions can take: its outputs twice (in wasm, then
// copied to JS) and one layer's intermediates (GPT-2: the normed input, q‖k‖v, the context, the output and the
// MLP's 4·D), float32.
function activationFloor(cfg, T) {
  const D = cfg.n_embd,
    outputs = cfg.n_layer * cfg.n_head * T * T + T * D + cfg.vocab_size;
  return 4 * (2 * outputs + T * D * (1 + 3 + 1 + 1 + 4));
}

// One load of ours, one whole-file read or one streamed read (what), each in a fresh context (its own renderer),
// with its memory. From the <input>'s File (load, read, stream) or from the server (url: loadModel given the files'
// addresses, as the model page's model= does; fetch: the same file fetched into an ArrayBuffer).
async function loadOnce(browser, cdp, origin, ck, probe, what, run) {
  const { context, page, errors, pids } = await openPage(browser, cdp, origin);
  const client = await context.newCDPSession(page);
  await client.send('Performance.enable');
  const jsHeap = async () =>
    Object.fromEntries(
      (await client.send('Performance.getMetrics')).metrics
        .filter((m) => m.name.startsWith('JSHeap'))
        .map((m) => [m.name, m.value]),
    );
  try {
    const build = what === 'load' || what === 'url' ? await initOurs(page, probe) : null;
    const read = {
      load: () => ModelsBench.ours.load(document.getElementById('files').files),
      read: () => ModelsBench.readWhole(document.getElementById('files').files[0]),
      stream: () => ModelsBench.readStream(document.getElementById('files').files[0], 4 << 20),
      url: (u) =>
        ModelsBench.ours.load([
          { name: 'config.json', url: u.config },
          { name: 'model.safetensors', url: u.weights },
        ]),
      fetch: (u) => ModelsBench.readFetch(u.weights),
    };
    const urls = Object.fromEntries(
      Object.entries({ config: 'config.json', weights: 'model.safetensors' }).map(([k, n]) => [
        k,
        `/${path.relative(ROOT, ck.file(n))}`,
      ]),
    );
    const files =
      what === 'load' ? [ck.file('config.json'), ck.file('model.safetensors')] : [ck.file('model.safetensors')];
    await page.setInputFiles('#files', files);
    const before = new Map(pids.map((p) => [p, procMemory(p)]).filter(([, m]) => m));
    const reset = [...before.keys()].map(resetPeak).every(Boolean);
    const r = await page.evaluate(`(${read[what]})(${JSON.stringify(urls)})`);
    let pid = null,
      after = null;
    for (const p of before.keys()) {
      const m = procMemory(p);
      if (m && (!after || m.hwm - before.get(p).rss > after.hwm - before.get(pid).rss)) {
        pid = p;
        after = m;
      }
    }
    const rss0 = pid ? before.get(pid).rss : null;
    const out = {
      what,
      ms: r.ms,
      build: build && build.build,
      pid,
      renderers: pids.length,
      peakReset: reset,
      rssBefore: rss0,
      rssAfter: after && after.rss,
      hwm: after && after.hwm,
      jsHeap: await jsHeap(),
    };
    if (what === 'url') out.weightBytes = r.info.weightBytes;
    if (what === 'load') {
      out.weightBytes = r.info.weightBytes;
      out.wasmHeap = r.memory;
      // The first forward at the first token count: what it adds (wasm heap growth, outputs copied to JS).
      const f = await page.evaluate(
        (ids) => {
          const t0 = performance.now();
          const o = ModelsBench.ours.run(ids);
          const ms = performance.now() - t0;
          const outBytes = [...o.logits, ...o.hidden, ...o.attentions].reduce((s, a) => s + a.byteLength, 0);
          return { ms, outBytes, memory: ModelsBench.ours.memory() };
        },
        idsFor(run.TOKENS[0], r.info.vocab),
      );
      const end = pid ? procMemory(pid) : null;
      out.firstForward = {
        tokens: run.TOKENS[0],
        ms: f.ms,
        outBytes: f.outBytes,
        wasmHeap: f.memory,
        hwm: end && end.hwm,
        wasmHeapGrowth: f.memory.heapSize - r.memory.heapSize,
        activationBytes: activationFloor(ck.meta.config, run.TOKENS[0]),
      };
    }
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    return out;
  } finally {
    await context.close();
  }
}

async function chromiumLines(ck, problems, run) {
  const { CHROMIUM } = await import(path.join(ROOT, 'scripts', 'chromium.mjs'));
  const { serve } = await import(path.join(ROOT, 'scripts', 'serve.mjs'));
  const { RELAXED_PROBE } = await import(path.join(ROOT, 'wasm', 'relaxed-probe.mjs'));
  if (!fs.existsSync(CHROMIUM.executablePath))
    return { available: false, reason: `${CHROMIUM.executablePath} not found` };
  const { chromium } = require(require.resolve('playwright-core', { paths: [ROOT] }));
  const server = await serve(ROOT, { extra: { '/models-bench.html': HOST } });
  const browser = await chromium.launch(CHROMIUM);
  try {
    const cdp = await browser.newBrowserCDPSession();
    const speed = await speedPage(browser, cdp, server.origin, ck, RELAXED_PROBE, problems, run);
    const loads = [];
    if (run.load) {
      for (let i = 0; i < run.LOADS; i++) {
        for (const what of i % 2
          ? ['load', 'stream', 'read', 'url', 'fetch']
          : ['fetch', 'url', 'read', 'stream', 'load']) {
          const r = await loadOnce(browser, cdp, server.origin, ck, RELAXED_PROBE, what, run);
          loads.push(r);
          log(
            `  chromium ${{ load: 'loadModel', read: 'File → ArrayBuffer', stream: 'File → BYOB stream', url: 'loadModel from urls', fetch: 'fetch → ArrayBuffer' }[what]}: ${r.ms.toFixed(0)} ms` +
              `${r.hwm ? `, renderer peak ${((r.hwm - r.rssBefore) / 2 ** 20).toFixed(0)} MiB over its ${(r.rssBefore / 2 ** 20).toFixed(0)} MiB before` : ''}`,
          );
        }
      }
    }
    return { available: true, speed, loads };
  } finally {
    await browser.close();
    await server.close();
  }
}

module.exports = { chromiumLines };
