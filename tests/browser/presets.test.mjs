// Each lesson preset prints the numbers PyTorch prints (public vectors from the lessons), and a
// screenshot per preset is kept in tests/browser/artifacts/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { suite, ARTIFACTS } from './helpers.mjs';
import { LESSON004_SHAPE_TABLE } from '../node/fixtures/reference.mjs';

const env = suite();
async function preset(q, shot) {
  const g = await env.open(env.srv.origin + '/index.html?' + q, env.own);
  await g.page.screenshot({ path: join(ARTIFACTS, `preset-${shot}.png`), fullPage: true });
  const printed = await g.page.evaluate(() => window.mhaExplorer.getPrinted());
  const shape = await g.page.evaluate(() => window.mhaExplorer.getWeights().shape);
  return { page: g.page, printed, shape, all: Object.values(printed).join('\n') };
}

test('lesson 000: manual_seed(0), rand(1, 5, 64) then MultiHeadAttention(64, 8)', async () => {
  const r = await preset('preset=lesson000', 'lesson000');
  assert.match(r.printed.lesson, /Output shape: torch\.Size\(\[1, 5, 64\]\)/);
  assert.match(r.printed.lesson, /Attention shape: torch\.Size\(\[1, 8, 5, 5\]\)/);
  assert.match(r.printed.page, /x\[0, 0, :3\] = tensor\(\[0\.4963, 0\.7682, 0\.0885\]\)/); // manual_seed(0) rand(3)
  assert.deepEqual(r.shape, [1, 8, 5, 5]);
  assert.equal(await r.page.locator('[data-head]').count(), 8);
});

test('lesson 001: rand(1, 4, 8), 2 heads (seed 0, stated)', async () => {
  const r = await preset('preset=lesson001', 'lesson001');
  assert.match(r.printed.lesson, /Multi-Head Attention Output Shape: torch\.Size\(\[1, 4, 8\]\)/);
  assert.match(await r.page.textContent('#lesson-blurb'), /seed 0/);
  assert.match(r.printed.page, /tensor\(\[0\.4963, 0\.7682, 0\.0885\]\)/);
  assert.deepEqual(r.shape, [1, 2, 4, 4]);
});

