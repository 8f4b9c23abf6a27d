// A seeded fuzz of invalid calls across every API entry point: each must throw an Error with a
// readable message (never abort, never a bare number), and afterwards the module still
// reproduces the public vectors and has not grown its heap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testedBuilds, randnSeed1, buildName, load, mulberry32 } from './fixtures/reference.mjs';

const MAX_CALLS = 5000;
const MAX_MS = 60_000;
const HEAP_BOUND = 64 * 1024;

const T = (shape, fill = 0.5) => ({ shape, data: new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(fill) });

// Values that are never a valid count (dModel, numHeads, batch, seqLen, sizes...).
const BAD_COUNTS = [
  '4',
  '',
  null,
  {},
  [4],
  NaN,
  -1,
  0,
  1.5,
  Infinity,
  -Infinity,
  1e12,
  2 ** 53,
  -0,
  true,
  4n,
  new Float64Array(1),
  () => 4,
];
// Never a valid seed (negative whole numbers and -0 are valid: torch wraps them).
const BAD_SEEDS = ['1', '', null, {}, [1], NaN, 1.5, Infinity, -Infinity, 2 ** 53, 1e300, true, 1n, () => 1];
const hole = (a) => {
  const s = a.slice();
  delete s[1];
  return s;
};
const BAD_SHAPES = [
  '2,3',
  null,
  5,
  {},
  new Float64Array([2, 3]),
  new Int32Array([2, 3]),
  [0],
  [2, 0],
  [1.5],
  [2, -1],
  [NaN],
  ['2'],
  [null],
  [undefined],
  [[2]],
  [1, 1, 1, 1, 1, 1, 1, 1, 1],
  [1e9],
  [2 ** 24 + 1],
  [4096, 4096, 4097],
  [Infinity],
  [-0],
  [2 ** 53],
  hole([2, 3, 4]),
  [true],
  [2n],
];
// Never a valid tensor (for any shape requirement).
const badTensors = () => [
  null,
  undefined,
  'tensor',
  5,
  NaN,
  [],
  [1, 2, 3],
  new Float32Array(6),
  true,
  { shape: [2, 3] },
  { data: new Float32Array(6) },
  { shape: [2, 3], data: new Float64Array(6) },
  { shape: [2, 3], data: new Float32Array(5) },
  { shape: [2, 3], data: new Float32Array(7) },
  { shape: [2, 3], data: ['a', 1, 2, 3, 4, 5] },
  { shape: [2, 3], data: [1, 2, 3, 4, 5] },
  { shape: [2, 3], data: new Int32Array(6) },
  { shape: [2, 3], data: new Uint8Array(24) },
  { shape: [2, 3], data: 'abcdef' },
  { shape: [2, 3], data: null },
  { shape: [2, 3], data: [1, 2, 3, 4, 5, null] },
  { shape: [2, 3], data: new ArrayBuffer(24) },
  ...BAD_SHAPES.map((shape) => ({ shape, data: new Float32Array(6) })),
];
// Options objects that are always invalid (S = 4 keys, B = 2, H = 2 in the calls below).
const badOptions = () => [
  'causal',
  5,
  true,
  [],
  [1],
  NaN,
  { foo: 1 },
  { mask: T([4, 4]), masks: 1 },
  { needweights: false },
  { Causal: true },
  { maskMode: 'none' },
  { maskMode: 1 },
  { maskMode: null },
  { maskMode: 'KEEP' },
  { maskMode: ['keep'] },
  { fill: NaN },
  { fill: Infinity },
  { fill: '-1e9' },
  { fill: null },
  { fill: -1000000000n },
  { causal: 1 },
  { causal: 'yes' },
  { causal: null },
  { needWeights: 0 },
  { needWeights: 'false' },
  { needWeights: null },
  { mask: T([3, 3]) },
  { mask: T([4, 5]) },
  { mask: T([4]) },
  { mask: T([3, 1, 4, 4]) },
  { mask: T([1, 3, 4, 4]) },
  { mask: T([2, 2, 2, 4, 4]) },
  { mask: T([2, 2, 4, 4, 1]) },
  { mask: 'tril' },
  { mask: [1, 0] },
  { mask: { shape: [4, 4], data: new Float64Array(16) } },
  { mask: { shape: [4, 4], data: new Float32Array(15) } },
  { keyPaddingMask: T([2, 5]) },
  { keyPaddingMask: T([4]) },
  { keyPaddingMask: T([2, 1, 4]) },
  { keyPaddingMask: T([3, 4]) },
  { keyPaddingMask: T([1, 4]) },
  { keyPaddingMask: 'pad' },
  { keyPaddingMask: { shape: [2, 4], data: new Uint8Array(8) } },
  { mask: T([4, 4]), maskMode: 'blocks' },
];

