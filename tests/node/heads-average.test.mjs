// The page's average head and shared colour range (web/explorer/read.js: one pass over the weights, four heads at a
// time) against real PyTorch: torch.mean(w, dim=1) within the rounding of an H-term float32 sum (each add rounds by at
// most u = 2^-24 of the running sum, which is at most the exact sum: |err| ≤ (H - 1)·u·sum + u·mean, and PyTorch's own
// sum order rounds as much), and w.max() exactly (with the average's pass, or alone when the average is not drawn). Weights with zeros (masked keys) and H = 1…12 (groups of four and
// the heads left over).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { headMat, colourMax } from '../../web/explorer/read.js';

const S = 29,
  HS = [1, 2, 3, 4, 5, 7, 8, 9, 12];

function torchMeanMax(H, data) {
  const py =
    'import sys, json, torch\n' +
    'r = json.load(sys.stdin)\n' +
    'w = torch.tensor(r["data"], dtype=torch.float32).reshape(1, r["H"], r["S"], r["S"])\n' +
    'print(json.dumps({"mean": torch.mean(w, dim=1).flatten().tolist(), "max": w.max().item()}))\n';
  const out = execFileSync('/usr/bin/python3', ['-c', py], {
    input: JSON.stringify({ H, S, data: Array.from(data) }),
    maxBuffer: 1 << 26,
  });
  return JSON.parse(out);
}

test('the average head is torch.mean(dim=1) within float32 rounding, the colour range is w.max()', () => {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  for (const H of HS) {
    const n = S * S,
      data = new Float32Array(H * n);
    for (let i = 0; i < data.length; i++) data[i] = rnd() < 0.3 ? 0 : rnd() ** 3;
    const cur = { eff: { norm: 'shared' }, res: { H, weights: { shape: [1, H, S, S], data } } };
    const want = torchMeanMax(H, data);
    // the maximum alone (the average's card off screen), then with the average's pass (a fresh result)
    assert.equal(colourMax(cur, 0, false), want.max, `H=${H}: the largest weight, found alone`);
    cur.res.headsByBatch = null;
    assert.equal(colourMax(cur, 0), want.max, `H=${H}: the largest weight`);
    const avg = headMat(cur, 0, 'avg').data;
    const u = 2 ** -24;
    for (let i = 0; i < n; i++) {
      const bound = ((H - 1) * u * want.mean[i] * H + u * want.mean[i]) * 2;
      assert.ok(Math.abs(avg[i] - want.mean[i]) <= bound, `H=${H}, cell ${i}: ${avg[i]} vs torch ${want.mean[i]}`);
    }
    if (H === 1)
      assert.ok(
        avg.every((v, i) => v === data[i]),
        'one head: the average is the head',
      );
  }
});
