// Cross-attention (Sq = 3, Skv = 7): shapes, and the output against a plain-JS double reference
// of the whole forward computed from mha.parameters().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  testedBuilds,
  FORWARD_PATHS,
  buildName,
  loadPath,
  mhaForwardRef,
  assertRelClose,
  assertClose,
} from './fixtures/reference.mjs';

for (const build of testedBuilds())
  for (const path of FORWARD_PATHS) {
    test(`cross-attention Sq=3, Skv=7 — ${buildName(build)}, ${path}`, async (t) => {
      const M = await loadPath(build, path);
      const g = new M.Generator(42);
      for (const [B, D, H, bias] of [
        [2, 16, 4, true],
        [1, 12, 3, false],
        [3, 8, 1, true],
        [2, 24, 8, true],
      ]) {
        await t.test(`B=${B} D=${D} H=${H} bias=${bias}`, () => {
          const mha = new M.MultiHeadAttention({ dModel: D, numHeads: H, bias, generator: g });
          mha.eval();
          const q = g.randn([B, 3, D]);
          const kv = g.randn([B, 7, D]);
          const v = g.randn([B, 7, D]);
          const r = mha.forward(q, kv, v);
          assert.deepEqual(r.output.shape, [B, 3, D]);
          assert.deepEqual(r.weights.shape, [B, H, 3, 7]);
          assert.equal(r.fullyMaskedRows, 0);
          const tr = r.trace;
          assert.deepEqual(tr[0].shape, [B, 3, D]);
          assert.deepEqual(tr[4].shape, [B, H, 3, D / H]);
          assert.deepEqual(tr[4].weights, [B, H, 3, 7]);
          const ref = mhaForwardRef(mha.parameters(), q.data, kv.data, v.data, B, 3, 7, D, H);
          assertRelClose(r.output.data, ref.output, 1e-4, 'output');
          assertRelClose(r.weights.data, ref.weights, 1e-4, 'weights');
          const fused = mha.forward(q, kv, v, { needWeights: false });
          assert.equal(fused.weights, null);
          assertClose(fused.output.data, r.output.data, 1e-5, 'needWeights:false output');
          // plain arrays of numbers are accepted as data too
          const arr = mha.forward({ shape: q.shape, data: Array.from(q.data) }, kv, v);
          assertClose(arr.output.data, r.output.data, 0, 'array data');
          mha.delete();
        });
      }
      g.delete();
    });
  }
