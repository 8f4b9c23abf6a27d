#!/usr/bin/env node
'use strict';
// MHA Explorer benchmark driver (run through scripts/bench). One run, same inputs for everyone:
// ours (wasm SIMD and scalar, through the JS API), native (bench/cpp binary, when built),
// TensorFlow.js wasm, ONNX Runtime Web, plain JS; a SIMD128 peak microbenchmark; the page's
// recompute+redraw time in headless Chromium. Prints one markdown table, writes JSON.
// Exit status: 0 unless something is broken (a module fails to load or run, or an implementation
// disagrees with ours). Speed never fails the run.

const fs = require('fs');
const path = require('path');
const os = require('os');

const ROOT = path.resolve(__dirname, '..', '..');
const plain = require('./lib/plain');
const tfPeer = require('./lib/tfjs');
const ortPeer = require('./lib/ort');
const native = require('./lib/native');

// ---- options ------------------------------------------------------------------------------------
function parseArgs(argv) {
  const o = { quick: false, json: null, page: true, native: true, peak: true, peers: true, shapes: null, seed: 0 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') o.quick = true;
    else if (a === '--json') o.json = argv[++i];
    else if (a.startsWith('--json=')) o.json = a.slice(7);
    else if (a === '--no-page') o.page = false;
    else if (a === '--no-native') o.native = false;
    else if (a === '--no-peak') o.peak = false;
    else if (a === '--no-peers') o.peers = false;
    else if (a === '--shapes') o.shapes = argv[++i];
    else if (a === '--seed') o.seed = Number(argv[++i]);
    else if (a === '-h' || a === '--help') {
      console.log(`usage: scripts/bench [--quick] [--json PATH] [--shapes B,S,D,H;...] [--no-page] [--no-native] [--no-peak] [--no-peers] [--seed N]
  --quick     tiny shapes, few runs (CI smoke test: exits non-zero only if something is broken)
  --json PATH where to write the JSON results (default bench/results/bench-<timestamp>.json)`);
      process.exit(0);
    } else {
      console.error(`bench: unknown argument ${a} (try --help)`);
      process.exit(2);
    }
  }
  return o;
}
const opts = parseArgs(process.argv.slice(2));

const FULL_SHAPES = [
  [1, 16, 64, 4],
  [1, 64, 64, 4],
  [2, 10, 512, 8],
  [1, 128, 512, 8],
  [1, 512, 512, 8],
  [1, 2048, 256, 8],
];
const QUICK_SHAPES = [
  [1, 16, 64, 4],
  [2, 10, 64, 4],
];
const SHAPES = opts.shapes
  ? opts.shapes
      .split(/[;\s]+/)
      .filter(Boolean)
      .map((s) => s.split(',').map(Number))
  : opts.quick
    ? QUICK_SHAPES
    : FULL_SHAPES;

// Run policy. Full: warm-up (>= 2 runs and >= 0.3 s, at most 10 s), then 20 timed runs (more for
// fast cases, until 1 s of timed runs, at most 200). Shapes with S > 512: at least 5 timed runs,
// more until ~15 s of timed runs, at most 20 (the plain-JS and scalar forwards take seconds each).
const POLICY = opts.quick
  ? { warmRuns: 1, warmMs: 0, minRuns: 3, maxRuns: 3, targetMs: 0, bigMinRuns: 3, bigTargetMs: 0, selectRuns: 1 }
  : {
      warmRuns: 2,
      warmMs: 300,
      minRuns: 20,
      maxRuns: 200,
      targetMs: 1000,
      bigMinRuns: 5,
      bigTargetMs: 15000,
      selectRuns: 2,
    };

const flops = (B, S, D) => 4 * 2 * B * S * D * D + 2 * B * S * S * D + 2 * B * S * S * D;

function median(a) {
  const s = [...a].sort((x, y) => x - y),
    n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}
