// Lessons 002/004 — L04 "Committee of Experts": every printed cell of the lesson, computed live from the core's API
// (parameter counts, mix-then-split, the 4-step pipeline, head specialization, the shape table, contiguous(), the
// module test, loop vs vectorized, causal masking). A fixed lesson: it computes itself, and five of its examples can
// feed the heatmaps (its views).
import { maskTensor, sizeStr, torchStr, commas, headMatrix } from '../compute/explorer-run.js';
import { traceWords } from './trace-words.js';
import { cells, fill } from './python.js';
import { constructor } from './constructor.js';
import text from './lesson002.py';

const code = cells(text);
// The setup cell: the lesson's imports, helpers, module and loop version (every other cell runs after it).
export const setup = fill(code.setup, { constructor }) + '\n';

// The shape table, computed step by step by PyTorch (the module of lessons 002/004; labels as the page's trace).
export const shapeTableCode = (B, S, D, H, seed) => fill(code.shapes, { B, S, D, H, seed });
export function shapeTableText(trace) {
  const words = traceWords(trace);
  const rows = trace.map((t, i) => [words[i].label, '[' + t.shape.join(', ') + ']']);
  const width = Math.max('Operation'.length, ...rows.map((r) => r[0].length));
  return ['Operation'.padEnd(width) + '  Shape', ...rows.map((r) => r[0].padEnd(width) + '  ' + r[1])].join('\n');
}

const num = (v) => (typeof v === 'number' ? v : v && v.data ? v.data[0] : Number(v));
const tensor = (v, shape) => (v && v.data ? v : { shape, data: Float32Array.from(v) });
function meanAbsDiff(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs(a[i] - b[i]);
  return s / a.length;
}

// What the lesson's examples write: its cells (in the lesson's order), its views (the examples that can feed the
// heatmaps) and the core objects to delete when they are done.
class LessonRun {
  constructor() {
    this.cells = [];
    this.views = {};
    this.owned = [];
  }
  // A cell of the lesson's code (lesson002.py's cell `id`) with what it prints.
  cell(id, title, output, extra) {
    this.cells.push({ id, title, code: code[id], output, ...extra });
  }
  own(o) {
    this.owned.push(o);
    return o;
  }
  free() {
    this.owned.forEach((o) => {
      try {
        o.delete();
      } catch (e) {
        /* already freed */
      }
    });
  }
}

// Part 1: parameter counts, then mix-then-split (manual_seed(1): randn(8), randn(8, 8)).
function mixCells(M, run) {
  const sc = M.parameterScenarios(512, 8);
  run.cell(
    'params',
    'Parameter counts: full vs reduced vs actual',
    [
      'd_model=512, heads=8, d_k=64',
      'QKV parameters:',
      '  if full dims:     ' + commas(num(sc.full)),
      '  if reduced dims:  ' + commas(num(sc.reduced)),
      '  actual (1 big W): ' + commas(num(sc.actual)),
      '  reduced == actual? ' + (num(sc.reduced) === num(sc.actual) ? 'True' : 'False'),
    ].join('\n'),
  );
  const mx = M.mixThenSplit({ seed: 1, dModel: 8, outputIndex: 3 });
  const x0 = tensor(mx.x0, [8]),
    W = tensor(mx.W, [8, 8]),
    q0 = tensor(mx.q0, [8]),
    col = tensor(mx.column, [8]);
  run.cell(
    'mix',
    'Mix, then split: q0 = x0 @ W',
    [
      'Input vector x0 (shape ' + sizeStr(x0.shape) + '):',
      torchStr(x0),
      '',
      'Mix matrix W (shape ' + sizeStr(W.shape) + '):',
      torchStr(W),
      '',
      'Output vector q0 = x0 @ W (shape ' + sizeStr(q0.shape) + '):',
      torchStr(q0),
      '',
      '--- Verifying q0[3] uses ALL input dimensions ---',
      'q0[3] = ' + num(mx.q0AtIndex).toFixed(4),
      '',
      'W[:, 3] (weights for output dimension 3):',
      torchStr(col),
      '',
      'Manual calculation: sum of (x0[i] * W[i,3]) for ALL i from 0 to 7',
      '                  = ' + num(mx.manual).toFixed(4),
    ].join('\n'),
  );
}