test('lesson 002: every printed cell', async () => {
  const r = await preset('preset=lesson002', 'lesson002');
  const p = r.printed;
  assert.match(p.params, /if full dims:\s+6,291,456/);
  assert.match(p.params, /if reduced dims:\s+786,432/);
  assert.match(p.params, /actual \(1 big W\): 786,432/);
  assert.match(p.mix, /tensor\(\[ 0\.6614,  0\.2669,  0\.0617,  0\.6213, -0\.4519, -0\.1661, -1\.5228,  0\.3817\]\)/);
  assert.match(p.mix, /tensor\(\[\[-0\.6970, -1\.1608,  0\.6995,  0\.1991,  0\.8657,  0\.2444, -0\.6629,  0\.8073\]/);
  assert.match(p.mix, /tensor\(\[ 0\.0465,  0\.4481,  0\.3035,  1\.1985,  1\.6100, -0\.9023, -2\.0339, -1\.0991\]\)/);
  assert.match(p.mix, /q0\[3\] = 1\.1985/);
  assert.match(p.mix, /= 1\.1985/);
  assert.match(p.mix, /tensor\(\[ 0\.1991, -1\.4465, -0\.7735, -0\.0288, -0\.4370, -0\.6446, -1\.0055, -0\.8313\]\)/);
  assert.match(p.pipeline, /Attention weights: torch\.Size\(\[2, 2, 4, 4\]\)/);
  for (const line of [
    "'it' → 'mat' (1.00)",
    "'soft' → 'mat' (0.98)",
    "'The' → 'The' (0.94)",
    "'cat' → 'sat' (0.98)",
    "'sat' → 'cat' (1.00)",
    "'because' → 'because' (0.94)",
  ])
    assert.ok(p.heads.includes(line), line);
  assert.match(p.shapes, /\[2, 10, 8, 64\]/);
  assert.match(p.shapes, /\[2, 8, 10, 64\]/);
  assert.match(p.contiguous, /view size is not compatible with input tensor's size and stride/);
  assert.match(p.module, /Output shape: torch\.Size\(\[2, 5, 32\]\)/);
  assert.match(p.module, /mean abs diff: \d\.\d{4}\)/);
  assert.match(p.module, /Total parameters: 4,224/);
  assert.match(p.loop, /Max absolute diff: 0\.0000000\d{3}/);
  assert.match(p.loop, /Results match: True/);
  assert.match(p.causal, /Mean absolute difference: \d\.\d{4}/);
  // the default view: the two hand-built heads on the lesson's sentence
  assert.deepEqual(r.shape, [1, 2, 10, 10]);
  const labels = await r.page.evaluate(() => window.mhaExplorer.getLabels());
  assert.deepEqual(labels, ['The', 'cat', 'sat', 'on', 'the', 'mat', 'because', 'it', 'was', 'soft']);
  // the other views
  for (const [view, shape] of [
    ['pipeline', [2, 2, 4, 4]],
    ['module', [2, 4, 5, 5]],
    ['loop', [2, 4, 6, 6]],
    ['causal', [2, 4, 6, 6]],
  ]) {
    await r.page.selectOption('#c-view', view);
    await r.page.waitForFunction((v) => window.mhaExplorer.getState().view === v, view);
    assert.deepEqual(await r.page.evaluate(() => window.mhaExplorer.getWeights().shape), shape, view);
  }
  const w = await r.page.evaluate(() => {
    const w = window.mhaExplorer.getWeights();
    return Array.from(w.data.slice(0, 36));
  });
  for (let i = 0; i < 6; i++) for (let j = i + 1; j < 6; j++) assert.ok(w[i * 6 + j] < 1e-6, 'causal view masked');
  await r.page.selectOption('#c-view', 'pipeline');
  await r.page.screenshot({ path: join(ARTIFACTS, 'preset-lesson002-pipeline.png'), fullPage: true });
});

test('lesson 003: MHA(64, 4), dropout 0.1 in train mode, triu mask where 1 is blocked', async () => {
  const r = await preset('preset=lesson003', 'lesson003');
  assert.match(r.printed.lesson, /Input shape: torch\.Size\(\[2, 8, 64\]\)/);
  assert.match(r.printed.lesson, /Attention weights shape: torch\.Size\(\[2, 4, 8, 8\]\)/);
  assert.match(r.printed.lesson, /Total: 16,640 parameters/);
  assert.deepEqual(r.shape, [2, 4, 8, 8]);
  assert.equal(await r.page.locator('[data-head]').count(), 4);
  const w = await r.page.evaluate(() => Array.from(window.mhaExplorer.getWeights().data));
  for (let bh = 0; bh < 8; bh++)
    for (let i = 0; i < 8; i++) for (let j = i + 1; j < 8; j++) assert.equal(w[(bh * 8 + i) * 8 + j], 0);
  // dropout acts: kept weights are scaled by 1/0.9, some are zeroed, so rows do not all sum to 1
  const sums = [];
  for (let r0 = 0; r0 < 64; r0++) sums.push(w.slice(r0 * 8, r0 * 8 + 8).reduce((a, b) => a + b, 0));
  assert.ok(
    sums.some((s) => Math.abs(s - 1) > 1e-3),
    'train-mode dropout changes the weights',
  );
  // eval mode: rows sum to 1 again
  await r.page.selectOption('#c-train', '0');
  await r.page.waitForFunction(() => !window.mhaExplorer.getState().train);
  const w2 = await r.page.evaluate(() => Array.from(window.mhaExplorer.getWeights().data));
  for (let r0 = 0; r0 < 64; r0++)
    assert.ok(Math.abs(w2.slice(r0 * 8, r0 * 8 + 8).reduce((a, b) => a + b, 0) - 1) < 1e-5);
});

test('lesson 004: the shape table at (2, 10, 512, 8)', async () => {
  const r = await preset('preset=lesson004', 'lesson004');
  const trace = await r.page.evaluate(() => window.mhaExplorer.getTrace());
  assert.deepEqual(
    trace.map((t) => t.shape),
    LESSON004_SHAPE_TABLE,
  );
  assert.equal(trace[3].contiguous, false);
  assert.equal(await r.page.locator('#trace-body tr[data-step]').count(), 8);
  assert.match(r.printed.lesson, /\[2, 8, 10, 64\]/);
  assert.deepEqual(r.shape, [2, 8, 10, 10]);
});
