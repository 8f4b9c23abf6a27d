// Instantiate from the bytes embedded by SINGLE_FILE (dist/mha-web.mjs: from its .wasm, fetched). Emscripten's
// default path fetch()es the data: URI first, which a Content-Security-Policy without `connect-src data:` reports as a
// violation. Runs inside Emscripten's closure, so wasmBinaryFile and tryParseAsDataURI are in scope.
// A compiled module given as Module.wasmModule (a worker of the page's pool: one compile, posted to every
// worker) is instantiated without compiling; the module compiled here is kept as Module.wasmModule.
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
