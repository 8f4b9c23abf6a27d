// PyTorch's draws reproduced bit for bit by the JS API (real PyTorch computes them: tests/torch/oracle.py),
// and the lessons' printed numbers, against every build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  testedBuilds,
  IMPLEMENTATION,
  RELAXED_FLAG,
  torchDraws,
  RELAXED_SIMD,
  buildName,
  load,
  rowSums,
  assertClose as close,
} from './fixtures/reference.mjs';

// The relaxed build is tested wherever this node can run it (testedBuilds says when it cannot); fail if
// the flag that should enable it did not (a wrong probe would otherwise skip it silently).
test(
  'the relaxed-SIMD probe validates when node runs with the flag',
  { skip: !process.execArgv.includes(RELAXED_FLAG) },
  () => {
    assert.equal(RELAXED_SIMD, true);
  },
);

for (const build of testedBuilds()) {
  const name = buildName(build);
  test(`public PyTorch vectors — ${name}`, async (t) => {
    const M = await load(build);
    assert.equal(M.implementation, IMPLEMENTATION[name]);

    await t.test('manual_seed(1): randn(8), then randn(8, 8) from the same generator, bit for bit', () => {
      const [a8, b64] = torchDraws(1, [
        ['randn', [8]],
        ['randn', [8, 8]],
      ]);
      const g = new M.Generator(1);
      const a = g.randn([8]);
      assert.deepEqual(a.shape, [8]);
      assert.ok(a.data instanceof Float32Array);
      assert.deepEqual(a.data, a8, 'randn(8)');
      const b = g.randn([8, 8]);
      assert.deepEqual(b.shape, [8, 8]);
      assert.deepEqual(b.data, b64, 'randn(8, 8)');
      assert.equal(g.initialSeed(), 1);
      g.delete();
    });

    await t.test('manual_seed(0): rand(3) and randn(3); manualSeed resets the stream', () => {
      const [r3, n3] = torchDraws(0, [['rand', [3]]]).concat(torchDraws(0, [['randn', [3]]]));
      const g = new M.Generator(0);
      assert.deepEqual(g.rand([3]).data, r3, 'rand(3)');
      assert.equal(g.manualSeed(0), g, 'manualSeed returns the generator');
      assert.deepEqual(g.randn([3]).data, n3, 'randn(3)');
      g.randn([5]); // leaves a cached normal behind: manual_seed must forget it
      g.manualSeed(0);
      assert.deepEqual(g.randn([3]).data, n3, 'randn(3) after reseed');
      g.delete();
    });

    await t.test('manual_seed(0): MultiHeadAttention(4, 1) W_q is the first nn.Linear(4, 4)', () => {
      const g = new M.Generator(0);
      const mha = new M.MultiHeadAttention({ dModel: 4, numHeads: 1, generator: g });
      const p = mha.parameters();
      assert.deepEqual(Object.keys(p).sort(), ['W_k', 'W_o', 'W_q', 'W_v']);
      assert.deepEqual(p.W_q.weight.shape, [4, 4]);
      assert.deepEqual(p.W_q.bias.shape, [4]);
      const [w, b] = torchDraws(0, [['linear', 4, 4, true]]);
      assert.deepEqual(p.W_q.weight.data, w, 'W_q.weight is nn.Linear(4, 4).weight');
      assert.deepEqual(p.W_q.bias.data, b, 'W_q.bias');
      for (const k of ['W_q', 'W_k', 'W_v', 'W_o']) {
        for (const v of [...p[k].weight.data, ...p[k].bias.data])
          assert.ok(Math.abs(v) <= 0.5, `${k} within U(-1/sqrt(4), 1/sqrt(4))`);
      }
      mha.delete();
      g.delete();
    });

    await t.test('lesson 002 mixThenSplit({seed: 1, dModel: 8, outputIndex: 3})', () => {
      const r = M.mixThenSplit({ seed: 1, dModel: 8, outputIndex: 3 });
      const [x0, W] = torchDraws(1, [
        ['randn', [8]],
        ['randn', [8, 8]],
      ]);
      assert.deepEqual(r.x0.data, x0, 'x0');
      assert.deepEqual(r.W.data, W, 'W');
      const q0 = Array.from({ length: 8 }, (_, j) => x0.reduce((s, x, i) => s + x * W[i * 8 + j], 0)); // x0 @ W in double
      close(r.q0.data, q0, 1e-6, 'q0');
      assert.equal(r.outputIndex, 3);
      assert.ok(Math.abs(r.q0AtIndex - q0[3]) <= 1e-6);
      assert.ok(Math.abs(r.manual - r.q0AtIndex) <= 1e-5, `manual ${r.manual} vs q0AtIndex ${r.q0AtIndex}`);
      // the same with an explicit generator seeded 1
      const g = new M.Generator(1);
      const r2 = M.mixThenSplit({ dModel: 8, outputIndex: 3, generator: g });
      close(r2.q0.data, Array.from(r.q0.data), 0, 'q0 via generator');
      g.delete();
    });

    await t.test('parameter counts', () => {
      const s = M.parameterScenarios(512, 8);
      assert.equal(s.full, 6291456);
      assert.equal(s.reduced, 786432);
      assert.equal(s.actual, 786432);
      const g = new M.Generator(0);
      const count = (dModel, numHeads, bias) => {
        const m = new M.MultiHeadAttention({ dModel, numHeads, bias, generator: g });
        try {
          return m.parameterCount();
        } finally {
          m.delete();
        }
      };
      assert.equal(count(32, 4, true), 4224);
      assert.equal(count(64, 4, true), 16640);
      assert.equal(count(32, 4, false), 4096);
      assert.equal(M.parameterScenarios(32, 4).withBias, 4224);
      assert.equal(M.parameterScenarios(32, 4).withoutBias, 4096);
      const nb = new M.MultiHeadAttention({ dModel: 32, numHeads: 4, bias: false, generator: g });
      assert.equal(nb.parameters().W_q.bias, null);
      nb.delete();
      g.delete();
    });

    await t.test('headSpecialization on the lesson sentence', () => {
      const tokens = ['The', 'cat', 'sat', 'on', 'the', 'mat', 'because', 'it', 'was', 'soft'];
      const heads = M.headSpecialization(tokens);
      assert.equal(heads.length, 2);
      const top = (head) =>
        new Map(head.patterns.map((p) => [tokens[p.from], [tokens[p.to], Math.round(p.weight * 100) / 100]]));
      const h0 = top(heads[0]);
      assert.deepEqual(h0.get('it'), ['mat', 1.0]);
      assert.deepEqual(h0.get('soft'), ['mat', 0.98]);
      for (const w of ['The', 'cat', 'sat', 'on', 'the', 'mat', 'because', 'was'])
        assert.deepEqual(h0.get(w), [w, 0.94], `head 0 ${w}`);
      const h1 = top(heads[1]);
      assert.deepEqual(h1.get('cat'), ['sat', 0.98]);
      assert.deepEqual(h1.get('sat'), ['cat', 1.0]);
      for (const w of ['The', 'on', 'the', 'mat', 'because', 'it', 'was', 'soft'])
        assert.deepEqual(h1.get(w), [w, 0.94], `head 1 ${w}`);
      for (const h of heads) {
        assert.deepEqual(h.weights.shape, [10, 10]);
        assert.deepEqual(h.logits.shape, [10, 10]);
        for (const row of rowSums(h.weights.data, 10)) assert.ok(Math.abs(row - 1) < 1e-6);
      }
    });

    await t.test("viewError() is PyTorch's message", () => {
      assert.equal(
        M.viewError(),
        "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
      );
    });
  });
}
