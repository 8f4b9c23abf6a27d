#!/usr/bin/env node
'use strict';
// Issue 40's families at realistic sizes (docs/models-performance.md's "Families at realistic sizes"; run by
// scripts/bench after the models' table): one forward of 128 tokens of each family's released shape with random
// weights, one thread, in Node (dist/mha-relaxed.js where relaxed SIMD validates, else dist/mha.js), every head of
// every layer, the last hidden state and the last position's logits (model.forward(ids, {logitsAt: [T - 1]}), as
// bench/js/models.js times GPT-2 small):
//   - GPT-2 small: lib/gpt2.py's checkpoint (lib/checkpoint.js, the one models.js and analysis.js time, float32);
//   - Pythia-160m, TinyStories-33M (float32), Qwen3-0.6B, Gemma-3-270m (bfloat16, as released): lib/families.py's
//     random-initialised configs written with save_pretrained by the models' venv (scripts/venv-models), under
//     build/bench-models/<name>/, made once per version of families.py; never from a hub.
// Each family in its own core instance, all loaded at once; after one warm-up forward each, paired rounds (each round
// runs every family once, in an order that rotates: lib/timing.js's paired), so a drift of the machine's speed hits
// all of them alike. GFLOP/s: the forward's FLOPs from config.json (flopsOf below) over the median ms; "vs GPT-2" is
// that ratio from the median over rounds of the time ratio, so it is paired too.
// Prints a markdown table, writes JSON (into --json PATH when that file exists, else bench/results/). --quick: the same
// families at 2 layers, 32 wide and 3 rounds (CI's smoke test). Exit status non-zero only when something is broken (a
// checkpoint not made, a load or a forward failing, a shape the core reads otherwise than config.json says, a
// non-finite output); speed never fails the run.
const fs = require('fs');
const os = require('os');
const path = require('path');
const crypto = require('crypto');
const { execFileSync } = require('child_process');
const { ensureCheckpoint, runPython, venvPython } = require('./lib/checkpoint.js');
const { idsFor } = require('./lib/models-checks.js');
const { paired } = require('./lib/timing.js');
const { runMain } = require('./lib/run-main.js');

const ROOT = path.resolve(__dirname, '..', '..');
const MAKER = path.join(__dirname, 'lib', 'families.py');
const log = (...a) => process.stderr.write(a.join(' ') + '\n');

function parseArgs(argv) {
  const o = { quick: false, json: null, runs: null, tokens: 128, only: null, dtype: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') o.quick = true;
    else if (a === '--json') o.json = argv[++i];
    else if (a.startsWith('--json=')) o.json = a.slice(7);
    else if (a === '--runs') o.runs = Number(argv[++i]);
    else if (a === '--tokens') o.tokens = Number(argv[++i]);
    else if (a === '--only') o.only = argv[++i].split(',');
    else if (a === '--dtype') o.dtype = argv[++i];
    else if (a === '-h' || a === '--help') {
      console.log(`usage: node bench/js/families.js [--quick] [--json PATH] [--runs N] [--tokens T] [--only a,b]
                                  [--dtype float32|bfloat16]
  --quick     every family at 2 layers, 32 wide, 3 rounds (CI smoke test)
  --runs N    timed paired rounds after one warm-up forward each (default 10)
  --tokens T  the forward's length (default 128)
  --only      these families only (${FAMILIES.map((f) => f.name).join(', ')}; gpt2 is always timed: the baseline)
  --dtype     the generated families' weights in this dtype instead of each one's released dtype (a profiling aid:
              build/bench-models/<name>-<dtype>/)
  (scripts/bench passes its other options along; this script ignores them)`);
      process.exit(0);
    }
  }
  return o;
}

// The families and their released dtype (lib/families.py's docstring has their config.json values).
const FAMILIES = [
  { name: 'gpt2', label: 'GPT-2 small', dtype: 'float32' },
  { name: 'pythia-160m', label: 'Pythia-160m', dtype: 'float32' },
  { name: 'tinystories-33m', label: 'TinyStories-33M', dtype: 'float32' },
  { name: 'qwen3-0.6b', label: 'Qwen3-0.6B', dtype: 'bfloat16' },
  { name: 'gemma-3-270m', label: 'Gemma-3-270m', dtype: 'bfloat16' },
];
const opts = parseArgs(process.argv.slice(2));
const T = opts.quick ? Math.min(opts.tokens, 32) : opts.tokens;
const ROUNDS = opts.runs || (opts.quick ? 3 : 10);
const chosen = FAMILIES.filter((f) => f.name === 'gpt2' || !opts.only || opts.only.includes(f.name));