// A short description of a value for failure labels.
function show(v, depth = 0) {
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'function') return v.name ? `[function ${v.name}]` : '[function]';
  if (typeof v === 'symbol' || v === null || v === undefined || typeof v !== 'object')
    return typeof v === 'string' ? JSON.stringify(v) : String(v);
  if (ArrayBuffer.isView(v)) return `${v.constructor.name}(${v.length})`;
  if (depth > 1) return Array.isArray(v) ? '[…]' : '{…}';
  if (Array.isArray(v)) return `[${Array.from(v, (e) => show(e, depth + 1)).join(', ')}]`;
  const name = v.constructor && v.constructor !== Object ? v.constructor.name + ' ' : '';
  return `${name}{${Object.entries(v)
    .map(([k, e]) => `${k}: ${show(e, depth + 1)}`)
    .join(', ')}}`;
}

function buildCases(M, ctx) {
  const { g, mha, x, dead, deadMha, model, opt } = ctx;
  const S = 4,
    D = 8;
  const ok = (shape) => T(shape);
  return {
    'Generator ctor': (p) => {
      const s = p(BAD_SEEDS);
      return [`new Generator(${show(s)})`, () => new M.Generator(s)];
    },
    'Generator.manualSeed': (p) => {
      const s = p(BAD_SEEDS);
      return [`manualSeed(${show(s)})`, () => g.manualSeed(s)];
    },
    'Generator.rand': (p) => {
      const s = p(BAD_SHAPES);
      return [`rand(${show(s)})`, () => g.rand(s)];
    },
    'Generator.randn': (p) => {
      const s = p(BAD_SHAPES);
      return [`randn(${show(s)})`, () => g.randn(s)];
    },
    'deleted Generator': (p) =>
      p([
        ['dead.rand', () => dead.rand([2])],
        ['dead.randn', () => dead.randn([2])],
        ['dead.manualSeed', () => dead.manualSeed(1)],
        ['dead.initialSeed', () => dead.initialSeed()],
        ['dead.delete', () => dead.delete()],
        ['MHA with a dead generator', () => new M.MultiHeadAttention({ dModel: 8, numHeads: 2, generator: dead })],
        ['mixThenSplit with a dead generator', () => M.mixThenSplit({ generator: dead })],
      ]),
    'MultiHeadAttention ctor': (p) => {
      const base = { dModel: 8, numHeads: 2, bias: true, dropout: 0, generator: g };
      const variant = p([
        () => p([null, undefined, 5, 'config', true, NaN]),
        () => ({ ...base, dModel: p(BAD_COUNTS) }),
        () => ({ ...base, numHeads: p(BAD_COUNTS) }),
        () => ({
          ...base,
          ...p(
            [
              [10, 4],
              [7, 2],
              [9, 2],
              [12, 8],
              [6, 4],
              [4097, 1],
              [4096 * 4096, 1],
            ].map(([d, h]) => ({ dModel: d, numHeads: h })),
          ),
        }),
        () => ({ ...base, dModel: 4, numHeads: p([8, 5, 16]) }),
        () => ({ ...base, numHeads: 2, dModel: undefined }),
        () => ({ ...base, bias: p(['yes', 1, 0, null, NaN, {}, [true]]) }),
        () => ({ ...base, dropout: p([1, -0.1, NaN, 1.5, Infinity, -Infinity, '0.5', null, [0.1], {}, true]) }),
        () => {
          const c = { ...base };
          delete c.generator;
          return c;
        },
        () => ({
          ...base,
          generator: p([
            null,
            {},
            { _handle: null },
            Object.create(M.Generator.prototype),
            42,
            'g',
            M.Generator,
            mha,
            [g],
          ]),
        }),
        () => ({ d_model: 8, num_heads: 2, generator: g }),
      ])();
      return [`new MultiHeadAttention(${show(variant)})`, () => new M.MultiHeadAttention(variant)];
    },
    'MultiHeadAttention.forward': (p) => {
      const variant = p([
        () => [p(badTensors())],
        // (undefined is left out for key and value: it means "the same as the query / key")
        () => [x, p(badTensors().filter((v) => v !== undefined)), x],
        () => [x, x, p(badTensors().filter((v) => v !== undefined))],
        () => [ok([2, S]), ok([2, S]), ok([2, S])],
        () => [ok([2, S, D + 1])],
        () => [ok([2, S, D, 1])],
        () => [ok([D])],
        () => [x, ok([3, S, D]), ok([3, S, D])],
        () => [x, ok([2, 5, D]), ok([2, 6, D])],
        () => [x, ok([2, 5, D]), ok([2, 5, D + 2])],
        () => [x, x, x, p(badOptions())],
      ])();
      return [`mha.forward(${show(variant)})`, () => mha.forward(...variant)];
    },
    'deleted MultiHeadAttention': (p) =>
      p([
        ['dead.forward', () => deadMha.forward(x)],
        ['dead.parameters', () => deadMha.parameters()],
        ['dead.parameterCount', () => deadMha.parameterCount()],
        ['dead.train', () => deadMha.train()],
        ['dead.eval', () => deadMha.eval()],
        ['dead.training', () => deadMha.training],
        ['dead.delete', () => deadMha.delete()],
        ['loopVsVectorized(dead)', () => M.loopVsVectorized(deadMha, x)],
      ]),
    matmul: (p) => {
      const [a, b] = p([
        () => [p(badTensors()), ok([2, 3])],
        () => [ok([2, 3]), p(badTensors())],
        () => [ok([2, 3]), ok([4, 5])],
        () => [ok([3]), ok([4])],
        () => [ok([2, 2, 3]), ok([3, 4, 3])],
        () => [ok([3, 2, 3]), ok([2, 3, 4])],
        () => [ok([2, 3])],
        () => [],
      ])();
      return [`matmul(${show([a, b])})`, () => M.matmul(a, b)];
    },
    softmax: (p) => {
      const [t, dim] = p([
        () => [p(badTensors()), -1],
        () => [ok([2, 3]), p(['-1', null, NaN, 1.5, Infinity, -Infinity, 8, -9, 2, -3, 100, {}, [0], true, 1n])],
        () => [ok([2, 3, 4]), p([3, -4, 7, -8])],
      ])();
      return [`softmax(${show([t, dim])})`, () => M.softmax(t, dim)];
    },
    splitHeads: (p) => {
      const [t, h] = p([
        () => [p(badTensors()), 2],
        () => [ok([2, S, D]), p(BAD_COUNTS)],
        () => [ok([2, S, D]), p([3, 5, 16, 4097])],
        () => [ok([S, D]), 2],
        () => [ok([2, 2, S, D]), 2],
        () => [ok([2, S, D])],
      ])();
      return [`splitHeads(${show([t, h])})`, () => M.splitHeads(t, h)];
    },
    mergeHeads: (p) => {
      const t = p([...badTensors(), ok([2, S, D]), ok([S, D]), ok([2, 2, 2, S, D]), ok([D])]);
      return [`mergeHeads(${show(t)})`, () => M.mergeHeads(t)];
    },
    scaledDotProductAttention: (p) => {
      const q = ok([2, 2, S, 4]);
      const args = p([
        () => [p(badTensors()), q, q],
        () => [q, p(badTensors()), q],
        () => [q, q, p(badTensors())],
        () => [q, ok([2, 2, S, 5]), q],
        () => [q, q, ok([2, 2, S + 1, 4])],
        () => [ok([4]), ok([4]), ok([4])],
        () => [q, ok([3, 2, S, 4]), ok([3, 2, S, 4])],
        () => [ok([2, 3, S, 4]), ok([2, 2, S, 4]), ok([2, 2, S, 4])],
        () => [q, q, q, p(badOptions())],
        () => [q],
        () => [],
      ])();
      return [`scaledDotProductAttention(${show(args)})`, () => M.scaledDotProductAttention(...args)];
    },
    shapeTrace: (p) => {
      const base = { batch: 2, seqLen: 10, dModel: 512, numHeads: 8 };
      const key = p(['batch', 'seqLen', 'dModel', 'numHeads', 'kvLen']);
      const cfg = p([
        () => p([5, 'cfg', true, NaN, {}, []]),
        () => ({ ...base, [key]: p(BAD_COUNTS.filter((v) => v !== undefined)) }),
        () => ({
          ...base,
          ...p(
            [
              [10, 4],
              [7, 2],
              [4097, 1],
              [12, 8],
            ].map(([d, h]) => ({ dModel: d, numHeads: h })),
          ),
        }),
        () => ({ ...base, numHeads: 1024 }),
        () => ({ ...base, dModel: undefined }),
      ])();
      return [`shapeTrace(${show(cfg)})`, () => M.shapeTrace(cfg)];
    },
    parameterScenarios: (p) => {
      const [d, h] = p([
        () => [p(BAD_COUNTS), 8],
        () => [512, p(BAD_COUNTS)],
        () =>
          p([
            [10, 4],
            [7, 2],
            [4097, 1],
            [10, 3],
          ]),
        () => [4, 8],
        () => [512],
        () => [],
      ])();
      return [`parameterScenarios(${show([d, h])})`, () => M.parameterScenarios(d, h)];
    },
    mixThenSplit: (p) => {
      const cfg = p([
        () => ({ seed: p(BAD_SEEDS) }),
        () => ({ dModel: p(BAD_COUNTS) }),
        () => ({ dModel: 4097 }),
        () => ({ dModel: 8, outputIndex: p([8, 9, -1, 1.5, NaN, '3', null, Infinity, -0.5, 2 ** 40]) }),
        () => ({ generator: p([null, {}, 1, 'g', M.Generator, mha, Object.create(M.Generator.prototype)]) }),
      ])();
      return [`mixThenSplit(${show(cfg)})`, () => M.mixThenSplit(cfg)];
    },
    headSpecialization: (p) => {
      const tokens = p([
        null,
        undefined,
        'The cat sat',
        5,
        {},
        [],
        [1, 2],
        ['a', null],
        ['a', 3],
        ['a', ['b']],
        hole(['a', 'b', 'c']),
        Array(4097).fill('a'),
        new Set(['a']),
        [new String('a')],
        [Symbol('a')],
      ]);
      return [`headSpecialization(${show(tokens)})`, () => M.headSpecialization(tokens)];
    },
    'TinyAttentionModel ctor': (p) => {
      const config = p([
        null,
        undefined,
        5,
        'two-offsets',
        [],
        { task: 'copy', generator: g },
        { task: 'two-offsets' },
        { task: 'two-offsets', generator: dead },
        { task: 'two-offsets', generator: mha },
        ...BAD_COUNTS.slice(0, 12).flatMap((v) =>
          ['vocab', 'seqLen', 'dModel', 'numHeads', 'layers'].map((k) => ({
            task: 'two-offsets',
            [k]: v,
            generator: g,
          })),
        ),
        { task: 'two-offsets', dModel: 10, numHeads: 3, generator: g },
        { task: 'two-offsets', vocab: 513, generator: g },
        { task: 'two-offsets', seqLen: 513, generator: g },
        { task: 'two-offsets', layers: 5, generator: g },
        { task: 'reverse', causal: true, generator: g },
        { task: 'induction', vocab: 6, generator: g },
        { task: 'induction', seqLen: 13, generator: g },
        { task: 'two-offsets', causal: 1, generator: g },
        { task: 'two-offsets', heads: 2, generator: g },
        { task: '__proto__', generator: g },
      ]);
      return [`new TinyAttentionModel(${show(config)})`, () => new M.TinyAttentionModel(config)];
    },
    'training calls': (p) =>
      p([
        ['trainStep(bad optimizer)', () => model.trainStep(p([null, {}, mha, g, opt.model]), {})],
        [
          'trainStep(bad options)',
          () =>
            model.trainStep(
              opt,
              p([5, 'x', { batchSize: 0 }, { batchSize: 1025 }, { batchSize: 1.5 }, { batchSize: NaN }, { batch: 2 }]),
            ),
        ],
        [
          'attention(bad tokens)',
          () =>
            model.attention(
              p([null, 'abc', [], [8], [-1], [0.5], [NaN], new Array(9).fill(0), [0, '1'], { length: 2 }]),
            ),
        ],
        ['predict(bad tokens)', () => model.predict(p([[], [1, 2, 99], [Infinity]]))],
        [
          'ablate',
          () =>
            model.ablate(
              ...p([
                [1, 0],
                [0, 2],
                [-1, 0],
                [0, 0, 'yes'],
                ['0', 0],
                [NaN, 0],
              ]),
            ),
        ],
        [
          'loadStateDict',
          () =>
            model.loadStateDict(
              p([
                null,
                5,
                'sd',
                [],
                { 'tok.weight': 5 },
                { 'tok.weight': { shape: [8, 16], data: new Float32Array(3) } },
                {},
                new Map([['x', T([1])]]),
              ]),
            ),
        ],
        [
          'loadSafetensors',
          () =>
            M.loadSafetensors(p([null, 'file', [1, 2, 3], new Uint16Array(8), new Uint8Array(3), new Uint8Array(16)])),
        ],
        [
          'optimizer options',
          () =>
            new (p([M.SGD, M.Adam, M.AdamW]))(
              model,
              p([
                { lr: -1 },
                { lr: NaN },
                { lr: '1' },
                { betas: [2, 0.9] },
                { betas: 0.9 },
                { eps: -1 },
                { weightDecay: -1 },
                { lr: 1e-3, nesterov: 'yes' },
                { rho: 1 },
              ]),
            ),
        ],
        ['optimizer for no model', () => new (p([M.SGD, M.Adam, M.AdamW]))(p([null, mha, {}, 'model']), {})],
        [
          'toPyTorch',
          () =>
            model.toPyTorch(
              p([
                { steps: 0 },
                { steps: 1.5 },
                { batchSize: 0 },
                { optimizer: 'lbfgs' },
                { lossDigits: 12 },
                { optimizer: 'sgd', betas: [0.9, 0.99] },
                { epochs: 3 },
              ]),
            ),
        ],
      ]),
    loopVsVectorized: (p) => {
      const args = p([
        () => [
          p([null, undefined, {}, g, 'mha', { _handle: mha._handle }, Object.create(M.MultiHeadAttention.prototype)]),
          x,
        ],
        () => [mha, p(badTensors())],
        () => [mha, ok([2, S, D + 1])],
        () => [mha, ok([S, D])],
        () => [mha, x, p(badOptions())],
      ])();
      return [`loopVsVectorized(${show(args)})`, () => M.loopVsVectorized(...args)];
    },
  };
}

