// The threaded core (dist/mha-threads.js: SIMD128 with pthreads, Node's worker_threads) against the single-threaded
// dist/mha.js: every model case of build/models/ (tests/models/make_checkpoints.py) gives the same bits on 1, 2 and
// 3 threads, every call split (splitThreshold 0); the pool's size is read, clamped and set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, modelCases, weightFiles, MODELS_DIR } from './fixtures/reference.mjs';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const THREADED = join(DIST, 'mha-threads.js');

function filesOf(c) {
  return weightFiles(c).map((f) => ({ name: f, bytes: new Uint8Array(readFileSync(join(MODELS_DIR, c.case, f))) }));
}
function sameBits(a, b, what) {
  assert.equal(a === null, b === null, what + ': one is null');
  if (a === null) return;
  assert.deepEqual(a.shape, b.shape, what + ': shape');
  const x = new Uint32Array(a.data.buffer, a.data.byteOffset, a.data.length);
  const y = new Uint32Array(b.data.buffer, b.data.byteOffset, b.data.length);
  const at = x.findIndex((v, i) => v !== y[i]);
  assert.equal(at, -1, `${what}: element ${at} differs (${a.data[at]} vs ${b.data[at]})`);
}
// A forward of T tokens with every position's logits and one head off.
function forward(model, T) {
  const i = model.info;
  const ids = Array.from({ length: T }, (_, t) => (t * 7919 + 3) % i.vocab);
  const logitsAt = i.hasLmHead ? ids.map((_, t) => t) : [];
  return model.forward(ids, { logitsAt, headsOff: [[0, 0]] });
}

test('dist/mha-threads.js is built (cmake --build --preset wasm-threads, scripts/build)', () => {
  assert.ok(existsSync(THREADED), `${THREADED} is missing: scripts/build builds it`);
  assert.ok(existsSync(join(DIST, 'mha-threads.worker.js')), 'dist/mha-threads.worker.js is missing');
});

test('the pool: threads as asked, setThreads clamped to the workers started, bad sizes refused', async () => {
  const M = await load(THREADED, { threads: 3 });
  assert.equal(M.implementation, 'wasmsimd');
  assert.equal(M.threads, 3);
  assert.equal(M.setThreads(1), 1);
  assert.equal(M.threads, 1);
  assert.equal(M.setThreads(9), 3);
  assert.throws(() => M.setThreads(0), /whole number >= 1/);
  await assert.rejects(load(THREADED, { threads: 1.5 }), /whole number from 1 to 64/);
  const one = await load(THREADED, { threads: 1 }); // one worker is started all the same (none would hang the start)
  assert.equal(one.threads, 1);
  assert.equal(one.setThreads(2), 2);
  const single = await load(join(DIST, 'mha.js'), { threads: 4 });
  assert.equal(single.threads, 1, 'a build without threads runs one');
  assert.equal(single.setThreads(4), 1);
});

test('every model case: 1, 2 and 3 threads give dist/mha.js bits (attentions, hidden, logits)', async () => {
  const single = await load(join(DIST, 'mha.js'));
  const threaded = await load(THREADED, { threads: 3, splitThreshold: 0 });
  for (const c of modelCases()) {
    const one = await single.loadModel(filesOf(c));
    const many = await threaded.loadModel(filesOf(c));
    const T = Math.min(one.info.maxPositions, 48);
    const expected = forward(one, T);
    for (const n of [1, 2, 3]) {
      threaded.setThreads(n);
      assert.equal(many.info.threads, n);
      const got = forward(many, T);
      for (const k of ['attentions', 'hidden', 'logits'])
        sameBits(got[k], expected[k], `${c.case}, ${n} threads: ${k}`);
    }
    one.dispose();
    many.dispose();
  }
});
