// Shape traces: M.shapeTrace (lesson 004's table) and the trace of a real forward.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testedBuilds, buildName, LESSON004_SHAPE_TABLE, load } from './fixtures/reference.mjs';

const KEYS = ['step', 'op', 'shape', 'strides', 'contiguous'];

function checkSteps(trace) {
  assert.ok(Array.isArray(trace));
  trace.forEach((s, i) => {
    for (const k of KEYS) assert.ok(k in s, `step ${i} has ${k}`);
    assert.equal(s.step, i);
    assert.ok(typeof s.op === 'string' && s.op.length > 0, `step ${i}.op`);
    assert.ok(Array.isArray(s.shape) && Array.isArray(s.strides) && s.shape.length === s.strides.length);
    assert.equal(typeof s.contiguous, 'boolean');
    // contiguous exactly when the strides are the row-major ones
    let expect = 1,
      contiguous = true;
    for (let d = s.shape.length - 1; d >= 0; d--) {
      if (s.shape[d] !== 1 && s.strides[d] !== expect) contiguous = false;
      expect *= s.shape[d];
    }
    assert.equal(s.contiguous, contiguous, `step ${i} contiguity`);
  });
}

for (const build of testedBuilds()) {
  test(`shape traces — ${buildName(build)}`, async (t) => {
    const M = await load(build);

    await t.test('shapeTrace({batch: 2, seqLen: 10, dModel: 512, numHeads: 8})', () => {
      const tr = M.shapeTrace({ batch: 2, seqLen: 10, dModel: 512, numHeads: 8 });
      assert.equal(tr.length, 8);
      checkSteps(tr);
      assert.deepEqual(
        tr.map((s) => s.shape),
        LESSON004_SHAPE_TABLE,
      );
      assert.deepEqual(tr[3].strides, [5120, 64, 512, 1]);
      assert.equal(tr[3].contiguous, false);
      assert.equal(tr[5].contiguous, false);
      assert.deepEqual(
        tr.map((s) => s.contiguous),
        [true, true, true, false, true, false, true, true],
      );
      assert.deepEqual(
        tr.map((s) => s.op),
        ['input', 'linear', 'view', 'transpose', 'attention', 'transpose', 'contiguous_view', 'linear'],
      );
      assert.deepEqual(tr[4].weights, [2, 8, 10, 10]);
      assert.equal(tr[2].label, undefined, 'the core gives data; the page words it');
    });

    await t.test('kvLen shows in the attention step', () => {
      const tr = M.shapeTrace({ batch: 1, seqLen: 3, kvLen: 7, dModel: 16, numHeads: 4 });
      checkSteps(tr);
      assert.deepEqual(tr[4].weights, [1, 4, 3, 7]);
    });

    await t.test('the forward trace matches shapeTrace for the same configuration', () => {
      const g = new M.Generator(0);
      const mha = new M.MultiHeadAttention({ dModel: 32, numHeads: 4, generator: g });
      const x = g.randn([2, 5, 32]);
      const { trace } = mha.forward(x, x, x);
      assert.equal(trace.length, 8);
      checkSteps(trace);
      assert.deepEqual(trace, M.shapeTrace({ batch: 2, seqLen: 5, dModel: 32, numHeads: 4 }));
      assert.deepEqual(trace[3].shape, [2, 4, 5, 8]);
      assert.deepEqual(trace[3].strides, [160, 8, 32, 1]);
      mha.delete();
      g.delete();
    });

    await t.test(
      "a TinyAttentionModel's trace: tokens, embedding, each layer's steps and residual, the readouts",
      () => {
        const g = new M.Generator(0);
        const model = new M.TinyAttentionModel({
          task: 'two-offsets',
          vocab: 12,
          seqLen: 10,
          dModel: 16,
          numHeads: 4,
          layers: 2,
          generator: g,
        });
        const tr = model.shapeTrace(6);
        checkSteps(tr);
        const layerOps = [
          'linear',
          'view',
          'transpose',
          'attention',
          'transpose',
          'contiguous_view',
          'linear',
          'residual',
        ];
        assert.deepEqual(
          tr.map((s) => s.op),
          ['tokens', 'embedding', ...layerOps, ...layerOps, 'readout', 'readout'],
        );
        assert.deepEqual(
          tr.map((s) => s.layer),
          [undefined, undefined, ...layerOps.map(() => 0), ...layerOps.map(() => 1), undefined, undefined],
        );
        assert.deepEqual(tr[0].shape, [1, 6]);
        assert.deepEqual(tr[5].weights, [1, 4, 6, 6]);
        assert.deepEqual(tr[2 + 8 + 7].shape, [1, 6, 16]);
        assert.deepEqual(tr[tr.length - 1].shape, [1, 6, 12]);
        assert.deepEqual(model.shapeTrace(), model.shapeTrace(10), 'the whole sequence by default');
        assert.throws(() => model.shapeTrace(11), /seqLen must be a whole number from 1 to 10, got 11/);
        model.delete();
        g.delete();
      },
    );

    await t.test('shapeTrace rejects d_model not divisible by numHeads, naming the head counts that work', () => {
      assert.throws(() => M.shapeTrace({ batch: 2, seqLen: 10, dModel: 512, numHeads: 7 }), /divisible/);
    });
  });
}
