// MHA Explorer — loading the core and running forwards: the fastest core build this browser runs
// (wasm-features.js; a host that lacks one falls back to the next). Large forwards go to the forward pool
// (core/forward-pool.js: split by heads across Web Workers, each instantiating the page's compiled module); the
// pool starts and warms up right after the core loads. Its workers start the way core-source.js's forwardWorkers
// says (worker.js over http(s), blob: URLs of the page's core text from file:// and in the one-file page).
// Where workers cannot start, forwards run on the main thread.
import { runModule, cost } from './model.js';
import { CORE_BUILDS, FILES, INLINE, loadCoreScript, forwardWorkers, explain } from './core-source.js';
import { ForwardPool, poolSize } from './core/forward-pool.js';

// Multiply-adds above which a forward goes to the pool: about 20 ms on one core of a laptop.
const POOL_COST = 1.2e8;
const root = window;

var coreBuild = CORE_BUILDS[0];
var M = null, pool = null, poolStart = null;
// Where and how long the last forward ran; from the pool, each part's forward and its whole run in its worker.
export const lastCompute = { ms: 0, where: 'main thread', partMs: null, partTotalMs: null };

export function loadCore() {
  var missing = [];
  var tryBuild = function (i) {
    return loadCoreScript(CORE_BUILDS[i]).then(function () { coreBuild = CORE_BUILDS[i]; }, function (err) {
      missing.push(CORE_BUILDS[i] + '.js');
      if (INLINE) throw new Error('MHA Explorer could not start its WebAssembly core: ' + explain(err));
      if (i + 1 < CORE_BUILDS.length) return tryBuild(i + 1);
      throw new Error('MHA Explorer could not load its WebAssembly core: ' + missing.join(', ') + ' ' + (missing.length > 1 ? 'are' : 'is') +
        ' missing next to ' + FILES.page + ' at this address. Upload the whole dist/ folder (every file in it, ' + missing.join(', ') +
        ' included) to the same place; or upload the one-file page mha-explorer.html alone.');
    });
  };
  return (typeof root.createMhaModule === 'function' ? Promise.resolve() : tryBuild(0))
    .then(function () { return root.createMhaModule(); })
    .then(function (mod) {
      M = mod;
      // The page is ready once its core and the pool are warm: the first forward a student sees runs at full speed.
      try { runModule(M, WARM_UP); } catch (err) { /* the first real forward reports it */ }
      return startPool().then(function () { return mod; });
    }, function (err) { throw new Error(explain(err)); });
}

// The pool's workers run the build the page runs, instantiated from the page's compiled module. Resolves to the
// pool, or null where workers cannot start (then every forward runs on the main thread). Warms up: V8 starts
// wasm in its baseline tier.
export function startPool() {
  if (poolStart) return poolStart;
  var size = poolSize(root.navigator && root.navigator.hardwareConcurrency);
  poolStart = (M.wasmModule && typeof Worker === 'function' ? forwardWorkers(coreBuild) : Promise.resolve(null))
    .then(function (workers) {
      if (!workers) return null;
      pool = new ForwardPool(workers.start, { init: M.wasmModule, core: workers.core }, size);
      return pool.run(WARM_UP).then(function () { return pool.run(WARM_UP); }).then(function () { return pool; });
    })
    .catch(function () { if (pool) pool.terminate(); pool = null; return null; });
  return poolStart;
}
// A forward through every part of the kernels the page's large forwards use (heads split, weights formed), on the
// main thread once (the workers share its compiled code, and so V8's optimized tier of it) and twice in each worker.
const WARM_UP = { dModel: 256, numHeads: 8, seed: 0, bias: true, dropout: 0, train: false, causal: false,
  input: { type: 'randn', batch: 1, seqLen: 192 }, order: 'module-first' };

// Before the first render: the page's own forward run twice where it will run (the pool's workers or the main thread),
// its result dropped. It fills that core's module cache (the weights drawn and packed at the page's d_model, the
// memory grown) and runs the kernels at the page's shape, so the first forward the student sees is a warm one.
export function warmUp(spec) {
  var again = function () { return runForward(spec).promise; };
  return again().then(again).then(function () {}, function () {});
}

// The forward of spec (runModule's): {promise of the result, sync: whether it already ran here}.
// A forward that throws gives a rejected promise; one superseded by a newer forward before it started rejects
// with err.superseded.
export function runForward(spec) {
  // window.mhaPoolCost (tests): another threshold, e.g. 0 to split every forward
  var limit = typeof root.mhaPoolCost === 'number' ? root.mhaPoolCost : POOL_COST;
  if (cost(spec) > limit && poolStart) {
    var job = poolStart.then(function (p) {
      if (!p) return inline(spec);
      return p.run(spec).then(function (r) { done(r.ms, r.where, r); return r; }, function (err) {
        if (err && err.poolFailed) return inline(spec);
        throw err;
      });
    });
    return { promise: job, sync: false };
  }
  try {
    return { promise: Promise.resolve(inline(spec)), sync: true };
  } catch (err) {
    return { promise: Promise.reject(err), sync: true };
  }
}
function inline(spec) {
  var r = runModule(M, spec);
  done(r.ms, 'main thread');
  return r;
}
export function noForward() { done(0, 'main thread'); }
function done(ms, where, pooled) {
  lastCompute.ms = ms; lastCompute.where = where;
  lastCompute.partMs = pooled ? pooled.partMs : null; lastCompute.partTotalMs = pooled ? pooled.partTotalMs : null;
}
