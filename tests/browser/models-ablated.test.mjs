// The model page with heads switched off: the grid, the enlarged head and "where a token looks" show the ablated
// model's attention (every layer above the lowest head off changes), getWeights({ablated: true}) gives it, and it
// equals transformers' own (tests/browser/ablated_reference.py: float64, the heads' slices of the output projection's
// input zeroed by a forward pre-hook) within the float32 bounds of tests/models/reference.py's error analysis, on the
// oracle's tiny GPT-2 and the real all-MiniLM-L6-v2 (build/models/minilm: no prediction head, which the page says).
// The choice of the full model's attention and of the difference (ablated − full, on a diverging scale, said by its
// legend); a screenshot at 1280 px.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ARTIFACTS, axeViolations, guardedPage } from './helpers.mjs';
import { modelSite, python, readOracle } from './models-oracle.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const env = { ...process.env, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', OMP_NUM_THREADS: '1' };
let site, models, srv, browser, index;
before(async () => {
  site = await modelSite('mha-ablated-');
  ({ models, srv, browser } = site);
  index = JSON.parse(readFileSync(join(models, 'index.json'), 'utf8'));
});
after(() => site?.close());

// transformers' attentions with the heads off and their bounds (ablated_reference.py)
const reference = (folder, ids, headsOff) =>
  JSON.parse(
    execFileSync(python(), [join(here, 'ablated_reference.py')], {
      input: JSON.stringify({ folder, ids, heads_off: headsOff }),
      encoding: 'utf8',
      env,
      maxBuffer: 1 << 28,
    }),
  );

// The page with the checkpoint of `name` chosen in the file dialog (its files without the oracle's) and the text of
// its oracle-0 → {g, meta}.
async function openCase(name) {
  const g = await guardedPage(browser.context, (u) => u.startsWith(srv.origin + '/') || /^(data|blob):/.test(u));
  await g.page.setViewportSize({ width: 1280, height: 900 });
  await g.page.goto(srv.origin + '/models.html');
  await g.page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready);
  const c = index.find((x) => x.case === name),
    files = c.files.filter((f) => !c.oracles.includes(f)).map((f) => join(models, name, f));
  await g.page.setInputFiles('#pick-files', files);
  assert.equal(await g.page.evaluate(() => window.mhaExplorer.ready), true);
  const meta = readOracle(join(models, name, 'oracle-0.safetensors')).metadata;
  assert.equal(await g.page.evaluate((t) => window.mhaExplorer.set({ text: t }), meta.text), true);
  assert.deepEqual(await g.page.evaluate(() => window.mhaExplorer.getIds()), meta.ids);
  return { g, meta };
}

// |ours − transformers'| ≤ the bound, element by element; → the largest |ablated − full| of the layers above `low`
// and whether every layer up to `low` is the full model's exactly.
function compare(ours, full, ref, low) {
  assert.deepEqual(ours.shape, ref.shape);
  const [, , H, T] = ref.shape,
    per = H * T * T;
  let bad = -1,
    moved = 0,
    same = true;
  for (let i = 0; i < ref.attentions.length; i++) {
    if (!(Math.abs(ours.data[i] - ref.attentions[i]) <= ref.bound[i]) && bad < 0) bad = i;
    const d = Math.abs(ours.data[i] - full.data[i]);
    if (Math.floor(i / per) <= low) same = same && d === 0;
    else moved = Math.max(moved, d - 2 * ref.bound[i]); // beyond both results' rounding: a true change
  }
  assert.equal(
    bad,
    -1,
    'element ' + bad + ': ' + ours.data[bad] + ', transformers ' + ref.attentions[bad] + ' ± ' + ref.bound[bad],
  );
  return { moved, same };
}

