'use strict';
// bench/js/run.js's markdown: the forward table (a row per shape: ours, native and the peers, ratios, the largest
// difference from ours), the CPU share while timing, each SIMD peak with our share of it and its kernel table, the
// long sequences, the page's recompute+redraw and the lab (bench/js/page.js, page-speed.js), and the notes.

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
    if (page.speed) out.push('', ...require('../page-speed.js').formatPageSpeed(page.speed));
  }
  if (notes.length) {
    out.push('');
    for (const n of notes) out.push(`- ${n}`);
  }
  return out.join('\n');
}

module.exports = { table };