// Part 2: the 4-step pipeline; continues the manual_seed(1) stream (randn(8), randn(8, 8) already drawn).
function pipelineExample(M, run) {
  const g = run.own(new M.Generator(1));
  g.randn([8]);
  g.randn([8, 8]);
  const x = g.randn([2, 4, 8]);
  const Wq = g.randn([8, 8]),
    Wk = g.randn([8, 8]),
    Wv = g.randn([8, 8]),
    Wo = g.randn([8, 8]);
  const q = M.matmul(x, Wq),
    k = M.matmul(x, Wk),
    v = M.matmul(x, Wv);
  const qh = M.splitHeads(q, 2),
    kh = M.splitHeads(k, 2),
    vh = M.splitHeads(v, 2);
  const att = M.scaledDotProductAttention(qh, kh, vh, {});
  const concat = M.mergeHeads(att.output);
  const y = M.matmul(concat, Wo);
  run.cell(
    'pipeline',
    'The 4-step pipeline (B=2, S=4, D=8, H=2)',
    [
      '  After split: ' + sizeStr(qh.shape) + ' = [B, H, S, d_k]',
      '  Attention weights: ' + sizeStr(att.weights.shape) + ' = [B, H, S, S]',
      '  Head outputs: ' + sizeStr(att.output.shape) + ' = [B, H, S, d_k]',
      '  Example: Attention weights from batch 0, head 0:',
      '  ' + torchStr(headMatrix(att.weights, 0, 0)),
      '  After concat: ' + sizeStr(concat.shape) + ' = [B, S, D]',
      '  Final output: ' + sizeStr(y.shape) + ' = [B, S, D]',
    ].join('\n'),
  );
  run.views.pipeline = {
    weights: att.weights,
    output: y,
    x,
    labels: null,
    B: 2,
    H: 2,
    S: 4,
    D: 8,
    trace: M.shapeTrace({ batch: 2, seqLen: 4, dModel: 8, numHeads: 2 }),
    origin: 'torch.randn(8, 8) matrices, no bias, continuing torch.manual_seed(1)',
    shown: { dmodel: 8, heads: 2, seed: 1, causal: false, fill: '-inf', dropout: 0, train: false },
    note: 'Plain x @ W matmuls, no bias (lesson 002, Part 2).',
  };
}

// Part 3: hand-built head specialization; then the shape table and contiguous().
function headsExample(M, run) {
  const tokens = ['The', 'cat', 'sat', 'on', 'the', 'mat', 'because', 'it', 'was', 'soft'];
  const heads = M.headSpecialization(tokens); // per head: {name, patterns: [{from, to, weight}], weights}
  const printed = ['Sentence: ' + tokens.join(' '), 'Tokens: ' + tokens.length];
  const headWeights = new Float32Array(heads.length * 100);
  heads.forEach((h, i) => {
    printed.push('', 'HEAD ' + (i + 1) + ': ' + (h.name || ''), '', 'Key patterns in Head ' + (i + 1) + ':');
    h.patterns.forEach((p) =>
      printed.push("  '" + tokens[p.from] + "' → '" + tokens[p.to] + "' (" + num(p.weight).toFixed(2) + ')'),
    );
    headWeights.set(tensor(h.weights, [10, 10]).data, i * 100);
  });
  run.cell('heads', 'Hand-built head specialization', printed.join('\n'));
  run.views.heads = {
    weights: { shape: [1, heads.length, 10, 10], data: headWeights },
    labels: tokens,
    B: 1,
    H: heads.length,
    S: 10,
    D: 0,
    headNames: heads.map((h) => h.name),
    trace: [],
    note: 'Hand-built logits, not learned: head 1 semantic, head 2 syntactic (lesson 002, Part 3).',
  };
  run.cells.push({
    id: 'shapes',
    title: 'Shape transformation table (B=2, S=10, D=512, H=8)',
    code: shapeTableCode(2, 10, 512, 8, 0),
    output: shapeTableText(M.shapeTrace({ batch: 2, seqLen: 10, dModel: 512, numHeads: 8 })),
  });
  run.cell(
    'contiguous',
    'Why contiguous() matters',
    [
      'x_t.is_contiguous(): False',
      'view() failed as expected: ' + M.viewError(),
      'x_c.is_contiguous(): True',
      'x_c.view(2, 12).shape: torch.Size([2, 12])',
    ].join('\n'),
  );
}

