// Each entry point of the packed package loads a checkpoint and gives transformers' attentions (issue 38): require()
// and import in Node (file:// URLs), and the `browser` entry (dist/mha-web.mjs + .wasm) bundled by Vite (the
// docs/npm.md example as written, the real all-MiniLM-L6-v2 from public/, drawn by mountAttention), esbuild and
// webpack 5, run in Chromium; any bundler warning fails. The checkpoints and transformers' float64 results come from
// tests/models/make_checkpoints.py (build/models). Needs dist/ (scripts/build) and the dev dependencies.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { serve } from '../../scripts/serve.mjs';
import { launch, guardedPage } from '../browser/helpers.mjs';
import { readOracle, requireWithin } from '../node/fixtures/oracle.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const MODELS = join(repo, 'build', 'models');
const VITE = join(repo, 'node_modules', 'vite', 'bin', 'vite.js');
const FILES = ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'];
const GPT2 = readOracle(join(MODELS, 'gpt2', 'oracle-0.safetensors'));

const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 << 20 });

let work, project, browser;
const servers = [];
before(async () => {
  work = mkdtempSync(join(tmpdir(), 'mha-bundlers-'));
  // --ignore-scripts: the core builds as they are (npm/prepack.mjs would rebuild the page files, not needed here)
  const packed = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], repo))[0];
  project = join(work, 'app');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, packed.filename)], project);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  for (const s of servers) await s.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

// What the app prints: the tiny GPT-2's attentions for the oracle's ids, as JSON.
const nodeApp = (load) => `${load}
const names = ${JSON.stringify(FILES)};
const dir = ${JSON.stringify(join(MODELS, 'gpt2'))};
const M = await createMhaModule();
const model = await M.loadModel(names.map((name) => ({ name, url: pathToFileURL(dir + '/' + name) })));
const out = model.forward(${JSON.stringify(GPT2.meta.ids)});
console.log(JSON.stringify({ shape: out.attentions.shape, data: Array.from(out.attentions.data), implementation: M.implementation }));
model.dispose();
`;

function requireGpt2(what, result) {
  requireWithin(what, { shape: result.shape, data: Float32Array.from(result.data) }, GPT2.tensors, 'attentions');
}

