// The npm package as a user gets it: `npm pack`, then a fresh project that installs the tarball and uses it —
// the README's quick start runs as written, require and import run lesson 002's module test (docs/js-api.md's
// example), tsc --strict accepts the typed examples and the docs' examples and rejects wrong calls, the declarations
// name exactly what the module defines, a Vite site
// bundles the element, the view and the core, and a plain page loads the element from the installed package on
// another origin served as a CDN serves it (.html as text/plain). Needs dist/ (scripts/build) and the dev dependencies.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { serve } from '../../scripts/serve.mjs';
import { checkDocs, docFiles, sizeTexts } from '../../npm/sizes.mjs';
import { launch, guardedPage, settledHeight, ARTIFACTS } from '../browser/helpers.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const ts = require('typescript');
const esbuild = require('esbuild');
const TSC = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
const VITE = join(repo, 'node_modules', 'vite', 'bin', 'vite.js');
const MAX_PACKED = 3 * 1024 * 1024;

// What the package may hold: the built page, lab, element, view and cores, the ESM entry, the declarations, and
// what npm always adds. Required: what the docs' instructions use.
const INTENDED = [
  /^dist\/[^/]+\.(js|html|css)$/,
  /^dist\/mha-web\.(mjs|wasm)$/,
  /^npm\/(index|browser)\.mjs$/,
  /^types\/[^/]+\.d\.(ts|mts)$/,
  /^(package\.json|README\.md|LICENSE)$/,
];
const REQUIRED = [
  'dist/mha.js',
  'dist/mha-nosimd.js',
  'dist/mha-relaxed.js',
  'dist/index.html',
  'dist/app.js',
  'dist/worker.js',
  'dist/style.css',
  'dist/lab.html',
  'dist/lab.js',
  'dist/lab.css',
  'dist/mha-explorer-element.js',
  'dist/mha-explorer-view.js',
  'dist/mha-web.mjs',
  'dist/mha-web.wasm',
  'npm/index.mjs',
  'npm/browser.mjs',
  'types/index.d.ts',
  'types/view.d.mts',
  'types/element.d.ts',
  'package.json',
  'README.md',
  'LICENSE',
];
// a demo page; the tests' standalone trainer; the lab's file:// workers (each a core build's text: served, the lab's
// workers import the core instead); the one-file pages (for course platforms, made by scripts/build: they would take
// the package past 3 MB and the npm page files do the same from node_modules or a CDN)
const NOT_SHIPPED = [
  'dist/element-demo.html',
  'dist/trainer.js',
  'dist/trainer-mha.js',
  'dist/trainer-mha-nosimd.js',
  'dist/trainer-mha-relaxed.js',
  'dist/mha-explorer.html',
  'dist/mha-explorer-lab.html',
  'dist/mha-explorer-models.html',
];

// A command's stdout; when it fails, an error with the end of its output (a throw inside dist/mha.js would print
// the whole one-line build).
function run(cmd, args, opts = {}) {
  try {
    return execFileSync(cmd, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 << 20,
      ...opts,
    });
  } catch (e) {
    const tail = (s) =>
      String(s || '')
        .split('\n')
        .filter((l) => l.length < 500)
        .slice(-30)
        .join('\n');
    throw Object.assign(
      new Error(`${[cmd, ...args].join(' ')} failed (${e.status}):\n${tail(e.stdout)}\n${tail(e.stderr)}`),
      { stdout: e.stdout, stderr: e.stderr },
    );
  }
}
const npm = (args, cwd) => run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd });

let work, project, pkg, packed;
before(() => {
  work = mkdtempSync(join(tmpdir(), 'mha-npm-'));
  packed = JSON.parse(npm(['pack', '--json', '--pack-destination', work], repo))[0];
  project = join(work, 'course-site');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'course-site', version: '1.0.0', private: true }),
  );
  npm(['install', '--offline', join(work, packed.filename)], project);
  pkg = join(project, 'node_modules', 'mha-explorer');
});
after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function checkFiles(paths, what) {
  const stray = paths.filter((p) => !INTENDED.some((re) => re.test(p)) || NOT_SHIPPED.includes(p));
  assert.deepEqual(stray, [], `${what} holds files a user does not need`);
  assert.deepEqual(
    REQUIRED.filter((p) => !paths.includes(p)),
    [],
    `${what} lacks files`,
  );
}

