// Instantiate from the bytes embedded by SINGLE_FILE (dist/mha-web.mjs: from its .wasm, fetched). Emscripten's
// default path fetch()es the data: URI first, which a Content-Security-Policy without `connect-src data:` reports as a
// violation. Runs inside Emscripten's closure, so wasmBinaryFile and tryParseAsDataURI are in scope.
// A compiled module given as Module.wasmModule (a worker of the page's pool: one compile, posted to every
// worker) is instantiated without compiling; the module compiled here is kept as Module.wasmModule.
/* global wasmMemory, updateGlobalBufferAndViews, PThread */
// A pthread worker of dist/mha-threads.js brings its own (Emscripten's worker.js: the module posted to it).
var mhaPthreadInstantiate = Module['instantiateWasm'];
Module['instantiateWasm'] = function (imports, receiveInstance) {
  var given = Module['wasmModule'];
  // the SINGLE_FILE builds carry the bytes; dist/mha-web.mjs (no SINGLE_FILE, no tryParseAsDataURI) fetches its .wasm
  var embedded = typeof tryParseAsDataURI === 'function' ? tryParseAsDataURI(wasmBinaryFile) : null;
  var instantiated = given
    ? WebAssembly.instantiate(given, imports).then(function (instance) {
        return { instance: instance, module: given };
      })
    : embedded
      ? WebAssembly.instantiate(embedded, imports)
      : fetch(wasmBinaryFile, { credentials: 'same-origin' })
          .then(function (response) {
            if (!response.ok)
              throw new Error(
                "the core's " +
                  wasmBinaryFile +
                  ' did not load (HTTP ' +
                  response.status +
                  '): ship it beside mha-web.mjs',
              );
            return response.arrayBuffer();
          })
          .then(function (bytes) {
            return WebAssembly.instantiate(bytes, imports);
          });
  instantiated.then(
    function (result) {
      Module['wasmModule'] = result.module;
      receiveInstance(result.instance, result.module);
    },
    function (error) {
      readyPromiseReject(error);
    },
  );
  return {};
};
if (mhaPthreadInstantiate) Module['instantiateWasm'] = mhaPthreadInstantiate;

// dist/mha-threads.js: a pthread that grows the shared heap leaves this thread's views short until Emscripten's
// own code next looks; the API (wasm/api/, appended outside this closure) reads Module.HEAP* directly, so each
// read renews the views when the memory's buffer changed.
['HEAP8', 'HEAPU8', 'HEAP16', 'HEAPU16', 'HEAP32', 'HEAPU32', 'HEAPF32', 'HEAPF64'].forEach(function (name) {
  var view;
  Object.defineProperty(Module, name, {
    configurable: true,
    get: function () {
      if (view && typeof wasmMemory === 'object' && wasmMemory && view.buffer !== wasmMemory.buffer)
        updateGlobalBufferAndViews(wasmMemory.buffer);
      return view;
    },
    set: function (v) {
      view = v;
    },
  });
});

// dist/mha-threads.js under Node: its pthread workers (worker_threads) must not keep the process alive once the
// program is done (the JS API calls this after each change of the pool's size).
Module['mhaUnrefWorkers'] = function () {
  if (typeof PThread !== 'object' || !PThread) return;
  PThread.unusedWorkers.concat(PThread.runningWorkers).forEach(function (w) {
    if (w && typeof w.unref === 'function') w.unref();
  });
};
