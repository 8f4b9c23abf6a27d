// Results never alias wasm memory: every tensor's data is a Float32Array over its own buffer, and
// results stay intact and readable after the memory grows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testedBuilds, buildName, load } from './fixtures/reference.mjs';

function tensors(label, value, out) {
  if (value && typeof value === 'object') {
    if (Array.isArray(value.shape) && value.data !== undefined) {
      out.push([label, value]);
      return out;
    }
    for (const [k, v] of Object.entries(value)) tensors(`${label}.${k}`, v, out);
  }
  return out;
}

for (const build of testedBuilds()) {
  test(`results are copies, not views of wasm memory — ${buildName(build)}`, async () => {
    const core = {};
    const M = await load(build, core);
    assert.ok(core.HEAPF32 instanceof Float32Array, 'the Emscripten Module object exposes HEAPF32');
    const buffers = new Set([core.HEAPF32.buffer]);

    const g = new M.Generator(0);
    const mha = new M.MultiHeadAttention({ dModel: 16, numHeads: 4, generator: g });
    const x = g.randn([2, 3, 16]);
    const qh = M.splitHeads(x, 4);
    const results = {
      randn: x,
      rand: g.rand([4, 5]),
      matmul: M.matmul(g.randn([3, 4]), g.randn([4, 2])),
      softmax: M.softmax(g.randn([3, 4])),
      splitHeads: qh,
      mergeHeads: M.mergeHeads(qh),
      sdpa: M.scaledDotProductAttention(qh, qh, qh),
      forward: mha.forward(x),
      parameters: mha.parameters(),
      mixThenSplit: M.mixThenSplit({ seed: 1 }),
      headSpecialization: M.headSpecialization(['The', 'cat', 'sat']),
      loopVsVectorized: M.loopVsVectorized(mha.eval(), x),
    };
    const all = tensors('results', results, []);
    assert.ok(all.length >= 25, `found ${all.length} tensors`);
    buffers.add(core.HEAPF32.buffer);
    const snapshot = new Map();
    for (const [label, t] of all) {
      assert.ok(t.data instanceof Float32Array, `${label}.data is a Float32Array`);
      assert.ok(!buffers.has(t.data.buffer), `${label}.data is a view of wasm memory`);
      assert.equal(t.data.byteOffset, 0, `${label}.data owns its buffer`);
      assert.equal(t.data.buffer.byteLength, t.data.byteLength, `${label}.data owns its buffer`);
      assert.equal(
        t.data.length,
        t.shape.reduce((a, b) => a * b, 1),
        `${label}: data length matches the shape`,
      );
      snapshot.set(label, Float32Array.from(t.data));
    }

    // grow the memory with a big forward (weights [1, 1, 2048, 2048] = 16 MiB)
    const heapBefore = M.memoryStats().heapSize;
    const bufferBefore = core.HEAPF32.buffer;
    const big = new M.MultiHeadAttention({ dModel: 8, numHeads: 1, generator: g });
    const xb = g.randn([1, 2048, 8]);
    const r = big.forward(xb, xb, xb, { needWeights: true });
    assert.deepEqual(r.weights.shape, [1, 1, 2048, 2048]);
    assert.ok(M.memoryStats().heapSize > heapBefore, 'the wasm memory grew');
    assert.notEqual(core.HEAPF32.buffer, bufferBefore, 'growth replaced the memory buffer');
    assert.equal(bufferBefore.byteLength, 0, 'the old memory buffer is detached');
    assert.ok(r.weights.data.buffer !== core.HEAPF32.buffer && r.weights.data.byteLength === 2048 * 2048 * 4);

    for (const [label, t] of all) {
      assert.ok(t.data.byteLength > 0 || t.data.length === 0, `${label}.data is still readable after growth`);
      assert.deepEqual(t.data, snapshot.get(label), `${label}.data is intact after growth`);
    }
    // and the module still computes the same thing
    assert.deepEqual(mha.forward(x).output.data, results.loopVsVectorized.vectorized.data);
    big.delete();
    mha.delete();
    g.delete();
  });
}