// ---- the checkpoints ------------------------------------------------------------------------------------------
function modelsPython() {
  if (process.env.MHA_MODELS_PYTHON) return process.env.MHA_MODELS_PYTHON;
  return execFileSync('bash', [path.join(ROOT, 'scripts', 'venv-models')], { encoding: 'utf8' }).trim();
}

// {family → dir}: GPT-2 from lib/checkpoint.js, the others made by families.py in one process, each once per version
// of families.py (its hash in done.json).
function checkpoints() {
  const dirs = {};
  const gpt2 = ensureCheckpoint(venvPython(), {
    name: opts.quick ? 'gpt2-tiny' : 'gpt2',
    tiny: opts.quick,
    refTokens: opts.quick ? 16 : 128,
    says: (d) => `families: writing ${d} (random-initialised GPT-2, ONNX export, float64 reference; once)`,
  });
  dirs.gpt2 = gpt2.dir;
  const version = crypto.createHash('sha256').update(fs.readFileSync(MAKER)).digest('hex').slice(0, 16);
  const todo = [];
  for (const f of chosen.filter((c) => c.name !== 'gpt2')) {
    const dtype = opts.dtype || f.dtype;
    const suffix = (opts.quick ? '-tiny' : '') + (opts.dtype ? `-${opts.dtype}` : '');
    const dir = path.join(ROOT, 'build', 'bench-models', f.name + suffix);
    dirs[f.name] = dir;
    const done = path.join(dir, 'done.json');
    if (fs.existsSync(done) && JSON.parse(fs.readFileSync(done, 'utf8')).script === version) continue;
    fs.rmSync(dir, { recursive: true, force: true });
    todo.push({ name: f.name, dtype, dir });
  }
  if (todo.length) {
    log(`families: writing ${todo.map((t) => path.relative(ROOT, t.dir)).join(', ')} (random weights; once)`);
    runPython(modelsPython(), [
      MAKER,
      'make',
      ...(opts.quick ? ['--tiny'] : []),
      ...todo.map((t) => `${t.name}:${t.dtype}:${t.dir}`),
    ]);
    for (const t of todo) {
      const done = path.join(t.dir, 'done.json');
      fs.writeFileSync(done, JSON.stringify({ ...JSON.parse(fs.readFileSync(done, 'utf8')), script: version }));
    }
  }
  return dirs;
}

// ---- the forward's FLOPs, from config.json ------------------------------------------------------------------------
// The shape by model_type, in the keys each family's configuration_*.py reads.
function shapeOf(c) {
  const s = (o) => ({ kvHeads: o.heads, headDim: o.d / o.heads, gated: false, ...o });
  switch (c.model_type) {
    case 'gpt2':
      return s({ d: c.n_embd, layers: c.n_layer, heads: c.n_head, inner: c.n_inner || 4 * c.n_embd });
    case 'gpt_neox':
      return s({
        d: c.hidden_size,
        layers: c.num_hidden_layers,
        heads: c.num_attention_heads,
        inner: c.intermediate_size,
      });
    case 'gpt_neo':
      return s({
        d: c.hidden_size,
        layers: c.num_layers,
        heads: c.num_heads,
        inner: c.intermediate_size || 4 * c.hidden_size,
      });
    case 'qwen3':
    case 'gemma3_text':
      return s({
        d: c.hidden_size,
        layers: c.num_hidden_layers,
        heads: c.num_attention_heads,
        kvHeads: c.num_key_value_heads,
        headDim: c.head_dim,
        inner: c.intermediate_size,
        gated: true,
      });
    default:
      throw new Error(`no FLOP count for model_type ${c.model_type}`);
  }
}

