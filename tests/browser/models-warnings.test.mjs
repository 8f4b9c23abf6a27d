// The model page says the JS API's model.warnings (what of the files the model does not use) in its messages: the
// oracle's tiny GPT-2 with a config.json of one layer fewer than its weights hold loads, runs the layers it names, and
// the page's messages name the unused layer's tensors as model.warnings does; a model without warnings says nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { serve } from '../../scripts/serve.mjs';
import { DIST, guardedPage, launch } from './helpers.mjs';
import { checkpoints } from './models-oracle.mjs';

let models, made, srv, browser, dir;
before(async () => {
  ({ models, made } = checkpoints());
  srv = await serve(DIST);
  browser = await launch();
  dir = mkdtempSync(join(tmpdir(), 'mha-warnings-'));
});
after(async () => {
  await browser?.close();
  await srv?.close();
  if (made) rmSync(made, { recursive: true, force: true });
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('model.warnings in the page’s messages: a config.json with fewer layers than the weights', async () => {
  const c = JSON.parse(readFileSync(join(models, 'index.json'), 'utf8')).find((x) => x.case === 'gpt2');
  const files = c.files.filter((f) => !c.oracles.includes(f));
  const config = JSON.parse(readFileSync(join(models, 'gpt2', 'config.json'), 'utf8'));
  const layers = config.n_layer;
  assert.ok(layers >= 2);
  for (const f of files) if (f !== 'config.json') symlinkSync(join(models, 'gpt2', f), join(dir, f));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, n_layer: layers - 1 }));

  const g = await guardedPage(browser.context, (u) => u.startsWith(srv.origin + '/') || /^(data|blob):/.test(u));
  const { page } = g;
  await page.goto(srv.origin + '/models.html');
  await page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready);
  await page.setInputFiles(
    '#pick-files',
    files.map((f) => join(models, 'gpt2', f)),
  );
  assert.equal(await page.evaluate(() => window.mhaExplorer.ready), true);
  assert.deepEqual(await page.evaluate(() => window.mhaExplorer.getMessages()), [], 'the checkpoint as saved: none');

  await page.setInputFiles(
    '#pick-files',
    files.map((f) => join(dir, f)),
  );
  assert.equal(await page.evaluate(() => window.mhaExplorer.ready), true);
  const warnings = await page.evaluate(() => window.mhaExplorer.getModel().warnings.slice());
  assert.equal(warnings.length, 1);
  assert.equal(await page.evaluate(() => window.mhaExplorer.getInfo().layers), layers - 1);
  const said = await page.evaluate(() => window.mhaExplorer.getMessages());
  assert.equal(said.length, 1, JSON.stringify(said));
  assert.match(said[0], /^Loaded with a warning: The weights hold layer 1 \(\d+ tensors, such as h\.1\./);
  assert.ok(said[0].endsWith(warnings[0].slice(1)), 'the API’s words');
  assert.match(await page.textContent('#messages'), /config\.json's 1 layers do not reach: they are not used/);
  assert.deepEqual(g.errors, []);
  await page.close();
});