test('npm pack: at most 3 MB, only the files a user needs', () => {
  const paths = packed.files.map((f) => f.path).sort();
  console.log(
    `# ${packed.filename}: ${(packed.size / 1048576).toFixed(2)} MB packed, ${(packed.unpackedSize / 1048576).toFixed(2)} MB unpacked, ` +
      `${paths.length} files: ${paths.join(' ')}`,
  );
  assert.ok(packed.size <= MAX_PACKED, `packed ${packed.size} bytes`);
  checkFiles(paths, 'the tarball');
});

test('the sizes the docs state are the measured ones (npm/sizes.mjs --write puts them there)', () => {
  const texts = sizeTexts(packed);
  console.log(
    `# measured: npm package ${texts.npm}, one-file page ${texts['one-file']}; docs: ${docFiles()
      .map((f) => f.slice(repo.length + 1))
      .join(', ')}`,
  );
  assert.deepEqual(
    checkDocs(texts),
    [],
    'run node npm/sizes.mjs --write after a build, and write sizes only between its markers',
  );
});

test('npm publish --dry-run lists the same files', () => {
  const report = JSON.parse(npm(['publish', '--dry-run', '--json'], repo));
  const paths = (report.files || report['mha-explorer'].files).map((f) => f.path).sort();
  checkFiles(paths, 'npm publish --dry-run');
  assert.deepEqual(paths, packed.files.map((f) => f.path).sort());
});

// The code blocks of the pages that show the package's JS and TypeScript: the README's quick start (it requires the
// package), the JS API's lesson 002 module test and the training example (they require dist/mha.js; in the project
// they require or import the package), the attention view's example and the npm page's TypeScript.
const DOCS = ['README.md', 'docs/js-api.md', 'docs/training.md', 'docs/attention-view.md', 'docs/npm.md'];
const blocksOf = (file, lang = 'js') =>
  [...readFileSync(join(repo, file), 'utf8').matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map(
    (m) => m[1],
  );
const docBlocks = (lang = 'js') => DOCS.flatMap((file) => blocksOf(file, lang).map((code, i) => ({ file, i, code })));
const REQUIRE_DIST = "const createMhaModule = require('./dist/mha.js');";
const REQUIRE_PACKAGE = "const createMhaModule = require('mha-explorer');";
// What a block's `console.log(…);  // printed` comments say it prints.
const saidBy = (code) => [...code.matchAll(/console\.log\(.*\);\s*\/\/ (.+)$/gm)].map((m) => m[1].trim());

function checkLesson002(out, how) {
  assert.match(out, /Output shape: \[ 2, 5, 32 \] weights: \[ 2, 4, 5, 5 \]/, how);
  assert.match(out, /Total parameters: 4,224/, how);
  assert.match(out, /q0 = x0 @ W: 0\.0465 0\.4481 0\.3035 1\.1985 1\.6100 -0\.9023 -2\.0339 -1\.0991/, how); // torch.manual_seed(1)
  assert.match(out, /transpose\s+\[2,4,5,8\] \(not contiguous\)/, how);
  assert.match(out, /Final output: \[ 2, 4, 8 \]/, how);
}

test("the README's quick start runs as written in a project that installed the package, and prints what it says", () => {
  const [quick] = blocksOf('README.md');
  assert.ok(quick && quick.includes(REQUIRE_PACKAGE), "the README's quick start requires the package");
  writeFileSync(join(project, 'quick-start.js'), quick);
  const out = run(process.execPath, ['quick-start.js'], { cwd: project });
  const said = saidBy(quick);
  assert.ok(said.length >= 2, 'the quick start says what it prints');
  assert.deepEqual(out.trim().split('\n'), said, 'the quick start prints what its comments say');
});

test("require('mha-explorer') and import createMhaModule from 'mha-explorer' run lesson 002's module test", () => {
  const example = blocksOf('docs/js-api.md')[0];
  assert.ok(example.includes(REQUIRE_DIST), "docs/js-api.md's first example requires dist/mha.js");
  writeFileSync(
    join(project, 'lesson002.cjs'),
    example.replace(REQUIRE_DIST, "const createMhaModule = require('mha-explorer');"),
  );
  writeFileSync(
    join(project, 'lesson002.mjs'),
    example.replace(REQUIRE_DIST, "import createMhaModule from 'mha-explorer';"),
  );
  const cjs = run(process.execPath, ['lesson002.cjs'], { cwd: project });
  const esm = run(process.execPath, ['lesson002.mjs'], { cwd: project });
  console.log(
    '# require:\n' +
      cjs
        .trim()
        .split('\n')
        .map((l) => '#   ' + l)
        .join('\n'),
  );
  checkLesson002(cjs, 'require');
  checkLesson002(esm, 'import');
  assert.equal(esm, cjs, 'import and require print the same');
});

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noEmit: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    lib: ['es2022', 'dom'],
    types: [],
    skipLibCheck: false,
  },
};
function tsc(dir, files, options = {}) {
  const config = { ...TSCONFIG, compilerOptions: { ...TSCONFIG.compilerOptions, ...options }, files };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config, null, 1));
  try {
    return { ok: true, out: run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: dir }) };
  } catch (e) {
    return { ok: false, out: e.stdout + e.stderr };
  }
}

