// Generation, the logit lens, attribution, patching and mean ablation through the JS API (wasm/api/analysis.js) against
// tests/models/heads_reference.py's references (build/heads/<case>.json, CTest's heads.references: float64 values
// checked there against TransformerLens and transformers, with bounds on any float32 implementation's error).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildName, HEAP_SLACK, heapUsed, load, MODELS_DIR, rejects, testedBuilds } from './fixtures/reference.mjs';

const HEADS_DIR = fileURLToPath(new URL('../../build/heads/', import.meta.url));
const CASES = ['gpt2', 'llama', 'tinystories', 'pythia', 'opt', 'qwen3', 'gemma2', 'gemma3'];

function reference(name) {
  const path = join(HEADS_DIR, `${name}.json`);
  assert.ok(
    existsSync(path),
    `${path} is missing: CTest's heads.references writes it (tests/models/heads_reference.py)`,
  );
  return JSON.parse(readFileSync(path, 'utf8'));
}

function files(name) {
  const dir = join(MODELS_DIR, name);
  return ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json']
    .filter((f) => existsSync(join(dir, f)))
    .map((f) => ({ name: f, bytes: new Uint8Array(readFileSync(join(dir, f))) }));
}

const eosOf = (name) => JSON.parse(readFileSync(join(MODELS_DIR, name, 'generation_config.json'), 'utf8')).eos_token_id;

// The compared prefix: tokens up to the first step whose float64 margin is within its bound.
function clearPrefix(want, clear) {
  const n = clear.indexOf(false);
  return want.slice(0, n < 0 ? want.length : n);
}

