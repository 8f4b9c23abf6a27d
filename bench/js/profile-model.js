#!/usr/bin/env node
'use strict';
// Where a checkpoint's forward spends its time, by wasm function (self time from V8's sampling profiler,
// node:inspector): the tool behind the profile in docs/models-performance.md.
//   node [--experimental-wasm-relaxed-simd] bench/js/profile-model.js [--dist DIR] [--build mha-relaxed.js]
//        [--model DIR] [--tokens 128] [--runs 3] [--decode 64]
// --decode N: greedy generation of N new tokens after the --tokens prompt, profiled from the first new token on
//   (the prompt's fill left out): where a token's one-position forward through the key/value cache spends its time.
// --dist: a build linked with --profiling-funcs keeps the functions' names (without it they are numbers):
//   cmake --preset wasm -B build/wasm-prof -DMHA_DIST_DIR=$PWD/build/prof-dist \
//         -DCMAKE_EXE_LINKER_FLAGS=--profiling-funcs -DMHA_BUILD_TESTS=OFF
//   cmake --build build/wasm-prof --target mha_core_js
// --model: a checkpoint folder (default build/bench-models/gpt2, which bench/js/models.js writes).
const fs = require('fs');
const path = require('path');
const inspector = require('inspector');

const ROOT = path.resolve(__dirname, '..', '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const dist = path.resolve(arg('--dist', path.join(ROOT, 'build', 'prof-dist')));
const build = arg('--build', 'mha-relaxed.js');
const model = path.resolve(arg('--model', path.join(ROOT, 'build', 'bench-models', 'gpt2')));
const T = Number(arg('--tokens', 128));
const runs = Number(arg('--runs', 3));
const decode = Number(arg('--decode', 0));

function post(session, method, params) {
  return new Promise((ok, fail) => session.post(method, params, (e, r) => (e ? fail(e) : ok(r))));
}

async function main() {
  const M = await require(path.join(dist, build))();
  const files = await Promise.all(
    ['config.json', 'model.safetensors'].map(async (n) => ({
      name: n,
      bytes: await fs.openAsBlob(path.join(model, n)),
    })),
  );
  const m = await M.loadModel(files);
  let s = 1;
  const ids = Array.from({ length: T }, () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return (s >>> 8) % m.info.vocab;
  });
  m.forward(ids, { logitsAt: [T - 1] }); // warm-up: scratch buffers grown, code tiered up

  const session = new inspector.Session();
  session.connect();
  await post(session, 'Profiler.enable');
  await post(session, 'Profiler.setSamplingInterval', { interval: 200 });
  const { ms, what } = decode ? await profileDecode(session, m, ids) : await profileForward(session, m, ids);
  const { profile } = await post(session, 'Profiler.stop');
  session.disconnect();

  // Self time per function (the sampled frame) and total time (any frame of the sample's stack), as shares
  // of the samples; C++ names shortened (no parameters, no namespaces' anonymous parts).
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const short = (f) =>
    (f.functionName || `(anonymous ${f.url.split('/').pop()}:${f.lineNumber})`)
      .replace(/\(anonymous namespace\)::/g, '')
      .replace(/^(void |float |std::[^ ]+ )/, '')
      .replace(/\((?!anonymous|garbage|program|idle).*$/, '');
  const self = new Map(),
    total = new Map();
  for (const id of profile.samples) {
    const name = short(byId.get(id).callFrame);
    self.set(name, (self.get(name) || 0) + 1);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) seen.add(short(byId.get(at).callFrame));
    for (const s of seen) total.set(s, (total.get(s) || 0) + 1);
  }
  const n = profile.samples.length;
  const pct = (c) => ((100 * (c || 0)) / n).toFixed(1);
  console.log(
    `${path.relative(ROOT, model)}, ${T} tokens, ${build} (${M.implementation}): ${ms.toFixed(0)} ms per ${what} (profiler on)`,
  );
  const per = decode ? 'token' : 'forward';
  console.log(`| self % | total % | ms per ${per} (self) | function |\n|---|---|---|---|`);
  for (const [name, c] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
    console.log(`| ${pct(c)} | ${pct(total.get(name))} | ${((ms * c) / n).toFixed(0)} | \`${name}\` |`);
  }
  console.log(`\n| total % | ms per ${per} | function (callers included) |\n|---|---|---|`);
  for (const [name, c] of [...total]
    .filter(([k]) => /^mha::/.test(k))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 16)) {
    console.log(`| ${pct(c)} | ${((ms * c) / n).toFixed(0)} | \`${name}\` |`);
  }
  console.log(
    `wasm heap after: ${(M.memoryStats().heapSize / 2 ** 20).toFixed(0)} MiB (weights ${(m.info.weightBytes / 2 ** 20).toFixed(0)} MiB)`,
  );
  m.dispose();
}

// The forward of the ids, runs times → {ms per forward}.
async function profileForward(session, m, ids) {
  await post(session, 'Profiler.start');
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) m.forward(ids, { logitsAt: [ids.length - 1] });
  return { ms: (performance.now() - t0) / runs, what: `forward (${runs} runs)` };
}

// Greedy generation after the prompt ids, the profiler started at the first new token → {ms per new token after it}.
async function profileDecode(session, m, ids) {
  const stamps = [];
  let started = null;
  await m.generate(ids, {
    maxNewTokens: decode + 1,
    onToken: () => {
      stamps.push(performance.now());
      if (!started) started = post(session, 'Profiler.start');
    },
  });
  await started;
  const n = stamps.length - 1;
  return { ms: (stamps.at(-1) - stamps[0]) / n, what: `new token (${n} tokens after the first)` };
}

main().catch((e) => {
  console.error((e && e.stack) || e);
  process.exit(1);
});