// The docs' examples as TypeScript: the package instead of dist/ paths; the view example's free variables
// declared, and its querySelector known to find the element (a TypeScript user writes the `!`).
function docsAsTypeScript() {
  return docBlocks()
    .map(({ file, i, code }) => {
      const name = `${file.replace(/\W+/g, '-')}-${i}`;
      for (const required of [REQUIRE_DIST, REQUIRE_PACKAGE]) {
        if (code.includes(required))
          return {
            name: `${name}.cts`,
            text: code.replace(required, "import createMhaModule = require('mha-explorer');"),
          };
      }
      if (code.includes("from 'mha-explorer'")) {
        // docs/npm.md's Vite example: an ES module of the package (tests/npm/bundlers.test.mjs runs it)
        const text = code.replace(/document\.querySelector\(([^)]*)\)/g, 'document.querySelector<HTMLElement>($1)!');
        return { name: `${name}.mts`, text };
      }
      if (code.includes("from './mha-explorer-view.js'")) {
        const text = code
          .replace("from './mha-explorer-view.js'", "from 'mha-explorer/view'")
          .replace(/document\.querySelector\(([^)]*)\)/g, 'document.querySelector($1)!');
        return { name: `${name}.mts`, text: text + '\ndeclare const weights: Float32Array, next: Float32Array;\n' };
      }
      throw new Error(
        `${file}'s example ${i} is neither the core's nor the view's: teach tests/npm/package.test.mjs to type-check it`,
      );
    })
    .concat(
      docBlocks('ts').map(({ file, i, code }) => ({ name: `${file.replace(/\W+/g, '-')}-ts-${i}.mts`, text: code })),
    );
}

