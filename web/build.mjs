#!/usr/bin/env node
// Builds the static page (web/) into dist/, next to the mha.js / mha-relaxed.js / mha-nosimd.js that scripts/build
// makes. The main page is ES modules (entries/page.js and its imports → app.js; worker.js): esbuild bundles each entry
// into one classic script (Chromium blocks module scripts on file://, so dist/index.html keeps working from a file).
// The other files are copied.  Usage: node web/build.mjs [--out DIR]
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { buildSync, transformSync } from 'esbuild';
import { PAGE_PROPS } from './state/page.js';
import { LAB_PROPS } from './state/lab.js';
import { DEFAULT_SCALE, SCALES } from './state/scales.js';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const outIdx = args.indexOf('--out');
const out = resolve(outIdx >= 0 ? args[outIdx + 1] : join(here, '..', 'dist'));

// dist/ name → its source in web/ (copied as it is).
const FILES = {
  'style.css': 'style.css',
  'element-demo.html': 'element-demo.html',
  'lab.css': 'lab/lab.css',
  'models.css': 'models/models.css',
};
// The three pages, each web/page.html filled in: its title and description, its stylesheets, its script (a bundle
// below), its one-file twin (named by the note shown when the script is missing) and what <noscript> says.
const PAGES = {
  'index.html': {
    title: 'MHA Explorer — multi-head attention, live',
    description:
      "Every head's attention and the shape trace of multi-head attention, computed in your browser with the same numbers as PyTorch.",
    styles: ['style.css'],
    script: 'app.js',
    oneFile: 'mha-explorer.html',
    needs: 'MHA Explorer needs JavaScript and WebAssembly.',
  },
  'lab.html': {
    title: 'MHA Explorer — training lab: watch attention heads learn their roles',
    description:
      'Train a tiny attention model in your browser, watch its heads specialize, and take the same run into PyTorch.',
    styles: ['style.css', 'lab.css'],
    script: 'lab.js',
    oneFile: 'mha-explorer-lab.html',
    needs: 'The training lab needs JavaScript, WebAssembly and Web Workers.',
  },
  'models.html': {
    title: 'MHA Explorer — real models: every head of every layer',
    description:
      'Drop a GPT-2, BERT, DistilBERT, Llama-style (Mistral, Qwen), Pythia, TinyStories, OPT, Phi, Gemma, Gemma 2, Gemma 3, RoBERTa, XLM-R or ModernBERT model folder and see every head of every layer, what each head does, and what the model predicts without it, computed in your browser.',
    styles: ['style.css', 'models.css'],
    script: 'models.js',
    oneFile: 'mha-explorer-models.html',
    needs: 'The model page needs JavaScript and WebAssembly.',
  },
};
const PAGE_TEMPLATE = readFileSync(join(here, 'page.html'), 'utf8');
const escapeHtml = (s) => s.replace(/[&<>"]/g, (c) => '&#' + c.charCodeAt(0) + ';');
// The page named in dist/ as HTML: web/page.html with every {{field}} filled from PAGES.
function pageHtml(name) {
  const page = PAGES[name];
  const fields = {
    ...page,
    stylesheets: page.styles.map((f) => `<link rel="stylesheet" href="${f}">`).join('\n'),
  };
  return PAGE_TEMPLATE.replace(/\{\{(\w+)\}\}/g, (_, field) => {
    if (typeof fields[field] !== 'string') throw new Error(`web/page.html: ${name} has no {{${field}}}`);
    return field === 'stylesheets' ? fields[field] : escapeHtml(fields[field]);
  });
}
// ES-module entries (dist/ name → source in web/), each bundled with its imports into a classic script; trainer.js
// alone also sets window.MhaTrainer (for scripts and tests that drive the training worker without the lab).
const BUNDLES = {
  'app.js': 'entries/page.js',
  'worker.js': 'compute/forward-worker.js',
  'mha-explorer-element.js': 'entries/element.js',
  'lab.js': 'entries/lab.js',
  'trainer.js': 'compute/trainer.js',
  'models.js': 'entries/models.js',
};
// The bundles that start forward workers (the page, the element's explorer) carry the worker's code.
const STARTS_WORKERS = new Set(['app.js', 'mha-explorer-element.js']);
const GLOBAL_NAMES = { 'trainer.js': 'MhaTrainer' };
// Imported as text: the lessons' Python (web/lessons/*.py), the lab's markup (web/lab/markup.html) and the
// stylesheets (for shadow roots).
const LOADER = { '.py': 'text', '.html': 'text', '.css': 'text' };
// What every esbuild build here shares.
const COMMON = { bundle: true, loader: LOADER, charset: 'utf8', legalComments: 'none', logLevel: 'warning' };

mkdirSync(out, { recursive: true });
for (const [name, source] of Object.entries(FILES)) copyFileSync(join(here, source), join(out, name));
for (const name of Object.keys(PAGES)) writeFileSync(join(out, name), pageHtml(name));
const minified = (entry, format = 'iife', define = {}) =>
  buildSync({
    ...COMMON,
    entryPoints: [join(here, entry)],
    write: false,
    format,
    target: 'es2019',
    minify: true,
    define,
  }).outputFiles[0].text;
// The forward worker's code (web/compute/forward-worker.js and its imports) as a string in the page's script: from file:// and in
// the one-file page, its workers start from a blob: URL of the core's text and this (web/compute/source.js).
const pageDefine = { MHA_FORWARD_WORKER: JSON.stringify(minified(BUNDLES['worker.js'])) };
// The training worker's code for every bundle (web/compute/trainer.js: over http(s) its worker imports the core by URL,
// so the hosted lab and the npm package need no trainer-<build>.js; an unused define costs nothing).
const workerCode = readFileSync(join(here, 'compute', 'trainer-worker.js'), 'utf8');
const trainerDefine = { MHA_TRAINER_WORKER: JSON.stringify(workerCode) };
// The model page's worker (web/models/model-worker.js: the core and the loaded model off the page's thread) as a
// string in the bundles that hold the model page (web/models/model-host.js starts it from a blob: URL).
const modelDefine = { MHA_MODEL_WORKER: JSON.stringify(minified('models/model-worker.js')) };
const HOLDS_MODEL_PAGE = new Set(['models.js', 'mha-explorer-element.js']);
for (const [name, entry] of Object.entries(BUNDLES)) {
  buildSync({
    ...COMMON,
    entryPoints: [join(here, entry)],
    outfile: join(out, name),
    format: 'iife',
    globalName: GLOBAL_NAMES[name],
    target: 'es2019',
    define: {
      ...(STARTS_WORKERS.has(name) ? pageDefine : {}),
      ...trainerDefine,
      ...(HOLDS_MODEL_PAGE.has(name) ? modelDefine : {}),
    },
    banner: { js: `// Generated by web/build.mjs (esbuild) from web/${entry} and its imports.` },
  });
}

// The attention view as one ES module with no imports: mountAttention and the anywidget front end (≤ 150 KB).
const VIEW = { ...COMMON, entryPoints: [join(here, 'entries', 'view.js')], target: 'es2020', minify: true };
buildSync({
  ...VIEW,
  outfile: join(out, 'mha-explorer-view.js'),
  format: 'esm',
  banner: {
    js: '// MHA Explorer attention view (mountAttention, anywidget render). Generated by web/build.mjs (esbuild) from web/entries/view.js.',
  },
});

// The same entry as a classic script for the Python package (python/mha_explorer): notebook front ends insert
// outputs with jQuery or innerHTML, where module scripts do not run; the package wraps it in a function, so the
// global name stays local to each output.
buildSync({
  ...VIEW,
  outfile: join(out, 'mha-explorer-view-classic.js'),
  format: 'iife',
  globalName: 'MhaExplorerView',
  banner: {
    js: '// MHA Explorer attention view as a classic script. Generated by web/build.mjs (esbuild) from web/entries/view.js.',
  },
});

const cores = ['mha.js', 'mha-relaxed.js', 'mha-nosimd.js'].filter((f) => existsSync(join(out, f)));
// Each core build as text, in a classic script (dist/trainer-<build>.js) that sets MHA_CORE_TEXT[<build>] and
// MHA_TRAINER_SOURCE, that text and web/compute/trainer-worker.js as one worker source: from file://, where Chromium
// refuses worker scripts and importScripts, the lab's training workers (web/compute/trainer.js) and the page's forward
// workers (web/compute/source.js) start from blob: URLs of it. Not in the npm package (served, they import the core).
for (const core of cores) {
  const build = JSON.stringify(core.replace(/\.js$/, ''));
  writeFileSync(
    join(out, `trainer-${core}`),
    `// Generated by web/build.mjs: ${core} as text, and with web/compute/trainer-worker.js as one worker source.\n` +
      `var MHA_CORE_TEXT = MHA_CORE_TEXT || {};\nMHA_CORE_TEXT[${build}] = ${JSON.stringify(readFileSync(join(out, core), 'utf8'))};\n` +
      `var MHA_TRAINER_SOURCE = MHA_CORE_TEXT[${build}] + '\\n' + ${JSON.stringify(workerCode)};\n`,
  );
}

// The one-file pages (web/compute/source.js reads what they carry): one document holding the page and the lab, written
// under two names (the view each opens first), styles and scripts inline, each core build once (its JS with the wasm
// cut out, and the wasm bytes, each gzip then base64; the page unpacks them with DecompressionStream), shared by the
// page's script and its workers, which start from blob: URLs.
const ONE_FILE = { page: 'mha-explorer.html', lab: 'mha-explorer-lab.html' };
const ONE_FILE_LIMIT = 1.5e6;
const WASM_BASE64 = /(data:application\/octet-stream;base64,)([A-Za-z0-9+/=]{100,})/;
const WASM_PLACEHOLDER = '@MHA_WASM_BASE64@'; // web/compute/source.js's
const gzip64 = (bytes) => gzipSync(bytes, { level: 9 }).toString('base64');
// Text safe inside an inline <script>: no "</script" and no "<!--" that would end or confuse it.
const inlineSafe = (js) => js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');

const varint = (n) => {
  const bytes = [];
  for (; n >= 128; n = Math.floor(n / 128)) bytes.push((n % 128) | 128);
  bytes.push(n);
  return Buffer.from(bytes);
};
// `to` as a delta against `from` (bytes): varint(to's length), then [varint n, n literal bytes, varint length, varint
// offset in from] repeated (web/compute/source.js's undelta). Greedy over 16-byte matches found at every 4th offset
// of `from`: mha-relaxed.wasm is mha.wasm with its multiply-adds fused, a delta of a few kB.
function deltaOf(from, to) {
  const K = 16,
    index = new Map();
  for (let i = 0; i + K <= from.length; i += 4) {
    const key = from.toString('latin1', i, i + K);
    if (!index.has(key)) index.set(key, i);
  }
  const parts = [varint(to.length)];
  let literal = 0,
    i = 0;
  while (i < to.length) {
    const at = i + K <= to.length ? index.get(to.toString('latin1', i, i + K)) : undefined;
    if (at === undefined) {
      i++;
      continue;
    }
    let n = K;
    while (at + n < from.length && i + n < to.length && from[at + n] === to[i + n]) n++;
    parts.push(varint(i - literal), to.subarray(literal, i), varint(n), varint(at));
    i += n;
    literal = i;
  }
  parts.push(varint(to.length - literal), to.subarray(literal));
  return Buffer.concat(parts);
}
// A part (glue or wasm) of a later build: gzip+base64 of itself, or of its delta against the first build's when that
// is smaller ({<part>Delta: {of, ops}}).
function packedPart(name, bytes, first) {
  const whole = gzip64(bytes);
  if (!first) return { [name]: whole };
  const ops = gzip64(deltaOf(first.bytes[name], bytes));
  return ops.length < whole.length ? { [name + 'Delta']: { of: first.build, ops } } : { [name]: whole };
}

function inlineCores() {
  const data = {};
  let first = null;
  for (const core of cores) {
    const text = readFileSync(join(out, core), 'utf8');
    const m = text.match(WASM_BASE64);
    if (!m || text.indexOf(WASM_PLACEHOLDER) >= 0) throw new Error(`${core}: no embedded wasm to cut out`);
    const bytes = {
      glue: Buffer.from(text.replace(WASM_BASE64, '$1' + WASM_PLACEHOLDER)),
      wasm: Buffer.from(m[2], 'base64'),
    };
    const build = core.replace(/\.js$/, '');
    // mha.js and mha-nosimd.js have the same glue: carried once, the second names the first (glueOf)
    const same = first && first.bytes.glue.equals(bytes.glue);
    data[build] = {
      ...(same ? { glueOf: first.build } : packedPart('glue', bytes.glue, first)),
      ...packedPart('wasm', bytes.wasm, first),
    };
    first = first || { build, bytes };
  }
  return data;
}

// The one-file document: the page (index.html) with both stylesheets inline, the course entry (the page and the lab,
// web/entries/course.js) and MHA_INLINE; name: its file name; start: the view it shows when its address has no query.
function writeOneFile(name, start, coreData, trainer) {
  const data = { files: { page: name, lab: name }, start, cores: coreData, workers: { trainer } };
  const styles = ['style.css', 'lab.css'];
  const css = styles.map((f) => readFileSync(join(here, FILES[f]), 'utf8')).join('\n');
  let page = pageHtml('index.html');
  const replaceOnce = (from, to) => {
    if (page.indexOf(from) < 0) throw new Error(`index.html: no ${from}`);
    page = page.replace(from, () => to);
  };
  replaceOnce('<link rel="stylesheet" href="style.css">\n', `<style>\n${css}</style>\n`);
  replaceOnce(
    '<script src="app.js"></script>',
    `<script>window.MHA_INLINE = ${inlineSafe(JSON.stringify(data))};</script>\n` +
      `<script>${inlineSafe(minified('entries/course.js', 'iife', pageDefine))}</script>`,
  );
  // everything is inline here, so no script can be missing: no note for that (web/page.html's boot-note)
  page = page.replace(/<style>\/\* the note below[^]*?<\/style>\n/, '').replace(/<p id="boot-note"[^]*?<\/p>\n/, '');
  if (/id="boot-note"|mha-boot/.test(page)) throw new Error('index.html: the boot note was not removed');
  if (start === 'lab') page = page.replace(/<title>[^<]*<\/title>/, () => `<title>${PAGES['lab.html'].title}</title>`);
  page = page.replace(
    '<!doctype html>\n',
    '<!doctype html>\n<!-- MHA Explorer as one file, the page and the training lab (web/build.mjs): ' +
      'open it from a disk, a course platform or an e-mail. -->\n',
  );
  writeFileSync(join(out, name), page);
  const bytes = Buffer.byteLength(page);
  if (bytes > ONE_FILE_LIMIT) throw new Error(`web/build.mjs: ${name} has ${bytes} bytes, more than ${ONE_FILE_LIMIT}`);
  return `${name} ${(bytes / 1e6).toFixed(2)} MB`;
}
const oneFiles = [];
if (cores.length) {
  const coreData = inlineCores();
  const trainer = transformSync(workerCode, { minify: true, target: 'es2019', legalComments: 'none' }).code;
  oneFiles.push(writeOneFile(ONE_FILE.page, 'page', coreData, trainer));
  oneFiles.push(writeOneFile(ONE_FILE.lab, 'lab', coreData, trainer));
}
// The model page as one file, holding no weights (the student drops a model folder on it): models.html with its
// styles, its script and the core builds inline, its links to the page and the lab naming their one-file pages.
if (cores.length) oneFiles.push(writeModelsOneFile('mha-explorer-models.html', inlineCores()));
function writeModelsOneFile(name, coreData) {
  const data = { files: { page: ONE_FILE.page, lab: ONE_FILE.lab }, cores: coreData, workers: {} };
  const css = ['style.css', 'models.css'].map((f) => readFileSync(join(here, FILES[f]), 'utf8')).join('\n');
  const page = pageHtml('models.html')
    .replace(
      '<link rel="stylesheet" href="style.css">\n<link rel="stylesheet" href="models.css">\n',
      () => `<style>\n${css}</style>\n`,
    )
    .replace(
      '<script src="models.js"></script>',
      () =>
        `<script>window.MHA_INLINE = ${inlineSafe(JSON.stringify(data))};</script>\n` +
        `<script>${inlineSafe(minified(BUNDLES['models.js'], 'iife', modelDefine))}</script>`,
    )
    .replace(/<style>\/\* the note below[^]*?<\/style>\n/, '')
    .replace(/<p id="boot-note"[^]*?<\/p>\n/, '')
    .replace(
      '<!doctype html>\n',
      "<!doctype html>\n<!-- MHA Explorer's model page as one file (web/build.mjs): drop a model folder on it. -->\n",
    );
  if (/href="models\.css"|src="models\.js"|id="boot-note"/.test(page))
    throw new Error('models.html: its stylesheets, script or boot note were not inlined');
  writeFileSync(join(out, name), page);
  return `${name} ${(Buffer.byteLength(page) / 1e6).toFixed(2)} MB`;
}
// The Python package's data (not in git): the view and, once built, the one-file pages.
const packageStatic = join(here, '..', 'python', 'mha_explorer', 'static');
mkdirSync(packageStatic, { recursive: true });
for (const f of [
  'mha-explorer-view.js',
  'mha-explorer-view-classic.js',
  'mha-explorer.html',
  'mha-explorer-lab.html',
  'mha-explorer-models.html',
]) {
  if (existsSync(join(out, f))) copyFileSync(join(out, f), join(packageStatic, f));
}
// The pages' URL parameters (web/state/page.js's and web/state/lab.js's property lists) for the package's checks of
// mx.explore(**page_params) / mx.lab(**lab_params): {page: [prop], lab: [prop]}, prop = {name, type: int | number |
// bool | enum | list | text, values?, min?, max?, maxLength?, help?}. The lab's task names come from the core's task
// table (its preset is train-<task>).
const param = (p, type) =>
  Object.fromEntries(
    Object.entries({
      name: p.name,
      type,
      values: p.values,
      min: p.min,
      max: p.max,
      maxLength: p.maxLength,
      help: p.help,
    }).filter(([, v]) => v !== undefined),
  );
async function labTasks() {
  const core = cores.find((c) => c === 'mha-nosimd.js') || cores[0];
  if (!core) return [];
  const M = await createRequire(import.meta.url)(join(out, core))();
  return M.taskTable.map((t) => t.name);
}
const tasks = await labTasks();
const params = {
  page: PAGE_PROPS.map((p) => param(p, p.type)),
  lab: [
    {
      name: 'preset',
      type: 'enum',
      values: tasks.map((t) => 'train-' + t),
      help: 'the training task, as train-<task>',
    },
  ].concat(LAB_PROPS.map((p) => param(p.name === 'task' ? { ...p, values: tasks } : p, p.type))),
};
writeFileSync(join(packageStatic, 'params.json'), JSON.stringify(params, null, 1) + '\n');
// The colour scales (web/state/scales.js) for the package's static PNG: {default, scales: [{name, label, anchors}]}.
writeFileSync(
  join(packageStatic, 'scales.json'),
  JSON.stringify({ default: DEFAULT_SCALE, scales: SCALES }, null, 1) + '\n',
);
console.log(
  `web/build.mjs: ${Object.keys(FILES).length + Object.keys(PAGES).length} files, ${Object.keys(BUNDLES).length} bundles and mha-explorer-view.js -> ${out}` +
    (cores.length
      ? ` (core: ${cores.join(', ')}; one-file pages: ${oneFiles.join(', ')})`
      : ' (warning: no mha.js yet; run scripts/build)'),
);
