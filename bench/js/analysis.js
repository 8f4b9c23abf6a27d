#!/usr/bin/env node
'use strict';
// Issue 41's speed lines (docs/analysis.md's table; run by scripts/bench after the models' table), one thread, in
// Node (V8, the engine of Chromium's pages; dist/mha-relaxed.js where relaxed SIMD validates, else dist/mha.js),
// on GPT-2 small (lib/checkpoint.js: the random-initialised gpt2 config bench/js/models.js uses, made once):
//   - greedy generation: a 128-token prompt and 64 new tokens: the time to the first new token (the prompt read into
//     the key/value cache) and the tokens per second after it, set against this machine's memory bandwidth (a
//     float32 GPT-2 small reads its 0.5 GB of weights once a token, so bandwidth / weights bounds the rate);
//   - activation patching of every head (144) on a 15-token pair: the whole map, and each patched run in forwards
//     of the 15 tokens (a run starts at the patched layer: less than one forward on average);
//   - the logit lens (lensRows, one row) and the attribution at the last position, each beside one forward.
// Prints a markdown table, writes JSON into bench/results/ (or --json PATH). --quick: the tiny GPT-2, 8 new tokens
// (CI's smoke test). Speed never fails the run; a method that throws does.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { ensureCheckpoint, venvPython } = require('./lib/checkpoint.js');
const { median } = require('./lib/timing.js');
const { runMain } = require('./lib/run-main.js');

const ROOT = path.resolve(__dirname, '..', '..');
const log = (...a) => process.stderr.write(a.join(' ') + '\n');
const quick = process.argv.includes('--quick');
const jsonAt = process.argv.indexOf('--json');
const CASE = quick
  ? { dir: 'gpt2-tiny', tiny: true, refTokens: 16, prompt: 16, fresh: 8, pair: 15, runs: 2 }
  : { dir: 'gpt2', tiny: false, refTokens: 128, prompt: 128, fresh: 64, pair: 15, runs: 3 };

const now = () => performance.now();
function timed(f, runs) {
  const samples = [];
  let out;
  for (let i = 0; i < runs; i++) {
    const t = now();
    out = f();
    samples.push(now() - t);
  }
  return { ms: median(samples), samples, out };
}
async function timedAsync(f, runs) {
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const t = now();
    await f();
    samples.push(now() - t);
  }
  return { ms: median(samples), samples };
}

// GB/s moved by a 512 MiB Float32Array copy (TypedArray.set: memcpy, read + write), the best of 5.
function memoryBandwidth() {
  const n = quick ? 1 << 24 : 1 << 27;
  const a = new Float32Array(n).fill(1),
    b = new Float32Array(n);
  let best = Infinity;
  for (let r = 0; r < 5; r++) {
    const t = now();
    b.set(a);
    best = Math.min(best, now() - t);
  }
  if (b[n - 1] !== 1) throw new Error('the bandwidth probe copied nothing');
  return (2 * a.byteLength) / (best / 1000) / 1e9;
}

const ids = (n, vocab, seed) => Array.from({ length: n }, (_, i) => (i * 7919 + seed * 104729) % vocab);

// One whole forward of T tokens: other ids each run (the same ids would resume from the activations cache).
function fullForward(model, T) {
  let k = 10;
  return timed(() => model.forward(ids(T, model.info.vocab, k++), { attentions: false }), CASE.runs * 2);
}

async function generation(model) {
  const prompt = ids(CASE.prompt, model.info.vocab, 1);
  const stamps = [];
  const t0 = now();
  // An end-of-text before maxNewTokens shows as fewer new tokens and its reason (the table says both).
  const r = await model.generate(prompt, { maxNewTokens: CASE.fresh, onToken: () => void stamps.push(now()) });
  const first = stamps[0] - t0;
  const after = stamps.length > 1 ? (stamps.length - 1) / ((stamps.at(-1) - stamps[0]) / 1000) : null;
  return {
    promptTokens: prompt.length,
    newTokens: r.ids.length,
    stopped: r.stopped,
    firstMs: first,
    tokensPerS: after,
  };
}

async function patching(model) {
  const clean = ids(CASE.pair, model.info.vocab, 2),
    corrupted = ids(CASE.pair, model.info.vocab, 3);
  const forward = fullForward(model, CASE.pair);
  let total = 0;
  const whole = await timedAsync(async () => {
    const map = await model.patch({
      clean,
      corrupted,
      tokens: [1, 2],
      what: 'heads',
      onProgress: (p) => (total = p.total),
    });
    if (map.data.length !== model.info.layers * model.info.heads) throw new Error('the heads map has the wrong size');
  }, 1);
  return {
    tokens: CASE.pair,
    runs: total,
    ms: whole.ms,
    forwardMs: forward.ms,
    perRunInForwards: whole.ms / total / forward.ms,
  };
}

