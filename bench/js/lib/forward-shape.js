'use strict';
// One shape of bench/js/run.js's forward table: the same weights and input (from our SIMD build's Generator) for
// ours (SIMD, FMA, scalar), native, TF.js-wasm, ONNX Runtime Web and plain JS, each checked against ours, timed
// (lib/timing.js) and recorded into the shape's row; the peers and our builds also in paired rounds.
const plain = require('./plain');
const tfPeer = require('./tfjs');
const ortPeer = require('./ort');
const native = require('./native');
const { maxAbsDiff, measure, paired } = require('./timing.js');
const { paramsOf, sameParams } = require('./ours.js');

const flops = (B, S, D) => 4 * 2 * B * S * D * D + 2 * B * S * S * D + 2 * B * S * S * D;
const log = (...a) => process.stderr.write(a.join(' ') + '\n');

// The shape's context: the row, its weights and input, and check / record / guard, which write into the row and
// into ctx.problems.
function shapeContext([B, S, D, H], ctx) {
  const big = S > 512;
  const label = `(${B},${S},${D},${H})`;
  log(`bench: ${label}`);
  const row = { shape: { B, S, D, H }, flop: flops(B, S, D), impl: {} };
  const M = ctx.builds.simd.M;
  const g = new M.Generator(ctx.opts.seed);
  const mha = new M.MultiHeadAttention({ dModel: D, numHeads: H, bias: true, dropout: 0, generator: g });
  mha.eval();
  const x = g.randn([B, S, D]);
  const p = paramsOf(mha);
  const ref = mha.forward(x, x, x, { needWeights: false }).output.data.slice();
  const check = (name, out) => {
    const d = maxAbsDiff(out, ref);
    // float32 with different summation orders; scale with the output magnitude
    let scale = 0;
    for (let i = 0; i < ref.length; i++) scale = Math.max(scale, Math.abs(ref[i]));
    const tol = 1e-4 * Math.max(1, scale) * Math.sqrt(D / 64 + S / 64);
    if (!(d <= tol)) ctx.problems.push(`${name} ${label}: max|diff| vs ours ${d} exceeds ${tol.toExponential(1)}`);
    return d;
  };
  const record = (name, m, extra = {}) => {
    row.impl[name] = {
      ms: m.median,
      minMs: m.min,
      runs: m.runs,
      gflops: row.flop / m.median / 1e6,
      cpuShare: m.cpuShare,
      ...extra,
    };
    log(
      `  ${name.padEnd(14)} ${m.median.toFixed(3).padStart(10)} ms  (${m.runs} runs, cpu ${m.cpuShare !== undefined ? m.cpuShare.toFixed(2) : '?'})${extra.maxAbsDiff !== undefined ? `  max|diff| ${extra.maxAbsDiff.toExponential(1)}` : ''}${extra.variant ? `  [${extra.variant}]` : ''}`,
    );
  };
  const guard = async (name, f) => {
    try {
      await f();
    } catch (e) {
      ctx.problems.push(`${name} ${label}: ${(e && e.stack) || e}`);
      row.impl[name] = { error: String((e && e.message) || e) };
    }
  };
  const time = (fn) => measure(fn, big, ctx.POLICY);
  return { B, S, D, H, big, label, row, g, mha, x, p, check, record, guard, time };
}

// Another build of ours on the same seed: same weights and input (verified); the caller deletes it.
function twin(s, ctx, name, build) {
  const gt = new build.M.Generator(ctx.opts.seed);
  const mt = new build.M.MultiHeadAttention({ dModel: s.D, numHeads: s.H, bias: true, dropout: 0, generator: gt });
  mt.eval();
  const xt = gt.randn([s.B, s.S, s.D]);
  if (!sameParams(paramsOf(mt), s.p) || maxAbsDiff(xt.data, s.x.data) !== 0) {
    ctx.problems.push(
      `${name} ${s.label}: this build's Generator(${ctx.opts.seed}) gives different weights/inputs than the SIMD build`,
    );
  }
  return {
    mha: mt,
    delete: () => {
      mt.delete();
      gt.delete();
    },
  };
}