test('tsc --strict: the typed examples and every example of the docs compile, wrong calls do not', () => {
  const dir = join(project, 'typed');
  mkdirSync(dir);
  cpSync(join(repo, 'types', 'check'), dir, { recursive: true });
  const examples = docsAsTypeScript();
  for (const f of examples) writeFileSync(join(dir, f.name), f.text);
  const good = tsc(dir, ['api.mts', 'view.mts', 'wrong.mts', ...examples.map((f) => f.name)]);
  assert.ok(good.ok, 'tsc --strict fails:\n' + good.out);
  // Bundler resolution (Vite, webpack, esbuild) reads the same declarations.
  const bundler = tsc(dir, ['api.mts', 'view.mts', 'wrong.mts'], { module: 'esnext', moduleResolution: 'bundler' });
  assert.ok(bundler.ok, 'tsc --strict with moduleResolution bundler fails:\n' + bundler.out);

  // Without its @ts-expect-error directives, wrong.mts fails on exactly the lines they mark.
  const lines = readFileSync(join(dir, 'wrong.mts'), 'utf8').split('\n');
  const expected = lines.flatMap((l, i) => (/^\s*\/\/ @ts-expect-error/.test(l) ? [i + 2] : []));
  writeFileSync(join(dir, 'bare.mts'), lines.map((l) => l.replace(/\/\/ @ts-expect-error/, '//')).join('\n'));
  const bad = tsc(dir, ['bare.mts']);
  assert.equal(bad.ok, false, 'the wrong calls compile');
  const errorLines = [...new Set([...bad.out.matchAll(/^bare\.mts\((\d+),\d+\): error/gm)].map((m) => Number(m[1])))];
  assert.deepEqual(errorLines, expected, 'errors on exactly the marked lines:\n' + bad.out);
  // An error's text, with the lines under it (an overloaded call says why each overload does not fit).
  const said = (line) => bad.out.split(/\n(?=bare\.mts\()/).find((e) => e.startsWith(`bare.mts(${line},`));
  console.log(
    `# ${expected.length} wrong calls rejected, e.g.\n${[said(expected[0]), said(expected[3])].join('\n').replace(/^/gm, '#   ')}`,
  );
  assert.match(said(expected[0]), /'string' is not assignable to type 'number'/);
  assert.match(said(expected[3]), /Type '"mask"' is not assignable to type 'MaskMode/);

  // The typed examples run: each result type api.mts states holds for what the module returns, and the docs'
  // TypeScript prints what its comments say (`console.log(…);  // printed`).
  const runTs = (name, text) => {
    writeFileSync(join(project, name + '.mjs'), esbuild.transformSync(text, { loader: 'ts', format: 'esm' }).code);
    return run(process.execPath, [name + '.mjs'], { cwd: project });
  };
  assert.match(runTs('api', readFileSync(join(dir, 'api.mts'), 'utf8')), /typed API example: ok/);
  for (const f of examples.filter((r) => r.name.includes('-ts-'))) {
    const out = runTs(f.name.replace(/\.mts$/, ''), f.text);
    for (const line of saidBy(f.text))
      assert.ok(out.split('\n').includes(line), `${f.name} prints ${line}; it printed:\n${out}`);
    console.log(`# ${f.name}: ${out.trim()}`);
  }
});

// A one-layer GPT-2 checkpoint (config.json, model.safetensors) with the generator's weights.
function tinyGpt2(g) {
  const layer = (n, shape) => ['h.0.' + n, shape];
  const tensors = [
    ['wte.weight', [16, 8]],
    ['wpe.weight', [8, 8]],
    layer('ln_1.weight', [8]),
    layer('ln_1.bias', [8]),
    layer('attn.c_attn.weight', [8, 24]),
    layer('attn.c_attn.bias', [24]),
    layer('attn.c_proj.weight', [8, 8]),
    layer('attn.c_proj.bias', [8]),
    layer('ln_2.weight', [8]),
    layer('ln_2.bias', [8]),
    layer('mlp.c_fc.weight', [8, 32]),
    layer('mlp.c_fc.bias', [32]),
    layer('mlp.c_proj.weight', [32, 8]),
    layer('mlp.c_proj.bias', [8]),
    ['ln_f.weight', [8]],
    ['ln_f.bias', [8]],
  ];
  const header = {},
    data = [];
  let offset = 0;
  for (const [name, shape] of tensors) {
    const n = shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + 4 * n] };
    data.push(g.randn([n]).data);
    offset += 4 * n;
  }
  const text = JSON.stringify(header);
  const bytes = Buffer.concat([Buffer.alloc(8), Buffer.from(text), ...data.map((d) => Buffer.from(d.buffer))]);
  bytes.writeBigUInt64LE(BigInt(text.length), 0);
  const config = { model_type: 'gpt2', n_layer: 1, n_head: 2, n_embd: 8, vocab_size: 16, n_positions: 8 };
  return [
    { name: 'config.json', bytes: new TextEncoder().encode(JSON.stringify(config)) },
    { name: 'model.safetensors', bytes: new Uint8Array(bytes) },
  ];
}

