// The whole context through the JS API (issue 43, item 1): a tiny GPT-2 at its 1024 positions and a tiny Llama at
// 2048 (tests/models/long_cases.py → build/long/, CTest's long.references). Every layer's attention read one layer
// at a time with model.attention(ids, {layer}) within transformers' float64 bounds; the forward's thumbnails equal
// the pooling of those exact maps; the heap grows by the activations cache and one layer's maps, not by
// [L, 1, H, T, T]; on every build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildName, load, testedBuilds, weightFiles } from './fixtures/reference.mjs';
import { readOracle, requireWithin } from './fixtures/oracle.mjs';

const LONG_DIR = fileURLToPath(new URL('../../build/long/', import.meta.url));

function longCases() {
  const index = join(LONG_DIR, 'index.json');
  assert.ok(existsSync(index), `${index} is missing: CTest's long.references writes it (scripts/fixtures long)`);
  return JSON.parse(readFileSync(index, 'utf8'));
}

const files = (c) =>
  weightFiles(c).map((f) => ({ name: f, bytes: new Uint8Array(readFileSync(join(LONG_DIR, c.case, f))) }));

// Layer l of the oracle's attentions [L, 1, H, T, T] as [1, H, T, T].
function layerOf(tensors, key, l) {
  const [L, , H, T] = tensors[key].shape;
  assert.ok(l < L);
  const n = H * T * T;
  return { shape: [1, H, T, T], data: tensors[key].data.subarray(l * n, (l + 1) * n) };
}

// The test's own pooling of one layer's maps [1, H, T, T] into [H, s, s] (types/index.d.ts: thumbnail).
function pooled(maps, s, pool) {
  const [, H, T] = maps.shape;
  const out = new Float32Array(H * s * s);
  for (let h = 0; h < H; h++)
    for (let a = 0; a < s; a++)
      for (let b = 0; b < s; b++) {
        let best = 0,
          sum = 0,
          n = 0;
        for (let r = Math.floor((a * T) / s); r < Math.floor(((a + 1) * T) / s); r++)
          for (let c = Math.floor((b * T) / s); c < Math.floor(((b + 1) * T) / s); c++, n++) {
            const v = maps.data[(h * T + r) * T + c];
            best = Math.max(best, v);
            sum += v;
          }
        out[(h * s + a) * s + b] = pool === 'max' ? best : sum / n;
      }
  return out;
}

const CASES = longCases();
const ORACLES = new Map(CASES.map((c) => [c.case, readOracle(join(LONG_DIR, c.case, c.oracles[0]))]));

for (const build of testedBuilds()) {
  test(`the whole context: every layer at 1024 and 2048 tokens — ${buildName(build)}`, async (t) => {
    const M = await load(build);
    for (const c of CASES) {
      await t.test(`${c.case}: ${c.tokens} tokens`, async () => {
        const { meta, tensors } = ORACLES.get(c.case);
        const model = await M.loadModel(files(c));
        try {
          checkLong(M, model, c, meta, tensors);
        } finally {
          model.dispose();
        }
      });
    }
  });
}

function checkLong(M, model, c, meta, tensors) {
  const { layers: L, heads: H, dModel: D } = model.info;
  const T = meta.ids.length;
  assert.equal(T, c.tokens, 'the oracle fills every position');
  const heapBefore = M.memoryStats().heapUsed;
  const s = 64;
  const out = model.forward(meta.ids, { logitsAt: meta.logits_at, attentions: false, thumbnail: s, pool: 'max' });
  requireWithin(c.case, out.hidden, tensors, 'hidden');
  requireWithin(c.case, out.logits, tensors, 'logits');
  assert.deepEqual(out.thumbnails.shape, [L, H, s, s]);
  const mean = model.forward(meta.ids, { attentions: false, thumbnail: s, pool: 'mean' }).thumbnails;
  for (let l = 0; l < L; l++) {
    const what = `${c.case} layer ${l}`;
    const maps = model.attention(meta.ids, { layer: l });
    requireWithin(
      what,
      maps,
      { attentions: layerOf(tensors, 'attentions', l), 'attentions.bound': layerOf(tensors, 'attentions.bound', l) },
      'attentions',
    );
    const n = H * s * s;
    assert.deepEqual(
      out.thumbnails.data.subarray(l * n, (l + 1) * n),
      pooled(maps, s, 'max'),
      `${what}: max-pooled thumbnails`,
    );
    assert.deepEqual(
      mean.data.subarray(l * n, (l + 1) * n),
      pooled(maps, s, 'mean'),
      `${what}: mean-pooled thumbnails`,
    );
    const one = model.attention(meta.ids, { layer: l, head: H - 1 });
    assert.deepEqual(one.shape, [T, T]);
    assert.deepEqual(one.data, maps.data.subarray((H - 1) * T * T), `${what}: head ${H - 1} alone = its slice`);
  }
  // What the heap held at the end: the weights were there before; the activations cache (L + 1)·T·D floats stays.
  // One layer's maps (and its scratch) were given back; the whole [L, 1, H, T, T] was never asked for.
  const grown = M.memoryStats().heapUsed - heapBefore;
  const cache = (L + 1) * T * D * 4;
  assert.ok(grown <= cache + (1 << 20), `${c.case}: the heap grew by ${grown} bytes, the cache is ${cache}`);
  const [l, h] = meta.heads_off[0];
  const off = model.forward(meta.ids, { logitsAt: meta.logits_at, headsOff: meta.heads_off, attentions: false });
  requireWithin(c.case, off.hidden, tensors, 'ablated.hidden');
  requireWithin(c.case, off.logits, tensors, 'ablated.logits');
  // With head (l, h) off, layer l's own attention is the full model's (the head is zeroed after its softmax).
  assert.deepEqual(
    model.attention(meta.ids, { layer: l, headsOff: [[l, h]] }),
    model.attention(meta.ids, { layer: l }),
  );
}
