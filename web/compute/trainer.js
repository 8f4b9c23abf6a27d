// MHA Explorer — the page side of the training worker (web/compute/trainer-worker.js).
//
//   import { start } from './trainer.js';
//   start().then(function (t) {                       // picks the fastest build this browser runs
//     return t.reset({ model: { task: 'two-offsets' }, optimizer: { kind: 'adam', options: { lr: 1e-2 } }, seed: 0 })
//       .then(function () { return t.train({ steps: 50, batchSize: 32 }); })   // [{step, loss, accuracy}]
//       .then(function () { return t.inspect({ tokens: [1, 2, 3, 4] }); });    // {attention, logits, roles, trace}
//   });
//
// Every method returns a promise; requests run in order in the worker; a failed request rejects with
// the core's message and the worker keeps working. The worker is a Blob: served over http(s), of the worker code
// (carried by this bundle) importing <base><build>.js by its absolute URL (any origin: a CDN too); from file://,
// where Chromium refuses importScripts, of dist/trainer-<build>.js's text (the core and the worker code as one
// string; in the one-file lab, the page's own core text and worker code: source.js). web/build.mjs bundles this module into
// dist/lab.js (the lab component, web/lab/), and alone into dist/trainer.js (window.MhaTrainer, for scripts and tests).
import { CORE_BUILDS, FILES, INLINE, coreText, workerCode, blobURL, explain, firstBuild } from './source.js';

const sources = {}; // build → worker source text, loaded once

// The folder of the script this module is bundled into (read while that script runs), where dist/trainer-*.js are.
const scriptBase = document.currentScript ? document.currentScript.src.replace(/[^/]*$/, '') : '';

/* global MHA_TRAINER_WORKER */
// web/compute/trainer-worker.js as text (web/build.mjs defines it in every bundle).
const TRAINER_WORKER = typeof MHA_TRAINER_WORKER === 'string' ? MHA_TRAINER_WORKER : null;
const MISSING = 'the core did not load: ';

// The worker's source: over http(s) the worker code importing the core by URL; from file://, <base>trainer-<build>.js
// (a classic script: it sets MHA_TRAINER_SOURCE) loaded and its text kept.
function load(build, base) {
  const key = base + build;
  if (sources[key]) return Promise.resolve(sources[key]);
  if (INLINE)
    return coreText(build).then(function (text) {
      return (sources[key] = text + '\n' + workerCode('trainer'));
    });
  if (TRAINER_WORKER && location.protocol !== 'file:') {
    const core = JSON.stringify(new URL(build + '.js', new URL(base || '.', document.baseURI)).href);
    // A core that does not load answers every request with MISSING (start() names the file).
    const prelude = `try { importScripts(${core}); } catch (e) { var createMhaModule = function () {
      return Promise.reject(new Error(${JSON.stringify(MISSING)} + ${core})); }; }\n`;
    return Promise.resolve((sources[key] = prelude + TRAINER_WORKER));
  }
  return new Promise(function (resolve, reject) {
    const s = document.createElement('script');
    s.src = base + 'trainer-' + build + '.js';
    s.onload = function () {
      sources[key] = window.MHA_TRAINER_SOURCE;
      window.MHA_TRAINER_SOURCE = undefined;
      s.remove();
      resolve(sources[key]);
    };
    s.onerror = function () {
      s.remove();
      const err = new Error('trainer-' + build + '.js is missing');
      err.missingFile = 'trainer-' + build + '.js';
      reject(err);
    };
    document.head.appendChild(s);
  });
}

function Trainer(worker, build) {
  let pending = {},
    next = 1,
    self = this;
  this.build = build;
  this.worker = worker;
  worker.onmessage = function (e) {
    const p = pending[e.data.id];
    delete pending[e.data.id];
    if (!p) return;
    if (e.data.error !== undefined) p.reject(new Error(e.data.error));
    else p.resolve(e.data.result);
  };
  worker.onerror = function (e) {
    if (e && e.preventDefault) e.preventDefault();
    const error = new Error('the training worker stopped: ' + explain(e && e.message ? e : 'it did not say why'));
    Object.keys(pending).forEach(function (id) {
      pending[id].reject(error);
      delete pending[id];
    });
  };
  this.request = function (op, args, transfer) {
    return new Promise(function (resolve, reject) {
      const id = next++;
      pending[id] = { resolve: resolve, reject: reject };
      self.worker.postMessage({ id: id, op: op, args: args }, transfer || []);
    });
  };
}
['tasks', 'defaults', 'reset', 'train', 'inspect', 'ablate', 'evaluate', 'script', 'save', 'stateDict'].forEach(
  function (op) {
    Trainer.prototype[op] = function (args) {
      return this.request(op, args);
    };
  },
);
// bytes: a Uint8Array or ArrayBuffer of a .safetensors file (copied, so the caller keeps it).
function copyOf(bytes) {
  return new Uint8Array(
    bytes instanceof ArrayBuffer
      ? bytes.slice(0)
      : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
  );
}
// What a file holds before loading it: {metadata, shapes} (trainer-worker.js's peek).
Trainer.prototype.peek = function (bytes) {
  const copy = copyOf(bytes);
  return this.request('peek', { bytes: copy }, [copy.buffer]);
};
Trainer.prototype.load = function (bytes) {
  const copy = copyOf(bytes);
  return this.request('load', { bytes: copy }, [copy.buffer]);
};
Trainer.prototype.terminate = function () {
  this.worker.terminate();
};

// The fastest build whose worker starts (source.js's firstBuild: a build whose file is missing or whose worker fails
// passes to the next). options: {builds (override the order: tests), base (the folder of trainer-<build>.js: the
// folder of the script this module is bundled into unless told)}.
export function start(options) {
  const base = (options && options.base) || scriptBase;
  const attempt = function (build) {
    return load(build, base).then(function (text) {
      const url = blobURL(text);
      const t = new Trainer(new Worker(url), build);
      // The first answer says whether this build's core started ("no model yet" means it did).
      return t
        .request('stateDict')
        .then(
          function () {
            return t;
          },
          function (err) {
            if (/no model yet/.test(err.message)) return t;
            t.terminate();
            if (err.message.startsWith(MISSING)) err.missingFile = build + '.js';
            throw err;
          },
        )
        .finally(function () {
          URL.revokeObjectURL(url);
        });
    });
  };
  const where = {
    page: FILES.lab,
    oneFile: 'mha-explorer-lab.html',
    // the folder looked in: named when it is not the page's own
    base: new URL(base || '.', document.baseURI).href === new URL('.', document.baseURI).href ? '' : base,
    builds: options && options.builds,
  };
  return firstBuild(attempt, where).then(function (r) {
    return r.value;
  });
}

export const builds = CORE_BUILDS;