// The declarations, read with the TypeScript compiler API: the properties of an interface, the members of a union of
// string literals, the exports of a module.
function declarations() {
  const index = join(pkg, 'types', 'index.d.ts'),
    view = join(pkg, 'types', 'view.d.mts');
  const program = ts.createProgram([index, view], {
    strict: true,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
  });
  const checker = program.getTypeChecker();
  const space = program.getSourceFile(index).statements.find((s) => ts.isModuleDeclaration(s));
  const named = (name) => {
    const decl = space.body.statements.find((s) => s.name && s.name.text === name);
    assert.ok(decl, `types/index.d.ts declares ${name}`);
    return checker.getDeclaredTypeOfSymbol(checker.getSymbolAtLocation(decl.name));
  };
  const viewModule = checker.getSymbolAtLocation(program.getSourceFile(view));
  const viewNamed = (name) =>
    checker.getDeclaredTypeOfSymbol(checker.getExportsOfModule(viewModule).find((s) => s.name === name));
  return {
    props: (name) =>
      checker
        .getPropertiesOfType(named(name))
        .map((p) => p.name)
        .sort(),
    literals: (name) =>
      named(name)
        .types.map((t) => t.value)
        .sort(),
    viewExports: checker
      .getExportsOfModule(viewModule)
      .filter((s) => s.flags & (ts.SymbolFlags.Value | ts.SymbolFlags.Alias))
      .map((s) => s.name)
      .sort(),
    viewProps: (name) =>
      checker
        .getPropertiesOfType(viewNamed(name))
        .map((p) => p.name)
        .sort(),
  };
}

// The names a JS API object has: its own keys (not _private) and its classes' methods and getters.
function apiNames(obj) {
  const names = new Set(Object.keys(obj).filter((k) => !k.startsWith('_')));
  for (let p = Object.getPrototypeOf(obj); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const k of Object.getOwnPropertyNames(p)) if (k !== 'constructor' && !k.startsWith('_')) names.add(k);
  }
  return [...names].sort();
}

test('the declarations name exactly what the module defines, and their string literal types hold every value it gives', async () => {
  const D = declarations();
  const createMhaModule = require(pkg);
  const core = {}; // Emscripten's module object: the binding's own functions, protocol() among them
  const M = await createMhaModule(core);
  const g = new M.Generator(0),
    x = g.randn([1, 4, 8]);
  const mha = new M.MultiHeadAttention({ dModel: 8, numHeads: 2, generator: g });
  const forward = mha.forward(x),
    attended = M.scaledDotProductAttention(x, x, x);
  const model = new M.TinyAttentionModel({ generator: g });
  const opt = new M.Adam(model);
  const step = model.trainStep(opt, { batchSize: 4 });
  const file = M.readSafetensors(mha.toSafetensors());
  const progress = [];
  const gpt = await M.loadModel(tinyGpt2(g), { onProgress: (p) => progress.push(p) });
  const gptOut = gpt.forward([1, 2, 3], { logitsAt: [2] });
  const exact = {
    MhaModule: M,
    Generator: g,
    MultiHeadAttention: mha,
    ForwardResult: forward,
    AttentionResult: attended,
    TinyAttentionModel: model,
    Optimizer: opt,
    OptimizerSettings: opt.options,
    StepResult: step,
    ModelConfig: model.config,
    RoleScore: model.roleScores()[0],
    LayerAttention: model.attention([1, 2])[0],
    SafetensorsFile: file,
    Tensor: x,
    LinearParameters: mha.parameters().W_q,
    ParameterScenarios: M.parameterScenarios(8, 2),
    MixThenSplitResult: M.mixThenSplit(),
    HandBuiltHead: M.headSpecialization(['a', 'b'])[0],
    LoopVsVectorizedResult: M.loopVsVectorized(mha, x),
    Model: gpt,
    ModelInfo: gpt.info,
    ModelForwardResult: gptOut,
    LoadProgress: progress[0],
  };
  for (const [name, obj] of Object.entries(exact))
    assert.deepEqual(D.props(name), apiNames(obj), `${name}: declared vs defined`);
  const stepNames = D.props('TraceStep');
  for (const s of [...forward.trace, ...model.shapeTrace()]) {
    assert.deepEqual(
      Object.keys(s).filter((k) => !stepNames.includes(k)),
      [],
      'trace step fields declared',
    );
  }

  assert.deepEqual(
    D.literals('MaskMode'),
    [...core.protocol().maskModes].sort(),
    "MaskMode is the binding's protocol().maskModes",
  );
  assert.deepEqual(D.literals('Task'), [...M.tasks].sort(), 'Task is M.tasks');
  const ops = new Set(forward.trace.map((s) => s.op));
  for (const task of M.tasks) {
    const m = new M.TinyAttentionModel({ task, generator: g });
    for (const s of m.shapeTrace()) ops.add(s.op);
    m.delete();
  }
  assert.deepEqual(
    [...ops].filter((op) => !D.literals('TraceOp').includes(op)),
    [],
    'TraceOp holds every op of the traces',
  );
  const modelStepNames = D.props('ModelTraceStep');
  for (const s of gptOut.trace)
    assert.deepEqual(
      Object.keys(s).filter((k) => !modelStepNames.includes(k)),
      [],
      'model trace step fields declared',
    );
  const modelOps = new Set(gptOut.trace.map((s) => s.op));
  assert.deepEqual(
    [...modelOps].filter((op) => !D.literals('ModelTraceOp').includes(op)),
    [],
    'ModelTraceOp holds every op of a GPT-2 trace',
  );
  gpt.dispose();
  const builds = ['mha.js', 'mha-nosimd.js', 'mha-relaxed.js'];
  const implementations = [];
  for (const b of builds) {
    try {
      implementations.push((await require(join(pkg, 'dist', b))()).implementation);
    } catch (e) {
      assert.equal(b, 'mha-relaxed.js', `${b} loads: ${e.message}`); // relaxed SIMD needs Node's flag (CTest passes it)
    }
  }
  assert.deepEqual(
    implementations.filter((i) => !D.literals('Implementation').includes(i)),
    [],
    'Implementation holds every build',
  );
  console.log(
    `# declared = defined for ${Object.keys(exact).length} interfaces; implementations seen: ${implementations.join(', ')}`,
  );

  assert.deepEqual(
    D.viewExports,
    Object.keys(await import(pathToFileURL(join(pkg, 'dist', 'mha-explorer-view.js')))).sort(),
    'the view module exports what view.d.mts declares',
  );
  opt.delete();
  model.delete();
  mha.delete();
  g.delete();
});

