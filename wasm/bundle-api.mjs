// The JS API (wasm/api/index.js and the modules it imports) as one script, bundled by esbuild:
//   node wasm/bundle-api.mjs OUT_FILE          a classic script: `var createMhaModule`, and Node's module.exports
//   node wasm/bundle-api.mjs OUT_FILE --esm    the same code ending in `export default createMhaModule`
// wasm/CMakeLists.txt appends it to Emscripten's output (dist/mha*.js; wasm/esm.mjs for dist/mha-web.mjs).
import { buildSync } from 'esbuild';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('./api/index.js', import.meta.url));
const EXPORT = /\nexport\s*\{\s*createMhaModule as default\s*\};\s*$/;

// The bundle's statements, without its export: the modules' top-level names stay inside the caller's wrapper.
function bundleBody() {
  const result = buildSync({ entryPoints: [ENTRY], bundle: true, format: 'esm', write: false, charset: 'utf8' });
  for (const w of result.warnings) throw new Error(`wasm/api: ${w.text}`);
  const text = result.outputFiles[0].text;
  if (!EXPORT.test(text)) throw new Error('wasm/api/index.js must end in `export default ... createMhaModule`');
  return text.replace(EXPORT, '\n');
}

export function bundleApi({ esm = false } = {}) {
  const head = '// MHA Explorer JS API (wasm/api/*.js, bundled by wasm/bundle-api.mjs)\n';
  const body = bundleBody();
  if (esm) return `${head}${body}\nexport default createMhaModule;\n`;
  return (
    `${head}var createMhaModule = (function () {\n'use strict';\n${body}\nreturn createMhaModule;\n})();\n\n` +
    "if (typeof module === 'object' && module.exports) module.exports = createMhaModule;\n"
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  writeFileSync(process.argv[2], bundleApi({ esm: process.argv[3] === '--esm' }));
