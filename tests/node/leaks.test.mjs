// Leak checks: many forwards, and many created-and-deleted objects, leave the wasm heap where it
// was; methods of deleted objects throw an Error saying so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testedBuilds, buildName, load, mulberry32 } from './fixtures/reference.mjs';

const SLACK = 4 * 1024; // allocator slack, measured after a warm-up

for (const build of testedBuilds()) {
  test(`leaks — ${buildName(build)}`, async (t) => {
    const M = await load(build);

    await t.test('10,000 forwards (dModel 16, 2 heads, seq 4, fresh inputs each time)', () => {
      const g = new M.Generator(0);
      const mha = new M.MultiHeadAttention({ dModel: 16, numHeads: 2, dropout: 0.1, generator: g });
      const rnd = mulberry32(1);
      const input = () => ({ shape: [1, 4, 16], data: Float32Array.from({ length: 64 }, () => rnd() * 2 - 1) });
      const mask = { shape: [4, 4], data: Float32Array.from([1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1]) };
      const kpm = { shape: [1, 4], data: Float32Array.from([0, 0, 0, 1]) };
      const options = [
        {},
        { needWeights: false },
        { causal: true },
        { mask },
        { mask, maskMode: 'additive' },
        { keyPaddingMask: kpm, fill: -1e9 },
        { mask, maskMode: 'bool', needWeights: false },
      ];
      const step = (i) => {
        if (i % 2) mha.train();
        else mha.eval();
        const x = input();
        const r =
          i % 5 === 0
            ? mha.forward(x, input(), input(), options[i % options.length])
            : mha.forward(x, x, x, options[i % options.length]);
        assert.equal(r.output.data.length, 64);
        if (i % 98 === 0) M.loopVsVectorized(mha, x); // eval mode (even i): dropout-free
        if (i % 89 === 0) g.randn([3, 5]);
      };
      for (let i = 0; i < 300; i++) step(i);
      const before = M.memoryStats().heapUsed;
      for (let i = 0; i < 10_000; i++) step(i);
      const after = M.memoryStats().heapUsed;
      t.diagnostic(`heapUsed ${before} → ${after}`);
      assert.ok(after - before <= SLACK, `heap grew by ${after - before} bytes over 10,000 forwards`);
      mha.delete();
      g.delete();
    });

    await t.test('1000 created-and-deleted MultiHeadAttention and Generator objects', () => {
      const churn = (n) => {
        for (let i = 0; i < n; i++) {
          const g = new M.Generator(i);
          const m = new M.MultiHeadAttention({ dModel: 16, numHeads: 4, bias: i % 2 === 0, generator: g });
          if (i % 10 === 0) m.forward(g.randn([1, 2, 16]));
          m.delete();
          g.delete();
        }
      };
      churn(50);
      const before = M.memoryStats().heapUsed;
      churn(1000);
      const after = M.memoryStats().heapUsed;
      t.diagnostic(`heapUsed ${before} → ${after}`);
      assert.ok(after - before <= SLACK, `heap grew by ${after - before} bytes over 1000 create/delete`);
    });

    await t.test('a module outlives its generator handle (shared ownership)', () => {
      const g = new M.Generator(0);
      const m = new M.MultiHeadAttention({ dModel: 8, numHeads: 2, dropout: 0.5, generator: g });
      const x = g.randn([1, 3, 8]);
      g.delete();
      const r = m.forward(x); // training mode: dropout draws from the (still alive) generator
      assert.deepEqual(r.output.shape, [1, 3, 8]);
      m.delete();
    });

    await t.test('methods of deleted objects throw an Error saying they were deleted', () => {
      const g = new M.Generator(0);
      const m = new M.MultiHeadAttention({ dModel: 8, numHeads: 2, generator: g });
      const x = g.randn([1, 2, 8]);
      m.delete();
      g.delete();
      const deleted = (fn) => assert.throws(fn, (e) => e instanceof Error && /deleted/.test(e.message));
      deleted(() => m.forward(x));
      deleted(() => m.parameters());
      deleted(() => m.parameterCount());
      deleted(() => m.train());
      deleted(() => m.eval());
      deleted(() => m.training);
      deleted(() => m.delete());
      deleted(() => M.loopVsVectorized(m, x));
      deleted(() => g.randn([2]));
      deleted(() => g.rand([2]));
      deleted(() => g.manualSeed(1));
      deleted(() => g.initialSeed());
      deleted(() => g.delete());
      deleted(() => new M.MultiHeadAttention({ dModel: 8, numHeads: 2, generator: g }));
      deleted(() => M.mixThenSplit({ generator: g }));
    });
  });
}
