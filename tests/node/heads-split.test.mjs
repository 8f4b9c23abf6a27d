// MultiHeadAttention.forward({heads: [start, end)}): the parts of a partition of the heads, joined as the page's
// forward pool joins them (web/compute/forward-pool.js), give the one-part forward's weights bit for bit and its
// output within float32 rounding; bad ranges and dropout in train() are refused with a message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testedBuilds, buildName, load } from './fixtures/reference.mjs';
import { headParts, joinParts } from '../../web/compute/forward-pool.js';

test('headParts: contiguous, as equal as possible, at most one part per head', () => {
  assert.deepEqual(headParts(8, 2), [
    [0, 4],
    [4, 8],
  ]);
  assert.deepEqual(headParts(8, 3), [
    [0, 3],
    [3, 6],
    [6, 8],
  ]);
  assert.deepEqual(headParts(2, 4), [
    [0, 1],
    [1, 2],
  ]);
  assert.deepEqual(headParts(1, 8), [[0, 1]]);
});

for (const build of testedBuilds()) {
  test(`forward by parts of the heads — ${buildName(build)}`, async () => {
    const M = await load(build);
    const g = new M.Generator(11);
    for (const [B, S, D, H, causal] of [
      [1, 64, 64, 4, false],
      [2, 33, 48, 6, true],
      [1, 130, 256, 8, false],
    ]) {
      const mha = new M.MultiHeadAttention({ dModel: D, numHeads: H, generator: g }).eval();
      const x = g.randn([B, S, D]);
      const whole = mha.forward(x, x, x, { causal });
      for (const n of [2, 3, H]) {
        const parts = headParts(H, n).map((heads) => ({ ms: 0, ...mha.forward(x, x, x, { causal, heads }) }));
        assert.deepEqual(parts[0].weights.shape, [B, parts[0].weights.shape[1], S, S]);
        const joined = joinParts(parts);
        assert.deepEqual(joined.weights.shape, whole.weights.shape);
        assert.ok(
          joined.weights.data.every((v, i) => Object.is(v, whole.weights.data[i])),
          `${n} parts: the weights are the same floats`,
        );
        let worst = 0,
          scale = 0;
        whole.output.data.forEach((v, i) => {
          worst = Math.max(worst, Math.abs(joined.output.data[i] - v));
          scale = Math.max(scale, Math.abs(v));
        });
        // float32 rounding of W_o's sum split into n sums of D/n products each
        assert.ok(
          worst <= 4e-7 * Math.max(1, scale) * Math.sqrt(D / 64) * n,
          `${n} parts: output within rounding (${worst})`,
        );
      }
      mha.delete();
    }
    const mha = new M.MultiHeadAttention({ dModel: 16, numHeads: 4, dropout: 0.5, generator: g });
    const x = g.randn([1, 5, 16]);
    for (const bad of [[0, 5], [2, 2], [3, 1], [0.5, 2], [-1, 2], [0], 'all', 2]) {
      assert.throws(
        () => mha.forward(x, x, x, { heads: bad }),
        /options\.heads must be \[start, end\): two whole numbers with 0 <= start < end <= numHeads \(4\)/,
      );
    }
    assert.throws(() => mha.forward(x, x, x, { heads: [0, 2] }), /some heads only runs without dropout/);
    mha.eval();
    assert.deepEqual(mha.forward(x, x, x, { heads: [1, 3] }).weights.shape, [1, 2, 5, 5]);
    mha.delete();
    g.delete();
  });
}