function lensAndAttribution(model) {
  const text = ids(CASE.prompt, model.info.vocab, 4);
  const forward = fullForward(model, text.length);
  const lens = timed(() => {
    const rows = model.lensRows(text);
    rows.row(rows.rows - 1);
    rows.dispose();
  }, CASE.runs);
  const attribution = timed(() => model.attribute(text, { tokens: [1, 2] }), CASE.runs);
  return { tokens: text.length, forwardMs: forward.ms, lensMs: lens.ms, attributionMs: attribution.ms };
}

function table(r) {
  const f = (x, d = 1) => (x === null || x === undefined ? 'n/a' : x.toFixed(d));
  const g = r.generation,
    p = r.patching,
    l = r.lens;
  const ceiling = r.bandwidthGBs / (r.weightBytes / 1e9);
  return [
    `### What heads do: speed (${r.model}, one thread, Node ${process.version}, ${r.build})`,
    '',
    '| measure | value | target |',
    '| --- | --- | --- |',
    `| greedy generation, ${g.promptTokens}-token prompt: first new token | ${f(g.firstMs, 0)} ms | |`,
    `| tokens per second after it (${g.newTokens} new, ${g.stopped}) | ${f(g.tokensPerS)} | ≥ 25 |`,
    `| memory bandwidth (a copy: read + write) / the weights (${f(r.weightBytes / 1e9, 2)} GB) | ${f(r.bandwidthGBs)} GB/s → at most ${f(ceiling)} tokens/s | |`,
    `| patching every head (${p.runs} runs), ${p.tokens}-token pair | ${f(p.ms, 0)} ms | ≤ 5000 |`,
    `| one patched run, in forwards of ${p.tokens} tokens (${f(p.forwardMs)} ms) | ${f(p.perRunInForwards, 2)} | < 1 |`,
    `| one forward, ${l.tokens} tokens | ${f(l.forwardMs)} ms | |`,
    `| the lens (every layer's stream kept, the last row) | ${f(l.lensMs)} ms | ≤ 2 forwards |`,
    `| the attribution at the last position | ${f(l.attributionMs)} ms | ≤ 2 forwards |`,
  ].join('\n');
}

async function main() {
  const ck = ensureCheckpoint(venvPython(), {
    name: CASE.dir,
    tiny: CASE.tiny,
    refTokens: CASE.refTokens,
    says: (d) => `analysis: writing ${d} (random-initialised GPT-2, once)`,
  });
  const { relaxedSupported } = await import(path.join(ROOT, 'wasm', 'relaxed-probe.mjs'));
  const build = relaxedSupported() ? 'mha-relaxed.js' : 'mha.js';
  const M = await require(path.join(ROOT, 'dist', build))();
  const files = ['config.json', 'model.safetensors'].map((n) => ({
    name: n,
    bytes: new Uint8Array(fs.readFileSync(path.join(ck.dir, n))),
  }));
  const model = await M.loadModel(files);
  const weightBytes = model.info.weightBytes;
  log(`analysis: ${CASE.dir}, ${build}`);
  const r = { model: CASE.dir, build, quick, cpu: (os.cpus()[0] || {}).model, date: new Date().toISOString() };
  r.weightBytes = weightBytes;
  r.generation = await generation(model);
  r.patching = await patching(model);
  r.lens = lensAndAttribution(model);
  model.dispose();
  r.bandwidthGBs = memoryBandwidth();
  r.loadavg = os.loadavg();
  console.log(table(r) + '\n');
  // Into the forward benchmark's JSON when --json names it, else a file of its own (as train.js).
  const jsonPath = jsonAt > 0 ? process.argv[jsonAt + 1] : null;
  if (jsonPath && fs.existsSync(jsonPath)) {
    fs.writeFileSync(
      jsonPath,
      JSON.stringify({ ...JSON.parse(fs.readFileSync(jsonPath, 'utf8')), analysis: r }, null, 1),
    );
  } else {
    const name = `analysis-${r.date.replace(/[:.]/g, '-')}${quick ? '-quick' : ''}.json`;
    const out = path.join(ROOT, 'bench', 'results', name);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(r, null, 1));
  }
  return [];
}

runMain('analysis', main);
