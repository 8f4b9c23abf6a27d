// MHA Explorer — loading the core and running forwards: the fastest core build this browser runs
// (wasm-features.js; a host that lacks one falls back to the next), and a Web Worker for large forwards
// (worker.js; Chromium refuses workers from file://, so there the forward runs on the main thread; the
// one-file page starts it from a blob: URL of its own core text and worker code, core-source.js).
import model from './model.js';
import { CORE_BUILDS, FILES, INLINE, loadCoreScript, coreText, workerCode, blobURL, explain } from './core-source.js';

const WORKER_COST = 3e8;            // multiply-adds above which the forward runs in a Worker (~50 ms inline)
const root = window;

var coreBuild = CORE_BUILDS[0], coreTextNow = null;
var M = null, worker = null, workerFailed = false, workerJobs = {}, jobSeq = 0;
// Where and how long the last forward ran.
export const lastCompute = { ms: 0, where: 'main thread' };

export function loadCore() {
  var missing = [];
  var tryBuild = function (i) {
    return loadCoreScript(CORE_BUILDS[i]).then(function () {
      coreBuild = CORE_BUILDS[i];
      if (INLINE) return coreText(coreBuild).then(function (t) { coreTextNow = t; });
    }, function (err) {
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
    .then(function (mod) { M = mod; return mod; }, function (err) { throw new Error(explain(err)); });
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
    if (INLINE) {
      var text = coreTextNow;   // set once the page's own core text is unpacked (below)
      if (!text) return false;
      worker = new Worker(blobURL(text + '\n' + workerCode('forward')));
      worker.postMessage({ init: true });
    } else {
      worker = new Worker('worker.js');
      worker.postMessage({ init: coreBuild + '.js' });
    }
  } catch (e) { workerFailed = true; return false; }   // file:// in Chromium: run on the main thread
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
