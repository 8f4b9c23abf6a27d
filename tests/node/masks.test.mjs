// Every mask mode and shape, causal, key padding, fills for fully masked rows, needWeights and
// dropout in train()/eval(), through MultiHeadAttention.forward and scaledDotProductAttention.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  testedBuilds,
  FORWARD_PATHS,
  buildName,
  loadPath,
  mhaForwardRef,
  attentionRef,
  assertClose,
  assertRelClose,
  mulberry32,
  linear,
  split,
  merge,
  matmul2,
  rowSums,
} from './fixtures/reference.mjs';

const B = 2,
  H = 2,
  S = 4,
  D = 8,
  dk = D / H;
const SHAPES = [
  [S, S],
  [1, 1, S, S],
  [B, 1, S, S],
  [B, H, S, S],
];
// Every mask mode of the core (protocol().maskModes: tests/node/protocol.test.mjs checks this list against it).
const MASK_MODES = ['keep', 'block', 'bool', 'additive'];

// Index of mask element for score (b, h, i, j) under broadcasting.
function maskIndex(shape, b, h, i, j) {
  if (shape.length === 2) return i * S + j;
  const bb = shape[0] === 1 ? 0 : b,
    hh = shape[1] === 1 ? 0 : h;
  return ((bb * shape[1] + hh) * S + i) * S + j;
}

// A mask whose every row keeps at least key j = i open (so no row is fully masked).
function makeMask(mode, shape, rnd) {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let idx = 0; idx < n; idx++) {
    const j = idx % S,
      i = Math.floor(idx / S) % S;
    const open = i === j || rnd() < 0.5;
    switch (mode) {
      case 'keep':
        data[idx] = open ? 1 : 0;
        break;
      case 'block':
        data[idx] = open ? [0, 0.5, 2][Math.floor(rnd() * 3)] : 1;
        break;
      case 'bool':
        data[idx] = open ? 0 : [1, -3, 0.25, 7][Math.floor(rnd() * 4)];
        break;
      case 'additive':
        data[idx] = open ? rnd() * 4 - 2 : rnd() < 0.5 ? -Infinity : -5;
        break;
      default:
        throw new Error(`tests/node/masks.test.mjs: makeMask has no mask for mask mode '${mode}'`);
    }
  }
  return { shape, data };
}

// Which mask values block a score, per mode (PyTorch's rule; 'additive' adds the mask instead).
const BLOCKED = { keep: (m) => m === 0, block: (m) => m === 1, bool: (m) => m !== 0 };
function scoreFor(mode, mask, fill) {
  if (mode !== 'additive' && !Object.hasOwn(BLOCKED, mode))
    throw new Error(`tests/node/masks.test.mjs: scoreFor has no rule for mask mode '${mode}' (BLOCKED)`);
  return (b, h, i, j, s) => {
    const m = mask.data[maskIndex(mask.shape, b, h, i, j)];
    if (mode === 'additive') return s + m;
    return BLOCKED[mode](m) ? fill : s;
  };
}