for (const path of testedBuilds()) {
  const build = buildName(path);
  for (const name of CASES) {
    test(`${build} ${name}: generate, lens, attribute, patch and meanAblation equal the references`, async () => {
      const M = await load(path);
      const ref = reference(name);
      const model = await M.loadModel(files(name));
      for (const g of ref.generate) {
        const r = await model.generate(g.prompt, { maxNewTokens: 20, eos: eosOf(name) });
        assert.deepEqual(r.ids.slice(0, clearPrefix(g.new, g.clear).length), clearPrefix(g.new, g.clear));
      }
      for (const g of ref.sampled) {
        const o = { maxNewTokens: 20, temperature: g.temperature, topK: g.top_k, topP: g.top_p, seed: g.seed };
        const r = await model.generate(g.prompt, { ...o, eos: eosOf(name) });
        assert.deepEqual(
          r.ids.slice(0, clearPrefix(g.new, g.clear).length),
          clearPrefix(g.new, g.clear),
          `seed ${g.seed}`,
        );
      }
      const lens = model.lens(ref.ioi.clean);
      const want = ref.lens.logits.flat(2),
        bound = ref.lens.bound.flat(2);
      assert.deepEqual(lens.shape, [ref.lens.logits.length, ref.ioi.clean.length, model.info.vocab]);
      want.forEach((v, i) =>
        assert.ok(Math.abs(lens.data[i] - v) <= bound[i], `lens ${i}: ${lens.data[i]} vs ${v} ± ${bound[i]}`),
      );
      // a row at a time: the same bits as the whole lens; a bad row and a disposed lens said
      const rows = model.lensRows(ref.ioi.clean),
        n = ref.ioi.clean.length * model.info.vocab;
      assert.equal(rows.rows, lens.shape[0]);
      for (let l = 0; l < rows.rows; l++) {
        const row = rows.row(l);
        assert.deepEqual(row.shape, [ref.ioi.clean.length, model.info.vocab]);
        assert.deepEqual(row.data, lens.data.subarray(l * n, (l + 1) * n), `lensRows row ${l}`);
      }
      assert.throws(() => rows.row(rows.rows), /row must be a whole number from 0 to/);
      rows.dispose();
      assert.throws(() => rows.row(0), /this lens was disposed/);
      for (const what of ['resid', 'attn', 'mlp', 'heads']) {
        const seen = [];
        const map = await model.patch({
          clean: ref.ioi.clean,
          corrupted: ref.ioi.corrupted,
          tokens: ref.ioi.tokens,
          what,
          onProgress: (p) => seen.push(p.done),
        });
        const pw = ref.patching[what].flat(),
          pb = ref.patching[`${what}_bound`].flat();
        assert.deepEqual(map.shape, [ref.patching[what].length, ref.patching[what][0].length]);
        pw.forEach((v, i) =>
          assert.ok(Math.abs(map.data[i] - v) <= pb[i], `${what} ${i}: ${map.data[i]} vs ${v} ± ${pb[i]}`),
        );
        assert.deepEqual(
          seen,
          Array.from({ length: pw.length }, (_, i) => i + 1),
        );
      }
      for (const want of ref.attribution) {
        const got = model.attribute(ref.ioi.clean, { tokens: want.tokens });
        const hw = want.heads.flat(),
          hb = want.heads_bound.flat();
        got.heads.flat().forEach((v, i) => assert.ok(Math.abs(v - hw[i]) <= hb[i], `head ${i}: ${v} vs ${hw[i]}`));
        for (const k of ['embed', 'biases', 'sum', 'logit', 'centred'])
          assert.ok(Math.abs(got[k] - want[k]) <= want[`${k}_bound`], `${k}: ${got[k]} vs ${want[k]}`);
      }
      const mean = model.meanAblation(ref.ioi.clean, { tokens: ref.ioi.tokens });
      const mw = ref.mean_ablation.metric.flat(),
        mb = ref.mean_ablation.metric_bound.flat();
      mw.forEach((v, i) => assert.ok(Math.abs(mean.data[i] - v) <= mb[i], `mean ablation ${i}`));
      model.dispose();
    });
  }

  test(`${build}: an encoder's lens is its MLM head on each hidden state; without a head, or for the causal methods, said`, async () => {
    const M = await load(path);
    for (const name of ['bert', 'distilbert', 'modernbert']) {
      const ref = reference(name);
      const model = await M.loadModel(files(name));
      const lens = model.lens(ref.ids),
        want = ref.lens.logits.flat(2),
        bound = ref.lens.bound.flat(2);
      assert.deepEqual(lens.shape, [model.info.layers + 1, ref.ids.length, model.info.vocab]);
      want.forEach((v, i) =>
        assert.ok(Math.abs(lens.data[i] - v) <= bound[i], `${name} lens ${i}: ${lens.data[i]} vs ${v} ± ${bound[i]}`),
      );
      assert.throws(() => model.attribute(ref.ids, { tokens: [1] }), /needs a causal model/);
      model.dispose();
    }
    const headless = await M.loadModel(files('bert-noprefix'));
    assert.throws(() => headless.lens([2, 5, 3]), /needs a language-model head .*bert model has none/);
    headless.dispose();
  });

  test(`${build}: bad input is refused with messages, Stop and cancel end generation, memory comes back`, async () => {
    const M = await load(path);
    const model = await M.loadModel(files('gpt2'));
    const ids = [5, 6, 7, 8, 9];
    await rejects(model.patch({ clean: ids, corrupted: [5, 6, 7, 8], tokens: [1, 2] }), 'same count');
    await rejects(model.patch({ clean: ids, corrupted: ids, tokens: [1] }), 'two token ids');
    const controller0 = new AbortController();
    const cancelled = model.patch({
      clean: ids,
      corrupted: [5, 6, 7, 8, 10],
      tokens: [1, 2],
      signal: controller0.signal,
      onProgress: () => controller0.abort(),
    });
    await rejects(cancelled, 'cancelled');
    assert.throws(() => model.attribute(ids, { position: 5, tokens: [1] }), /position must be/);
    assert.throws(() => model.attribute(ids, { tokens: [1, 2, 3] }), /one token id/);
    await rejects(model.patch({ clean: ids, corrupted: ids, tokens: [1, 2], what: 'nope' }), 'what must be');
    await rejects(model.generate(ids, { temperature: 0 }), 'temperature');
    await rejects(model.generate(ids, { topP: 2 }), 'topP');
    await rejects(model.generate(ids, { maxNewTokens: 0 }), 'maxNewTokens');
    const far = await model.generate(ids, { maxNewTokens: model.info.maxPositions });
    assert.equal(far.stopped, 'positions');
    assert.equal(far.ids.length + ids.length, model.info.maxPositions);
    const two = await model.generate(ids, { maxNewTokens: 10, onToken: ({ top }) => top.length === 5 && false });
    assert.deepEqual([two.ids.length, two.stopped], [1, 'stopped']);
    const controller = new AbortController();
    controller.abort();
    const none = await model.generate(ids, { signal: controller.signal });
    assert.deepEqual([none.ids.length, none.stopped], [0, 'cancelled']);
    const again = async () => {
      await model.generate(ids, { maxNewTokens: 3, seed: 1 });
      model.lens(ids);
      const rows = model.lensRows(ids);
      rows.row(rows.rows - 1);
      rows.dispose();
    };
    await again(); // the model's activations cache holds the last forward's (mha/models.hpp): the same size again
    const before = heapUsed(M);
    await again();
    assert.ok(heapUsed(M) <= before + HEAP_SLACK, 'generation and the lens give their memory back');
    model.dispose();
  });
}
