// MHA Explorer — a worker of the forward pool (web/compute/forward-pool.js): runs a forward, or its share of the
// heads, off the main thread. Bundled by web/build.mjs with the model module: dist/worker.js (over http(s) it
// loads the core by importScripts), and as text in the page's script (a blob: worker after the page's core text,
// from file:// and in the one-file page; source.js's forwardWorkers).
// Messages: {init: WebAssembly.Module (the page's compiled core: no compile here), core: the core's script to
// import, or null when the worker carries it}, then {id, spec, heads?}.
/* global createMhaModule */
import { runModule } from './explorer-run.js';

let M = null,
  queue = [];
self.onmessage = function (e) {
  const msg = e.data;
  if (msg.init) {
    try {
      if (typeof createMhaModule !== 'function') importScripts(msg.core);
    } catch (err) {
      self.postMessage({ failed: String((err && err.message) || err) });
      return;
    }
    createMhaModule({ wasmModule: msg.init }).then(
      function (mod) {
        M = mod;
        queue.splice(0).forEach(run);
      },
      function (err) {
        self.postMessage({ failed: String((err && err.message) || err) });
      },
    );
    return;
  }
  if (!M) queue.push(msg);
  else run(msg);
};
function run(msg) {
  try {
    const r = runModule(M, msg.spec, msg.heads);
    if (msg.heads && msg.heads[0] > 0) r.x = null; // the input travels once, with the first part
    const transfer = [r.weights.data.buffer, r.output.data.buffer];
    if (r.x) transfer.push(r.x.data.buffer);
    self.postMessage({ id: msg.id, result: r }, Array.from(new Set(transfer)));
  } catch (err) {
    self.postMessage({ id: msg.id, error: String((err && err.message) || err) });
  }
}