function checkThrows(label, fn, failures) {
  let threw = false,
    error;
  try {
    const r = fn();
    if (r && typeof r.delete === 'function') r.delete();
  } catch (e) {
    threw = true;
    error = e;
  }
  const fail = (why) => failures.push(`${label}: ${why}`);
  if (!threw) return fail('did not throw');
  if (!(error instanceof Error)) return fail(`threw a non-Error ${typeof error}: ${String(error)}`);
  if (error instanceof WebAssembly.RuntimeError) return fail(`wasm trap: ${error.message}`);
  if (typeof error.message !== 'string' || error.message.trim() === '') return fail('empty message');
  if (/^\s*-?\d+(\.\d+)?\s*$/.test(error.message)) return fail(`bare number message: ${error.message}`);
  if (/^Aborted|abort\(|RuntimeError/i.test(error.message)) fail(`abort message: ${error.message}`);
}

// Every Emscripten instance adds process 'uncaughtException'/'unhandledRejection' listeners;
// this file creates more than Node's default warning threshold of 10.
process.setMaxListeners(64);

for (const build of testedBuilds()) {
  test(`fuzz of invalid calls — ${buildName(build)}`, async (t) => {
    const M = await load(build);
    const g = new M.Generator(5);
    const mha = new M.MultiHeadAttention({ dModel: 8, numHeads: 2, generator: g });
    const x = g.randn([2, 4, 8]);
    const dead = new M.Generator(1);
    dead.delete();
    const deadMha = new M.MultiHeadAttention({ dModel: 8, numHeads: 2, generator: g });
    deadMha.delete();
    const model = new M.TinyAttentionModel({ task: 'two-offsets', generator: new M.Generator(0) });
    const opt = new M.Adam(model, { lr: 1e-2 });
    const cases = buildCases(M, { g, mha, x, dead, deadMha, model, opt });
    const names = Object.keys(cases);
    const rnd = mulberry32(0xc0ffee);
    const pick = (arr) => arr[Math.floor(rnd() * arr.length)];
    const failures = [];
    const counts = Object.fromEntries(names.map((n) => [n, 0]));
    const run = (n) => {
      const entry = names[n % names.length];
      const [label, fn] = cases[entry](pick);
      counts[entry]++;
      checkThrows(`${entry} / ${label}`, fn, failures);
    };

    // warm-up: one round over every entry point (first-use allocations of the runtime)
    for (let i = 0; i < names.length * 4; i++) run(i);
    const heapBefore = M.memoryStats().heapUsed;
    const start = Date.now();
    let calls = 0;
    while (calls < MAX_CALLS && Date.now() - start < MAX_MS) {
      run(Math.floor(rnd() * names.length));
      calls++;
    }
    const heapAfter = M.memoryStats().heapUsed;
    t.diagnostic(`${calls} invalid calls in ${Date.now() - start} ms; heapUsed ${heapBefore} → ${heapAfter}`);
    for (const n of names) assert.ok(counts[n] > 0, `entry point ${n} was exercised`);
    assert.deepEqual([...new Set(failures)].slice(0, 20), [], `${failures.length} bad outcomes`);
    assert.ok(heapAfter - heapBefore <= HEAP_BOUND, `heap grew by ${heapAfter - heapBefore} bytes across the fuzz`);

    // still healthy
    const g1 = new M.Generator(1);
    assert.deepEqual(g1.randn([8]).data, randnSeed1(), 'randn seed 1 after the fuzz');
    g1.delete();
    const r = mha.forward(x);
    assert.deepEqual(r.output.shape, [2, 4, 8]);
    assert.ok(r.output.data.every(Number.isFinite));
    mha.delete();
    g.delete();
  });

  // The config objects of mixThenSplit and shapeTrace: like the MultiHeadAttention constructor,
  // a config that is not an object must be refused with a student-facing message (not ignored,
  // not a TypeError from destructuring).
  test(`non-object configs of mixThenSplit and shapeTrace are refused — ${buildName(build)}`, async () => {
    const M = await load(build);
    const bad = [];
    for (const [name, fn] of [
      ['mixThenSplit', M.mixThenSplit],
      ['shapeTrace', M.shapeTrace],
    ]) {
      for (const cfg of [null, 5, 'cfg', true, NaN]) {
        let error;
        try {
          fn(cfg);
        } catch (e) {
          error = e;
        }
        const label = `${name}(${String(cfg)})`;
        if (!error) bad.push(`${label}: returned a result`);
        else if (
          !(error instanceof Error) ||
          error instanceof TypeError ||
          /Cannot (read|destructure)/.test(error.message)
        ) {
          bad.push(`${label}: ${error.constructor.name}: ${error.message}`);
        }
      }
    }
    assert.deepEqual(bad, []);
  });

  // Sizes whose element count passes 2^32 wrap around in a 32-bit size_t (wasm32). Small inputs
  // (256 KiB) broadcast or multiply to such shapes; the core must reject them like any other
  // shape over the 2^26-element cap, not return a tensor whose data disagrees with its shape or
  // write past an allocation. A fresh module per case: a failure here may corrupt the heap.
  test(`element counts past 2^32 are rejected, not wrapped — ${buildName(build)}`, async (t) => {
    const cases = {
      'sdpa broadcast batch [65536,1,1,1] × [1,65537,1,1]': (M) =>
        M.scaledDotProductAttention(T([65536, 1, 1, 1]), T([1, 65537, 1, 1]), T([1, 65537, 1, 1])),
      'sdpa needWeights:false broadcast batch': (M) =>
        M.scaledDotProductAttention(T([65536, 1, 1, 1]), T([1, 65537, 1, 1]), T([1, 65537, 1, 1]), {
          needWeights: false,
        }),
      'matmul broadcast batch [65536,1,1,1] @ [1,65537,1,1]': (M) => M.matmul(T([65536, 1, 1, 1]), T([1, 65537, 1, 1])),
      'sdpa weights [65536, 65537] from q [65536,1], k [65537,1]': (M) =>
        M.scaledDotProductAttention(T([65536, 1]), T([65537, 1]), T([65537, 1])),
      'MultiHeadAttention(1, 1).forward(q [1,65536,1], kv [1,65537,1])': (M) => {
        const g = new M.Generator(0);
        const m = new M.MultiHeadAttention({ dModel: 1, numHeads: 1, generator: g });
        return m.forward(T([1, 65536, 1]), T([1, 65537, 1]), T([1, 65537, 1]));
      },
      'shapeTrace({batch: 65536, seqLen: 65537, dModel: 1, numHeads: 1})': (M) =>
        M.shapeTrace({ batch: 65536, seqLen: 65537, dModel: 1, numHeads: 1 }),
    };
    for (const [name, call] of Object.entries(cases)) {
      await t.test(name, async () => {
        const M = await load(build);
        let result, error;
        try {
          result = call(M);
        } catch (e) {
          error = e;
        }
        const got = error
          ? `${error.constructor.name}: ${error.message}`
          : `a result (shape ${JSON.stringify(result.shape || (result.output && result.output.shape) || null)})`;
        assert.ok(
          error instanceof Error && !(error instanceof WebAssembly.RuntimeError),
          `expected an Error, got ${got}`,
        );
        assert.match(error.message, /67108864|more than|cap/, `expected the memory-cap message, got ${got}`);
      });
    }
  });
}