for (const build of testedBuilds())
  for (const path of FORWARD_PATHS) {
    test(`masks, fills, needWeights and dropout — ${buildName(build)}, ${path}`, async (t) => {
      const M = await loadPath(build, path);
      const g = new M.Generator(3);
      const mha = new M.MultiHeadAttention({ dModel: D, numHeads: H, generator: g }).eval();
      const params = mha.parameters();
      const x = g.randn([B, S, D]);
      const rnd = mulberry32(7);

      for (const mode of MASK_MODES) {
        for (const shape of SHAPES) {
          await t.test(`maskMode '${mode}', mask [${shape}]`, () => {
            const mask = makeMask(mode, shape, rnd);
            const r = mha.forward(x, x, x, { mask, maskMode: mode });
            const ref = mhaForwardRef(params, x.data, x.data, x.data, B, S, S, D, H, scoreFor(mode, mask, -Infinity));
            assertClose(r.weights.data, ref.weights, 1e-5, 'weights');
            assertRelClose(r.output.data, ref.output, 1e-4, 'output');
            assert.equal(r.fullyMaskedRows, 0);
            for (const s of rowSums(r.weights.data, S)) assert.ok(Math.abs(s - 1) < 1e-6);
            const fused = mha.forward(x, x, x, { mask, maskMode: mode, needWeights: false });
            assert.equal(fused.weights, null);
            assertClose(fused.output.data, r.output.data, 1e-5, 'needWeights:false output');
            // the same through scaledDotProductAttention on split heads
            const qh = M.splitHeads(x, H);
            const sd = M.scaledDotProductAttention(qh, qh, qh, { mask, maskMode: mode });
            const sref = attentionRef(
              Float64Array.from(qh.data),
              Float64Array.from(qh.data),
              Float64Array.from(qh.data),
              B,
              H,
              S,
              S,
              dk,
              dk,
              scoreFor(mode, mask, -Infinity),
            );
            assertClose(sd.weights.data, sref.weights, 1e-5, 'sdpa weights');
            assertClose(sd.output.data, sref.out, 1e-5, 'sdpa output');
          });
        }
      }

      await t.test("default maskMode is 'keep' (0 blocks)", () => {
        const mask = makeMask('keep', [S, S], rnd);
        const a = mha.forward(x, x, x, { mask });
        const b = mha.forward(x, x, x, { mask, maskMode: 'keep' });
        assertClose(a.weights.data, b.weights.data, 0, 'weights');
      });

      await t.test('causal: nothing above the diagonal, rows sum to 1', () => {
        for (const needWeights of [true, false]) {
          const r = mha.forward(x, x, x, { causal: true, needWeights });
          const ref = mhaForwardRef(params, x.data, x.data, x.data, B, S, S, D, H, (b, h, i, j, s) =>
            j > i ? -Infinity : s,
          );
          assertRelClose(r.output.data, ref.output, 1e-4, 'causal output');
          assert.equal(r.fullyMaskedRows, 0);
          if (!needWeights) {
            assert.equal(r.weights, null);
            continue;
          }
          const w = r.weights.data;
          for (let bh = 0; bh < B * H; bh++)
            for (let i = 0; i < S; i++)
              for (let j = i + 1; j < S; j++) {
                assert.equal(w[(bh * S + i) * S + j], 0, `weight above the diagonal (${bh}, ${i}, ${j})`);
              }
          for (const s of rowSums(w, S)) assert.ok(Math.abs(s - 1) < 1e-6, `row sum ${s}`);
          assertClose(w, ref.weights, 1e-5, 'causal weights');
        }
        // causal equals an explicit lower-triangular 'keep' mask and a triu 'block' mask
        const tril = {
          shape: [S, S],
          data: Float32Array.from({ length: S * S }, (_, k) => (k % S <= Math.floor(k / S) ? 1 : 0)),
        };
        const triu = { shape: [S, S], data: tril.data.map((v) => 1 - v) };
        const c = mha.forward(x, x, x, { causal: true });
        assertClose(mha.forward(x, x, x, { mask: tril }).weights.data, c.weights.data, 0, 'tril keep');
        assertClose(
          mha.forward(x, x, x, { mask: triu, maskMode: 'block' }).weights.data,
          c.weights.data,
          0,
          'triu block',
        );
      });

      await t.test('keyPaddingMask [B, Skv]: nonzero = padding', () => {
        const kpm = { shape: [B, S], data: Float32Array.from([0, 0, 1, 1, 0, 0, 0, 5]) };
        const padded = (b, j) => kpm.data[b * S + j] !== 0;
        for (const needWeights of [true, false]) {
          const r = mha.forward(x, x, x, { keyPaddingMask: kpm, needWeights });
          const ref = mhaForwardRef(params, x.data, x.data, x.data, B, S, S, D, H, (b, h, i, j, s) =>
            padded(b, j) ? -Infinity : s,
          );
          assertRelClose(r.output.data, ref.output, 1e-4, 'output');
          if (needWeights) {
            assertClose(r.weights.data, ref.weights, 1e-5, 'weights');
            for (let b = 0; b < B; b++)
              for (let h = 0; h < H; h++)
                for (let i = 0; i < S; i++)
                  for (let j = 0; j < S; j++) {
                    if (padded(b, j)) assert.equal(r.weights.data[((b * H + h) * S + i) * S + j], 0);
                  }
          }
        }
        // combined with causal and a mask
        const mask = makeMask('keep', [B, 1, S, S], rnd);
        const r = mha.forward(x, x, x, { keyPaddingMask: kpm, causal: true, mask });
        const ref = mhaForwardRef(params, x.data, x.data, x.data, B, S, S, D, H, (b, h, i, j, s) =>
          padded(b, j) || j > i || mask.data[maskIndex(mask.shape, b, h, i, j)] === 0 ? -Infinity : s,
        );
        assertClose(r.weights.data, ref.weights, 1e-5, 'combined weights');
        const nanRows = rowSums(ref.weights, S).filter((v) => Number.isNaN(v)).length;
        assert.equal(r.fullyMaskedRows, nanRows);
      });

      await t.test('fully masked rows: fill -Infinity gives NaN, fill -1e9 gives uniform 1/S; both reported', () => {
        // keep-mode mask that blocks every key of query row 1 (all batches and heads)
        const data = new Float32Array(S * S).fill(1);
        for (let j = 0; j < S; j++) data[1 * S + j] = 0;
        const mask = { shape: [S, S], data };
        for (const needWeights of [true, false]) {
          const inf = mha.forward(x, x, x, { mask, needWeights });
          assert.equal(inf.fullyMaskedRows, B * H);
          const fin = mha.forward(x, x, x, { mask, fill: -1e9, needWeights });
          assert.equal(fin.fullyMaskedRows, B * H);
          const explicitInf = mha.forward(x, x, x, { mask, fill: -Infinity, needWeights });
          assertClose(explicitInf.output.data, inf.output.data, 0, 'default fill is -Infinity');
          // output rows of query 1 are NaN with -inf, finite with -1e9; others are untouched
          for (let b = 0; b < B; b++)
            for (let i = 0; i < S; i++)
              for (let d = 0; d < D; d++) {
                const k = (b * S + i) * D + d;
                if (i === 1) {
                  assert.ok(
                    Number.isNaN(inf.output.data[k]),
                    `needWeights ${needWeights}: NaN output at (${b}, 1, ${d})`,
                  );
                  assert.ok(Number.isFinite(fin.output.data[k]));
                } else {
                  assert.ok(Math.abs(inf.output.data[k] - fin.output.data[k]) < 1e-5);
                }
              }
          const ref = mhaForwardRef(params, x.data, x.data, x.data, B, S, S, D, H, (b, h, i, j, s) =>
            data[i * S + j] === 0 ? -1e9 : s,
          );
          assertRelClose(fin.output.data, ref.output, 1e-4, `fill -1e9 output (needWeights ${needWeights})`);
          if (!needWeights) {
            assert.equal(inf.weights, null);
            assert.equal(fin.weights, null);
            continue;
          }
          for (let bh = 0; bh < B * H; bh++)
            for (let j = 0; j < S; j++) {
              assert.ok(Number.isNaN(inf.weights.data[(bh * S + 1) * S + j]), 'NaN weight with -inf fill');
              assert.ok(
                Math.abs(fin.weights.data[(bh * S + 1) * S + j] - 1 / S) < 1e-6,
                'uniform weight with -1e9 fill',
              );
            }
        }
        // an additive mask of -inf on a whole row is fully masked too
        const add = { shape: [S, S], data: new Float32Array(S * S) };
        for (let j = 0; j < S; j++) add.data[2 * S + j] = -Infinity;
        const r = mha.forward(x, x, x, { mask: add, maskMode: 'additive' });
        assert.equal(r.fullyMaskedRows, B * H);
        // key padding of every key of batch 0
        const kpm = { shape: [B, S], data: Float32Array.from([1, 1, 1, 1, 0, 0, 0, 0]) };
        assert.equal(mha.forward(x, x, x, { keyPaddingMask: kpm }).fullyMaskedRows, H * S);
      });

      await t.test('dropout 0.5: eval() has no zeros; train() zeroes weights and scales kept ones by 2', () => {
        const gd = new M.Generator(11);
        const drop = new M.MultiHeadAttention({ dModel: 16, numHeads: 2, dropout: 0.5, generator: gd });
        assert.equal(drop.training, true);
        const xd = gd.randn([2, 6, 16]);
        assert.equal(drop.eval(), drop);
        assert.equal(drop.training, false);
        const ev = drop.forward(xd, xd, xd);
        assert.ok(
          ev.weights.data.every((v) => v !== 0),
          'eval: no zeros',
        );
        const ev2 = drop.forward(xd, xd, xd);
        assertClose(ev2.output.data, ev.output.data, 0, 'eval is deterministic');
        drop.train();
        assert.equal(drop.training, true);
        const tr = drop.forward(xd, xd, xd);
        const w = tr.weights.data,
          we = ev.weights.data;
        let zeros = 0;
        for (let i = 0; i < w.length; i++) {
          if (w[i] === 0) {
            zeros++;
            continue;
          }
          assert.ok(Math.abs(w[i] - 2 * we[i]) <= 1e-6 * Math.abs(2 * we[i]), `kept weight ${w[i]} vs 2 * ${we[i]}`);
        }
        assert.ok(zeros > 0.2 * w.length && zeros < 0.8 * w.length, `about half dropped: ${zeros} of ${w.length}`);
        // the training output is computed from those dropped weights
        const p = drop.parameters();
        const V = split(linear(xd.data, 12, 16, p.W_v.weight.data, p.W_v.bias.data), 2, 6, 2, 8);
        const att = new Float64Array(2 * 2 * 6 * 8);
        for (let bh = 0; bh < 4; bh++)
          att.set(matmul2(w.subarray(bh * 36, bh * 36 + 36), V.subarray(bh * 48, bh * 48 + 48), 6, 6, 8), bh * 48);
        const out = linear(merge(att, 2, 2, 6, 8), 12, 16, p.W_o.weight.data, p.W_o.bias.data);
        assertRelClose(tr.output.data, out, 1e-4, 'train output from the dropped weights');
        // train(false) is eval()
        drop.train(false);
        assert.equal(drop.training, false);
        assertClose(drop.forward(xd, xd, xd).output.data, ev.output.data, 0, 'train(false)');
        drop.delete();
        gd.delete();
      });

      mha.delete();
      g.delete();
    });
  }