test("require('mha-explorer') and import in Node load a checkpoint from file:// URLs: transformers' attentions", () => {
  writeFileSync(
    join(project, 'cjs.cjs'),
    nodeApp(
      "const createMhaModule = require('mha-explorer');\nconst { pathToFileURL } = require('node:url');\n(async () => {",
    ) + '})();\n',
  );
  writeFileSync(
    join(project, 'esm.mjs'),
    nodeApp("import createMhaModule from 'mha-explorer';\nimport { pathToFileURL } from 'node:url';"),
  );
  for (const [what, file] of [
    ['require', 'cjs.cjs'],
    ['import', 'esm.mjs'],
  ]) {
    const r = spawnSync(process.execPath, [file], { cwd: project, encoding: 'utf8', maxBuffer: 64 << 20 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '', `${what}: nothing on stderr`);
    const result = JSON.parse(r.stdout);
    requireGpt2(`${what} (${result.implementation})`, result);
  }
});

// A browser app of the `browser` entry: the tiny GPT-2 from /models/gpt2/ on its server.
const BROWSER_APP = `import createMhaModule from 'mha-explorer';
const names = ${JSON.stringify(FILES)};
const M = await createMhaModule();
const model = await M.loadModel(names.map((name) => ({ name, url: '/models/gpt2/' + name })));
const out = model.forward(${JSON.stringify(GPT2.meta.ids)});
window.result = { shape: out.attentions.shape, data: Array.from(out.attentions.data), implementation: M.implementation };
`;

// The page at `dir` served with the tiny GPT-2 under /models/gpt2/: what the app put in window.result.
async function runPage(dir, page = 'index.html') {
  mkdirSync(join(dir, 'models'), { recursive: true });
  cpSync(join(MODELS, 'gpt2'), join(dir, 'models', 'gpt2'), { recursive: true });
  const srv = await serve(dir);
  servers.push(srv);
  const g = await guardedPage(browser.context, () => true);
  await g.page.goto(`${srv.origin}/${page}`);
  const result = await (await g.page.waitForFunction(() => window.result, null, { timeout: 60000 })).jsonValue();
  assert.deepEqual(g.errors, [], 'no console errors');
  await g.page.close();
  return result;
}

test('esbuild (platform browser): the browser entry bundles without a warning and loads the checkpoint in Chromium', async () => {
  const esbuild = require('esbuild');
  writeFileSync(join(project, 'esbuild-app.js'), BROWSER_APP);
  const out = join(project, 'esbuild-dist');
  const r = await esbuild.build({
    entryPoints: [join(project, 'esbuild-app.js')],
    bundle: true,
    format: 'esm',
    splitting: true,
    platform: 'browser',
    outdir: out,
    logLevel: 'silent',
    absWorkingDir: project,
  });
  assert.deepEqual(r.warnings, [], 'no esbuild warning');
  // esbuild leaves new URL('mha-web.wasm', import.meta.url) as it is: the wasm goes beside the bundle (docs/npm.md)
  copyFileSync(join(project, 'node_modules', 'mha-explorer', 'dist', 'mha-web.wasm'), join(out, 'mha-web.wasm'));
  writeFileSync(
    join(out, 'index.html'),
    '<!doctype html><title>esbuild</title><link rel="icon" href="data:,"><script type="module" src="esbuild-app.js"></script>',
  );
  const result = await runPage(out);
  assert.equal(result.implementation, 'wasmsimd');
  requireGpt2('esbuild', result);
});

test('webpack 5: the browser entry bundles without a warning (the wasm an asset) and loads the checkpoint in Chromium', async () => {
  const webpack = require('webpack');
  writeFileSync(join(project, 'webpack-app.js'), BROWSER_APP);
  const out = join(project, 'webpack-dist');
  const stats = await new Promise((res, rej) =>
    webpack(
      {
        mode: 'production',
        context: project,
        entry: './webpack-app.js',
        output: { path: out, filename: 'main.js', publicPath: 'auto' },
        // webpack's size hint (244 KiB) would name the core's 0.6 MB wasm: docs/npm.md says to raise it
        performance: { maxAssetSize: 1 << 20, maxEntrypointSize: 1 << 20 },
      },
      (e, s) => (e ? rej(e) : res(s)),
    ),
  );
  const info = stats.toJson({ all: false, errors: true, warnings: true, assets: true });
  assert.deepEqual(info.errors, [], 'no webpack error');
  assert.deepEqual(info.warnings, [], 'no webpack warning');
  assert.equal(info.assets.filter((a) => a.name.endsWith('.wasm')).length, 1, 'the wasm is one asset');
  writeFileSync(
    join(out, 'index.html'),
    '<!doctype html><title>webpack</title><link rel="icon" href="data:,"><script src="main.js"></script>',
  );
  const result = await runPage(out);
  requireGpt2('webpack', result);
});

// docs/npm.md's Vite example: its index.html and main.js blocks, as written.
function viteExample() {
  const doc = readFileSync(join(repo, 'docs', 'npm.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## A Vite app that loads a model'));
  const block = (lang) => new RegExp('```' + lang + '\\n([\\s\\S]*?)\\n```').exec(section)[1];
  return { html: block('html'), js: block('js'), folder: /public\/(models\/[^/\s`]+)\//.exec(section)[1] };
}

test("docs/npm.md's Vite example as written: Vite's current major builds it without a warning; it draws MiniLM's layer 0 as transformers computes it", async () => {
  const { html, js, folder } = viteExample();
  const site = join(project, 'vite-site');
  const models = join(site, 'public', folder);
  mkdirSync(models, { recursive: true });
  for (const f of FILES) copyFileSync(join(MODELS, 'minilm', f), join(models, f));
  writeFileSync(join(site, 'index.html'), html);
  writeFileSync(join(site, 'main.js'), js);
  const vite = spawnSync(process.execPath, [VITE, 'build', '--logLevel', 'warn'], { cwd: site, encoding: 'utf8' });
  const said = (vite.stdout + vite.stderr).trim();
  console.log(`# vite ${run(process.execPath, [VITE, '--version'], site).trim()} build: ${said || 'no warnings'}`);
  assert.equal(vite.status, 0, said);
  // Rolldown's PLUGIN_TIMINGS is a report on the machine's speed (Vite's own plugins' share of a slow build: 65 % on
  // this shared machine), not a warning about the code; anything else fails.
  const warnings = said.replace(/\[PLUGIN_TIMINGS\][\s\S]*?#bundlertimings\s*/g, '').trim();
  assert.equal(warnings, '', 'no warning at all');
  const srv = await serve(join(site, 'dist'));
  servers.push(srv);
  const g = await guardedPage(browser.context, () => true);
  await g.page.goto(`${srv.origin}/index.html`);
  const drawn = await (
    await g.page.waitForFunction(
      () => {
        const root = document.querySelector('[data-mha-explorer-view]');
        const w = root && root.mhaExplorer && root.mhaExplorer.getWeights();
        return w && { shape: w.shape, data: Array.from(w.data), labels: root.mhaExplorer.getLabels() };
      },
      null,
      { timeout: 60000 },
    )
  ).jsonValue();
  const { meta, tensors } = readOracle(join(MODELS, 'minilm', 'oracle-0.safetensors'));
  const [L, B, H, T, S] = tensors.attentions.shape,
    n = B * H * T * S;
  const layer0 = (t) => ({ shape: t.shape.slice(1), data: t.data.subarray(0, n) });
  const ref = { attentions: layer0(tensors.attentions), 'attentions.bound': layer0(tensors['attentions.bound']) };
  assert.ok(L > 1);
  assert.equal(drawn.labels.tokens.length, meta.ids.length, "the view's keys are the sentence's tokens");
  requireWithin(
    'the Vite example, layer 0',
    { shape: drawn.shape, data: Float32Array.from(drawn.data) },
    ref,
    'attentions',
  );
  assert.deepEqual(g.errors, [], 'no console errors');
  await g.page.close();
});

test('a checkpoint on another origin without CORS: the message says what the server must send', async () => {
  const other = await serve(join(MODELS, 'gpt2')); // no Access-Control-Allow-Origin
  servers.push(other);
  const site = mkdtempSync(join(work, 'cors-'));
  cpSync(join(repo, 'dist', 'mha.js'), join(site, 'mha.js'));
  writeFileSync(
    join(site, 'index.html'),
    '<!doctype html><title>cors</title><link rel="icon" href="data:,"><script src="mha.js"></script>',
  );
  const srv = await serve(site);
  servers.push(srv);
  const g = await guardedPage(browser.context, () => true);
  await g.page.goto(`${srv.origin}/index.html`);
  const message = await g.page.evaluate(async (url) => {
    const M = await createMhaModule(); // eslint-disable-line no-undef
    return M.loadModel([
      { name: 'config.json', url },
      { name: 'model.safetensors', url },
    ]).then(
      () => 'loaded',
      (e) => e.message,
    );
  }, `${other.origin}/config.json`);
  assert.match(
    message,
    /^config\.json could not be fetched from another origin \(http:\/\/127\.0\.0\.1:\d+\/config\.json: /,
  );
  assert.match(message, /must send Access-Control-Allow-Origin for this page \(CORS\)/);
  await g.page.close();
});
