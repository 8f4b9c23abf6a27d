// dist/mha-web.mjs from Emscripten's ES-module output (-sEXPORT_ES6: `export default createMhaCore;`) and the JS API
// (the bundle of wasm/api/, wasm/bundle-api.mjs): the factory, then the API, then `export default createMhaModule`, as dist/mha.js is for CommonJS.
//   node wasm/esm.mjs <emscripten output> <the API bundle> <out>
import { readFileSync, writeFileSync } from 'node:fs';

const [glueFile, apiFile, out] = process.argv.slice(2);
const glue = readFileSync(glueFile, 'utf8');
const EXPORT = /\n\s*export default createMhaCore;\s*$/;
if (!EXPORT.test(glue))
  throw new Error(`${glueFile}: no "export default createMhaCore;" at its end (built without -sEXPORT_ES6?)`);
if (/require\(['"](fs|path)['"]\)/.test(glue))
  throw new Error(`${glueFile}: Node's branches are in (built with ENVIRONMENT node?)`);
writeFileSync(out, glue.replace(EXPORT, '\n') + readFileSync(apiFile, 'utf8') + '\nexport default createMhaModule;\n');
