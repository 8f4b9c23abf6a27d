#!/usr/bin/env node
'use strict';
// Two builds of the core, side by side in one process: GPT-2 small's greedy decode (a 128-token prompt, 8 new
// tokens after the first) timed on each in turn, 6 rounds, the medians of the CPU time and the wall-clock time per
// new token. On a loaded machine the CPU time of paired, alternating runs holds where wall-clock ratios swing
// (DEVELOPERS.md): the tool behind the GEMV's row blocks (core/src/kernels/f32_wasmsimd.cpp).
//   node bench/js/decode-pair.js OLD/mha.js NEW/mha.js [--model DIR]   (default build/bench-models/gpt2)
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
const at = process.argv.indexOf('--model');
const model = path.resolve(at > 0 ? process.argv[at + 1] : path.join(ROOT, 'build', 'bench-models', 'gpt2'));
const builds = process.argv.slice(2).filter((a, i, all) => a !== '--model' && all[i - 1] !== '--model');

async function load(file) {
  const M = await require(path.resolve(file))();
  const files = await Promise.all(
    ['config.json', 'model.safetensors'].map(async (n) => ({
      name: n,
      bytes: await fs.openAsBlob(path.join(model, n)),
    })),
  );
  return M.loadModel(files);
}
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
// ms per new token after the first: [CPU, wall]
async function perToken(m, seed) {
  const ids = Array.from({ length: 128 }, (_, i) => (i * 7919 + seed * 104729) % m.info.vocab);
  const cpu = [],
    wall = [];
  await m.generate(ids, {
    maxNewTokens: 9,
    onToken: () => {
      cpu.push(cpuMs());
      wall.push(performance.now());
    },
  });
  const n = cpu.length - 1;
  return [(cpu[n] - cpu[0]) / n, (wall[n] - wall[0]) / n];
}
const { median } = require('./lib/timing.js');

async function main() {
  if (builds.length !== 2) throw new Error('usage: node bench/js/decode-pair.js OLD/mha.js NEW/mha.js [--model DIR]');
  const models = [];
  for (const b of builds) models.push(await load(b));
  const runs = models.map(() => []);
  for (let r = 0; r < 6; r++) for (let i = 0; i < 2; i++) runs[i].push(await perToken(models[i], r));
  builds.forEach((b, i) => {
    const cpu = median(runs[i].map((x) => x[0])),
      wall = median(runs[i].map((x) => x[1]));
    console.log(`${b}: ${cpu.toFixed(1)} ms CPU, ${wall.toFixed(1)} ms wall per new token`);
  });
  for (const m of models) m.dispose();
}

main().catch((e) => {
  console.error((e && e.stack) || e);
  process.exit(1);
});
