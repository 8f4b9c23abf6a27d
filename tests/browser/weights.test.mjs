// "Load weights" on the main page: a .safetensors state_dict of the lessons' MultiHeadAttention, or a layer
// of the training lab's model, shows its heads on the page's sentence — through the API, the file button and
// drag-and-drop, over http and from file:// — and the page's "Copy as PyTorch" loads the same file in real
// PyTorch and prints what the page prints. Every damaged or unsuitable file gets a message that names what
// is wrong, and the page keeps working. The lab says where a lessons' module file belongs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { suite, fileURL, repo, printedMismatches } from './helpers.mjs';

const DIR = mkdtempSync(join(tmpdir(), 'mha-weights-'));
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']; // as tests/browser/a11y.test.mjs
before(() => {
  execFileSync('/usr/bin/python3', [join(repo, 'tests', 'torch', 'make_weight_files.py'), DIR]);
});
const env = suite();
after(() => {
  rmSync(DIR, { recursive: true, force: true });
});

const bytesOf = (name) => Array.from(readFileSync(join(DIR, name)));
const open = async (url) => (await env.open(url)).page;
const load = (page, name, layer) =>
  page.evaluate(([b, n, l]) => window.mhaExplorer.loadWeights(new Uint8Array(b), n, l), [bytesOf(name), name, layer]);
const shown = (page) =>
  page.evaluate(() => ({
    state: window.mhaExplorer.getState(),
    note: document.getElementById('weights-note').textContent,
    heads: document.getElementById('heads-note').textContent,
    messages: document.getElementById('weights-msg').textContent,
    snippet: window.mhaExplorer.getSnippets().find((s) => s.id === 'copy-as-pytorch'),
    weights: window.mhaExplorer.getWeights(),
  }));

