// The JS API (wasm/api/index.js and the modules it imports, the tokenizer with @huggingface/tokenizers among them)
// as one script, bundled by esbuild:
//   node wasm/bundle-api.mjs OUT_FILE          a classic script: `var createMhaModule`, and Node's module.exports
//   node wasm/bundle-api.mjs OUT_FILE --esm    the same code as an ES module's end: `export default createMhaModule`
// wasm/CMakeLists.txt appends it to Emscripten's output (dist/mha*.js; wasm/esm.mjs for dist/mha-web.mjs). The API's
// code stays readable; the tokenizer library is minified (a plugin hands esbuild wasm/tokenizer.mjs pre-bundled).
import { build, buildSync } from 'esbuild';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('./api/index.js', import.meta.url));
const TOKENIZER = fileURLToPath(new URL('./tokenizer.mjs', import.meta.url));
const EXPORT = /\nexport\s*\{\s*createMhaModule as default\s*\};\s*$/;

// wasm/tokenizer.mjs and its library as one minified ES module, in place of the file.
const minifiedTokenizer = {
  name: 'minified-tokenizer',
  setup(b) {
    b.onLoad({ filter: /[\\/]wasm[\\/]tokenizer\.mjs$/ }, () => {
      const r = buildSync({
        entryPoints: [TOKENIZER],
        bundle: true,
        format: 'esm',
        minify: true,
        target: 'es2020',
        write: false,
        legalComments: 'inline',
      });
      return {
        contents: r.outputFiles[0].text,
        loader: 'js',
        resolveDir: fileURLToPath(new URL('.', import.meta.url)),
      };
    });
  },
};

// The bundle's statements, without its export: the modules' top-level names stay inside the caller's wrapper.
async function bundleBody() {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'esm',
    write: false,
    charset: 'utf8',
    plugins: [minifiedTokenizer],
  });
  for (const w of result.warnings) throw new Error(`wasm/api: ${w.text}`);
  const text = result.outputFiles[0].text;
  if (!EXPORT.test(text)) throw new Error('wasm/api/index.js must end in `export default ... createMhaModule`');
  return text.replace(EXPORT, '\n');
}

// Both forms wrap the modules in one function, so that only createMhaModule meets the names of Emscripten's output.
export async function bundleApi({ esm = false } = {}) {
  const head = '// MHA Explorer JS API (wasm/api/*.js, bundled by wasm/bundle-api.mjs)\n';
  const body = `(function () {\n'use strict';\n${await bundleBody()}\nreturn createMhaModule;\n})();\n`;
  if (esm) return `${head}const createMhaModule = ${body}\nexport default createMhaModule;\n`;
  return (
    `${head}var createMhaModule = ${body}\n` +
    "if (typeof module === 'object' && module.exports) module.exports = createMhaModule;\n"
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  writeFileSync(process.argv[2], await bundleApi({ esm: process.argv[3] === '--esm' }));