// What the core computes, multiply-adds as 2 FLOPs: per layer q, k, v, o and the MLP's 2 (3 gated) matrices for
// every token; attention's q·kᵀ and P·v for every query head over the whole T × T (the core computes every score,
// then masks: no causal or window skipping, and at T ≤ 256 no window cuts anything anyway), GQA's key/value heads
// read by their group's query heads; the LM head at the `rows` positions asked for (logitsAt). Biases, norms,
// activations, rotary, softmax and the embedding lookup (O(T·D) each) are not counted.
function flopsOf(c, tokens, rows) {
  const s = shapeOf(c);
  const q = s.heads * s.headDim,
    kv = s.kvHeads * s.headDim;
  const perLayer = s.d * q + 2 * s.d * kv + q * s.d + (s.gated ? 3 : 2) * s.d * s.inner;
  const layers = 2 * tokens * s.layers * perLayer;
  const attention = s.layers * 4 * tokens * tokens * s.heads * s.headDim;
  const head = 2 * rows * c.vocab_size * s.d;
  return { shape: s, layers, attention, head, total: layers + attention + head, layerWeights: s.layers * perLayer };
}

function shapeWords(s, c) {
  const heads = s.kvHeads === s.heads ? `${s.heads} heads` : `${s.heads} heads / ${s.kvHeads} kv`;
  return `${s.layers} × ${s.d}, ${heads} of ${s.headDim}, MLP ${s.inner}${s.gated ? ' gated' : ''}, vocab ${c.vocab_size}`;
}

// ---- one family: its own core, its checkpoint loaded, one forward checked ----------------------------------------
async function loadFamily(f, dir, createMhaModule, problems) {
  const config = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
  const M = await createMhaModule();
  const files = [];
  for (const n of ['config.json', 'model.safetensors'])
    files.push({ name: n, bytes: await fs.openAsBlob(path.join(dir, n)) }); // a Blob backed by the file
  const t0 = performance.now();
  const model = await M.loadModel(files);
  const loadMs = performance.now() - t0;
  const flops = flopsOf(config, T, 1);
  const s = flops.shape,
    i = model.info;
  const want = {
    dModel: s.d,
    layers: s.layers,
    heads: s.heads,
    kvHeads: s.kvHeads,
    headDim: s.headDim,
    vocab: config.vocab_size,
  };
  const off = Object.entries(want).filter(([k, v]) => i[k] !== v);
  if (off.length)
    problems.push(`${f.label}: the core reads ${off.map(([k, v]) => `${k} ${i[k]} (config.json: ${v})`).join(', ')}`);
  const ids = idsFor(T, i.vocab);
  const run = () => model.forward(ids, { logitsAt: [T - 1] });
  const r = run(); // the warm-up forward, checked
  const dims = [s.layers, 1, s.heads, T, T].join(',');
  if (r.attentions.shape.join(',') !== dims) problems.push(`${f.label}: attentions ${r.attentions.shape} ≠ [${dims}]`);
  for (const [name, t] of [
    ['logits', r.logits],
    ['hidden', r.hidden],
    ['attentions', r.attentions],
  ])
    if (!t.data.every(Number.isFinite)) problems.push(`${f.label}: ${name} holds NaN or infinity`);
  return {
    f,
    config,
    flops,
    model,
    run,
    info: { family: i.family, modelType: i.modelType, dtype: i.dtype, weightBytes: i.weightBytes, windows: i.windows },
    loadMs,
    dir,
  };
}

// Paired rounds over every loaded family (one warm-up forward each inside paired), then each one's row.
async function timeFamilies(loaded) {
  const contenders = loaded.map((l) => ({ name: l.f.name, run: l.run }));
  const policy = { minRuns: ROUNDS, maxRuns: ROUNDS, targetMs: 0 };
  const p = await paired(contenders, ['gpt2'], false, policy);
  const base = loaded.find((l) => l.f.name === 'gpt2');
  return loaded.map((l) => {
    const ms = p.medianMs[l.f.name];
    const timeRatio = l === base ? 1 : p.ratios.gpt2[l.f.name]; // median over rounds of its time ÷ GPT-2's
    log(`  families: ${l.f.label} ${ms.toFixed(1)} ms`);
    return {
      name: l.f.name,
      label: l.f.label,
      shape: shapeWords(l.flops.shape, l.config),
      dtype: l.info.dtype,
      weightBytes: l.info.weightBytes,
      info: l.info,
      dir: path.relative(ROOT, l.dir),
      loadMs: l.loadMs,
      flops: l.flops,
      ms,
      gflops: l.flops.total / (ms / 1000) / 1e9,
      vsGpt2: l.flops.total / base.flops.total / timeRatio,
    };
  });
}

