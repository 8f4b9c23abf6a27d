#!/usr/bin/env node
// Copies the static page (web/) into dist/, next to the mha.js / mha-relaxed.js / mha-nosimd.js that scripts/build
// makes. No dependencies, no bundling step needed: every file is a classic script, so dist/index.html
// also works when opened from file://.  Usage: node web/build.mjs [--out DIR]
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const outIdx = args.indexOf('--out');
const out = resolve(outIdx >= 0 ? args[outIdx + 1] : join(here, '..', 'dist'));

const FILES = ['index.html', 'style.css', 'state.js', 'model.js', 'presets.js', 'widgets.js', 'app.js', 'worker.js',
  'mha-explorer-element.js', 'element-demo.html'];

mkdirSync(out, { recursive: true });
for (const f of FILES) copyFileSync(join(here, f), join(out, f));

const cores = ['mha.js', 'mha-relaxed.js', 'mha-nosimd.js'].filter((f) => existsSync(join(out, f)));
console.log(`web/build.mjs: ${FILES.length} files -> ${out}` +
  (cores.length ? ` (core: ${cores.join(', ')})` : ' (warning: no mha.js yet; run scripts/build)'));
