// MHA Explorer — loading the core and running forwards: the fastest core build this browser runs
// (wasm-features.js; a host that lacks one falls back to the next). Large forwards go to the forward pool
// (core/forward-pool.js: split by heads across Web Workers started from Blob URLs, so from file:// too); the
// pool starts and warms up right after the core loads. Where workers cannot start, forwards run on the main thread.
import model from './model.js';
import BUILDS from './wasm-features.js';
import { ForwardPool, poolSize } from './core/forward-pool.js';

// Multiply-adds above which a forward goes to the pool: about 20 ms on one core of a laptop.
const POOL_COST = 1.2e8;
const root = window;

var coreScripts = BUILDS.map(function (b) { return b + '.js'; });
var coreScript = coreScripts[0];
var M = null, pool = null, poolStart = null;
// Where and how long the last forward ran.
export const lastCompute = { ms: 0, where: 'main thread' };

function loadScript(src) {
  return new Promise(function (resolve, reject) {
    var s = document.createElement('script');
    s.src = src;
    s.onload = function () { resolve(); };
    s.onerror = function () { s.remove(); reject(new Error('Could not load ' + src + ' next to this page. Run scripts/build.')); };
    document.head.appendChild(s);
  });
}

export function loadCore() {
  var tryScript = function (i) {
    return loadScript(coreScripts[i]).then(function () { coreScript = coreScripts[i]; }, function (err) {
      if (i + 1 < coreScripts.length) return tryScript(i + 1);
      throw new Error('Could not load ' + coreScripts.join(' or ') + ' next to this page. Run scripts/build.');
    });
  };
  return (typeof root.createMhaModule === 'function' ? Promise.resolve() : tryScript(0))
    .then(function () { return root.createMhaModule(); })
    .then(function (mod) { M = mod; startPool(); return mod; });
}

// The pool's workers run the build the page runs (dist/forward-<build>.js: its code and web/worker.js as one
// string), instantiated from the page's compiled module. Resolves to the pool, or null where workers cannot
// start (then every forward runs on the main thread). Warms up: V8 starts wasm in its baseline tier.
export function startPool() {
  if (poolStart) return poolStart;
  var size = poolSize(root.navigator && root.navigator.hardwareConcurrency);
  poolStart = (typeof root.MHA_FORWARD_SOURCE === 'string' ? Promise.resolve() : loadScript('forward-' + coreScript))
    .then(function () {
      if (!M.wasmModule || typeof Worker !== 'function') return null;
      pool = new ForwardPool(root.MHA_FORWARD_SOURCE, M.wasmModule, size);
      return pool.run(WARM_UP).then(function () { return pool.run(WARM_UP); }).then(function () { return pool; });
    })
    .catch(function () { pool = null; return null; });
  return poolStart;
}
// A forward through every part of the kernels the page's large forwards use (heads split, weights formed).
const WARM_UP = { dModel: 256, numHeads: 8, seed: 0, bias: true, dropout: 0, train: false, causal: false,
  input: { type: 'randn', batch: 1, seqLen: 192 }, order: 'module-first' };

// The forward of spec (model.runModule's): {promise of the result, sync: whether it already ran here}.
// A forward that throws gives a rejected promise; one superseded by a newer forward before it started rejects
// with err.superseded.
export function runForward(spec) {
  // window.mhaPoolCost (tests): another threshold, e.g. 0 to split every forward
  var limit = typeof root.mhaPoolCost === 'number' ? root.mhaPoolCost : POOL_COST;
  if (model.cost(spec) > limit && poolStart) {
    var job = poolStart.then(function (p) {
      if (!p) return inline(spec);
      return p.run(spec).then(function (r) { done(r.ms, r.where); return r; }, function (err) {
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
  var r = model.runModule(M, spec);
  done(r.ms, 'main thread');
  return r;
}
export function noForward() { done(0, 'main thread'); }
function done(ms, where) { lastCompute.ms = ms; lastCompute.where = where; }