function table(rows, build) {
  const base = rows.find((r) => r.name === 'gpt2');
  const lines = [
    `Families at realistic sizes: one forward of ${T} tokens (every head's attentions, the last hidden state, the ` +
      `last position's logits), one thread, Node ${process.version}, ${build}; random weights; median of ${ROUNDS} ` +
      `paired rounds after one warm-up forward each.`,
    '',
    '| family | shape | weights | ms per forward | GFLOP (layers + attention + LM head) | GFLOP/s | vs GPT-2 small (paired) |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  const g = (x) => String(Number((x / 1e9).toPrecision(3)));
  const mib = (b) => (b / 2 ** 20).toFixed(b < 10 * 2 ** 20 ? 2 : 0);
  for (const r of rows) {
    const fl = r.flops;
    const flag = r.vsGpt2 < 0.8 ? ' (> 20 % below)' : '';
    lines.push(
      `| ${r.label} | ${r.shape} | ${r.dtype}, ${mib(r.weightBytes)} MiB | ${r.ms.toFixed(r.ms < 100 ? 1 : 0)} | ` +
        `${g(fl.total)} (${g(fl.layers)} + ${g(fl.attention)} + ${g(fl.head)}) | ${r.gflops.toFixed(1)} | ` +
        `${r === base ? '1.00×' : r.vsGpt2.toFixed(2) + '×' + flag} |`,
    );
  }
  return lines.join('\n');
}

async function main() {
  const started = Date.now();
  const loadavgStart = os.loadavg();
  const problems = [];
  if (!fs.existsSync(path.join(ROOT, 'dist', 'mha.js'))) throw new Error('dist/mha.js is missing: run scripts/build');
  const dirs = checkpoints();
  const { relaxedSupported } = await import(path.join(ROOT, 'wasm', 'relaxed-probe.mjs'));
  const build = relaxedSupported() ? 'mha-relaxed.js' : 'mha.js';
  const createMhaModule = require(path.join(ROOT, 'dist', build));
  const loaded = [];
  for (const f of chosen) {
    try {
      const l = await loadFamily(f, dirs[f.name], createMhaModule, problems);
      loaded.push(l);
      log(
        `  families: ${f.label} loaded (${l.info.dtype}, ${(l.info.weightBytes / 2 ** 20).toFixed(0)} MiB) in ${l.loadMs.toFixed(0)} ms`,
      );
    } catch (e) {
      problems.push(`${f.label}: ${(e && e.stack) || e}`);
    }
  }
  const rows = loaded.some((l) => l.f.name === 'gpt2') ? await timeFamilies(loaded) : [];
  if (!rows.length) problems.push('GPT-2 small (the baseline) did not load: nothing timed');
  for (const l of loaded) l.model.dispose();

  const env = {
    date: new Date().toISOString(),
    quick: opts.quick,
    cpu: (os.cpus()[0] || {}).model,
    cores: os.cpus().length,
    node: process.version,
    build,
    tokens: T,
    rounds: ROUNDS,
    loadavgStart,
    loadavgEnd: os.loadavg(),
    seconds: (Date.now() - started) / 1000,
  };
  const la = (a) => a.map((v) => v.toFixed(1)).join('/');
  const md =
    `${rows.length ? table(rows, build) : '(nothing timed)'}\n\n${env.cpu}, ${env.cores} cores; load average ` +
    `${la(env.loadavgStart)} at start, ${la(env.loadavgEnd)} at the end; ${env.seconds.toFixed(0)} s.` +
    `${opts.quick ? ' QUICK run: a smoke test, not a measurement.' : ''}`;
  console.log(md);
  const families = { env, rows, problems, markdown: md };
  if (opts.json && fs.existsSync(opts.json)) {
    fs.writeFileSync(
      opts.json,
      JSON.stringify({ ...JSON.parse(fs.readFileSync(opts.json, 'utf8')), families }, null, 1),
    );
    log(`families: added to ${opts.json}`);
  } else {
    const name = `families-${env.date.replace(/[:.]/g, '-')}${opts.quick ? '-quick' : ''}.json`;
    const out = opts.json ? path.resolve(opts.json) : path.join(ROOT, 'bench', 'results', name);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(families, null, 1));
    log(`families: wrote ${out}`);
  }
  return problems;
}

runMain('families', main);