// the heads off: the oracle's ([[0, 1], [L − 1, H − 1]]), and MiniLM's whole first layer (the real model's later
// layers barely move for one head, less than the error analysis bounds)
for (const [name, whole] of [
  ['gpt2', false],
  ['minilm', true],
]) {
  test(
    name + ': heads off carry through the layers: the ablated attentions as transformers computes them',
    async () => {
      const { g, meta } = await openCase(name),
        { page } = g,
        H = await g.page.evaluate(() => window.mhaExplorer.getInfo().heads),
        off = whole ? Array.from({ length: H }, (_, h) => [0, h]) : meta.heads_off; // layers 1 … L − 1 change
      const full = await page.evaluate(() => {
        const w = window.mhaExplorer.getWeights();
        return { shape: w.shape, data: Array.from(w.data) };
      });
      assert.equal(await page.isVisible('.mp-attn-mode'), false, 'no choice without heads off');
      await page.evaluate((h) => window.mhaExplorer.ablate(h), off);
      const ours = await page.evaluate(() => {
        const w = window.mhaExplorer.getWeights({ ablated: true });
        return { shape: w.shape, data: Array.from(w.data) };
      });
      const ref = reference(join(models, name), meta.ids, off);
      const r = compare(ours, full, ref, 0);
      assert.ok(r.same, 'layer 0 (the lowest head off) keeps the full model’s attention');
      assert.ok(r.moved > 0, 'the layers above it change beyond the bounds');
      assert.deepEqual(
        await page.evaluate(() => Array.from(window.mhaExplorer.getWeights().data.slice(0, 8))),
        full.data.slice(0, 8),
        'getWeights() stays the full model’s',
      );
      await checkChoice(page, ours, full, name);
      const note = await page.textContent('.mp-attn-mode .note');
      assert.match(note, /layer 0 and below are unchanged, layers? 1/);
      if (name === 'minilm') {
        assert.match(
          note,
          /no prediction head: heads off change the attention of later layers and the embeddings, but no prediction/,
        );
        assert.match(
          await page.textContent('#predict-note'),
          /Switching heads off changes the attention of the layers above/,
        );
      }
      mkdirSync(ARTIFACTS, { recursive: true });
      await page
        .locator('#grid-title')
        .locator('xpath=ancestor::section')
        .screenshot({ path: join(ARTIFACTS, 'models-ablated-' + name + '.png') });
      // a new text with the heads still off: its ablated attentions once ready settles (the forward after the frame)
      assert.equal(await page.evaluate((t) => window.mhaExplorer.set({ text: t + ' And then?' }), meta.text), true);
      assert.ok(
        await page.evaluate(async (off) => {
          const m = window.mhaExplorer,
            w = m.getWeights({ ablated: true }),
            a = (await m.getModel().forward(m.getIds(), { headsOff: off, logitsAt: [] })).attentions;
          return w.shape[3] === m.getIds().length && w.data.every((v, i) => v === a.data[i]);
        }, off),
        'a new text: the ablated attentions are its own',
      );
      await page.evaluate(() => window.mhaExplorer.ablate([]));
      assert.equal(await page.isVisible('.mp-attn-mode'), false, 'all heads on: the choice goes');
      assert.deepEqual(g.errors, []);
      assert.deepEqual(g.foreign, []);
      await page.close();
    },
  );
}

// The choice: heads off (the default: the enlarged head is the ablated layer's), full, difference (its legend).
async function checkChoice(page, ours, full, name) {
  const [L, , H, T] = ours.shape,
    per = H * T * T,
    layer = L - 1;
  await page.evaluate((l) => window.mhaExplorer.select({ layer: l, head: 0 }), layer);
  const viewWeights = () =>
    page.evaluate(() => Array.from(document.querySelector('[data-mha-explorer-view]').mhaExplorer.getWeights().data));
  assert.equal(await page.isChecked('input[name=attn-mode][value=ablated]'), true);
  assert.deepEqual(await viewWeights(), ours.data.slice(layer * per, (layer + 1) * per), 'the enlarged layer: ablated');
  await page.check('input[name=attn-mode][value=full]');
  assert.deepEqual(await viewWeights(), full.data.slice(layer * per, (layer + 1) * per), 'the enlarged layer: full');
  assert.match(await page.textContent('#legend'), /^01$/);
  await page.check('input[name=attn-mode][value=diff]');
  let max = 0;
  for (let i = 0; i < ours.data.length; i++) max = Math.max(max, Math.abs(ours.data[i] - full.data[i]));
  const legend = await page.textContent('#legend');
  assert.match(legend, /^−(\S+)\+(\S+)ablated − full$/);
  const shown = legend.match(/^−(\S+)\+/)[1];
  assert.equal(shown, max >= 0.1 ? max.toFixed(2) : max.toPrecision(2), 'the legend’s range: the largest change');
  assert.match(
    await page.textContent('#grid-note'),
    /change with the heads off \(ablated − full\) on one diverging scale/,
  );
  mkdirSync(ARTIFACTS, { recursive: true });
  await page
    .locator('#grid-title')
    .locator('xpath=ancestor::section')
    .screenshot({ path: join(ARTIFACTS, 'models-ablated-difference-' + name + '.png') });
  assert.deepEqual(await axeViolations(page), [], 'axe-core: the choice and the difference view');
  // on a phone (320 px) the choice wraps inside its box, and the legend inside its panel
  await page.setViewportSize({ width: 320, height: 800 });
  const fits = await page.evaluate(
    () =>
      new Promise((done) =>
        requestAnimationFrame(() =>
          requestAnimationFrame(() => {
            const box = document.querySelector('.mp-attn-mode').getBoundingClientRect(),
              panel = document.querySelector('#legend').closest('section').getBoundingClientRect();
            const inside = (e, r) => e.left >= r.left - 0.5 && e.right <= r.right + 0.5;
            done({
              choice: [...document.querySelectorAll('.mp-attn-mode label')].every((l) =>
                inside(l.getBoundingClientRect(), box),
              ),
              legend: inside(document.querySelector('#legend').getBoundingClientRect(), panel),
            });
          }),
        ),
      ),
  );
  assert.deepEqual(fits, { choice: true, legend: true });
  await page
    .locator('#grid-title')
    .locator('xpath=ancestor::section')
    .screenshot({ path: join(ARTIFACTS, 'models-ablated-difference-320-' + name + '.png') });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.check('input[name=attn-mode][value=ablated]');
}
