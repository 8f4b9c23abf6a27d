#!/usr/bin/env node
'use strict';
// Training-step benchmark (run by scripts/bench after the forward table): one step of the tiny
// attention model (batch, forward, backward, Adam) at the default size and a larger one, for our
// three builds, TensorFlow.js-wasm (one thread, tf.train.adam().minimize, the same model with a
// one-hot matMul embedding: its wasm backend has no kernel for gather's gradient) and PyTorch eager
// (Debian's /usr/bin/python3, one thread, OpenBLAS, the model's own toPyTorch() script). Prints a
// markdown table (stdout) and adds it to the JSON. A measurement, never a test: it exits non-zero
// only when something is broken.
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const ROOT = path.resolve(__dirname, '..', '..');
const quick = process.argv.includes('--quick');
const jsonAt = process.argv.indexOf('--json');
const jsonPath = jsonAt > 0 ? process.argv[jsonAt + 1] : null;
const log = (...a) => process.stderr.write(a.join(' ') + '\n');

const SIZES = [
  {
    name: 'default',
    config: { task: 'two-offsets', vocab: 8, seqLen: 8, dModel: 16, numHeads: 2, layers: 1, causal: true },
    steps: quick ? 20 : 400,
    peerSteps: quick ? 5 : 100,
  },
  {
    name: 'large',
    config: { task: 'two-offsets', vocab: 64, seqLen: 128, dModel: 128, numHeads: 4, layers: 1, causal: true },
    steps: 12,
    peerSteps: 6,
  },
].filter((s) => !quick || s.name === 'default');
const BATCH = 32;
const LR = 1e-2;

const { median } = require('./lib/timing.js');
const now = () => Number(process.hrtime.bigint()) / 1e6;

async function ours(build, size) {
  const file = path.join(ROOT, 'dist', build);
  const M = await require(file)();
  const g = new M.Generator(0);
  const model = new M.TinyAttentionModel({ ...size.config, generator: g });
  const opt = new M.Adam(model, { lr: LR });
  const warm = Math.max(2, Math.round(size.steps / 5));
  for (let i = 0; i < warm; i++) model.trainStep(opt, { batchSize: BATCH });
  const times = [];
  for (let i = 0; i < size.steps; i++) {
    const t0 = now();
    model.trainStep(opt, { batchSize: BATCH });
    times.push(now() - t0);
  }
  const script = model.toPyTorch({ steps: 1, batchSize: BATCH, optimizer: 'adam', lr: LR });
  opt.delete();
  model.delete();
  g.delete();
  return { ms: median(times), implementation: M.implementation, script };
}

// Steps to 99 % accuracy on two offsets from the defaults, and their compute time at this build's speed.
async function stepsTo99(build) {
  const M = await require(path.join(ROOT, 'dist', build))();
  const g = new M.Generator(0);
  const model = new M.TinyAttentionModel({ task: 'two-offsets', generator: g });
  const opt = new M.Adam(model, { lr: LR });
  let steps = 0,
    total = 0;
  for (; steps < 1000;) {
    const t0 = now();
    const r = model.trainStep(opt, { batchSize: BATCH });
    total += now() - t0;
    steps++;
    if (r.accuracy >= 0.99) break;
  }
  opt.delete();
  model.delete();
  g.delete();
  return { steps, ms: total };
}