// ---- In Chromium: the element from a Vite build, and from the package on another origin served as a CDN serves it ----

// Of a canvas list, those that show more than one colour.
function drawnCanvases(canvases) {
  return canvases.filter((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 4; i < d.length; i += 4) if (d[i] !== d[0] || d[i + 1] !== d[1] || d[i + 2] !== d[2]) return true;
    return false;
  });
}
// A <mha-explorer> on the page once it has rendered and stopped resizing: the explorer in its shadow root (the
// element's height against its content's), or its iframe (the lab), and the heads it draws.
async function measureElement(page, selector) {
  const found = await page.waitForFunction(
    (sel) => {
      const e = document.querySelector(sel);
      return (
        e &&
        e.shadowRoot &&
        (e.shadowRoot.querySelector('iframe') || (e.mhaExplorer && e.shadowRoot.querySelector('.mhx')))
      );
    },
    selector,
    { timeout: 20000 },
  );
  if (await found.evaluate((n) => n.tagName !== 'IFRAME')) {
    await page.evaluate((sel) => document.querySelector(sel).mhaExplorer.ready, selector);
    return page.evaluate(
      ([sel, drawn]) => {
        const e = document.querySelector(sel),
          root = e.shadowRoot.querySelector('.mhx');
        const canvases = [...root.querySelectorAll('.heads-grid canvas, .lab-heads canvas')]; // the page's heads, the lab's
        return {
          iframe: Math.round(e.getBoundingClientRect().height),
          content: Math.round(root.getBoundingClientRect().height),
          heads: canvases.length,
          drawn: new Function('return ' + drawn)()(canvases).length,
          url: location.href,
          embed: root.classList.contains('embed'),
          mode: 'shadow',
        };
      },
      [selector, drawnCanvases.toString()],
    );
  }
  const el = found.asElement();
  await el.scrollIntoViewIfNeeded(); // the iframe loads lazily
  await page.waitForFunction((f) => f.getAttribute('src') || f.getAttribute('srcdoc'), el, { timeout: 20000 });
  const frame = await el.contentFrame();
  await frame.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready, null, { timeout: 30000 });
  await frame.evaluate(() => window.mhaExplorer.ready);
  const height = await settledHeight(page, el);
  const inner = await frame.evaluate((drawn) => {
    const canvases = [...document.querySelectorAll('#heads canvas')];
    return {
      content: document.documentElement.scrollHeight,
      heads: canvases.length,
      drawn: new Function('return ' + drawn)()(canvases).length,
      url: location.href,
      embed: document.body.classList.contains('embed'),
    };
  }, drawnCanvases.toString());
  return {
    iframe: Math.round(height),
    ...inner,
    mode: await el.evaluate((f) => (f.hasAttribute('srcdoc') ? 'srcdoc' : 'src')),
  };
}

