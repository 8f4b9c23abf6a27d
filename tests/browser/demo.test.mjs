// scripts/demo (--no-build: the dist/ there is) serves the model page with the real all-MiniLM-L6-v2 of the models'
// venv loaded, not an empty drop zone: the address it prints opens the model, whose every attention weight and
// tokens equal transformers' within the oracle's bounds (build/models/minilm, tests/models/make_checkpoints.py).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { guardedPage, launch, repo } from './helpers.mjs';
import { checkpoints, checkAgainstOracle, readOracle } from './models-oracle.mjs';

let demo, browser;
after(async () => {
  await browser?.close();
  if (demo) demo.kill();
});

// The demo's printed addresses, once it has printed both lines.
function start() {
  demo = spawn('bash', ['scripts/demo', '--no-build'], { cwd: repo, env: { ...process.env, PORT: '0' } });
  return new Promise((resolve, reject) => {
    let out = '';
    demo.stdout.on('data', (d) => {
      out += d;
      const m = /with the real all-MiniLM-L6-v2: (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    demo.on('exit', (code) => reject(new Error('scripts/demo ended (' + code + '): ' + out)));
  });
}

test('scripts/demo opens the model page on the real all-MiniLM-L6-v2, its heads as transformers gives them', async () => {
  const url = await start();
  const { models } = checkpoints();
  browser = await launch();
  const origin = new URL(url).origin;
  const g = await guardedPage(browser.context, (u) => u.startsWith(origin + '/') || /^(data|blob):/.test(u));
  await g.page.goto(url);
  await g.page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready);
  assert.equal(await g.page.evaluate(() => window.mhaExplorer.ready), true);
  const info = await g.page.evaluate(() => window.mhaExplorer.getInfo());
  assert.deepEqual([info.modelType, info.layers, info.heads], ['bert', 6, 12]);
  await checkAgainstOracle(g.page, readOracle(join(models, 'minilm', 'oracle-0.safetensors')), 'minilm');
  await g.page.waitForSelector('[data-part="hub-menu"] dd');
  const menu = await g.page.$$eval('[data-part="hub-menu"] option', (o) => o.map((x) => x.textContent));
  assert.deepEqual(menu, ['all-MiniLM-L6-v2 (sentence-transformers)'], "the menu of the demo's models/index.json");
  assert.match(await g.page.textContent('[data-part="hub-menu"]'), /bert, 6 layers × 12 heads/);
  assert.deepEqual(g.errors, []);
  assert.deepEqual(g.foreign, []);
});