// Module test: manual_seed(0); MHA(32, 4) THEN x = randn(2, 5, 32).
function moduleExample(M, run) {
  const g0 = run.own(new M.Generator(0));
  const mt = run.own(new M.MultiHeadAttention({ dModel: 32, numHeads: 4, generator: g0 }));
  const xin = g0.randn([2, 5, 32]);
  const fy = mt.forward(xin, xin, xin, {});
  run.cell(
    'module',
    'Testing the MultiHeadAttention module',
    [
      'Input shape: ' + sizeStr(xin.shape) + ' = [Batch, Seq, D_model]',
      'Output shape: ' + sizeStr(fy.output.shape) + ' = [Batch, Seq, D_model]',
      '✓ Output differs from input (mean abs diff: ' + meanAbsDiff(fy.output.data, xin.data).toFixed(4) + ')',
      '✓ Total parameters: ' + commas(mt.parameterCount()),
    ].join('\n'),
  );
  run.views.module = {
    weights: fy.weights,
    output: fy.output,
    x: xin,
    B: 2,
    H: 4,
    S: 5,
    D: 32,
    trace: fy.trace,
    origin: "nn.Linear's init after torch.manual_seed(0)",
    shown: { dmodel: 32, heads: 4, seed: 0, causal: false, fill: '-inf', dropout: 0, train: false },
    note: 'torch.manual_seed(0); MultiHeadAttention(32, 4) then x = torch.randn(2, 5, 32).',
  };
}

// Loop vs vectorized: manual_seed(123); MHA(32, 4); x = randn(2, 6, 32). Returns the generator (the causal example
// continues its stream).
function loopExample(M, run) {
  const g1 = run.own(new M.Generator(123));
  const ml = run.own(new M.MultiHeadAttention({ dModel: 32, numHeads: 4, generator: g1 }));
  const xl = g1.randn([2, 6, 32]);
  const lv = M.loopVsVectorized(ml, xl, {});
  const fl = ml.forward(xl, xl, xl, {});
  run.cell(
    'loop',
    'Loop-based vs vectorized',
    [
      'Difference between implementations:',
      '  Max absolute diff: ' + num(lv.maxAbsDiff).toFixed(10),
      '  Mean absolute diff: ' + num(lv.meanAbsDiff).toFixed(10),
      '  Results match: ' + (num(lv.maxAbsDiff) <= 1e-6 ? 'True' : 'False'),
    ].join('\n'),
  );
  run.views.loop = {
    weights: fl.weights,
    output: fl.output,
    x: xl,
    B: 2,
    H: 4,
    S: 6,
    D: 32,
    trace: fl.trace,
    origin: "nn.Linear's init after torch.manual_seed(123)",
    shown: { dmodel: 32, heads: 4, seed: 123, causal: false, fill: '-inf', dropout: 0, train: false },
    note: 'torch.manual_seed(123); MultiHeadAttention(32, 4); x = torch.randn(2, 6, 32).',
  };
  return g1;
}

