#!/usr/bin/env node
// Long sequences against S = 512, paired: the GFLOP/s of the forward at (1, 2048, 256, 8) ÷ that of
// (1, 512, 512, 8), both through the public JS API (`forward(x, x, x, {needWeights: false})`, copies
// in and out included, as bench/js/run.js times it). Each round runs both shapes once, in an order
// that alternates between rounds, and gives one ratio: this VM's speed drifts by up to 2× over
// minutes, and within a round the drift cancels. A run reports the median of its rounds; the
// headline is the median of the runs' medians. The same ratio from the process's CPU time is printed
// beside it: on a loaded machine it leaves out the time the process waited for a core.
//
//   node --experimental-wasm-relaxed-simd bench/js/long-seq.mjs [--runs 3] [--rounds 11] [--dist DIR]
//        [--builds mha.js,mha-relaxed.js] [--shapes "1,2048,256,8;1,512,512,8"] [--json FILE] [--against DIR]
// Prints one line per run and a summary per build (dist/mha.js: SIMD128, dist/mha-relaxed.js: FMA,
// skipped without relaxed SIMD), with the load average at the start and end of each run.
// --against DIR (another dist/, e.g. main's) loads the same build from there into this process too: each
// round then times both shapes in both builds, in an order that rotates between rounds, and a run prints
// each build's CPU-time ratio and this build's speed ÷ the other's per shape (a change of 1% shows through
// the drift of a shared machine, which separate runs of the two directories do not cancel; no --json).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function parseArgs(argv) {
  const o = {
    runs: 3,
    rounds: 11,
    warm: 3,
    dist: path.join(ROOT, 'dist'),
    builds: ['mha.js', 'mha-relaxed.js'],
    shapes: [
      [1, 2048, 256, 8],
      [1, 512, 512, 8],
    ],
    json: null,
    against: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--runs') o.runs = Number(argv[++i]);
    else if (a === '--rounds') o.rounds = Number(argv[++i]);
    else if (a === '--warm') o.warm = Number(argv[++i]);
    else if (a === '--dist') o.dist = path.resolve(argv[++i]);
    else if (a === '--builds') o.builds = argv[++i].split(',');
    else if (a === '--json') o.json = argv[++i];
    else if (a === '--against') o.against = path.resolve(argv[++i]);
    else if (a === '--shapes') o.shapes = argv[++i].split(';').map((s) => s.split(',').map(Number));
    else {
      console.error(`long-seq: unknown argument ${a}`);
      process.exit(2);
    }
  }
  if (o.shapes.length !== 2) throw new Error('--shapes takes two shapes: the long one, then the reference');
  return o;
}

const flops = ([B, S, D]) => 4 * 2 * B * S * D * D + 4 * B * S * S * D;
const { median } = require('./lib/timing.js');
const load = () => os.loadavg()[0].toFixed(2);

