#!/usr/bin/env node
'use strict';
/* global ModelsBench, createMhaModule -- page globals of bench/js/lib/models-page.js and the scripts it loads */
// Real-checkpoint benchmark (issue 30's "Speed and memory", run by scripts/bench after the training table).
// One run, one checkpoint: GPT-2 small (random-initialised gpt2 config written with save_pretrained by
// lib/gpt2.py under build/bench-models/gpt2/, made once and cached; never from a hub), every head of every
// layer, the last hidden state and the next-token logits, one thread:
//   - ours through the JS API in headless Chromium (a page served by scripts/serve.mjs that loads
//     dist/mha-relaxed.js where relaxed SIMD validates, else dist/mha.js) and in Node;
//   - ONNX Runtime Web (wasm execution provider, one thread) in the same page, on the same checkpoint exported
//     by torch.onnx.export with its attentions as outputs; ours and ORT alternate in paired rounds;
//   - PyTorch eager (transformers, one thread, OpenBLAS) as the native reference line.
// Every contender is first checked against transformers' float64 outputs (within 16 × transformers' own
// float32 error). Then loading: loadModel until the first forward can start vs reading the same File into an
// ArrayBuffer, both from an <input> (Playwright's setInputFiles), and the renderer's peak memory (VmHWM of the
// renderer process from /proc, reset before the load) against the weights' size.
// Prints a markdown table, writes JSON (into --json PATH when that file exists, as train.js does).
// `--quick`: a tiny GPT-2 (2 layers, 32 wide) and few runs: CI's smoke test. Exit status non-zero only when
// something is broken (a contender fails or disagrees with transformers); speed never fails the run.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const bench = require('./lib/models-page.js');
const { ensureCheckpoint, venvPython } = require('./lib/checkpoint.js');

const ROOT = path.resolve(__dirname, '..', '..');
const log = (...a) => process.stderr.write(a.join(' ') + '\n');

function parseArgs(argv) {
  const o = {
    quick: false,
    json: null,
    runs: null,
    tokens: null,
    load: true,
    ort: true,
    torch: true,
    browser: true,
    loads: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') o.quick = true;
    else if (a === '--json') o.json = argv[++i];
    else if (a.startsWith('--json=')) o.json = a.slice(7);
    else if (a === '--runs') o.runs = Number(argv[++i]);
    else if (a === '--loads') o.loads = Number(argv[++i]);
    else if (a === '--tokens') o.tokens = argv[++i].split(',').map(Number);
    else if (a === '--no-load') o.load = false;
    else if (a === '--no-ort') o.ort = false;
    else if (a === '--no-torch') o.torch = false;
    else if (a === '--no-browser') o.browser = false;
    else if (a === '-h' || a === '--help') {
      console.log(`usage: node bench/js/models.js [--quick] [--json PATH] [--tokens 128,512] [--runs N] [--loads N]
                                [--no-load] [--no-ort] [--no-torch] [--no-browser]
  --quick     the tiny GPT-2 checkpoint, few runs (CI smoke test)
  --runs N    timed paired rounds per token count after 2 warm-up rounds (default 10 at 128 tokens, 5 above)
  --loads N   loads and whole-file reads, alternating (default 3)
  (scripts/bench passes its other options along; this script ignores them)`);
      process.exit(0);
    }
  }
  return o;
}
const opts = parseArgs(process.argv.slice(2));
const CASE = opts.quick
  ? { dir: 'gpt2-tiny', tiny: true, tokens: [16, 64], refTokens: 16 }
  : { dir: 'gpt2', tiny: false, tokens: [128, 512], refTokens: 128 };
const TOKENS = opts.tokens || CASE.tokens;
const runsFor = (T) => opts.runs || (opts.quick ? 3 : T <= 128 ? 10 : 5);
const WARM = opts.quick ? 1 : 2;
const LOADS = opts.loads || (opts.quick ? 1 : 3);
const TARGETS = { 128: 1000, 512: 4000, ortSpeedup: 1.2, loadRatio: 2, memoryRatio: 1.2 };