// Causal: the SAME generator g1 continues (no reseed): MHA(32, 4); x = randn(2, 6, 32).
function causalExample(M, run, g1) {
  const mc = run.own(new M.MultiHeadAttention({ dModel: 32, numHeads: 4, generator: g1 }));
  const xc = g1.randn([2, 6, 32]);
  const ym = mc.forward(xc, xc, xc, { mask: maskTensor(6, 'tril-keep'), maskMode: 'keep', fill: -1e9 });
  const yu = mc.forward(xc, xc, xc, {});
  run.cell(
    'causal',
    'Causal masking (continues the seed-123 stream)',
    [
      'Causal mask shape: torch.Size([1, 1, 6, 6]) (will broadcast to [B, H, S, S])',
      'Causal mask (first 4x4 for visualization):',
      'tensor([[1, 0, 0, 0],\n        [1, 1, 0, 0],\n        [1, 1, 1, 0],\n        [1, 1, 1, 1]], dtype=torch.int32)',
      '',
      'Masked output: ' + sizeStr(ym.output.shape),
      'Unmasked output: ' + sizeStr(yu.output.shape),
      '',
      'Mean absolute difference: ' + meanAbsDiff(ym.output.data, yu.output.data).toFixed(4),
    ].join('\n'),
  );
  run.views.causal = {
    weights: ym.weights,
    output: ym.output,
    x: xc,
    B: 2,
    H: 4,
    S: 6,
    D: 32,
    trace: ym.trace,
    causal: true,
    origin: "nn.Linear's init, continuing the torch.manual_seed(123) stream",
    shown: { dmodel: 32, heads: 4, seed: 123, causal: true, fill: '-1e9', dropout: 0, train: false },
    note: 'Causal keep-mask torch.tril(ones(6, 6)), fill -1e9; the generator continues after the loop example.',
  };
}

// The lesson computed once (its examples have fixed seeds): {cells, views}. M: the core's API.
let computed = null;
function compute002(M) {
  if (computed) return computed;
  const run = new LessonRun();
  try {
    run.cells.push({
      id: 'setup',
      title: "Setup: the lesson's imports, helpers, module and loop version",
      code: setup,
      output: '',
      note: 'Prints nothing. Every "Copy code" below copies this setup with its cell, so each runs on its own.',
    });
    mixCells(M, run);
    pipelineExample(M, run);
    headsExample(M, run);
    moduleExample(M, run);
    causalExample(M, run, loopExample(M, run));
  } finally {
    run.free();
  }
  run.cells.forEach((c) => {
    if (c.id !== 'setup') c.setup = setup;
  });
  computed = { cells: run.cells, views: run.views };
  return computed;
}

// A fixed lesson answers the controller with compute(M, eff) → {res, labels, cells}, its views (the examples that can
// feed the heatmaps) and shown(M, eff) (the values the selected example uses, for the greyed controls).
const view = (M, eff) => compute002(M).views[eff.view] || compute002(M).views.heads;
export const lesson002 = {
  title: () => 'Lessons 002/004 — L04 "Committee of Experts": every printed cell',
  file: '002_ad8fa6190e00e90b.txt',
  blurb: () =>
    'Every example of the lesson, computed live: parameter counts, mix-then-split, the 4-step pipeline, ' +
    'head specialization, the shape table, contiguous(), the module test, loop vs vectorized and the causal mask. ' +
    'Pick which example feeds the heatmaps.',
  views: [
    ['heads', 'Head specialization'],
    ['pipeline', '4-step pipeline'],
    ['module', 'Module test'],
    ['loop', 'Loop vs vectorized'],
    ['causal', 'Causal mask'],
  ],
  fixed: true,
  compute(M, eff) {
    const res = view(M, eff);
    const labels = res.labels || Array.from({ length: res.S }, (_, i) => 't' + i);
    return { res, labels, cells: compute002(M).cells };
  },
  shown: (M, eff) => view(M, eff).shown || null,
};