// One shape's forward in module M: weights and input drawn from seed 0, as bench/js/run.js.
function forwardOf(M, [B, S, D, H]) {
  const g = new M.Generator(0);
  const mha = new M.MultiHeadAttention({ dModel: D, numHeads: H, bias: true, dropout: 0, generator: g });
  mha.eval();
  const x = g.randn([B, S, D]);
  return () => mha.forward(x, x, x, { needWeights: false });
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const time = (f) => {
  const c0 = cpuMs(),
    t0 = performance.now();
  f();
  return { wall: performance.now() - t0, cpu: cpuMs() - c0 };
};

// One run: `warm` unpaired rounds, then `rounds` paired ones. ratio = GFLOP/s(long) ÷ GFLOP/s(ref).
function run(fwd, shapes, o) {
  for (let r = 0; r < o.warm; r++) fwd.forEach(time);
  const ratio = (t) => flops(shapes[0]) / t[0] / (flops(shapes[1]) / t[1]);
  const ratios = [],
    cpuRatios = [],
    ms = [[], []];
  for (let r = 0; r < o.rounds; r++) {
    const order = r % 2 ? [1, 0] : [0, 1];
    const t = [];
    for (const k of order) t[k] = time(fwd[k]);
    ms[0].push(t[0].wall);
    ms[1].push(t[1].wall);
    ratios.push(ratio(t.map((x) => x.wall)));
    cpuRatios.push(ratio(t.map((x) => x.cpu)));
  }
  const gf = (k) => flops(shapes[k]) / median(ms[k]) / 1e6;
  return { ratio: median(ratios), cpuRatio: median(cpuRatios), ratios, cpuRatios, ms, gflops: [gf(0), gf(1)] };
}

// One run of two builds (fwd and other, each [long, ref]) in this process: per round both shapes in both
// builds, the order rotating. Per build the CPU-time ratio; speed[k] = time(other) ÷ time(fwd) for shape k.
function runAgainst(fwd, other, shapes, o) {
  const builds = [fwd, other];
  const jobs = [
    [0, 0],
    [1, 0],
    [0, 1],
    [1, 1],
  ];
  for (let r = 0; r < o.warm; r++) jobs.forEach(([b, k]) => time(builds[b][k]));
  const ratio = (t) => flops(shapes[0]) / t[0] / (flops(shapes[1]) / t[1]);
  const ratios = [[], []],
    speed = [[], []];
  for (let r = 0; r < o.rounds; r++) {
    const order = jobs.map((_, i) => jobs[(i + r) % jobs.length]);
    if (r % 2) order.reverse();
    const t = [[], []];
    for (const [b, k] of order) t[b][k] = time(builds[b][k]).cpu;
    ratios.forEach((list, b) => list.push(ratio(t[b])));
    speed.forEach((list, k) => list.push(t[1][k] / t[0][k]));
  }
  return { cpuRatio: median(ratios[0]), otherCpuRatio: median(ratios[1]), speed: speed.map(median) };
}

// --against: each build against the same file of the other directory.
async function mainAgainst(o) {
  for (const file of o.builds) {
    const [M, Mo] = [await require(path.join(o.dist, file))(), await require(path.join(o.against, file))()];
    const fwd = o.shapes.map((s) => forwardOf(M, s)),
      other = o.shapes.map((s) => forwardOf(Mo, s));
    for (let i = 0; i < o.runs; i++) {
      const before = load();
      const r = runAgainst(fwd, other, o.shapes, o);
      console.log(
        `${file} run ${i + 1}: CPU-time ratio ${r.cpuRatio.toFixed(3)} (against ${r.otherCpuRatio.toFixed(3)}); speed ÷ against: long ${r.speed[0].toFixed(4)}, reference ${r.speed[1].toFixed(4)}; load ${before} → ${load()}`,
      );
    }
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const { relaxedSupported } = await import(path.join(ROOT, 'wasm', 'relaxed-probe.mjs'));
  const label = (s) => `(${s.join(',')})`;
  const out = { date: new Date().toISOString(), cpu: os.cpus()[0].model, shapes: o.shapes, builds: {} };
  console.log(`${label(o.shapes[0])} ÷ ${label(o.shapes[1])}, GFLOP/s ratio per paired round, ${o.rounds} rounds`);
  if (o.against) {
    o.builds = o.builds.filter((file) => !file.includes('relaxed') || relaxedSupported());
    return mainAgainst(o);
  }
  for (const file of o.builds) {
    if (file.includes('relaxed') && !relaxedSupported()) {
      console.log(`${file}: skipped (this Node has no relaxed SIMD: --experimental-wasm-relaxed-simd)`);
      continue;
    }
    const M = await require(path.join(o.dist, file))();
    const fwd = o.shapes.map((s) => forwardOf(M, s));
    const runs = [];
    for (let i = 0; i < o.runs; i++) {
      const before = load();
      const r = run(fwd, o.shapes, o);
      r.load = [before, load()];
      runs.push(r);
      console.log(
        `${file} run ${i + 1}: ratio ${r.ratio.toFixed(3)} (CPU time ${r.cpuRatio.toFixed(3)}; GFLOP/s ${r.gflops[0].toFixed(1)} / ${r.gflops[1].toFixed(1)}, medians ${median(r.ms[0]).toFixed(1)} / ${median(r.ms[1]).toFixed(1)} ms), load ${r.load.join(' → ')}`,
      );
    }
    const headline = median(runs.map((r) => r.ratio)),
      cpu = median(runs.map((r) => r.cpuRatio));
    console.log(`${file}: median of ${runs.length} runs ${headline.toFixed(3)} (CPU time ${cpu.toFixed(3)})`);
    out.builds[file] = { ratio: headline, cpuRatio: cpu, runs };
  }
  if (o.json) fs.writeFileSync(o.json, JSON.stringify(out, null, 1));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
