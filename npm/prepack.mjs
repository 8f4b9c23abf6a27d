#!/usr/bin/env node
// `npm pack` / `npm publish` run this first ("prepack"): the package ships dist/, which is not in git. The core
// builds need Emscripten (scripts/build, minutes); this checks they are there and newer than the sources they are
// built from, then rebuilds the page files from web/ (esbuild, a second) so they match the sources.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CORES = ['mha.js', 'mha-nosimd.js', 'mha-relaxed.js', 'mha-web.mjs', 'mha-web.wasm'];
// What the core builds are linked from (each change relinks them, which rewrites dist/): a newer file needs scripts/build.
const CORE_SOURCES = ['core/include', 'core/src', 'wasm'];
const LINKED = /\.(cpp|hpp|h)$|^wasm\/(api|pre)\.js$|^wasm\/esm\.mjs$/;

function newest(dir) {
  let best = { file: null, mtime: 0 };
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const found = entry.isDirectory()
      ? newest(path)
      : LINKED.test(relative(root, path))
        ? { file: path, mtime: statSync(path).mtimeMs }
        : best;
    if (found.mtime > best.mtime) best = found;
  }
  return best;
}

function fail(message) {
  console.error(`\nmha-explorer prepack: ${message}\n`);
  process.exit(1);
}

const missing = CORES.filter((f) => !existsSync(join(root, 'dist', f)));
if (missing.length) {
  fail(
    `dist/${missing.join(', dist/')} missing. The package ships the WebAssembly builds, which need Emscripten:\n` +
      '  bash scripts/build     (installs what is missing with scripts/install-deps, then builds dist/)\nthen run npm pack again.',
  );
}
const source = CORE_SOURCES.map((d) => newest(join(root, d))).reduce((a, b) => (b.mtime > a.mtime ? b : a));
for (const f of CORES) {
  if (statSync(join(root, 'dist', f)).mtimeMs < source.mtime) {
    fail(
      `dist/${f} is older than ${relative(root, source.file)}: rebuild it with bash scripts/build, then run npm pack again.`,
    );
  }
}
// stdout stays npm's own (npm pack --json prints JSON there).
execFileSync(process.execPath, [join(root, 'web', 'build.mjs')], { stdio: ['ignore', 2, 2] });