function checkRendered(m, what, heads) {
  console.log(
    `# ${what}: ${m.mode === 'shadow' ? 'element' : 'iframe'} ${m.iframe}px for ${m.content}px of content, ${m.drawn}/${m.heads} heads drawn, ${m.mode} (${m.url})`,
  );
  assert.ok(m.embed, `${what}: the focused embed layout`);
  assert.ok(Math.abs(m.iframe - m.content) <= 2, `${what}: iframe ${m.iframe}px for ${m.content}px of content`);
  assert.ok(m.content > 200 && m.content < 2000, `${what}: ${m.content}px tall`);
  assert.ok(m.heads >= heads && m.drawn === m.heads, `${what}: ${m.drawn} of ${m.heads} heads drawn`);
}

let browser;
const servers = [];
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
  for (const s of servers) await s.close();
});

test('a Vite site that imports the element, the view and the core: heads render at their content height', async () => {
  const site = join(project, 'site');
  mkdirSync(join(site, 'public'), { recursive: true });
  cpSync(join(pkg, 'dist'), join(site, 'public', 'mha-explorer'), { recursive: true }); // docs/npm.md's step
  writeFileSync(
    join(site, 'index.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Course</title>
<link rel="icon" href="data:,"></head><body><h1>Lesson 003</h1>
<mha-explorer id="lesson" base="/mha-explorer/" preset="lesson003"></mha-explorer>
<mha-explorer id="unplaced" preset="lesson003"></mha-explorer>
<div id="attn"></div><script type="module" src="./main.js"></script></body></html>`,
  );
  writeFileSync(
    join(site, 'main.js'),
    `import 'mha-explorer/element';
import createMhaModule from 'mha-explorer';
import { mountAttention } from 'mha-explorer/view';
createMhaModule().then((M) => {
  const g = new M.Generator(0);
  const mha = new M.MultiHeadAttention({ dModel: 32, numHeads: 4, generator: g });
  const x = g.randn([1, 6, 32]);
  const { weights } = mha.forward(x);
  const view = mountAttention(document.querySelector('#attn'), { weights: weights.data, shape: weights.shape, tokens: ['The', 'cat', 'sat', 'on', 'the', 'mat'] });
  window.bundled = { implementation: M.implementation, shape: weights.shape, handle: Object.keys(view).sort(), api: Object.keys(view.root.mhaExplorer).sort() };
});
`,
  );
  // Vite's warnings go to stderr: no Node module externalized for the browser, no chunk over 500 kB, nothing else
  const vite = spawnSync(process.execPath, [VITE, 'build', '--logLevel', 'warn'], { cwd: site, encoding: 'utf8' });
  const said = (vite.stdout + vite.stderr).trim();
  console.log(`# vite build: ${said || 'no warnings'}`);
  assert.equal(vite.status, 0, said);
  assert.doesNotMatch(said, /externalized for browser compatibility/, 'the browser build has no Node branches');
  assert.doesNotMatch(said, /larger than \d+ kB/, 'no chunk over the limit');
  // Rolldown's PLUGIN_TIMINGS reports a slow machine, not the code (tests/npm/bundlers.test.mjs says so too)
  assert.equal(said.replace(/\[PLUGIN_TIMINGS\][\s\S]*?#bundlertimings\s*/g, '').trim(), '', 'no warning at all');
  const assets = readdirSync(join(site, 'dist', 'assets')).map((f) => ({
    f,
    kB: statSync(join(site, 'dist', 'assets', f)).size / 1e3,
  }));
  console.log(`# Vite assets: ${assets.map((a) => `${a.f} ${a.kB.toFixed(0)} kB`).join(', ')}`);
  assert.equal(assets.filter((a) => a.f.endsWith('.wasm')).length, 1, "the core's wasm is one asset");
  assert.ok(assets.filter((a) => a.f.endsWith('.js')).length >= 2, 'the core is a chunk of its own (lazy-loaded)');
  const srv = await serve(join(site, 'dist'));
  servers.push(srv);
  const g = await guardedPage(browser.context, () => true);
  await g.page.goto(srv.origin + '/index.html');
  checkRendered(await measureElement(g.page, '#lesson'), 'Vite site, base="/mha-explorer/"', 4);
  const unplaced = await g.page.evaluate(() => {
    const e = document.querySelector('#unplaced');
    return { text: e.shadowRoot.textContent, height: e.getBoundingClientRect().height };
  });
  assert.match(unplaced.text, /give it base="…"/, 'an element with no base says what it needs');
  assert.ok(unplaced.height < 100, `and shows only that (${unplaced.height}px), not an empty frame`);
  const bundled = await (await g.page.waitForFunction(() => window.bundled)).jsonValue();
  console.log(
    `# Vite bundle: the core runs (${bundled.implementation}), weights ${JSON.stringify(bundled.shape)}; view handle ${bundled.handle}`,
  );
  assert.deepEqual(bundled.shape, [1, 4, 6, 6]);
  const D = declarations();
  assert.deepEqual(bundled.handle, D.viewProps('AttentionView'), 'mountAttention returns what view.d.mts declares');
  assert.deepEqual(bundled.api, D.viewProps('AttentionViewScriptApi'), 'root.mhaExplorer is what view.d.mts declares');
  await g.page.screenshot({ path: join(ARTIFACTS, 'npm-vite.png'), fullPage: true });
  assert.deepEqual(g.errors, [], 'no console errors');
  await g.page.close();
});

test('a plain page with the element from the installed package on another origin, served as a CDN serves it', async () => {
  const cdn = await serve(pkg, { cdn: true }); // .html as text/plain, as jsDelivr and unpkg send it
  servers.push(cdn);
  const host = await serve(join(project, 'host'), {
    extra: {
      '/favicon.ico': '',
      '/index.html': `<!doctype html><html lang="en">
<head><meta charset="utf-8"><title>Course page</title></head><body><h1>Lesson 003</h1>
<script src="${cdn.origin}/dist/mha-explorer-element.js"></script>
<mha-explorer id="lesson" preset="lesson003"></mha-explorer>
<p>Between the two.</p>
<mha-explorer id="lab" preset="train-two-offsets"></mha-explorer>
<p>After the lab.</p></body></html>`,
    },
  });
  servers.push(host);
  const g = await guardedPage(browser.context, () => true);
  await g.page.goto(host.origin + '/index.html');
  const lesson = await measureElement(g.page, '#lesson');
  checkRendered(lesson, `element from ${cdn.origin} on ${host.origin}`, 4);
  assert.equal(lesson.mode, 'shadow', 'the explorer mounted in the element, its core and workers from the CDN');
  const lab = await measureElement(g.page, '#lab');
  checkRendered(lab, 'the training lab from the same element script', 2);
  assert.equal(lab.mode, 'shadow', 'the lab mounted in the element, its training worker from the CDN');
  // A link to the lab (the CDN would show its text) becomes the element's own lab, and the lab's link to the page
  // the element's page again.
  await g.page.click('#lesson [id$="open-lab"]');
  await g.page.waitForFunction(
    () =>
      document.querySelector('#lesson').getAttribute('preset') === 'train-two-offsets' &&
      !!document.querySelector('#lesson').shadowRoot.querySelector('.mhx-lab'),
  );
  checkRendered(await measureElement(g.page, '#lesson'), '"Train heads ↗" in the lesson, which now shows the lab', 2);
  await g.page.click('#lab .mhx-lab a[href$="index.html"]');
  await g.page.waitForFunction(
    () =>
      !document.querySelector('#lab').hasAttribute('preset') &&
      !!document.querySelector('#lab').shadowRoot.querySelector('.mhx:not(.mhx-lab)'),
  );
  checkRendered(await measureElement(g.page, '#lab'), '"Random heads ↗" in the lab, which now shows the page', 4);
  await g.page.screenshot({ path: join(ARTIFACTS, 'npm-cdn.png'), fullPage: true });
  assert.deepEqual(g.errors, [], 'no console errors');
  await g.page.close();
});