function maxAbsDiff(a, b) {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= m)) m = d; // NaN propagates as NaN > everything
  }
  return m;
}
function log(...a) {
  process.stderr.write(a.join(' ') + '\n');
}

// How many timed runs (or rounds) and how long: `bigMax` caps the runs of the slow (S > 512) shapes.
function budget(big, bigMax, policy) {
  return big
    ? { minRuns: policy.bigMinRuns, maxRuns: Math.max(policy.bigMinRuns, bigMax), target: policy.bigTargetMs }
    : { minRuns: policy.minRuns, maxRuns: policy.maxRuns, target: policy.targetMs };
}

// Times fn (sync or async). Returns {median, min, runs, samples}.
async function measure(fn, big, policy = POLICY) {
  let t = performance.now(),
    n = 0;
  while (n < policy.warmRuns || (performance.now() - t < policy.warmMs && performance.now() - t < 10000)) {
    await fn();
    n++;
    if (big && n >= policy.warmRuns) break;
  }
  const samples = [];
  const { minRuns, maxRuns, target } = budget(big, 20, policy);
  let total = 0;
  const cpu0 = process.cpuUsage(),
    wall0 = performance.now();
  while (samples.length < minRuns || (samples.length < maxRuns && total < target)) {
    const t0 = performance.now();
    await fn();
    const dt = performance.now() - t0;
    samples.push(dt);
    total += dt;
  }
  const cpu = process.cpuUsage(cpu0),
    wall = performance.now() - wall0;
  // Share of one core this process got while timing: well below 1 means another process competed
  // for the CPU and the times are inflated.
  // (process-wide, so V8's background threads can push it above 1; not reported for short windows)
  const cpuShare = wall >= 100 ? (cpu.user + cpu.system) / 1000 / wall : undefined;
  return { median: median(samples), min: Math.min(...samples), runs: samples.length, samples, cpuShare };
}

// Paired rounds: each round runs every contender once, in an order that rotates between rounds, so
// a drift of the machine's speed (this VM's varies by up to 2x over minutes) hits all of them alike.
// Returns, for each named baseline (our builds), every other contender's median over rounds of its
// time ÷ the baseline's in the same round: ratios[baseline][name], which stay put when absolute
// times do not.
async function paired(contenders, baselines, big, policy = POLICY) {
  const { minRuns: minRounds, maxRuns: maxRounds, target } = budget(big, 15, policy);
  for (const c of contenders) await c.run();
  const times = contenders.map(() => []);
  let total = 0,
    r = 0;
  for (; r < minRounds || (r < maxRounds && total < target); r++) {
    for (let i = 0; i < contenders.length; i++) {
      const k = (i + r) % contenders.length;
      const t0 = performance.now();
      await contenders[k].run();
      const dt = performance.now() - t0;
      times[k].push(dt);
      total += dt;
    }
  }
  const ratios = {};
  contenders.forEach((base, b) => {
    if (!baselines.includes(base.name)) return;
    ratios[base.name] = {};
    contenders.forEach((c, k) => {
      if (k !== b) ratios[base.name][c.name] = median(times[k].map((t, i) => t / times[b][i]));
    });
  });
  return { rounds: r, ratios, medianMs: Object.fromEntries(contenders.map((c, k) => [c.name, median(times[k])])) };
}

