// MHA Explorer — loading the core and running forwards: the fastest core build this browser runs
// (wasm-features.js; a host that lacks one falls back to the next), and a Web Worker for large forwards
// (worker.js; Chromium refuses workers from file://, so there the forward runs on the main thread).
import model from './model.js';
import BUILDS from './wasm-features.js';

const WORKER_COST = 3e8;            // multiply-adds above which the forward runs in a Worker (~50 ms inline)
const root = window;

var coreScripts = BUILDS.map(function (b) { return b + '.js'; });
var coreScript = coreScripts[0];
var M = null, worker = null, workerFailed = false, workerJobs = {}, jobSeq = 0;
// Where and how long the last forward ran.
export const lastCompute = { ms: 0, where: 'main thread' };

export function loadCore() {
  var tryScript = function (i) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement('script');
      s.src = coreScripts[i];
      s.onload = function () { coreScript = coreScripts[i]; resolve(); };
      s.onerror = function () {
        s.remove();
        if (i + 1 < coreScripts.length) resolve(tryScript(i + 1));
        else reject(new Error('Could not load ' + coreScripts.join(' or ') + ' next to this page. Run scripts/build.'));
      };
      document.head.appendChild(s);
    });
  };
  return (typeof root.createMhaModule === 'function' ? Promise.resolve() : tryScript(0))
    .then(function () { return root.createMhaModule(); })
    .then(function (mod) { M = mod; return mod; });
}

// The forward of spec (model.runModule's): {promise of the result, sync: whether it already ran here}.
// A forward that throws gives a rejected promise.
export function runForward(spec) {
  if (model.cost(spec) > WORKER_COST && !workerFailed && ensureWorker()) {
    var job = new Promise(function (resolve, reject) {
      var id = ++jobSeq;
      workerJobs[id] = { resolve: resolve, reject: reject, spec: spec };
      worker.postMessage({ id: id, spec: spec });
    }).then(function (r) { done(r.ms, 'Web Worker'); return r; });
    return { promise: job, sync: false };
  }
  try {
    var r = model.runModule(M, spec);
    done(r.ms, 'main thread');
    return { promise: Promise.resolve(r), sync: true };
  } catch (err) {
    return { promise: Promise.reject(err), sync: true };
  }
}
export function noForward() { done(0, 'main thread'); }
function done(ms, where) { lastCompute.ms = ms; lastCompute.where = where; }

function ensureWorker() {
  if (worker) return true;
  try {
    worker = new Worker('worker.js');
  } catch (e) { workerFailed = true; return false; }   // file:// in Chromium: run on the main thread
  worker.postMessage({ init: coreScript });
  worker.onmessage = function (e) {
    var job = workerJobs[e.data.id]; if (!job) return;
    delete workerJobs[e.data.id];
    if (e.data.error) job.reject(new Error(e.data.error)); else job.resolve(e.data.result);
  };
  worker.onerror = function (e) {
    if (e && e.preventDefault) e.preventDefault();
    workerFailed = true; worker = null;
    Object.keys(workerJobs).forEach(function (id) {
      var job = workerJobs[id]; delete workerJobs[id];
      try { var r = model.runModule(M, job.spec); done(r.ms, 'main thread'); job.resolve(r); }
      catch (err) { job.reject(err); }
    });
  };
  return true;
}