// Ours: SIMD with and without weights, the FMA twin (returned, kept for the paired rounds) and the scalar twin.
async function oursLines(s, ctx) {
  const { x, mha, check, record, guard, time } = s;
  await guard('ours_simd', async () => {
    record('ours_simd', await time(() => mha.forward(x, x, x, { needWeights: false })), { maxAbsDiff: 0 });
    const w = mha.forward(x, x, x, { needWeights: true });
    check('ours_simd needWeights', w.output.data);
    record('ours_simd_weights', await time(() => mha.forward(x, x, x, { needWeights: true })));
  });
  let fma = null;
  if (!ctx.builds.relaxed.missing) {
    await guard('ours_relaxed', async () => {
      fma = twin(s, ctx, 'ours_relaxed', ctx.builds.relaxed);
      const d = check('ours_relaxed', fma.mha.forward(x, x, x, { needWeights: false }).output.data);
      record('ours_relaxed', await time(() => fma.mha.forward(x, x, x, { needWeights: false })), { maxAbsDiff: d });
    });
  }
  if (!ctx.builds.scalar.missing) {
    await guard('ours_scalar', async () => {
      const t = twin(s, ctx, 'ours_scalar', ctx.builds.scalar);
      try {
        const d = check('ours_scalar', t.mha.forward(x, x, x, { needWeights: false }).output.data);
        record('ours_scalar', await time(() => t.mha.forward(x, x, x, { needWeights: false })), { maxAbsDiff: d });
      } finally {
        t.delete();
      }
    });
  }
  return fma;
}

// Fastest formulation of a peer: each variant is checked, timed briefly, the winner fully; the winner is kept in
// `winners` for the paired rounds (disposed after them).
async function pickAndMeasure(s, ctx, winners, name, variants, make) {
  const { x, check, record, big } = s;
  const cand = [];
  for (const v of variants) {
    const impl = await make(v);
    const d = check(`${name}[${v}]`, await impl.run(x.data));
    const quickM = await measure(() => impl.run(x.data), true, {
      warmRuns: 1,
      warmMs: 0,
      bigMinRuns: ctx.POLICY.selectRuns,
      bigTargetMs: 0,
    });
    cand.push({ v, impl, d, ms: quickM.median });
  }
  cand.sort((a, b) => a.ms - b.ms);
  for (const c of cand.slice(1)) await c.impl.dispose();
  const best = cand[0];
  record(name, await measure(() => best.impl.run(x.data), big, ctx.POLICY), {
    maxAbsDiff: best.d,
    variant: best.v,
    variants: Object.fromEntries(cand.map((c) => [c.v, { selectMs: c.ms, maxAbsDiff: c.d }])),
  });
  winners.push({ name, impl: best.impl });
}

// The peers (TF.js-wasm, ORT-web), the paired rounds of them and our builds, then plain JS.
async function peerLines(s, ctx, fma) {
  const { B, S, D, H, x, p, mha, row, guard, check, record, time } = s;
  const winners = [];
  try {
    await guard('tfjs_wasm', () =>
      pickAndMeasure(s, ctx, winners, 'tfjs_wasm', tfPeer.variants, async (v) => tfPeer.setup(p, B, S, D, H, v)),
    );
    await guard('ort_web', () =>
      pickAndMeasure(s, ctx, winners, 'ort_web', ortPeer.variants, (v) => ortPeer.setup(p, B, S, D, H, v)),
    );
    await guard('paired', async () => {
      const contenders = [
        { name: 'ours_simd', run: () => mha.forward(x, x, x, { needWeights: false }) },
        ...(fma ? [{ name: 'ours_relaxed', run: () => fma.mha.forward(x, x, x, { needWeights: false }) }] : []),
        ...winners.map((w) => ({ name: w.name, run: () => w.impl.run(x.data) })),
      ];
      if (contenders.length < 2) return;
      row.paired = await paired(contenders, ['ours_simd', 'ours_relaxed'], s.big, ctx.POLICY);
      for (const [base, rs] of Object.entries(row.paired.ratios)) {
        log(
          `  paired ÷ ${base.padEnd(12)} ${Object.entries(rs)
            .map(([k, v]) => `${k} ${v.toFixed(2)}x`)
            .join(', ')}  (${row.paired.rounds} rounds)`,
        );
      }
    });
  } finally {
    for (const w of winners) await w.impl.dispose();
  }
  await guard('plain_js', async () => {
    const d = check('plain_js', plain.mhaForward(x.data, p, B, S, D, H));
    record('plain_js', await time(() => plain.mhaForward(x.data, p, B, S, D, H)), { maxAbsDiff: d });
  });
}

// ctx: {opts, POLICY, builds: lib/ours.js's loadBuilds, nat: lib/native.js's probe, problems}. → the shape's row.
async function benchShape(shape, ctx) {
  const s = shapeContext(shape, ctx);
  const fma = await oursLines(s, ctx);
  if (ctx.nat.available) {
    await s.guard('native', async () => {
      const r = native.run(ctx.nat, {
        B: s.B,
        S: s.S,
        D: s.D,
        H: s.H,
        seed: ctx.opts.seed,
        quick: ctx.opts.quick,
        big: s.big,
      });
      s.record('native', r, { maxAbsDiff: s.check('native', r.output) });
    });
  }
  if (ctx.opts.peers) await peerLines(s, ctx, fma);
  if (fma) fma.delete(); // every step above runs inside guard(), so this is always reached
  s.mha.delete();
  s.g.delete();
  return s.row;
}

module.exports = { benchShape };