// ---- our modules --------------------------------------------------------------------------------
const DIST = process.env.MHA_BENCH_DIST ? path.resolve(process.env.MHA_BENCH_DIST) : path.join(ROOT, 'dist');
async function loadOurs(file) {
  const p = path.join(DIST, file);
  if (!fs.existsSync(p)) return { missing: `${p} not built (run scripts/build)` };
  const createMhaModule = require(p);
  const M = await createMhaModule();
  return { M, file: p };
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

// ---- main ---------------------------------------------------------------------------------------
async function main() {
  const started = Date.now();
  const loadavgStart = os.loadavg();
  const problems = []; // broken things: make the exit status non-zero
  const notes = [];
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

  let nat = { available: false, reason: 'disabled (--no-native)' };
  if (opts.native) nat = native.probe(ROOT);
  if (!nat.available) notes.push(`native: n/a (${nat.reason})`);

  if (opts.peers) {
    await tfPeer.init();
    await ortPeer.init();
  }

  const rows = [];
  for (const [B, S, D, H] of SHAPES) {
    const big = S > 512;
    const label = `(${B},${S},${D},${H})`;
    log(`bench: ${label}`);
    const row = { shape: { B, S, D, H }, flop: flops(B, S, D), impl: {} };
    rows.push(row);

    // Weights and input from our module: the same numbers go to every implementation.
    const M = simd.M;
    const g = new M.Generator(opts.seed);
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
      if (!(d <= tol)) problems.push(`${name} ${label}: max|diff| vs ours ${d} exceeds ${tol.toExponential(1)}`);
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
        problems.push(`${name} ${label}: ${(e && e.stack) || e}`);
        row.impl[name] = { error: String((e && e.message) || e) };
      }
    };

    await guard('ours_simd', async () => {
      record('ours_simd', await measure(() => mha.forward(x, x, x, { needWeights: false }), big), { maxAbsDiff: 0 });
      const w = mha.forward(x, x, x, { needWeights: true });
      check('ours_simd needWeights', w.output.data);
      record('ours_simd_weights', await measure(() => mha.forward(x, x, x, { needWeights: true }), big));
    });

    // Another build of ours on the same seed: same weights and input (verified); the caller deletes it.
    const twin = (name, build) => {
      const gt = new build.M.Generator(opts.seed);
      const mt = new build.M.MultiHeadAttention({ dModel: D, numHeads: H, bias: true, dropout: 0, generator: gt });
      mt.eval();
      const xt = gt.randn([B, S, D]);
      if (!sameParams(paramsOf(mt), p) || maxAbsDiff(xt.data, x.data) !== 0) {
        problems.push(
          `${name} ${label}: this build's Generator(${opts.seed}) gives different weights/inputs than the SIMD build`,
        );
      }
      return {
        mha: mt,
        delete: () => {
          mt.delete();
          gt.delete();
        },
      };
    };
    let fma = null; // the relaxed-SIMD twin, kept for the paired rounds
    if (!relaxed.missing) {
      await guard('ours_relaxed', async () => {
        fma = twin('ours_relaxed', relaxed);
        const d = check('ours_relaxed', fma.mha.forward(x, x, x, { needWeights: false }).output.data);
        record('ours_relaxed', await measure(() => fma.mha.forward(x, x, x, { needWeights: false }), big), {
          maxAbsDiff: d,
        });
      });
    }

    if (!scalar.missing) {
      await guard('ours_scalar', async () => {
        const t = twin('ours_scalar', scalar);
        try {
          const d = check('ours_scalar', t.mha.forward(x, x, x, { needWeights: false }).output.data);
          record('ours_scalar', await measure(() => t.mha.forward(x, x, x, { needWeights: false }), big), {
            maxAbsDiff: d,
          });
        } finally {
          t.delete();
        }
      });
    }

    if (nat.available) {
      await guard('native', async () => {
        const r = native.run(nat, { B, S, D, H, seed: opts.seed, quick: opts.quick, big });
        record('native', r, { maxAbsDiff: check('native', r.output) });
      });
    }

    if (opts.peers) {
      // Fastest formulation per peer: each variant is checked, timed briefly, the winner fully.
      const pickAndMeasure = async (name, variants, make) => {
        const cand = [];
        for (const v of variants) {
          const impl = await make(v);
          const d = check(`${name}[${v}]`, await impl.run(x.data));
          const quickM = await measure(() => impl.run(x.data), true, {
            warmRuns: 1,
            warmMs: 0,
            bigMinRuns: POLICY.selectRuns,
            bigTargetMs: 0,
          });
          cand.push({ v, impl, d, ms: quickM.median });
        }
        cand.sort((a, b) => a.ms - b.ms);
        for (const c of cand.slice(1)) await c.impl.dispose();
        const best = cand[0];
        record(name, await measure(() => best.impl.run(x.data), big), {
          maxAbsDiff: best.d,
          variant: best.v,
          variants: Object.fromEntries(cand.map((c) => [c.v, { selectMs: c.ms, maxAbsDiff: c.d }])),
        });
        winners.push({ name, impl: best.impl }); // kept for the paired rounds, disposed after them
      };
      const winners = [];
      try {
        await guard('tfjs_wasm', () =>
          pickAndMeasure('tfjs_wasm', tfPeer.variants, async (v) => tfPeer.setup(p, B, S, D, H, v)),
        );
        await guard('ort_web', () =>
          pickAndMeasure('ort_web', ortPeer.variants, (v) => ortPeer.setup(p, B, S, D, H, v)),
        );
        await guard('paired', async () => {
          const contenders = [
            { name: 'ours_simd', run: () => mha.forward(x, x, x, { needWeights: false }) },
            ...(fma ? [{ name: 'ours_relaxed', run: () => fma.mha.forward(x, x, x, { needWeights: false }) }] : []),
            ...winners.map((w) => ({ name: w.name, run: () => w.impl.run(x.data) })),
          ];
          if (contenders.length < 2) return;
          row.paired = await paired(contenders, ['ours_simd', 'ours_relaxed'], big);
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
        record('plain_js', await measure(() => plain.mhaForward(x.data, p, B, S, D, H), big), { maxAbsDiff: d });
      });
    }
    if (fma) fma.delete(); // every step above runs inside guard(), so this is always reached
    mha.delete();
    g.delete();
  }

  // ---- peak -------------------------------------------------------------------------------------
  let peak = { available: false, reason: 'disabled (--no-peak)' };
  let peakFma = { available: false, reason: relaxed.missing || 'disabled (--no-peak)' };
  if (opts.peak) {
    try {
      peak = native.peak(ROOT, opts.quick);
    } catch (e) {
      problems.push(`peak: ${e.message}`);
      peak = { available: false, reason: e.message };
    }
    if (!peak.available) notes.push(`peak: n/a (${peak.reason})`);
    if (!relaxed.missing) {
      try {
        peakFma = native.peak(ROOT, opts.quick, 'wasm-relaxed');
      } catch (e) {
        problems.push(`FMA peak: ${e.message}`);
        peakFma = { available: false, reason: e.message };
      }
    }
  }

  // ---- page -------------------------------------------------------------------------------------
  let page = { available: false, reason: 'disabled (--no-page)' };
  if (opts.page) {
    try {
      page = await require('./page').measurePage(DIST, opts.quick);
    } catch (e) {
      problems.push(`page: ${e.message}`);
      page = { available: false, reason: e.message };
    }
    if (!page.available) notes.push(`page: n/a (${page.reason})`);
  }

  // ---- output -----------------------------------------------------------------------------------
  const env = {
    date: new Date().toISOString(),
    quick: opts.quick,
    seed: opts.seed,
    cpu: (os.cpus()[0] || {}).model,
    cores: os.cpus().length,
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    tfjs: opts.peers ? tfPeer.info() : null,
    ort: opts.peers ? ortPeer.info() : null,
    builds: [simd, relaxed, scalar]
      .filter((b) => b.file)
      .map((b) => {
        const st = fs.statSync(b.file);
        return { file: b.file, bytes: st.size, mtime: st.mtime.toISOString(), implementation: b.M.implementation };
      }),
    policy: POLICY,
    seconds: (Date.now() - started) / 1000,
    loadavgStart,
    loadavgEnd: os.loadavg(),
  };
  const result = {
    env,
    flopConvention:
      'projections 4·2·B·S·D² + QKᵀ 2·B·S²·D + weights·V 2·B·S²·D (softmax, bias and scaling not counted)',
    rows,
    peak,
    peakFma,
    page,
    notes,
    problems,
  };
  const md = table(result);
  console.log(md);

  const jsonPath = opts.json
    ? path.resolve(opts.json)
    : path.join(ROOT, 'bench', 'results', `bench-${env.date.replace(/[:.]/g, '-')}${opts.quick ? '-quick' : ''}.json`);
  fs.mkdirSync(path.dirname(path.resolve(jsonPath)), { recursive: true });
  fs.writeFileSync(jsonPath, JSON.stringify({ ...result, markdown: md }, null, 1));
  log(`bench: wrote ${jsonPath} (${env.seconds.toFixed(0)} s)`);
  if (problems.length) {
    log(`bench: BROKEN (${problems.length}):\n  ` + problems.join('\n  '));
    process.exitCode = 1;
  }
}

