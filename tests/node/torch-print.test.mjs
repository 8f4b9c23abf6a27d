// torchStr (web/compute/explorer-run.js) prints a float32 tensor exactly as PyTorch 1.13's print(t) does at the default
// print options: real PyTorch (Debian's python3-torch, /usr/bin/python3) prints every generated tensor
// once, and each string must match torchStr's character for character.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PYTHON = '/usr/bin/python3';
const SEP = '\n<<<--torch-print-separator-->>>\n';

import { torchStr } from '../../web/compute/explorer-run.js';
import { mulberry32 } from './fixtures/reference.mjs';

// ---- Deterministic tensors ----------------------------------------------------------------
function randn(rand) {
  const u = 1 - rand(),
    v = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
const rowsCols = (shape) => (shape.length === 2 ? shape : shape.length === 1 ? [1, shape[0]] : [1, 1]);
const numel = (shape) => shape.reduce((a, b) => a * b, 1);

// Each kind fills a Float32Array for a shape.
const KINDS = {
  // softmax rows of scaled randn, causal-masked (exact zeros above the diagonal; 1-D: a few zeroed)
  softmax(shape, rand) {
    const [R, C] = rowsCols(shape),
      out = new Float32Array(R * C),
      scale = 0.5 + 3 * rand();
    for (let r = 0; r < R; r++) {
      const keep = shape.length === 2 ? Math.min(C, r + 1 + (R < C ? C - R : 0)) : C;
      const row = [];
      for (let c = 0; c < C; c++)
        row.push(c < keep && !(shape.length === 1 && rand() < 0.1) ? scale * randn(rand) : -Infinity);
      const mx = Math.max(...row.filter(Number.isFinite), -1e30);
      const ex = row.map((x) => (x === -Infinity ? 0 : Math.exp(x - mx)));
      const sum = ex.reduce((a, b) => a + b, 0) || 1;
      for (let c = 0; c < C; c++) out[r * C + c] = ex[c] / sum;
    }
    return out;
  },
  // causal uniform attention: row r is 1/(r+1) on its first r+1 entries (0.03125 = 1/32 is an exact tie)
  uniform(shape) {
    const [R, C] = rowsCols(shape),
      out = new Float32Array(R * C);
    for (let r = 0; r < R; r++)
      for (let c = 0; c <= Math.min(r + (shape.length === 1 ? C : 0), C - 1); c++)
        out[r * C + c] = 1 / (shape.length === 1 ? C : r + 1);
    return out;
  },
  randn(shape, rand) {
    return Float32Array.from({ length: numel(shape) }, () => randn(rand));
  },
  // magnitudes 1e-6 .. 1e5 with random signs → scientific mode
  mixed(shape, rand) {
    return Float32Array.from(
      { length: numel(shape) },
      () => (rand() < 0.5 ? -1 : 1) * Math.exp(Math.log(1e-6) + rand() * Math.log(1e11)),
    );
  },
  ints(shape, rand) {
    return Float32Array.from({ length: numel(shape) }, () => Math.floor(rand() * 101) - 50);
  },
  // integers spanning more than 1000× → int mode in scientific notation, with exact ties (e.g. 123445)
  bigints(shape, rand) {
    return Float32Array.from({ length: numel(shape) }, (_, i) =>
      i % 3 === 0
        ? 1
        : i % 3 === 1
          ? 10000 * Math.floor(rand() * 20) + 5 + 10 * Math.floor(rand() * 1000)
          : Math.floor(rand() * 1e6),
    );
  },
  // randn with nan, inf and -inf (always in the printed corners as well)
  nonfinite(shape, rand) {
    const out = KINDS.randn(shape, rand),
      n = out.length,
      special = [NaN, Infinity, -Infinity];
    for (let i = 0; i < n; i++) if (rand() < 0.15) out[i] = special[Math.floor(rand() * 3)];
    out[0] = NaN;
    if (n > 1) out[n - 1] = -Infinity;
    if (n > 2) out[Math.min(2, n - 1)] = Infinity;
    return out;
  },
  // exact decimal ties: odd multiples of 1/32 (fixed mode) and of 1/32 around 1 (scientific ties too)
  ties(shape, rand) {
    return Float32Array.from(
      { length: numel(shape) },
      () => ((rand() < 0.5 ? -1 : 1) * (2 * Math.floor(rand() * 200) + 1)) / 32,
    );
  },
  scities(shape, rand) {
    return Float32Array.from({ length: numel(shape) }, (_, i) =>
      i % 4 === 0 ? 1e-5 : (2 * Math.floor(rand() * 64) + 1) / 32 + Math.floor(rand() * 4),
    );
  },
  huge(shape, rand) {
    return Float32Array.from({ length: numel(shape) }, () => randn(rand) * 3e9);
  },
  tiny(shape, rand) {
    return Float32Array.from({ length: numel(shape) }, () => randn(rand) * 1e-7);
  },
  zeros(shape, rand) {
    return Float32Array.from({ length: numel(shape) }, () => (rand() < 0.5 ? -0 : 0));
  },
  intsnan(shape, rand) {
    const out = KINDS.ints(shape, rand).map((v) => (v > 40 ? NaN : v));
    out[0] = -0;
    if (out.length > 1) out[1] = NaN;
    return out;
  },
  allnan(shape) {
    return new Float32Array(numel(shape)).fill(NaN);
  },
};

const SHAPES = [
  [1],
  [5],
  [999],
  [1001],
  [2000],
  [1, 1],
  [4, 4],
  [10, 10],
  [31, 31],
  [32, 32],
  [33, 33],
  [100, 7],
  [7, 100],
  [200, 200],
  [512, 512],
];
const MAIN_KINDS = ['softmax', 'randn', 'mixed', 'ints', 'nonfinite'];
const EXTRA_KINDS = ['uniform', 'ties', 'scities', 'bigints', 'huge', 'tiny', 'zeros', 'intsnan', 'allnan'];

function cases() {
  const list = [];
  let seed = 1;
  for (const shape of SHAPES) {
    for (const kind of MAIN_KINDS) list.push({ shape, kind, seed: seed++ });
    for (const kind of EXTRA_KINDS) {
      if (numel(shape) > 1100 && !['uniform', 'ties', 'bigints', 'intsnan'].includes(kind)) continue;
      list.push({ shape, kind, seed: seed++ });
    }
  }
  // shapes that summarize along one dimension only, a 0-D tensor, empty tensors, and suffixes
  for (const shape of [
    [2, 600],
    [600, 2],
    [1001, 1],
    [1, 1001],
    [3, 334],
  ])
    list.push({ shape, kind: 'randn', seed: seed++ });
  list.push({ shape: [], kind: 'randn', seed: seed++ }, { shape: [], kind: 'ints', seed: seed++ });
  list.push({ shape: [0], kind: 'randn', seed: seed++ }, { shape: [0, 4], kind: 'randn', seed: seed++ });
  for (const shape of [[5], [12], [16], [4, 4], [4, 9], [20, 20], [512, 512]]) {
    list.push({ shape, kind: 'randn', seed: seed++, suffix: 'grad_fn' });
    list.push({ shape, kind: 'softmax', seed: seed++, suffix: 'requires_grad' });
  }
  for (const c of list) c.data = KINDS[c.kind](c.shape, mulberry32(c.seed * 2654435761));
  return list;
}

const PY = `
import json, sys
try:
    import numpy as np
    import torch
except Exception as e:
    sys.stderr.write('cannot import torch/numpy in ${PYTHON}: %r\\n' % (e,))
    sys.exit(3)
assert torch.__version__.startswith('1.13'), torch.__version__
meta = json.load(open(sys.argv[1]))
raw = open(sys.argv[2], 'rb').read()
out = []
for c in meta:
    n = 1
    for d in c['shape']:
        n *= d
    a = np.frombuffer(raw, dtype='<f4', count=n, offset=c['offset'] * 4).reshape(c['shape']).copy()
    t = torch.from_numpy(a)
    if c.get('suffix') == 'requires_grad':
        t.requires_grad_()
    elif c.get('suffix') == 'grad_fn':
        t = t.requires_grad_() * 1
    out.append(repr(t))
sys.stdout.write(${JSON.stringify(SEP)}.join(out))
`;

function printInTorch(list) {
  assert.ok(existsSync(PYTHON), `${PYTHON} is missing (scripts/install-deps installs python3-torch)`);
  const dir = mkdtempSync(join(tmpdir(), 'torch-print-'));
  try {
    let offset = 0;
    const meta = list.map((c) => {
      const m = { shape: c.shape, offset, suffix: c.suffix };
      offset += c.data.length;
      return m;
    });
    const all = new Float32Array(offset);
    list.forEach((c, i) => all.set(c.data, meta[i].offset));
    writeFileSync(join(dir, 'meta.json'), JSON.stringify(meta));
    writeFileSync(join(dir, 'data.f32'), Buffer.from(all.buffer));
    writeFileSync(join(dir, 'print.py'), PY);
    const r = spawnSync(PYTHON, [join(dir, 'print.py'), join(dir, 'meta.json'), join(dir, 'data.f32')], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
      env: { ...process.env, OMP_NUM_THREADS: '1' },
    });
    assert.equal(
      r.status,
      0,
      `PyTorch printing failed (needs python3-torch 1.13 for ${PYTHON}; scripts/install-deps installs it): ${r.error || ''}${r.stderr}`,
    );
    const strs = r.stdout.split(SEP);
    assert.equal(strs.length, list.length, 'one printed tensor per case');
    return strs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const SUFFIX = { grad_fn: ', grad_fn=<MulBackward0>', requires_grad: ', requires_grad=True' };

test('torchStr prints float32 tensors exactly as PyTorch 1.13 print(t) (default print options)', () => {
  const list = cases();
  const expected = printInTorch(list);
  const failures = [];
  list.forEach((c, i) => {
    const got = torchStr({ shape: c.shape, data: c.data }, c.suffix ? { suffix: SUFFIX[c.suffix] } : undefined);
    if (got !== expected[i])
      failures.push(
        `[${c.shape}] ${c.kind}${c.suffix ? ' +' + c.suffix : ''} (seed ${c.seed}):\n--- torch\n${expected[i]}\n--- torchStr\n${got}`,
      );
  });
  assert.equal(
    failures.length,
    0,
    `${failures.length} of ${list.length} differ:\n${failures.slice(0, 5).join('\n\n')}`,
  );
});