test(
  "a lessons' module file and a lab layer: the page's snippet loads them in PyTorch and prints what the page prints",
  { timeout: 300000 },
  async () => {
    const page = await open(env.srv.origin + '/index.html?dmodel=64&heads=8&causal=1');
    assert.equal(await load(page, 'lessons_mha.safetensors'), true);
    const a = await shown(page);
    assert.equal(a.state.dmodel, 32, 'd_model comes from the file');
    assert.equal(a.state.heads, 8, 'heads kept: 8 divides 32');
    assert.match(a.note, /Loaded from lessons_mha\.safetensors \(d_model 32\)/);
    assert.match(a.heads, /weights loaded from lessons_mha\.safetensors/);
    assert.match(a.snippet.code, /mha\.load_state_dict\(load_file\("lessons_mha\.safetensors"\)\)/);
    assert.equal(await page.evaluate(() => document.getElementById('c-dmodel').disabled), true);

    await page.selectOption('#c-heads', '2');
    await page.waitForFunction(() => window.mhaExplorer.getState().heads === 2);
    const b = await shown(page);

    assert.equal(await load(page, 'lab_model.safetensors', 1), true);
    const c = await shown(page);
    assert.equal(c.state.dmodel, 16);
    assert.match(c.note, /layer 1 of the lab's model/);
    assert.match(c.heads, /need not be the roles the lab showed/);
    assert.equal(
      await page.evaluate(() => document.getElementById('f-layer').hidden),
      false,
      'two layers: a layer picker',
    );
    await page.selectOption('#c-layer', '0');
    await page.waitForFunction(() => /layer 0 of/.test(document.getElementById('weights-note').textContent));
    const d = await shown(page);
    assert.notDeepEqual(Array.from(d.weights.data), Array.from(c.weights.data), 'another layer, other heads');

    assert.match(c.note, /does not say how many heads/, 'a state_dict has no num_heads');
    // A file the lab saves says its num_heads: the page takes it.
    const labSaved = await page.evaluate(() => {
      const M = window.mhaExplorer.module,
        g = new M.Generator(4);
      const m = new M.TinyAttentionModel({ task: 'two-offsets', dModel: 16, numHeads: 4, generator: g });
      const bytes = Array.from(m.toSafetensors());
      m.delete();
      g.delete();
      return bytes;
    });
    assert.equal(
      await page.evaluate((b) => window.mhaExplorer.loadWeights(new Uint8Array(b), 'lab-saved.safetensors'), labSaved),
      true,
    );
    const saved = await shown(page);
    assert.equal(saved.state.heads, 4);
    assert.match(saved.note, /16, 4 heads, as the file says/);

    assert.equal(await load(page, 'half.safetensors'), true);
    const e = await shown(page);
    assert.equal(e.state.dmodel, 8);

    const runs = [
      ['lessons, 8 heads', a],
      ['lessons, 2 heads', b],
      ['lab layer 1', c],
      ['lab layer 0', d],
      ['F16 file', e],
    ].map(([id, s]) => ({ id, code: s.snippet.code, printed: s.snippet.printed, cwd: DIR }));
    assert.deepEqual(printedMismatches(runs), []);

    // Back to random weights: the seed's init again, and the file's d_model stays selectable.
    await page.click('#random-weights');
    await page.waitForFunction(() => !/Loaded/.test(document.getElementById('weights-note').textContent));
    const f = await shown(page);
    assert.match(f.heads, /untrained: random initial weights/);
    assert.doesNotMatch(f.snippet.code, /load_state_dict/);
    assert.equal(await page.evaluate(() => document.getElementById('c-dmodel').disabled), false);
    await page.close();
  },
);

test('bad files get a message naming what is wrong; the page keeps its heads', { timeout: 120000 }, async () => {
  const page = await open(env.srv.origin + '/index.html?dmodel=32&heads=4');
  const before = await shown(page);
  const CASES = {
    'zip.safetensors':
      /Could not load zip\.safetensors: this is not a valid \.safetensors file: it is a zip archive, as torch\.save writes/,
    'notes.safetensors': /it starts with text .*it is a text file, not a \.safetensors file/,
    'no_attention.safetensors': /holds no attention weights.*this file has tok\.weight/,
    'not_square.safetensors': /W_q\.weight has shape \[32, 16\]; the lessons' MultiHeadAttention has square/,
    'no_bias.safetensors': /it has no W_o\.bias/,
    'wrong_shape.safetensors': /W_k\.weight/,
  };
  for (const [name, message] of Object.entries(CASES)) {
    assert.equal(await load(page, name), false, name + ' is refused');
    const s = await shown(page);
    assert.match(s.messages, message, name);
    assert.match(s.note, /^Random/, name + ': still the random weights');
    assert.deepEqual(Array.from(s.weights.data), Array.from(before.weights.data), name + ': the heads are unchanged');
  }
  await page.close();
});

test(
  "the file button and drag-and-drop, from file:// as over http; a lesson example puts the lesson's weights back",
  { timeout: 120000 },
  async () => {
    for (const url of [fileURL('index.html'), env.srv.origin + '/index.html']) {
      const page = await open(url);
      await page.setInputFiles('#load-weights', join(DIR, 'lessons_mha.safetensors'));
      await page.waitForFunction(() =>
        /Loaded from lessons_mha/.test(document.getElementById('weights-note').textContent),
      );
      await page.click('#random-weights');
      await page.waitForFunction(() => /^Random/.test(document.getElementById('weights-note').textContent));
      await page.evaluate((b) => {
        const dt = new DataTransfer();
        dt.items.add(new File([new Uint8Array(b)], 'dropped.safetensors'));
        document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      }, bytesOf('lab_model.safetensors'));
      await page.waitForFunction(() =>
        /Loaded from dropped\.safetensors, layer 0/.test(document.getElementById('weights-note').textContent),
      );
      await page.selectOption('#c-preset', 'lesson000');
      await page.waitForFunction(() => window.mhaExplorer.getState().preset === 'lesson000');
      const s = await shown(page);
      assert.match(s.note, /^Random/, "the lesson's example uses its own weights");
      await page.close();
    }
  },
);

test(
  "the lab refuses a lessons' module file with a message that says where it belongs",
  { timeout: 120000 },
  async () => {
    const g = await env.page();
    await g.page.goto(env.srv.origin + '/lab.html?preset=train-two-offsets');
    await g.page.waitForFunction(() => window.mhaExplorer && window.mhaExplorer.ready);
    await g.page.evaluate(() => window.mhaExplorer.ready);
    await g.page.setInputFiles('#load-file', join(DIR, 'lessons_mha.safetensors'));
    await g.page.waitForFunction(() => /Could not load/.test(document.getElementById('pytorch-msg').textContent));
    assert.match(
      await g.page.textContent('#pytorch-msg'),
      /one MultiHeadAttention \(the lessons' module.*main page with "Load weights"/,
    );
    await g.page.close();
  },
);

test(
  'the weights controls pass the axe-core audit: a lab file with its layer picker, and a refused file',
  { timeout: 120000 },
  async () => {
    for (const [size, theme] of [
      [{ width: 1360, height: 900 }, 'light'],
      [{ width: 390, height: 844 }, 'dark'],
    ]) {
      const page = await open(env.srv.origin + '/index.html?theme=' + theme);
      await page.setViewportSize(size);
      const audit = async (what) => {
        await page.evaluate(() => {
          document.getElementById('controls-box').open = true;
        });
        if (!(await page.evaluate(() => !!window.axe))) await page.addScriptTag({ path: AXE });
        const v = await page.evaluate((values) => window.axe.run(document, { runOnly: { type: 'tag', values } }), TAGS);
        assert.deepEqual(
          v.violations.map((x) => x.id + ': ' + x.nodes.map((n) => n.target.join(' ')).join(', ')),
          [],
          `${what} · ${theme}`,
        );
      };
      assert.equal(await load(page, 'lab_model.safetensors', 1), true);
      await audit('lab file loaded');
      assert.equal(await load(page, 'zip.safetensors'), false);
      await audit('file refused');
      await page.close();
    }
  },
);

test(
  'odd requests: a layer the file lacks, a num_heads that cannot split d_model, a lesson chosen by script, no tokens',
  { timeout: 120000 },
  async () => {
    const { page } = await env.page();
    await page.goto(env.srv.origin + '/index.html?text=');
    await page.evaluate(() => window.mhaExplorer.ready);
    assert.equal(await load(page, 'lessons_mha.safetensors'), true, 'no tokens yet: the weights wait for a sentence');
    await page.evaluate(() => window.mhaExplorer.set({ text: 'the cat sat' }));
    assert.match((await shown(page)).heads, /weights loaded from lessons_mha\.safetensors/);
    assert.equal(await load(page, 'lab_model.safetensors', 5), false);
    assert.match((await shown(page)).messages, /it has no layer 5: its layers are 0, 1\./);
    assert.equal(await load(page, 'bad_heads.safetensors'), true);
    assert.match((await shown(page)).note, /The file says num_heads "3", which does not split d_model 32/);
    await page.evaluate(() => window.mhaExplorer.set({ preset: 'lesson001' }));
    const lesson = await shown(page);
    assert.match(lesson.note, /^Random/, 'a lesson chosen by script uses its own weights');
    assert.equal(lesson.state.dmodel, 8);
    // Hovering the enlarged head after the tokens are gone: nothing to read, no error (the suite checks the console).
    await page.evaluate(() => window.mhaExplorer.set({ preset: '', text: '' }));
    const box = await page.locator('#detail-canvas').boundingBox();
    if (box && box.width > 4) await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    assert.equal(await page.textContent('#detail-title'), 'Head');
    await page.close();
  },
);

test("the lab keeps its settings when a file's metadata disagrees with its tensors", { timeout: 120000 }, async () => {
  const g = await env.page();
  await g.page.goto(env.srv.origin + '/lab.html?preset=train-two-offsets');
  await g.page.evaluate(() => window.mhaExplorer.ready);
  await g.page.evaluate(() => window.mhaExplorer.train({ steps: 20 }));
  await g.page.setInputFiles('#load-file', join(DIR, 'mislabelled.safetensors'));
  await g.page.waitForFunction(() => /Could not load/.test(document.getElementById('pytorch-msg').textContent));
  assert.match(
    await g.page.textContent('#pytorch-msg'),
    /metadata and its tensors disagree \(task reverse has 1 readout\(s\), the tensors 2\): the lab keeps its settings/,
  );
  const t = await g.page.evaluate(() => window.mhaExplorer.getTraining());
  assert.equal(t.step, 20, 'the run is kept');
  assert.match(await g.page.evaluate(() => location.search), /preset=train-two-offsets/);
  // Two layers of two heads, then one layer of four: the cards follow.
  await g.page.evaluate(() => window.mhaExplorer.set({ layers: 2 }));
  await g.page.evaluate(() => window.mhaExplorer.set({ heads: 4, layers: 1 }));
  assert.equal(await g.page.locator('#heads .lab-head').count(), 4);
  await g.page.close();
});
