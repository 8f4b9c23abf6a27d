// web/explorer/input.js: the input block mx.explore writes into the page (x as base64 float32, tokens, weights), and the
// student's words for a block the page cannot use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readPageInput, inputLabels } from '../../web/explorer/input.js';

const f32 = (values) => Buffer.from(new Float32Array(values).buffer).toString('base64');
const block = (o) => JSON.stringify(o);

test('x, tokens and weights as the page reads them', () => {
  const x = [0.5, -1.25, 3e-8, 7, 1 / 3, -0];
  const given = readPageInput(
    block({
      x: { shape: [1, 3, 2], float32: f32(x) },
      tokens: ['a', '<b>', 'c'],
      weights: {
        file: 'm.safetensors',
        safetensors: Buffer.from([1, 2, 3]).toString('base64'),
        how: 'mx.save_weights',
      },
      source: 'the notebook',
    }),
    512,
    1024,
  );
  assert.deepEqual(given.x.shape, [1, 3, 2]);
  assert.deepEqual(Array.from(given.x.data), Array.from(new Float32Array(x)));
  assert.deepEqual(given.tokens, ['a', '<b>', 'c']);
  assert.deepEqual(Array.from(given.weights.bytes), [1, 2, 3]);
  assert.equal(given.weights.how, 'mx.save_weights');
  assert.deepEqual(inputLabels(given), ['a', '<b>', 'c']);
  assert.deepEqual(inputLabels(readPageInput(block({ x: { shape: [1, 2, 1], float32: f32([1, 2]) } }), 512, 1024)), [
    't0',
    't1',
  ]);
  assert.equal(readPageInput(null, 512, 1024), null);
});

test('a block the page cannot use says why', () => {
  const bad = (o, re) => assert.throws(() => readPageInput(typeof o === 'string' ? o : block(o), 4, 8), re);
  bad('{x:', /the page's input block is not JSON/);
  bad(
    { x: { shape: [2, 2, 2], float32: f32(new Array(8).fill(0)) } },
    /shape \[2,2,2\]; the page takes one sequence, \[1, T, d_model\]/,
  );
  bad({ x: { shape: [1, 5, 2], float32: f32(new Array(10).fill(0)) } }, /5 positions; the page draws at most 4/);
  bad(
    { x: { shape: [1, 2, 9], float32: f32(new Array(18).fill(0)) } },
    /d_model 9; the page shows d_model from 1 to 8/,
  );
  bad({ x: { shape: [1, 2, 2], float32: f32([1, 2, 3]) } }, /12 bytes of data for shape \[1, 2, 2\] \(16 expected\)/);
  bad({ x: { shape: [1, 1, 2], float32: f32([1, NaN]) } }, /NaN or infinite/);
  bad({ x: { shape: [1, 2, 1], float32: f32([1, 2]) }, tokens: ['a'] }, /1 for x's 2 positions/);
  bad({ tokens: [] }, /non-empty list of strings/);
  bad({ tokens: ['a', 'b', 'c', 'd', 'e'] }, /5; the page draws at most 4/);
});