// ---- the checkpoint ---------------------------------------------------------------------------------------
function checkpoint(python) {
  const { dir, meta } = ensureCheckpoint(python, {
    name: CASE.dir,
    tiny: CASE.tiny,
    refTokens: CASE.refTokens,
    says: (d) =>
      `models: writing ${d} (random-initialised GPT-2${CASE.tiny ? ', tiny' : ' small'}, ONNX export, float64 reference; once)`,
  });
  const file = (n) => path.join(dir, n);
  const ref = JSON.parse(fs.readFileSync(file(`reference-${meta.referenceTokens}.json`), 'utf8'));
  return {
    dir,
    meta,
    file,
    ref,
    refBin: file(`reference-${meta.referenceTokens}.bin`),
    bytes: { safetensors: fs.statSync(file('model.safetensors')).size, onnx: fs.statSync(file('model.onnx')).size },
  };
}

// The same token ids for every contender: a fixed pseudo-random sequence per length.
function idsFor(T, vocab) {
  let s = 12345 + T;
  return Array.from({ length: T }, () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return (s >>> 8) % vocab;
  });
}

function failedChecks(check) {
  return Object.entries(check)
    .filter(([, c]) => !c.ok)
    .map(
      ([n, c]) =>
        `${n}: max|diff| ${c.maxAbsDiff.toExponential(2)} > ${c.bound.toExponential(2)} (${c.count}/${c.expected} values)`,
    );
}

// ---- Node ---------------------------------------------------------------------------------------------------
async function nodeLine(ck, problems) {
  const { relaxedSupported } = await import(path.join(ROOT, 'wasm', 'relaxed-probe.mjs'));
  const build = relaxedSupported() ? 'mha-relaxed.js' : 'mha.js';
  const createMhaModule = require(path.join(ROOT, 'dist', build));
  const info = await bench.ours.init(createMhaModule);
  const files = ['config.json', 'model.safetensors'].map((n) => ({ name: n, bytes: fs.openAsBlob(ck.file(n)) }));
  for (const f of files) f.bytes = await f.bytes; // a Blob backed by the file, as a File in a page
  const load = await bench.ours.load(files);
  const check = await bench.check('ours', ck.ref, new Uint8Array(fs.readFileSync(ck.refBin)).buffer);
  const bad = failedChecks(check);
  if (bad.length) problems.push(`ours in Node (${build}) disagrees with transformers: ${bad.join('; ')}`);
  const tokens = {};
  for (const T of TOKENS) {
    const r = await bench.paired(['ours'], idsFor(T, load.info.vocab), runsFor(T), WARM);
    tokens[T] = { ms: r.medianMs.ours, samples: r.samples.ours };
    log(`  node ours ${T} tokens: ${tokens[T].ms.toFixed(1)} ms`);
  }
  bench.ours.dispose();
  return { build, implementation: info.implementation, node: process.version, loadMs: load.ms, check, tokens };
}

// ---- Chromium -----------------------------------------------------------------------------------------------
const HOST =
  '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>GPT-2 benchmark</title>' +
  '<input type="file" id="files" multiple><script src="/bench/js/lib/models-page.js"></script>';
const ORT_DIR = '/bench/js/node_modules/onnxruntime-web/dist/';