function pytorch(script, steps) {
  const harness = `
import json, sys, time, torch
import torch.nn.functional as F
torch.set_num_threads(1)
text = sys.stdin.read()
ns = {"__name__": "__main__"}
exec(compile(text[: text.index("\\nfor step in range")], "script", "exec"), ns)
model, optimizer, make_batch, mask, V = ns["model"], ns["optimizer"], ns["make_batch"], ns["mask"], ns["V"]
def step():
    x, targets = make_batch(ns["BATCH"])
    logits = model(x, mask)
    loss = sum(F.cross_entropy(l.reshape(-1, V), y.reshape(-1)) for l, y in zip(logits, targets))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
for _ in range(max(2, ${steps} // 5)):
    step()
times = []
for _ in range(${steps}):
    t0 = time.perf_counter(); step(); times.append((time.perf_counter() - t0) * 1e3)
print(json.dumps({"times": times, "version": torch.__version__, "threads": torch.get_num_threads()}))
`;
  const env = { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1' };
  delete env.ATEN_CPU_CAPABILITY;
  const r = spawnSync('/usr/bin/python3', ['-c', harness], {
    input: script,
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  if (r.status !== 0) return { error: (r.stderr || r.error || 'python3 failed').toString().trim().split('\n').pop() };
  const out = JSON.parse(r.stdout);
  return { ms: median(out.times), version: out.version };
}

function openblas() {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', 'libopenblas0-pthread'], { encoding: 'utf8' });
  return r.status === 0 && /install ok installed/.test(r.stdout);
}

// The same model in TF.js (wasm backend, one thread): one-hot matMul embedding, additive causal mask
// (-1e9 above the diagonal: the same weights as masked_fill), Adam through optimizer.minimize.
async function tfjs(config, steps) {
  let tf;
  try {
    // @tensorflow/tfjs registers the gradients (tfjs-core alone has none) on the same tfjs-core.
    tf = require('@tensorflow/tfjs');
    const wasm = require('@tensorflow/tfjs-backend-wasm');
    wasm.setThreadsCount(1);
    wasm.setWasmPaths(path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')) + '/dist/');
    await tf.setBackend('wasm');
    await tf.ready();
  } catch (e) {
    return { error: `TF.js-wasm unavailable: ${e.message}` };
  }
  const { vocab: V, seqLen: T, dModel: D, numHeads: H } = config;
  const dk = D / H,
    B = BATCH;
  const rand = (shape, scale) => tf.variable(tf.randomUniform(shape, -scale, scale, 'float32', 1));
  const lin = (i, o) => ({ W: rand([i, o], 1 / Math.sqrt(i)), b: rand([o], 1 / Math.sqrt(i)) });
  const p = {
    tok: tf.variable(tf.randomNormal([V, D], 0, 1, 'float32', 2)),
    pos: tf.variable(tf.randomNormal([T, D], 0, 1, 'float32', 3)),
    q: lin(D, D),
    k: lin(D, D),
    v: lin(D, D),
    o: lin(D, D),
    r0: lin(D, V),
    r1: lin(D, V),
  };
  const vars = [p.tok, p.pos, ...['q', 'k', 'v', 'o', 'r0', 'r1'].flatMap((n) => [p[n].W, p[n].b])];
  const causal = tf.tensor2d(
    Array.from({ length: T * T }, (_, i) => (i % T > Math.floor(i / T) ? -1e9 : 0)),
    [T, T],
  );
  const opt = tf.train.adam(LR);
  let seed = 7;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed;
  };
  const step = () => {
    const x = Int32Array.from({ length: B * T }, () => rnd() % V);
    const y1 = Int32Array.from(x, (_, i) => (i % T >= 1 ? x[i - 1] : -1));
    const y2 = Int32Array.from(x, (_, i) => (i % T >= 2 ? x[i - 2] : -1));
    const xs = tf.tensor1d(x, 'int32');
    const t1 = tf.tensor1d(y1, 'int32'),
      t2 = tf.tensor1d(y2, 'int32');
    const loss = opt.minimize(
      () => {
        const onehot = tf.oneHot(xs, V); // [B*T, V]
        let h = tf.add(tf.reshape(tf.matMul(onehot, p.tok), [B, T, D]), p.pos); // tok(x) + pos
        const proj = (l, t) => tf.add(tf.matMul(tf.reshape(t, [B * T, D]), l.W), l.b);
        const heads = (t) => tf.reshape(tf.transpose(tf.reshape(t, [B, T, H, dk]), [0, 2, 1, 3]), [B * H, T, dk]);
        const q = heads(proj(p.q, h)),
          k = heads(proj(p.k, h)),
          v = heads(proj(p.v, h));
        const scores = tf.add(tf.div(tf.matMul(q, k, false, true), Math.sqrt(dk)), causal);
        const ctx = tf.matMul(tf.softmax(scores), v);
        const merged = tf.reshape(tf.transpose(tf.reshape(ctx, [B, H, T, dk]), [0, 2, 1, 3]), [B * T, D]);
        h = tf.add(tf.reshape(h, [B * T, D]), proj(p.o, merged));
        const ce = (l, t) => {
          const valid = tf.cast(tf.greaterEqual(t, 0), 'float32');
          const logp = tf.logSoftmax(tf.add(tf.matMul(h, l.W), l.b));
          const picked = tf.sum(tf.mul(logp, tf.oneHot(tf.maximum(t, tf.scalar(0, 'int32')), V)), 1);
          return tf.div(tf.neg(tf.sum(tf.mul(picked, valid))), tf.sum(valid));
        };
        return tf.add(ce(p.r0, t1), ce(p.r1, t2));
      },
      true,
      vars,
    );
    loss.dataSync();
    tf.dispose([xs, t1, t2, loss]);
  };
  try {
    for (let i = 0; i < Math.max(2, Math.round(steps / 5)); i++) step();
    const times = [];
    for (let i = 0; i < steps; i++) {
      const t0 = now();
      step();
      times.push(now() - t0);
    }
    return { ms: median(times), version: require('@tensorflow/tfjs-core/package.json').version };
  } catch (e) {
    return { error: `TF.js-wasm failed: ${e.message}` };
  } finally {
    tf.dispose([...vars, causal]);
    opt.dispose();
  }
}

(async () => {
  // dist/mha-relaxed.js (FMA) needs relaxed SIMD: Node 20 has it behind --experimental-wasm-relaxed-simd.
  const { relaxedSupported } = await import(path.join(ROOT, 'wasm', 'relaxed-probe.mjs'));
  const relaxed = relaxedSupported();
  const builds = [['SIMD', 'mha.js'], ...(relaxed ? [['FMA', 'mha-relaxed.js']] : []), ['scalar', 'mha-nosimd.js']];
  const rows = [];
  for (const size of SIZES) {
    const row = { size: size.name, config: size.config };
    let script = null;
    for (const [label, build] of builds) {
      try {
        const r = await ours(build, size);
        row[label] = r.ms;
        script = r.script;
      } catch (e) {
        log(`bench: ${build} failed on the training step: ${e.message}`);
        row[label] = null;
        if (label !== 'FMA') process.exitCode = 1;
      }
      log(`bench/train ${size.name} ${label}: ${row[label]?.toFixed(3)} ms/step`);
    }
    const pt = pytorch(script, size.peerSteps);
    row.pytorch = pt.ms ?? null;
    if (pt.error) row.pytorchNote = pt.error;
    log(`bench/train ${size.name} PyTorch: ${pt.ms?.toFixed(3) ?? pt.error}`);
    const tj = await tfjs(size.config, size.peerSteps);
    row.tfjs = tj.ms ?? null;
    if (tj.error) row.tfjsNote = tj.error;
    log(`bench/train ${size.name} TF.js: ${tj.ms?.toFixed(3) ?? tj.error}`);
    rows.push(row);
  }
  const to99 = await stepsTo99(relaxed ? 'mha-relaxed.js' : 'mha.js');
  const fmt = (x) => (x == null ? 'n/a' : x < 10 ? x.toFixed(3) : x.toFixed(1));
  const ratio = (peer, ours) => (peer == null || ours == null ? 'n/a' : `${(peer / ours).toFixed(2)}×`);
  const best = (r) => r.FMA ?? r.SIMD;
  const lines = [
    '',
    `### Training step: batch ${BATCH}, forward + backward + Adam (ms per step, median${quick ? '; --quick' : ''})`,
    '',
    '| size | ours FMA | ours SIMD | ours scalar | TF.js-wasm | PyTorch eager | TF.js / ours | PyTorch / ours |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.size} (V ${r.config.vocab}, T ${r.config.seqLen}, d ${r.config.dModel}, ${r.config.numHeads} heads) | ${fmt(r.FMA)} | ${fmt(r.SIMD)} | ${fmt(r.scalar)} | ${fmt(r.tfjs)} | ${fmt(r.pytorch)} | ${ratio(r.tfjs, best(r))} | ${ratio(r.pytorch, best(r))} |`,
    ),
    '',
    `Two offsets to 99 % accuracy (defaults, Adam lr 1e-2, seed 0): ${to99.steps} steps, ${fmt(to99.ms)} ms of compute (${relaxed ? 'FMA' : 'SIMD'} build).`,
    `PyTorch: Debian's ${openblas() ? 'with libopenblas0-pthread' : 'WITHOUT libopenblas0-pthread (reference BLAS: ten times slower)'}, one thread. Notes: ${rows.flatMap((r) => [r.pytorchNote, r.tfjsNote].filter(Boolean)).join('; ') || 'none'}.`,
  ];
  console.log(lines.join('\n'));
  // Into the forward benchmark's JSON when --json names it, else a file of its own.
  const training = {
    date: new Date().toISOString(),
    quick,
    batch: BATCH,
    lr: LR,
    rows,
    stepsTo99: to99,
    markdown: lines.join('\n'),
  };
  if (jsonPath && fs.existsSync(jsonPath)) {
    fs.writeFileSync(jsonPath, JSON.stringify({ ...JSON.parse(fs.readFileSync(jsonPath, 'utf8')), training }, null, 1));
  } else {
    const out = path.join(
      ROOT,
      'bench',
      'results',
      `train-${training.date.replace(/[:.]/g, '-')}${quick ? '-quick' : ''}.json`,
    );
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(training, null, 1));
  }
})().catch((e) => {
  log(`bench/train: ${e.stack || e}`);
  process.exit(1);
});
