'use strict';
// Native forward timing (bench/js/native/bench_forward.cpp, CMake target bench_forward) and the
// SIMD128 peak microbenchmark of bench/cpp (owned by the C++ side; run, parsed, never edited).
const fs = require('fs');
const path = require('path');
const os = require('os');
const { execFileSync } = require('child_process');

function runJson(cmd, args, timeoutMs = 900000) {
  const out = execFileSync(cmd, args, {
    encoding: 'utf8',
    timeout: timeoutMs,
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 << 20,
  });
  const start = out.indexOf('{');
  if (start < 0) throw new Error(`${path.basename(cmd)} printed no JSON: ${out.slice(0, 200)}`);
  return JSON.parse(out.slice(start));
}

// bench_forward --shape B,S,D,H --runs N --seed N [--output FILE] → {"median_ms","min_ms","runs","kernels"}
function probe(root) {
  const bin = process.env.MHA_BENCH_FORWARD || path.join(root, 'build', 'native', 'bench_forward');
  if (!fs.existsSync(bin))
    return {
      available: false,
      reason: `${path.relative(root, bin)} not built (cmake --build --preset native --target bench_forward)`,
    };
  return { available: true, bin };
}

function run(nat, { B, S, D, H, seed, quick, big }) {
  const runs = quick ? 3 : big ? 10 : 20;
  const tmp = path.join(os.tmpdir(), `bench-native-${process.pid}.f32`);
  try {
    const r = runJson(nat.bin, [
      '--shape',
      `${B},${S},${D},${H}`,
      '--runs',
      String(runs),
      '--warmup',
      quick ? '1' : '2',
      '--seed',
      String(seed),
      '--output',
      tmp,
    ]);
    const buf = fs.readFileSync(tmp);
    const output = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    return { median: r.median_ms, min: r.min_ms, runs: r.runs, output, kernels: r.kernels };
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

// bench/cpp/build.sh OUT FLAVOUR MIN_SECONDS prints markdown; the peak row is
//   | GFLOP/s (wasm simd128) | a | b | c | d |   (one column per number of independent chains)
// flavour 'wasm-simd' measures mul+add chains, 'wasm-relaxed' the same fused into relaxed_madd (FMA).
function peak(root, quick, flavour = 'wasm-simd') {
  const script = path.join(root, 'bench', 'cpp', 'build.sh');
  if (!fs.existsSync(script)) return { available: false, reason: 'bench/cpp/build.sh not present' };
  const out = path.join(root, 'build', 'bench', 'cpp');
  const text = execFileSync('bash', [script, out, flavour, quick ? '0.02' : '0.25'], {
    encoding: 'utf8',
    timeout: 900000,
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 16 << 20,
  });
  const m = text.match(/^\|\s*GFLOP\/s \(wasm simd128\)\s*\|(.*)\|\s*$/m);
  if (!m) throw new Error('bench/cpp/build.sh output has no "| GFLOP/s (wasm simd128) |" peak row');
  const values = m[1]
    .split('|')
    .map((v) => parseFloat(v))
    .filter((v) => isFinite(v));
  if (!values.length) throw new Error('bench/cpp peak row has no numbers');
  const chains = (text.match(/^\|\s*peak f32 mul\+add, chains\s*\|(.*)\|\s*$/m) || ['', ''])[1]
    .split('|')
    .map((v) => v.trim());
  const best = values.indexOf(Math.max(...values));
  const kernels = text
    .split('\n')
    .filter((l) => /^\|\s*(gemm|attention|MHA forward|softmax)/.test(l))
    .map((l) => l.trim());
  // | long S=N | S×S in memory GFLOP/s | % of peak | tiled GFLOP/s | % of peak |  (B=1, D=256, H=8)
  const longSeq = text
    .split('\n')
    .map((l) => l.match(/^\|\s*long S=(\d+)\s*\|([^|]+)\|([^|]+)\|([^|]+)\|([^|]+)\|/))
    .filter(Boolean)
    .map((m) => ({
      S: +m[1],
      materialized: parseFloat(m[2]),
      materializedPct: parseFloat(m[3]),
      tiled: parseFloat(m[4]),
      tiledPct: parseFloat(m[5]),
    }));
  return {
    available: true,
    source: `bench/cpp, wasm simd128 in Node, independent f32x4 ${flavour === 'wasm-relaxed' ? 'relaxed_madd (FMA)' : 'mul+add'} chains`,
    gflops: values[best],
    detail: `best of ${values.length} chain counts (${chains[best] || '?'} chains)`,
    byChains: Object.fromEntries(values.map((v, i) => [chains[i] || String(i), v])),
    kernelTable: kernels,
    longSeq,
    raw: text,
  };
}

module.exports = { probe, run, peak };