// The renderer processes that appear when a page is opened in a fresh context: the page's own among them (the
// one whose peak grows by the file's size; Chromium also starts spare renderers).
async function rendererPids(cdp) {
  const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
  return new Set(processInfo.filter((p) => p.type === 'renderer').map((p) => p.id));
}
function procMemory(pid) {
  let status;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const kb = (k) => Number((status.match(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm')) || [])[1]) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}
// Resets the process's peak RSS (VmHWM) to its current RSS (Linux ≥ 4.0, needs the right to write clear_refs).
function resetPeak(pid) {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

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

async function speedPage(browser, cdp, origin, ck, probe, problems) {
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
    if (opts.ort) {
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
    for (const T of TOKENS) {
      tokens[T] = await page.evaluate(
        ([n, ids, runs, warm]) => ModelsBench.paired(n, ids, runs, warm),
        [names, idsFor(T, load.info.vocab), runsFor(T), WARM],
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
async function loadOnce(browser, cdp, origin, ck, probe, what) {
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
        idsFor(TOKENS[0], r.info.vocab),
      );
      const end = pid ? procMemory(pid) : null;
      out.firstForward = {
        tokens: TOKENS[0],
        ms: f.ms,
        outBytes: f.outBytes,
        wasmHeap: f.memory,
        hwm: end && end.hwm,
        wasmHeapGrowth: f.memory.heapSize - r.memory.heapSize,
        activationBytes: activationFloor(ck.meta.config, TOKENS[0]),
      };
    }
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    return out;
  } finally {
    await context.close();
  }
}

async function chromiumLines(ck, problems) {
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
    const speed = await speedPage(browser, cdp, server.origin, ck, RELAXED_PROBE, problems);
    const loads = [];
    if (opts.load) {
      for (let i = 0; i < LOADS; i++) {
        for (const what of i % 2
          ? ['load', 'stream', 'read', 'url', 'fetch']
          : ['fetch', 'url', 'read', 'stream', 'load']) {
          const r = await loadOnce(browser, cdp, server.origin, ck, RELAXED_PROBE, what);
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

// ---- PyTorch eager ------------------------------------------------------------------------------------------
function torchLine(python, ck) {
  const env = { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };
  const runs = Math.max(...TOKENS.map(runsFor));
  const idsFile = path.join(ck.dir, 'timing-ids.json');
  fs.writeFileSync(
    idsFile,
    JSON.stringify(Object.fromEntries(TOKENS.map((T) => [T, idsFor(T, ck.meta.config.vocab_size)]))),
  );
  const r = spawnSync(
    python,
    [path.join(__dirname, 'lib', 'gpt2.py'), 'time', '--dir', ck.dir, '--ids', idsFile, '--runs', String(runs)],
    { env, encoding: 'utf8', maxBuffer: 1 << 26 },
  );
  if (r.status !== 0) return { error: (r.stderr || String(r.error)).trim().split('\n').pop() };
  const out = JSON.parse(r.stdout);
  for (const t of Object.values(out.tokens)) t.ms = bench.median(t.samples);
  for (const T of TOKENS) log(`  pytorch eager ${T} tokens: ${out.tokens[T].ms.toFixed(1)} ms`);
  return out;
}

// ---- output -------------------------------------------------------------------------------------------------
function summarize(result) {
  const { chromium, node, torch, ck } = result;
  const f = (v, d) =>
    v === undefined || v === null || !Number.isFinite(v)
      ? 'n/a'
      : v.toFixed(d !== undefined ? d : v >= 100 ? 0 : v >= 10 ? 1 : 2);
  const mib = (b) => `${f(b / 2 ** 20, b < 2 ** 24 ? 1 : 0)} MiB`;
  // (a tiny checkpoint says nothing about the targets)
  const yes = (ok) => (ck.tiny ? '—' : ok === undefined || ok === null ? 'n/a' : ok ? 'met' : '**missed**');
  const atMost = (v, limit) => (Number.isFinite(v) ? v <= limit : undefined);
  const sp = chromium.available ? chromium.speed : null;
  const lines = [];
  lines.push(
    `GPT-2${ck.tiny ? ' (tiny: 2 layers, 2 heads, 32 wide — CI smoke test, not a measurement)' : ' small (12 layers, 12 heads, 768 wide, 50257 tokens)'}: ` +
      'every head of every layer, the last hidden state and the next-token logits, one thread; median ms per forward.',
    '',
  );
  lines.push(
    '| tokens | ours, Chromium | ours, Node | ORT-web, Chromium | PyTorch eager | ORT ÷ ours (paired) | target | met |',
  );
  lines.push('|---|---|---|---|---|---|---|---|');
  const speedTargets = {};
  for (const T of TOKENS) {
    const c = sp && sp.tokens[T];
    const ours = c ? c.medianMs.ours : undefined,
      ort = c ? c.medianMs.ort : undefined,
      ratio = c ? c.ratios.ort : undefined;
    const target = TARGETS[T];
    const okTime = target && ours !== undefined ? ours <= target : undefined;
    const okOrt = ratio !== undefined ? ratio >= TARGETS.ortSpeedup : undefined;
    speedTargets[T] = { ms: okTime, ort: okOrt };
    lines.push(
      `| ${T} | ${f(ours)} | ${node && node.tokens ? f(node.tokens[T].ms) : 'n/a'} | ${f(ort)} | ${torch && torch.tokens ? f(torch.tokens[T].ms) : 'n/a'} | ` +
        `${ratio !== undefined ? `${f(ratio, 2)}×` : 'n/a'} | ${target ? `≤ ${target} ms, ` : ''}≥ ${TARGETS.ortSpeedup}× | ` +
        `${target ? yes(okTime) + ', ' : ''}${yes(okOrt)} |`,
    );
  }
  const loads = chromium.available ? chromium.loads : [];
  const ours = loads.filter((l) => l.what === 'load'),
    read = loads.filter((l) => l.what === 'read');
  const stream = loads.filter((l) => l.what === 'stream');
  const byUrl = loads.filter((l) => l.what === 'url'),
    fetched = loads.filter((l) => l.what === 'fetch');
  const med = (a) => (a.length ? bench.median(a) : undefined);
  const load = {};
  if (ours.length && read.length) {
    load.loadMs = med(ours.map((l) => l.ms));
    load.readMs = med(read.map((l) => l.ms));
    load.ratio = load.loadMs / load.readMs;
    load.weightBytes = ours[0].weightBytes;
    load.peakLoad = med(ours.filter((l) => l.hwm).map((l) => l.hwm - l.rssBefore));
    load.peakRead = med(read.filter((l) => l.hwm).map((l) => l.hwm - l.rssBefore));
    load.streamMs = med(stream.map((l) => l.ms));
    load.peakStream = med(stream.filter((l) => l.hwm).map((l) => l.hwm - l.rssBefore));
    load.wasmHeapGrowth = med(ours.map((l) => l.firstForward.wasmHeapGrowth));
    load.activations = med(ours.map((l) => l.firstForward.activationBytes));
    load.peakForward = med(ours.filter((l) => l.firstForward.hwm).map((l) => l.firstForward.hwm - l.rssBefore));
    load.memoryRatio = load.peakLoad / load.weightBytes;
    load.forwardRatio = load.peakForward / (load.weightBytes + load.activations);
    load.urlMs = med(byUrl.map((l) => l.ms));
    load.fetchMs = med(fetched.map((l) => l.ms));
    load.peakUrl = med(byUrl.filter((l) => l.hwm).map((l) => l.hwm - l.rssBefore));
    load.peakFetch = med(fetched.filter((l) => l.hwm).map((l) => l.hwm - l.rssBefore));
    lines.push(
      '',
      `Loading model.safetensors (${mib(ck.bytes.safetensors)}; ${mib(load.weightBytes)} of weights kept) in Chromium, ` +
        `from a File of an <input> (setInputFiles), medians of ${ours.length}:`,
      '',
    );
    lines.push('| measure | value | target | met |', '|---|---|---|---|');
    lines.push(`| read the File into an ArrayBuffer | ${f(load.readMs)} ms | | |`);
    lines.push(
      `| loadModel until the first forward can start | ${f(load.loadMs)} ms (${f(load.ratio, 2)}× the read) | ≤ ${TARGETS.loadRatio}× | ${yes(atMost(load.ratio, TARGETS.loadRatio))} |`,
    );
    lines.push(
      `| (diagnostic) read the File with a BYOB stream reader refilling one 4 MiB buffer, into one buffer of its size | ${f(load.streamMs)} ms | | |`,
    );
    lines.push(`| renderer peak RSS over its RSS before, whole-file read | ${mib(load.peakRead)} | | |`);
    lines.push(`| (diagnostic) the same, BYOB stream read | ${mib(load.peakStream)} | | |`);
    lines.push(
      `| renderer peak RSS over its RSS before, loadModel | ${mib(load.peakLoad)} (${f(load.memoryRatio, 2)}× the weights) | ≤ ${TARGETS.memoryRatio}× | ${yes(atMost(load.memoryRatio, TARGETS.memoryRatio))} |`,
    );
    lines.push(
      `| … through the first forward (${TOKENS[0]} tokens; activations ${mib(load.activations)}, wasm heap grown by ${mib(load.wasmHeapGrowth)}) | ${mib(load.peakForward)} ` +
        `(${f(load.forwardRatio, 2)}× weights + activations) | ≤ ${TARGETS.memoryRatio}× | ${yes(atMost(load.forwardRatio, TARGETS.memoryRatio))} |`,
    );
    if (byUrl.length && fetched.length) {
      lines.push(
        `| (model= path) fetch the file from the page's server into an ArrayBuffer | ${f(load.fetchMs)} ms | | |`,
      );
      lines.push(
        `| (model= path) loadModel given the files' urls, the body streamed into wasm memory | ${f(load.urlMs)} ms ` +
          `(${f(load.urlMs / load.fetchMs, 2)}× the fetch) | | |`,
      );
      lines.push(`| (model= path) renderer peak RSS, fetch into an ArrayBuffer | ${mib(load.peakFetch)} | | |`);
      lines.push(
        `| (model= path) renderer peak RSS, loadModel from urls | ${mib(load.peakUrl)} (${f(load.peakUrl / load.weightBytes, 2)}× the weights) | | |`,
      );
    }
  }
  const notes = [];
  if (sp) {
    notes.push(
      `Ours in Chromium: dist/${sp.build} (${sp.implementation}; relaxed SIMD validates there), headless Chromium ${sp.browser}, ` +
        'a page served by scripts/serve.mjs.',
    );
  }
  if (node && node.tokens)
    notes.push(
      `Ours in Node ${node.node}: dist/${node.build} (${node.implementation}), the same JS API, the files as Blobs (fs.openAsBlob).`,
    );
  if (sp && sp.ort && !sp.ort.error) {
    notes.push(
      `ORT-web: onnxruntime-web ${sp.ort.version} (wasm execution provider from ort.wasm.min.js — its SIMD build — numThreads 1, ` +
        `graphOptimizationLevel all), model.onnx (${mib(ck.bytes.onnx)}: the export stores wte twice, once transposed for the LM head) from ` +
        `torch.onnx.export (torch ${ck.meta.torch}, opset 14, attentions as outputs, the LM head at the last position only, as ours). ` +
        `Ours and ORT run in the same page, alternating (paired rounds after ${WARM} warm-up rounds; ${TOKENS.map((T) => `${runsFor(T)} at ${T}`).join(', ')}); ` +
        "ORT ÷ ours is the median over rounds of ORT's time ÷ ours in the same round (> 1: ours is faster); both return every output to JS.",
    );
  }
  if (torch && torch.tokens) {
    notes.push(
      `PyTorch eager: transformers ${ck.meta.transformers} (attn_implementation="eager", output_attentions=True) through the ` +
        `exported wrapper (LM head at the last position), torch ${torch.torch}, torch.set_num_threads(1), OPENBLAS_NUM_THREADS=1; ` +
        'run after the others, not paired.',
    );
  }
  const checks = [
    ['ours (Chromium)', sp && sp.check],
    ['ORT-web', sp && sp.ort && sp.ort.check],
    ['ours (Node)', node && node.check],
  ]
    .filter(([, c]) => c)
    .map(
      ([n, c]) =>
        `${n} ${Object.entries(c)
          .map(([k, v]) => `${k} ${v.maxAbsDiff.toExponential(1)}`)
          .join(', ')}`,
    );
  notes.push(
    `Checked before timing against transformers in float64 at ${ck.meta.referenceTokens} tokens (max |diff|; accepted within 16 × transformers' float32 error: ` +
      `${Object.entries(ck.ref.tensors)
        .map(([k, v]) => `${k} ${(16 * v.torchFloat32Error).toExponential(1)}`)
        .join(', ')}): ${checks.join('; ') || 'nothing ran'}.`,
  );
  if (loads.length) {
    notes.push(
      "Load and read each run in a fresh browser context (its own renderer process), alternating. Peak memory: the renderer's VmHWM " +
        '(/proc/PID/status; PID from CDP SystemInfo.getProcessInfo) after resetting it to the current RSS (/proc/PID/clear_refs) just before the ' +
        'load, minus the RSS then (performance.measureUserAgentSpecificMemory is unavailable headless). Activations: the least a forward that ' +
        "returns every attention needs: its outputs (attentions, hidden, logits) twice, in wasm and copied to JS, plus one layer's " +
        'intermediates, float32. The file is in the OS page cache for every read.',
    );
  }
  return { markdown: [...lines, '', ...notes].join('\n'), load, speedTargets };
}

async function main() {
  const started = Date.now();
  const loadavgStart = os.loadavg();
  const loadSamples = [loadavgStart[0]]; // the 1-minute load average every 10 s: how busy the machine was
  const sampler = setInterval(() => loadSamples.push(os.loadavg()[0]), 10000);
  const problems = [];
  if (!fs.existsSync(path.join(ROOT, 'dist', 'mha.js'))) throw new Error('dist/mha.js is missing: run scripts/build');
  const python = venvPython();
  const ck = checkpoint(python);
  ck.tiny = CASE.tiny;
  log(
    `models: ${path.relative(ROOT, ck.dir)} (${(ck.bytes.safetensors / 2 ** 20).toFixed(0)} MiB), tokens ${TOKENS.join(', ')}`,
  );
  const guard = async (name, f) => {
    try {
      return await f();
    } catch (e) {
      problems.push(`${name}: ${(e && e.stack) || e}`);
      return { error: String((e && e.message) || e), available: false };
    }
  };
  const node = await guard('node', () => nodeLine(ck, problems));
  const chromium = opts.browser
    ? await guard('chromium', () => chromiumLines(ck, problems))
    : { available: false, reason: 'disabled (--no-browser)' };
  let torch = null;
  if (opts.torch) {
    torch = torchLine(python, ck);
    if (torch.error) problems.push(`PyTorch eager: ${torch.error}`);
  }
  const loadavgEnd = os.loadavg();
  clearInterval(sampler);
  loadSamples.push(loadavgEnd[0]);
  const during = {
    min: Math.min(...loadSamples),
    median: bench.median(loadSamples),
    max: Math.max(...loadSamples),
    samples: loadSamples,
  };
  const env = {
    date: new Date().toISOString(),
    quick: opts.quick,
    cpu: (os.cpus()[0] || {}).model,
    cores: os.cpus().length,
    node: process.version,
    loadavgStart,
    loadavgEnd,
    loadavgDuring: during,
    seconds: (Date.now() - started) / 1000,
  };
  const { meta, dir, bytes, ref } = ck;
  const models = {
    env,
    checkpoint: {
      dir: path.relative(ROOT, dir),
      bytes,
      config: meta.config,
      referenceTokens: meta.referenceTokens,
      reference: ref.tensors,
    },
    targets: TARGETS,
    tokens: TOKENS,
    node,
    chromium,
    torch,
    problems,
  };
  const s = summarize({ chromium, node, torch, ck });
  models.summary = { load: s.load, speedTargets: s.speedTargets };
  const md =
    `${s.markdown}\n\n${env.cpu}, ${env.cores} cores; load average ${loadavgStart.map((v) => v.toFixed(1)).join('/')} at start, ` +
    `${loadavgEnd.map((v) => v.toFixed(1)).join('/')} at the end; 1-minute load average during the run (every 10 s) ` +
    `${during.min.toFixed(1)}–${during.max.toFixed(1)}, median ${during.median.toFixed(1)}${during.max >= 3 ? ' (the machine was busy: the times are inflated)' : ''}; ${env.seconds.toFixed(0)} s.${opts.quick ? ' QUICK run: a smoke test, not a measurement.' : ''}`;
  models.markdown = md;
  console.log(md);

  if (opts.json && fs.existsSync(opts.json)) {
    fs.writeFileSync(opts.json, JSON.stringify({ ...JSON.parse(fs.readFileSync(opts.json, 'utf8')), models }, null, 1));
    log(`models: added to ${opts.json}`);
  } else {
    const out = opts.json
      ? path.resolve(opts.json)
      : path.join(
          ROOT,
          'bench',
          'results',
          `models-${env.date.replace(/[:.]/g, '-')}${opts.quick ? '-quick' : ''}.json`,
        );
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(models, null, 1));
    log(`models: wrote ${out}`);
  }
  if (problems.length) {
    log(`models: BROKEN (${problems.length}):\n  ` + problems.join('\n  '));
    process.exitCode = 1;
  }
}

main().catch((e) => {
  console.error(`models: BROKEN: ${(e && e.stack) || e}`);
  process.exit(1);
});
