// dist/mha-web.mjs from Emscripten's ES-module output (-sEXPORT_ES6: `export default createMhaCore;`) and the JS API
// as an ES module's end (node wasm/bundle-api.mjs OUT --esm: the tokenizer inside, `export default createMhaModule`,
// no CommonJS): the factory, then the API, as dist/mha.js is for a page and for CommonJS.
//   node wasm/esm.mjs <emscripten output> <the API bundle (--esm)> <out>
import { readFileSync, writeFileSync } from 'node:fs';

const [glueFile, apiFile, out] = process.argv.slice(2);
const glue = readFileSync(glueFile, 'utf8'),
  api = readFileSync(apiFile, 'utf8');
const EXPORT = /\n\s*export default createMhaCore;\s*$/;
if (!EXPORT.test(glue))
  throw new Error(`${glueFile}: no "export default createMhaCore;" at its end (built without -sEXPORT_ES6?)`);
if (/require\(['"](fs|path)['"]\)/.test(glue))
  throw new Error(`${glueFile}: Node's branches are in (built with ENVIRONMENT node?)`);
if (!/\nexport default createMhaModule;\n$/.test(api) || /module\.exports/.test(api))
  throw new Error(`${apiFile}: not the API's ES-module bundle (wasm/bundle-api.mjs OUT --esm)`);
if (/module\.exports\s*=/.test(glue))
  throw new Error(`${glueFile}: assigns module.exports (bundlers warn on it in ESM)`);
writeFileSync(out, glue.replace(EXPORT, '\n') + api);