// ---- markdown -------------------------------------------------------------------------------------
function table({ rows, peak, peakFma, page, notes, env }) {
  const f = (v, d = 2) =>
    v === undefined || v === null || !isFinite(v)
      ? 'n/a'
      : v >= 100
        ? v.toFixed(0)
        : v >= 10
          ? v.toFixed(1)
          : v.toFixed(d);
  const ms = (r, k) =>
    r.impl[k] && r.impl[k].ms !== undefined ? f(r.impl[k].ms) : r.impl[k] && r.impl[k].error ? 'error' : 'n/a';
  const ratio = (r, k) => {
    const a = r.impl[k],
      o = r.impl.ours_simd;
    return a && a.ms && o && o.ms ? `${f(a.ms / o.ms)}×` : 'n/a';
  };
  const variant = (r, k) => (r.impl[k] && r.impl[k].variant ? ` (${r.impl[k].variant})` : '');
  const head = [
    'shape (B,S,D,H)',
    'GFLOP',
    'ours SIMD ms',
    'GFLOP/s',
    'ours SIMD +weights ms',
    'ours scalar ms',
    'SIMD/scalar speed-up',
    'native ms',
    'TF.js-wasm ms',
    '×ours',
    'ORT-web ms',
    '×ours',
    'plain JS ms',
    '×ours',
    'best peer ×ours',
    'paired ×ours',
    'ours FMA ms',
    'FMA GFLOP/s',
    'best peer ×FMA',
    'paired ×FMA',
    'max|diff| vs ours',
    'runs',
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows) {
    const { B, S, D, H } = r.shape,
      o = r.impl.ours_simd || {};
    const diffs = ['ours_relaxed', 'ours_scalar', 'native', 'tfjs_wasm', 'ort_web', 'plain_js']
      .map((k) => r.impl[k] && r.impl[k].maxAbsDiff)
      .filter((d) => d !== undefined);
    const PEERS = ['tfjs_wasm', 'ort_web'];
    const peers = PEERS.map((k) => r.impl[k] && r.impl[k].ms).filter((v) => v);
    const bestPeer = peers.length && o.ms ? `${f(Math.min(...peers) / o.ms)}×` : 'n/a';
    const fm = r.impl.ours_relaxed || {};
    const bestPeerFma = peers.length && fm.ms ? `${f(Math.min(...peers) / fm.ms)}×` : 'n/a';
    // the faster peer's paired ratio against one of our builds
    const pairedBy = (base) => {
      const rs = r.paired && r.paired.ratios[base];
      const v = rs ? PEERS.map((k) => rs[k]).filter((x) => x !== undefined) : [];
      return v.length ? `${f(Math.min(...v))}×` : 'n/a';
    };
    const pairedBest = pairedBy('ours_simd'),
      pairedFma = pairedBy('ours_relaxed');
    const runs = ['ours_simd', 'ours_scalar', 'tfjs_wasm', 'ort_web', 'plain_js']
      .map((k) => (r.impl[k] && r.impl[k].runs) || '-')
      .join('/');
    lines.push(
      `| ${[
        `(${B},${S},${D},${H})`,
        (r.flop / 1e9).toFixed(4),
        ms(r, 'ours_simd'),
        f(o.gflops, 1),
        ms(r, 'ours_simd_weights'),
        ms(r, 'ours_scalar'),
        r.impl.ours_scalar && o.ms ? `${f(r.impl.ours_scalar.ms / o.ms)}×` : 'n/a',
        ms(r, 'native'),
        ms(r, 'tfjs_wasm') + variant(r, 'tfjs_wasm'),
        ratio(r, 'tfjs_wasm'),
        ms(r, 'ort_web') + variant(r, 'ort_web'),
        ratio(r, 'ort_web'),
        ms(r, 'plain_js'),
        ratio(r, 'plain_js'),
        bestPeer,
        pairedBest,
        ms(r, 'ours_relaxed'),
        f(fm.gflops, 1),
        bestPeerFma,
        pairedFma,
        diffs.length ? Math.max(...diffs).toExponential(1) : 'n/a',
        runs,
      ].join(' | ')} |`,
    );
  }
  const out = [lines.join('\n'), ''];
  out.push(
    `Median wall-clock ms per forward (Float32Array in → Float32Array out, including copies into/out of each runtime), ${env.quick ? 'QUICK run (tiny shapes, few runs: a smoke test, not a measurement)' : 'after warm-up'}; runs = timed runs for ours SIMD/ours scalar/TF.js/ORT/plain JS. ×ours = peer time ÷ ours SIMD time (>1: ours is faster). paired ×ours = the faster peer's ratio from paired rounds (ours, ours FMA, TF.js and ORT run once each per round, rotating order; median over rounds of peer ÷ ours within the round), robust to the machine's speed drifting between series. Ours FMA = dist/mha-relaxed.js, the same build with its f32x4 multiply-adds fused into relaxed_madd (what Chrome/Edge 114+ load; Node 20 needs --experimental-wasm-relaxed-simd); ×FMA columns divide the peers by it. Ours with needWeights=false (peers do not return weights); "+weights" = needWeights=true. FLOP = ${'4·2·B·S·D² + 2·B·S²·D + 2·B·S²·D'} (softmax ignored). One thread everywhere${env.tfjs ? ` (TF.js ${env.tfjs.version} wasm${env.tfjs.simd ? ' SIMD' : ''}, onnxruntime-web ${env.ort.version} wasm)` : ''}. ${env.cpu}, ${env.cores} cores, Node ${env.node}.`,
  );
  const shares = rows.flatMap((r) =>
    Object.entries(r.impl)
      .filter(([, i]) => i.cpuShare !== undefined)
      .map(([k, i]) => ({ what: `${k} (${r.shape.B},${r.shape.S},${r.shape.D},${r.shape.H})`, share: i.cpuShare })),
  );
  if (shares.length && !env.quick) {
    const lo = Math.min(...shares.map((s) => s.share));
    const bad = shares.filter((s) => s.share < 0.85).map((s) => `${s.what} ${s.share.toFixed(2)}`);
    out.push(
      `CPU share while timing: min ${lo.toFixed(2)} of one core (load average ${env.loadavgStart.map((v) => v.toFixed(1)).join('/')} at start)${bad.length ? ` — WARNING: another process competed for the CPU during ${bad.join(', ')}; those times are inflated. Re-run on an idle machine.` : '.'}`,
    );
  }
  // Each peak, our build's share of it per shape, and that build's kernel table.
  for (const [pk, impl, title, share, kernels] of [
    [peak, 'ours_simd', 'SIMD128 peak', 'Ours SIMD as % of peak', 'Kernels alone (bench/cpp, wasm simd128, Node):'],
    [
      peakFma,
      'ours_relaxed',
      'FMA peak',
      'Ours FMA as % of the FMA peak',
      'Kernels alone, FMA build (bench/cpp through wasm/relax.mjs, Node):',
    ],
  ]) {
    if (!pk.available) continue;
    out.push('');
    out.push(`${title} (${pk.source}): ${f(pk.gflops, 1)} GFLOP/s${pk.detail ? ` — ${pk.detail}` : ''}.`);
    const shares = rows
      .filter((r) => r.impl[impl] && r.impl[impl].gflops)
      .map(
        (r) =>
          `${`(${r.shape.B},${r.shape.S},${r.shape.D},${r.shape.H})`} ${f((100 * r.impl[impl].gflops) / pk.gflops, 1)}%`,
      );
    out.push(`${share}: ${shares.join(', ')}.`);
    if (pk.kernelTable && pk.kernelTable.length)
      out.push('', kernels, '', '| kernel | shape | GFLOP/s |', '|---|---|---|', ...pk.kernelTable);
  }
  // Long sequences, both builds from the same bench/cpp runs: attention through an S×S matrix in
  // memory (the weights path, without the copy to JS) against the tiled online-softmax kernel.
  const longRows = [peak, peakFma].map((pk) => (pk.available && pk.longSeq) || []);
  if (longRows.some((r) => r.length)) {
    const byS = [...new Set(longRows.flat().map((r) => r.S))];
    const cell = (rs, S, k) => {
      const r = rs.find((x) => x.S === S);
      return r ? `${f(r[k], 1)}%` : 'n/a';
    };
    out.push(
      '',
      "Long sequences, (1,S,256,8) forward composed from the kernels (bench/cpp), % of each build's peak: attention per head through an S×S score matrix in memory (GEMM, softmax, GEMM) vs tiled online softmax (f32_attention_online, what needWeights: false runs):",
      '',
      '| S | SIMD S×S in memory | SIMD tiled | FMA S×S in memory | FMA tiled |',
      '|---|---|---|---|---|',
      ...byS.map(
        (S) =>
          `| ${S} | ${cell(longRows[0], S, 'materializedPct')} | ${cell(longRows[0], S, 'tiledPct')} | ${cell(longRows[1], S, 'materializedPct')} | ${cell(longRows[1], S, 'tiledPct')} |`,
      ),
    );
  }
  if (page.available) {
    out.push('');
    const views = page.views;
    out.push(
      `Page recompute+redraw (${page.implementation || '?'}; headless Chromium ${page.browserVersion}, ${page.runs} runs per view; medians): ` +
        views
          .map(
            (v) =>
              `${v.name}${v.origin === 'file' ? ' from file://' : ''} (${v.tokens} tokens, D=${v.D}, H=${v.H}) ${f(v.totalMs)} ms [forward ${f(v.forwardMs)}, redraw ${f(v.redrawMs)}, +layout ${f(v.layoutMs)}; ${v.where}]`,
          )
          .join('; ') +
        `${page.target ? `. Targets: ${page.target.met ? 'met' : 'NOT met (' + page.target.missed.join('; ') + ')'}` : ''}; first load to ready ${f(page.loadMs, 0)} ms. Method: ${page.method}.`,
    );
    if (page.lab) {
      out.push(
        '',
        'Training lab while playing (two offsets): ' +
          page.lab
            .map(
              (l) =>
                `${l.origin}: ${f(l.fps)} frames/s ` +
                `(p95 frame ${f(l.p95FrameMs)} ms, worst ${f(l.worstFrameMs)} ms), ${f(l.stepsPerSecond)} steps/s`,
            )
            .join('; ') +
          '.',
      );
    }
    if (page.speed) out.push('', ...require('./page-speed.js').formatPageSpeed(page.speed));
  }
  if (notes.length) {
    out.push('');
    for (const n of notes) out.push(`- ${n}`);
  }
  return out.join('\n');
}

main().catch((e) => {
  console.error(`bench: BROKEN: ${(e && e.stack) || e}`);
  process.exit(1);
});
