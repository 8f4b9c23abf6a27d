// Instantiate from the bytes embedded by SINGLE_FILE. Emscripten's default path fetch()es the
// data: URI first, which a Content-Security-Policy without `connect-src data:` reports as a
// violation. Runs inside Emscripten's closure, so wasmBinaryFile and tryParseAsDataURI are in scope.
Module['instantiateWasm'] = function (imports, receiveInstance) {
  WebAssembly.instantiate(tryParseAsDataURI(wasmBinaryFile), imports).then(
    function (result) { receiveInstance(result.instance, result.module); },
    function (error) { readyPromiseReject(error); });
  return {};
};
