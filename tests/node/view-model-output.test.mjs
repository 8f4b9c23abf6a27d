// mountAttention(el, {attentions: out.attentions, tokens, layer}) (issue 38, item 4): the view reads a model's
// forward result ([L, 1, H, T, T]) itself, one layer or all, without the caller slicing (web/views/attention-state.js's
// readInput; the npm package's Vite example draws it in Chromium: tests/npm/bundlers.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILDS, load, MODELS_DIR } from './fixtures/reference.mjs';
import { readInput } from '../../web/views/attention-state.js';

const FILES = ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'];

test("readInput takes a model's attentions: one layer with `layer`, every layer without, a note for a layer it lacks", async () => {
  const M = await load(BUILDS[0]);
  const model = await M.loadModel(
    FILES.map((name) => ({ name, bytes: new Uint8Array(readFileSync(join(MODELS_DIR, 'gpt2', name))) })),
  );
  const { ids, tokens } = model.tokenize('The cat sat on the mat');
  const { attentions } = model.forward(ids);
  model.dispose();
  const [L, , H, T] = attentions.shape,
    n = H * T * T;
  assert.ok(L >= 2);
  const one = readInput({ attentions, tokens, layer: 1, scale: 'blues' });
  assert.deepEqual(
    one.notes.filter((x) => /attentions|layer/.test(x)),
    [],
  );
  assert.deepEqual(one.dims, { L: 1, B: 1, H, T, S: T });
  assert.deepEqual(Array.from(one.data), Array.from(attentions.data.subarray(n, 2 * n)), 'layer 1 exactly');
  assert.deepEqual(one.labels, tokens);
  const all = readInput({ attentions, tokens, scale: 'blues' });
  assert.deepEqual(all.dims, { L, B: 1, H, T, S: T });
  assert.equal(all.data.length, attentions.data.length);
  const beyond = readInput({ attentions, tokens, layer: L, scale: 'blues' });
  assert.ok(
    beyond.notes.some((x) => x.startsWith(`layer ${L} is not one of the ${L} layers`)),
    beyond.notes.join('\n'),
  );
  assert.equal(beyond.dims.L, L, 'all layers drawn');
  const bad = readInput({ attentions: [1, 2], scale: 'blues' });
  assert.ok(
    bad.notes.some((x) => x.startsWith("attentions must be a model's attentions")),
    bad.notes.join('\n'),
  );
});
