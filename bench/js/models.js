#!/usr/bin/env node
'use strict';
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
// The parts, in bench/js/lib/: checkpoint.js (the checkpoint, made once), models-page.js (the contenders, in a page
// and in Node), models-chromium.js (the Chromium lines), renderer-memory.js, models-checks.js, models-table.js (the
// markdown).
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const bench = require('./lib/models-page.js');
const { ensureCheckpoint, venvPython } = require('./lib/checkpoint.js');
const { idsFor, failedChecks } = require('./lib/models-checks.js');
const { chromiumLines } = require('./lib/models-chromium.js');
const { summarize } = require('./lib/models-table.js');
const { median } = require('./lib/timing.js');
const { runMain } = require('./lib/run-main.js');

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
// what lib/models-chromium.js and lib/models-table.js read of the options
const RUN = { TOKENS, runsFor, WARM, LOADS, TARGETS, ort: opts.ort, load: opts.load };

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
  for (const t of Object.values(out.tokens)) t.ms = median(t.samples);
  for (const T of TOKENS) log(`  pytorch eager ${T} tokens: ${out.tokens[T].ms.toFixed(1)} ms`);
  return out;
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
    ? await guard('chromium', () => chromiumLines(ck, problems, RUN))
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
    median: median(loadSamples),
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
  const s = summarize({ chromium, node, torch, ck }, RUN);
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
  return problems;
}

runMain('models', main);
