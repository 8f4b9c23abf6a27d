// MHA Explorer — Web Worker: runs large forward passes off the main thread.
// Started by app.js only over http(s) (Chromium blocks workers from file://; the page then computes inline).
// Bundled by web/build.mjs with the model module into dist/worker.js; the core comes by importScripts.
/* global importScripts, createMhaModule */
import model from './model.js';

var M = null, queue = [], loading = null;
self.onmessage = function (e) {
  var msg = e.data;
  if (msg.init) {
    if (typeof createMhaModule !== 'function') importScripts(msg.init);   // the one-file page's worker carries its core
    loading = createMhaModule().then(function (mod) { M = mod; queue.splice(0).forEach(run); });
    return;
  }
  if (!M) queue.push(msg); else run(msg);
};
function run(msg) {
  try {
    var r = model.runModule(M, msg.spec);
    var transfer = new Set([r.weights.data.buffer, r.output.data.buffer, r.x.data.buffer]);
    self.postMessage({ id: msg.id, result: r }, Array.from(transfer));
  } catch (err) {
    self.postMessage({ id: msg.id, error: String(err && err.message || err) });
  }
}
