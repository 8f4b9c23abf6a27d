// Instantiate from the bytes embedded by SINGLE_FILE. Emscripten's default path fetch()es the
// data: URI first, which a Content-Security-Policy without `connect-src data:` reports as a
// violation. Runs inside Emscripten's closure, so wasmBinaryFile and tryParseAsDataURI are in scope.
// A compiled module given as Module.wasmModule (a worker of the page's pool: one compile, posted to every
// worker) is instantiated without compiling; the module compiled here is kept as Module.wasmModule.
Module['instantiateWasm'] = function (imports, receiveInstance) {
  var given = Module['wasmModule'];
  var instantiated = given
    ? WebAssembly.instantiate(given, imports).then(function (instance) { return { instance: instance, module: given }; })
    : WebAssembly.instantiate(tryParseAsDataURI(wasmBinaryFile), imports);
  instantiated.then(
    function (result) { Module['wasmModule'] = result.module; receiveInstance(result.instance, result.module); },
    function (error) { readyPromiseReject(error); });
  return {};
};
