// The training worker (web/compute/trainer.js + dist/trainer-*.js) in headless Chromium, over http and from
// file://: it trains two offsets to 99 % with two specialized heads, gives the JS API's loss curve bit
// for bit, resumes without changing numbers, saves and loads weights, and rejects a damaged file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

import { DIST, guardedPage, launch, startServer } from './helpers.mjs';

const require = createRequire(import.meta.url);
const HOST =
  '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>trainer</title><script src="trainer.js"></script>';

// Runs in the page: the numbers the tests compare.
async function session(builds) {
  const t = await window.MhaTrainer.start(builds ? { builds } : undefined);
  const setup = { model: { task: 'two-offsets' }, optimizer: { kind: 'adam', options: { lr: 1e-2 } }, seed: 0 };
  const info = await t.reset(setup);
  let curve = [];
  for (let i = 0; i < 6; i++) curve = curve.concat(await t.train({ steps: 25, batchSize: 32 }));
  const inspected = await t.inspect({ tokens: [1, 2, 3, 4, 5, 6, 7, 0] });
  const bytes = await t.save();
  await t.reset(setup);
  const resumed = (await t.train({ steps: 40, batchSize: 32 })).concat(await t.train({ steps: 110, batchSize: 32 }));
  await t.reset({ ...setup, seed: 5 });
  await t.load(bytes);
  const reloaded = await t.inspect({ tokens: [1, 2, 3, 4, 5, 6, 7, 0] });
  const damaged = bytes.slice();
  damaged[10] = 0x7b;
  let error = null;
  try {
    await t.load(damaged);
  } catch (e) {
    error = e.message;
  }
  let badConfig = null;
  try {
    await t.reset({ ...setup, model: { task: 'two-offsets', dModel: 10, numHeads: 3 } });
  } catch (e) {
    badConfig = e.message;
  }
  const after = await t.train({ steps: 1, batchSize: 8 }); // the old model is still there
  t.terminate();
  return {
    build: t.build,
    info,
    curve,
    resumed,
    roles: inspected.roles,
    logits: Array.from(inspected.logits[0].data),
    reloaded: Array.from(reloaded.logits[0].data),
    size: bytes.length,
    error,
    badConfig,
    after,
  };
}

async function expected(build) {
  const M = await require(join(DIST, `${build}.js`))();
  const g = new M.Generator(0);
  const model = new M.TinyAttentionModel({ task: 'two-offsets', generator: g });
  const opt = new M.Adam(model, { lr: 1e-2 });
  const losses = [];
  for (let i = 0; i < 150; i++) losses.push(model.trainStep(opt, { batchSize: 32 }).loss);
  [opt, model, g].forEach((o) => o.delete());
  return losses;
}

function check(r, reference) {
  assert.equal(r.info.parameters, 8 * 16 + 8 * 16 + 4 * (16 * 16 + 16) + 2 * (8 * 16 + 8));
  assert.equal(r.curve.length, 150);
  assert.deepEqual(
    r.curve.map((s) => s.step),
    Array.from({ length: 150 }, (_, i) => i + 1),
  );
  assert.ok(r.curve[149].accuracy >= 0.99, `accuracy ${r.curve[149].accuracy}`);
  assert.deepEqual(
    r.curve.map((s) => s.loss),
    reference,
    'the worker trains as the JS API does, bit for bit',
  );
  assert.deepEqual(
    r.resumed.map((s) => s.loss),
    reference,
    'pausing after 40 steps changes nothing',
  );
  assert.deepEqual(r.roles.map((x) => x.role).sort(), ['1 token back', '2 tokens back']);
  r.roles.forEach((x) => assert.ok(x.score >= 0.85, `${x.role} ${x.score}`));
  assert.deepEqual(r.reloaded, r.logits, 'the saved weights load back');
  assert.match(r.error, /not a valid \.safetensors file/);
  assert.match(r.badConfig, /d_model \(10\) must be divisible by num_heads \(3\)/);
  assert.equal(r.after.length, 1);
}

test('training worker over http and from file://', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mha-trainer-'));
  for (const f of readdirSync(DIST).filter((n) => n.startsWith('trainer'))) symlinkSync(join(DIST, f), join(dir, f));
  writeFileSync(join(dir, 'host.html'), HOST);
  const server = await startServer({ '/trainer-host.html': HOST });
  const { context, close } = await launch();
  try {
    const reference = await expected('mha');
    for (const url of [`${server.origin}/trainer-host.html`, pathToFileURL(join(dir, 'host.html')).href]) {
      const { page, errors } = await guardedPage(context, () => true);
      await page.goto(url);
      assert.deepEqual(
        await page.evaluate(() => window.MhaTrainer.builds),
        ['mha-relaxed', 'mha', 'mha-nosimd'],
        'FMA build first',
      );
      // The SIMD128 build, to compare bit for bit with the JS API in Node (Node 20 runs the FMA build
      // only with a flag); then the build the browser picks by itself.
      check(await page.evaluate(session, ['mha']), reference);
      const picked = await page.evaluate(session, null);
      assert.equal(picked.build, 'mha-relaxed');
      assert.ok(picked.curve[149].accuracy >= 0.99);
      assert.deepEqual(
        picked.resumed.map((x) => x.loss),
        picked.curve.map((x) => x.loss),
        'FMA build: resuming changes nothing',
      );
      assert.deepEqual(errors, [], `${url}: console errors`);
      await page.close();
    }
  } finally {
    await close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
