// wasm/tokenizer.mjs and @huggingface/tokenizers as one classic script defining `MhaTokenizer` (an esbuild IIFE).
// wasm/CMakeLists.txt places it before api.js in dist/mha*.js:  node wasm/bundle-tokenizer.mjs OUT_FILE
import { buildSync } from 'esbuild';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function bundleTokenizer() {
  const result = buildSync({
    entryPoints: [fileURLToPath(new URL('./tokenizer.mjs', import.meta.url))],
    bundle: true,
    format: 'iife',
    globalName: 'MhaTokenizer',
    minify: true,
    target: 'es2020',
    write: false,
    legalComments: 'inline',
  });
  return result.outputFiles[0].text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeFileSync(process.argv[2], bundleTokenizer());
