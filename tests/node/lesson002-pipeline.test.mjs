// Lesson 002: docs/js-api.md's example written as a test (checked numerically), and its 4-step pipeline (matmul → splitHeads →
// scaledDotProductAttention → mergeHeads → matmul) against a plain-JS double reference.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  testedBuilds,
  buildName,
  load,
  matmul2,
  split,
  merge,
  attentionRef,
  mhaForwardRef,
  assertClose,
  rowSums,
} from './fixtures/reference.mjs';

for (const build of testedBuilds()) {
  test(`the JS API example of lesson 002 — ${buildName(build)}`, async (t) => {
    const M = await load(build);

    await t.test('manual_seed(0); MultiHeadAttention(32, 4); x = randn(2, 5, 32); forward(x, x, x)', () => {
      const g = new M.Generator(0);
      const mha = new M.MultiHeadAttention({ dModel: 32, numHeads: 4, generator: g });
      const x = g.randn([2, 5, 32]);
      const { output, weights, trace } = mha.forward(x, x, x);
      assert.deepEqual(output.shape, [2, 5, 32]);
      assert.deepEqual(weights.shape, [2, 4, 5, 5]);
      assert.ok(output.data instanceof Float32Array && output.data.length === 2 * 5 * 32);
      assert.ok(Array.isArray(trace) && trace.length === 8);
      assert.equal(mha.parameterCount(), 4224);
      assert.equal(mha.training, true, 'nn.Module starts in training mode');
      const ref = mhaForwardRef(mha.parameters(), x.data, x.data, x.data, 2, 5, 5, 32, 4);
      assertClose(output.data, ref.output, 1e-5, 'output vs double reference');
      assertClose(weights.data, ref.weights, 1e-5, 'weights vs double reference');
      // the loop-over-heads implementation agrees
      const lv = M.loopVsVectorized(mha, x);
      assert.ok(lv.maxAbsDiff < 1e-5, `loop vs vectorized ${lv.maxAbsDiff}`);
      assertClose(lv.vectorized.data, output.data, 1e-6, 'loopVsVectorized.vectorized');
      mha.delete();
      g.delete();
    });

    await t.test('4-step pipeline on the manual_seed(1) stream', () => {
      const g = new M.Generator(1);
      g.randn([8]);
      g.randn([8, 8]);
      const x = g.randn([2, 4, 8]);
      const [Wq, Wk, Wv, Wo] = [0, 1, 2, 3].map(() => g.randn([8, 8]));
      g.delete();
      const q = M.matmul(x, Wq),
        k = M.matmul(x, Wk),
        v = M.matmul(x, Wv);
      for (const r of [q, k, v]) assert.deepEqual(r.shape, [2, 4, 8]);
      const qh = M.splitHeads(q, 2),
        kh = M.splitHeads(k, 2),
        vh = M.splitHeads(v, 2);
      for (const r of [qh, kh, vh]) assert.deepEqual(r.shape, [2, 2, 4, 4]);
      const att = M.scaledDotProductAttention(qh, kh, vh);
      assert.deepEqual(att.weights.shape, [2, 2, 4, 4]);
      assert.deepEqual(att.output.shape, [2, 2, 4, 4]);
      rowSums(att.weights.data, 4).forEach((s, r) =>
        assert.ok(Math.abs(s - 1) < 1e-6, `weights row ${r} sums to ${s}`),
      );
      const concat = M.mergeHeads(att.output);
      assert.deepEqual(concat.shape, [2, 4, 8]);
      const y = M.matmul(concat, Wo);
      assert.deepEqual(y.shape, [2, 4, 8]);

      // plain-JS doubles
      const X = Float64Array.from(x.data);
      const rq = matmul2(X, Wq.data, 8, 8, 8),
        rk = matmul2(X, Wk.data, 8, 8, 8),
        rv = matmul2(X, Wv.data, 8, 8, 8);
      assertClose(q.data, rq, 1e-5, 'q = x @ Wq');
      const sq = split(rq, 2, 4, 2, 4),
        sk = split(rk, 2, 4, 2, 4),
        sv = split(rv, 2, 4, 2, 4);
      assertClose(qh.data, sq, 1e-5, 'splitHeads(q, 2)');
      const ref = attentionRef(sq, sk, sv, 2, 2, 4, 4, 4, 4);
      assertClose(att.weights.data, ref.weights, 1e-5, 'attention weights');
      assertClose(att.output.data, ref.out, 1e-5, 'attention output');
      const rc = merge(ref.out, 2, 2, 4, 4);
      assertClose(concat.data, rc, 1e-5, 'mergeHeads');
      assertClose(y.data, matmul2(rc, Wo.data, 8, 8, 8), 1e-5, 'y = concat @ Wo');
      // mergeHeads undoes splitHeads
      assertClose(M.mergeHeads(qh).data, q.data, 0, 'mergeHeads(splitHeads(q))');
      // needWeights: false (the streaming path) gives the same output
      const fused = M.scaledDotProductAttention(qh, kh, vh, { needWeights: false });
      assert.equal(fused.weights, null);
      assertClose(fused.output.data, att.output.data, 1e-5, 'fused SDPA output');
      // softmax on its own
      const sm = M.softmax(x);
      assert.deepEqual(sm.shape, [2, 4, 8]);
      const sm0 = M.softmax(x, 0);
      assert.ok(Math.abs(sm0.data[0] + sm0.data[32] - 1) < 1e-6);
    });
  });
}
