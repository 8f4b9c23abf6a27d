'use strict';
// Integration of the C++ microbenchmarks in bench/cpp (owned by the C++ side; read-only here).
// Expected CLIs (JSON on stdout):
//   forward: <bin> --shape B,S,D,H --runs N --seed N [--output FILE]  → {"median_ms", "min_ms", "runs"}
//            (--output: raw little-endian float32 [B,S,D] output, compared with ours)
//   peak:    <bin> [--quick]                                           → {"gflops", ...}
const fs = require('fs');
const path = require('path');
const os = require('os');
const { execFileSync } = require('child_process');

function firstExisting(root, rels) {
  for (const r of rels) {
    const p = path.join(root, r);
    if (fs.existsSync(p)) return p;
  }
  return null;
}

function runJson(cmd, args, timeoutMs = 600000) {
  const out = execFileSync(cmd, args, { encoding: 'utf8', timeout: timeoutMs, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  const start = out.indexOf('{');
  if (start < 0) throw new Error(`${path.basename(cmd)} printed no JSON: ${out.slice(0, 200)}`);
  return JSON.parse(out.slice(start));
}

const FORWARD_CANDIDATES = ['build/native/bench/cpp/bench_forward', 'build/bench/native/bench_forward', 'bench/cpp/build/bench_forward'];
const PEAK_CANDIDATES = ['build/native/bench/cpp/bench_peak', 'build/bench/native/bench_peak', 'bench/cpp/build/bench_peak'];

function probe(root) {
  const bin = process.env.MHA_BENCH_FORWARD || firstExisting(root, FORWARD_CANDIDATES);
  if (!bin) {
    return { available: false, reason: `no native forward benchmark binary (looked for ${FORWARD_CANDIDATES.join(', ')})` };
  }
  return { available: true, bin };
}

function run(nat, { B, S, D, H, seed, quick, big }) {
  const runs = quick ? 3 : big ? 10 : 20;
  const tmp = path.join(os.tmpdir(), `bench-native-${process.pid}.f32`);
  try {
    const r = runJson(nat.bin, ['--shape', `${B},${S},${D},${H}`, '--runs', String(runs), '--seed', String(seed), '--output', tmp]);
    let output = null;
    if (fs.existsSync(tmp)) {
      const buf = fs.readFileSync(tmp);
      output = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4).slice();
    }
    return { median: r.median_ms, min: r.min_ms !== undefined ? r.min_ms : r.median_ms, runs: r.runs || runs, output };
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

function peak(root, quick) {
  const bin = process.env.MHA_BENCH_PEAK || firstExisting(root, PEAK_CANDIDATES);
  if (!bin) return { available: false, reason: `no SIMD128 peak benchmark (looked for ${PEAK_CANDIDATES.join(', ')})` };
  const r = runJson(bin, quick ? ['--quick'] : []);
  return { available: true, source: path.relative(root, bin), gflops: r.gflops, detail: r.detail, raw: r };
}

module.exports = { probe, run, peak };
