#!/usr/bin/env node
'use strict';
// MHA Explorer benchmark driver (run through scripts/bench). One run, same inputs for everyone:
// ours (wasm SIMD and scalar, through the JS API), native (bench/cpp binary, when built),
// TensorFlow.js wasm, ONNX Runtime Web, plain JS; a SIMD128 peak microbenchmark; the page's
// recompute+redraw time in headless Chromium. Prints one markdown table, writes JSON.
// Exit status: 0 unless something is broken (a module fails to load or run, or an implementation
// disagrees with ours). Speed never fails the run.
// The parts, in bench/js/lib/: forward-options.js (options, shapes, run policy), ours.js (our builds),
// forward-shape.js (one shape's row), timing.js (timed runs, paired rounds), forward-table.js (the markdown).

const fs = require('fs');
const path = require('path');
const os = require('os');

const tfPeer = require('./lib/tfjs');
const ortPeer = require('./lib/ort');
const native = require('./lib/native');
const { forwardOptions } = require('./lib/forward-options.js');
const { ROOT, DIST, loadBuilds } = require('./lib/ours.js');
const { benchShape } = require('./lib/forward-shape.js');
const { table } = require('./lib/forward-table.js');
const { runMain } = require('./lib/run-main.js');

const { opts, SHAPES, POLICY } = forwardOptions(process.argv.slice(2));
const log = (...a) => process.stderr.write(a.join(' ') + '\n');

// The SIMD128 peak and the FMA build's (bench/cpp through native.peak). → {peak, peakFma}
function peaks(relaxed, problems, notes) {
  let peak = { available: false, reason: 'disabled (--no-peak)' };
  let peakFma = { available: false, reason: relaxed.missing || 'disabled (--no-peak)' };
  if (!opts.peak) return { peak, peakFma };
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
  return { peak, peakFma };
}

// The page's recompute+redraw in headless Chromium (bench/js/page.js).
async function pageLine(problems, notes) {
  if (!opts.page) return { available: false, reason: 'disabled (--no-page)' };
  let page;
  try {
    page = await require('./page').measurePage(DIST, opts.quick);
  } catch (e) {
    problems.push(`page: ${e.message}`);
    page = { available: false, reason: e.message };
  }
  if (!page.available) notes.push(`page: n/a (${page.reason})`);
  return page;
}

function environment(started, loadavgStart, builds) {
  return {
    date: new Date().toISOString(),
    quick: opts.quick,
    seed: opts.seed,
    cpu: (os.cpus()[0] || {}).model,
    cores: os.cpus().length,
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    tfjs: opts.peers ? tfPeer.info() : null,
    ort: opts.peers ? ortPeer.info() : null,
    builds: [builds.simd, builds.relaxed, builds.scalar]
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
}

async function main() {
  const started = Date.now();
  const loadavgStart = os.loadavg();
  const problems = []; // broken things: make the exit status non-zero
  const notes = [];
  const builds = await loadBuilds(problems, notes);

  let nat = { available: false, reason: 'disabled (--no-native)' };
  if (opts.native) nat = native.probe(ROOT);
  if (!nat.available) notes.push(`native: n/a (${nat.reason})`);

  if (opts.peers) {
    await tfPeer.init();
    await ortPeer.init();
  }

  const rows = [];
  for (const shape of SHAPES) rows.push(await benchShape(shape, { opts, POLICY, builds, nat, problems }));
  const { peak, peakFma } = peaks(builds.relaxed, problems, notes);
  const page = await pageLine(problems, notes);

  const env = environment(started, loadavgStart, builds);
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
  return problems;
}

runMain('bench', main);
