'use strict';
// bench/js/run.js's options (scripts/bench passes its command line along): which lines run, the shapes, and the
// run policy that lib/timing.js's measure and paired follow.

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
const shapesOf = (opts) =>
  opts.shapes
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
const policyOf = (quick) =>
  quick
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

// → {opts, SHAPES, POLICY}
function forwardOptions(argv) {
  const opts = parseArgs(argv);
  return { opts, SHAPES: shapesOf(opts), POLICY: policyOf(opts.quick) };
}

module.exports = { forwardOptions };
