'use strict';
// Our three core builds as bench/js/run.js loads them (dist/, or MHA_BENCH_DIST), and the weights of a
// MultiHeadAttention read back, so that every implementation is given the same numbers.
const fs = require('fs');
const path = require('path');
const { maxAbsDiff } = require('./timing.js');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const DIST = process.env.MHA_BENCH_DIST ? path.resolve(process.env.MHA_BENCH_DIST) : path.join(ROOT, 'dist');

async function loadOurs(file) {
  const p = path.join(DIST, file);
  if (!fs.existsSync(p)) return { missing: `${p} not built (run scripts/build)` };
  const createMhaModule = require(p);
  const M = await createMhaModule();
  return { M, file: p };
}

// dist/mha.js (SIMD128), mha-relaxed.js (FMA) and mha-nosimd.js (scalar), each checked for the implementation it
// reports; what is broken goes to problems, what is not available to notes. → {simd, relaxed, scalar}
async function loadBuilds(problems, notes) {
  const simd = await loadOurs('mha.js');
  if (simd.missing) throw new Error(`ours (SIMD): ${simd.missing}`);
  if (simd.M.implementation !== 'wasmsimd')
    problems.push(`dist/mha.js reports implementation ${simd.M.implementation}, expected wasmsimd`);
  // dist/mha-relaxed.js (FMA) needs relaxed SIMD: Node 20 has it behind --experimental-wasm-relaxed-simd
  // (scripts/bench passes it); a browser from Chrome 114 on has it by default.
  const { relaxedSupported } = await import(path.join(ROOT, 'wasm', 'relaxed-probe.mjs'));
  const relaxed = relaxedSupported()
    ? await loadOurs('mha-relaxed.js')
    : { missing: 'this Node has no relaxed SIMD (Node 20: --experimental-wasm-relaxed-simd)' };
  if (relaxed.missing) notes.push(`ours relaxed SIMD (FMA): n/a (${relaxed.missing})`);
  else if (relaxed.M.implementation !== 'wasmsimd-relaxed')
    problems.push(`dist/mha-relaxed.js reports implementation ${relaxed.M.implementation}, expected wasmsimd-relaxed`);
  const scalar = await loadOurs('mha-nosimd.js');
  if (scalar.missing) problems.push(`ours (scalar): ${scalar.missing}`);
  else if (scalar.M.implementation !== 'scalar')
    problems.push(`dist/mha-nosimd.js reports implementation ${scalar.M.implementation}, expected scalar`);
  return { simd, relaxed, scalar };
}

function paramsOf(mha) {
  const P = mha.parameters();
  const get = (name, part) => {
    const t = P[name] && P[name][part];
    if (!t) throw new Error(`mha.parameters() has no ${name}.${part}`);
    return Float32Array.from(t.data);
  };
  return {
    Wq: get('W_q', 'weight'),
    bq: get('W_q', 'bias'),
    Wk: get('W_k', 'weight'),
    bk: get('W_k', 'bias'),
    Wv: get('W_v', 'weight'),
    bv: get('W_v', 'bias'),
    Wo: get('W_o', 'weight'),
    bo: get('W_o', 'bias'),
  };
}
function sameParams(a, b) {
  return Object.keys(a).every((k) => maxAbsDiff(a[k], b[k]) === 0);
}

module.exports = { ROOT, DIST, loadBuilds, paramsOf, sameParams };
