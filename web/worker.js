// MHA Explorer — a worker of the forward pool (web/core/forward-pool.js): runs a forward, or its share of the
// heads, off the main thread. web/build.mjs bundles it with the model module after a core build into one worker
// source per build (dist/forward-<build>.js), started from a Blob URL so it works from file:// too.
// Messages: {init: WebAssembly.Module} (the page's compiled core: no compile here), then {id, spec, heads?}.
/* global createMhaModule */
import model from './model.js';

var M = null, queue = [];
self.onmessage = function (e) {
  var msg = e.data;
  if (msg.init) {
    createMhaModule({ wasmModule: msg.init }).then(function (mod) { M = mod; queue.splice(0).forEach(run); },
      function (err) { self.postMessage({ failed: String(err && err.message || err) }); });
    return;
  }
  if (!M) queue.push(msg); else run(msg);
};
function run(msg) {
  try {
    var r = model.runModule(M, msg.spec, msg.heads);
    if (msg.heads && msg.heads[0] > 0) r.x = null;   // the input travels once, with the first part
    var transfer = [r.weights.data.buffer, r.output.data.buffer];
    if (r.x) transfer.push(r.x.data.buffer);
    self.postMessage({ id: msg.id, result: r }, Array.from(new Set(transfer)));
  } catch (err) {
    self.postMessage({ id: msg.id, error: String(err && err.message || err) });
  }
}
