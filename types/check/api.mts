// Every name of the JS API in typed use (tsc --strict in a project that installed the package; the test also runs this
// file, so each declared result type is checked against what the module returns). The README's examples are
// type-checked as they are written by tests/npm/package.test.mjs.
import createMhaModule from 'mha-explorer';
import type { Tensor, TraceStep, MhaModule, MaskMode, Task, Optimizer, StateDict, Implementation, CheckpointFile, LoadProgress, Model,
  ModelInfo, ModelForwardResult, ModelTraceStep } from 'mha-explorer';

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error('types disagree with the module: ' + what);
}
const isTensor = (t: Tensor): boolean => Array.isArray(t.shape) && t.data instanceof Float32Array;

const M: MhaModule = await createMhaModule({ printErr: (text: string) => console.error('core:', text) });
const implementation: Implementation = M.implementation;
check(['wasmsimd-relaxed', 'wasmsimd', 'scalar'].includes(implementation), 'implementation');

// Generator and tensors
const g = new M.Generator(0);
const x: Tensor = g.randn([2, 5, 32]);
check(isTensor(x) && g.rand([3]).data.length === 3 && g.manualSeed(0) === g && g.initialSeed() === 0, 'Generator');
const plain = { shape: [2, 2], data: [1, 0, 0, 1] };          // a TensorLike with plain numbers
check(M.matmul(plain, plain).data[0] === 1, 'matmul of plain arrays');
check(M.softmax(x).shape.length === 3 && M.softmax(x, 1).shape[1] === 5, 'softmax');
const heads = M.splitHeads(x, 4);
check(M.mergeHeads(heads).shape[2] === 32, 'splitHeads / mergeHeads');

// scaledDotProductAttention with every mask mode; weights are null only with needWeights: false
const modes: MaskMode[] = ['keep', 'block', 'bool', 'additive'];
const mask = { shape: [5, 5], data: new Float32Array(25).fill(1) };
for (const maskMode of modes) {
  const r = M.scaledDotProductAttention(heads, heads, heads, { mask, maskMode, fill: -1e9 });
  check(isTensor(r.output) && isTensor(r.weights) && typeof r.fullyMaskedRows === 'number', 'scaledDotProductAttention ' + maskMode);
}
const noWeights = M.scaledDotProductAttention(heads, heads, heads, { needWeights: false, causal: true });
const nothing: null = noWeights.weights;
check(nothing === null, 'needWeights: false gives null weights');
const maybe = M.scaledDotProductAttention(heads, heads, heads, { needWeights: Math.random() < 2 });
check(maybe.weights === null || isTensor(maybe.weights), 'needWeights: boolean');

// MultiHeadAttention
const mha = new M.MultiHeadAttention({ dModel: 32, numHeads: 4, bias: true, dropout: 0.1, generator: g });
check(mha.dModel === 32 && mha.numHeads === 4 && mha.dK === 8 && mha.training, 'MultiHeadAttention fields');
mha.eval().train(false);
const r = mha.forward(x);
const trace: TraceStep[] = r.trace;
check(isTensor(r.weights) && trace[0].op === 'input' && trace.some((s) => s.weights !== undefined), 'forward and its trace');
const cross = mha.forward(x, g.randn([2, 7, 32]), undefined, { keyPaddingMask: { shape: [2, 7], data: new Float32Array(14) } });
check(cross.weights.shape[3] === 7, 'cross-attention');
check(mha.forward(x, x, x, { needWeights: false }).weights === null, 'forward without weights');
const [first, second] = [mha.forward(x, x, x, { heads: [0, 2] }), mha.forward(x, x, x, { heads: [2, 4] })];
check(first.weights.shape[1] === 2 && Math.abs(first.output.data[0] + second.output.data[0] - r.output.data[0]) < 1e-5,
  'heads [start, end): the parts of a partition sum to the output');
check(mha.parameterCount() === 4224 && mha.parameters().W_o.bias !== null && isTensor(mha.parameters().W_q.weight), 'parameters');
const sd: StateDict = mha.stateDict();
mha.loadStateDict(sd).loadStateDict(new Map(Object.entries(sd)));
const bytes: Uint8Array = mha.toSafetensors();
const file = M.readSafetensors(bytes);
check(file.metadata.d_model === '32' && isTensor(file.tensors['W_q.weight']), 'readSafetensors');
check(isTensor(M.loadSafetensors(bytes.slice().buffer)['W_o.bias']), 'loadSafetensors of an ArrayBuffer');
const loop = M.loopVsVectorized(mha, x, { causal: true });
check(loop.maxAbsDiff < 1e-4 && loop.meanAbsDiff <= loop.maxAbsDiff && isTensor(loop.loop) && isTensor(loop.vectorized), 'loopVsVectorized');

// Teaching pieces
const table = M.shapeTrace({ batch: 2, seqLen: 5, dModel: 32, numHeads: 4, kvLen: 7 });
check(table.length === trace.length, 'shapeTrace');
const p = M.parameterScenarios(32, 4);
check(p.withBias === 4224 && p.withoutBias === 4096 && p.full === 12288 && p.actual === p.reduced, 'parameterScenarios');
const mix = M.mixThenSplit({ seed: 1, dModel: 8, outputIndex: 3 });
check(Math.abs(mix.q0AtIndex - mix.manual) < 1e-5 && mix.outputIndex === 3 && isTensor(mix.column) && isTensor(mix.W), 'mixThenSplit');
check(M.mixThenSplit({ generator: g }).x0.shape[0] === 8 && M.mixThenSplit().q0.data.length === 8, 'mixThenSplit defaults');
const hand = M.headSpecialization(['The', 'cat', 'sat', 'on', 'the', 'mat']);
check(typeof hand[0].name === 'string' && isTensor(hand[0].logits) && hand.every((h) => h.patterns.every((q) => q.weight > 0.5)), 'headSpecialization');
check(M.viewError().includes('view') && M.memoryStats().heapSize >= M.memoryStats().heapUsed, 'viewError / memoryStats');

// Training
const tasks: readonly Task[] = M.tasks;
for (const task of tasks) check(M.modelDefaults(task).task === task, 'modelDefaults ' + task);
const seeded = new M.Generator(0);   // toPyTorch's script seeds, then builds: the model is made right after seeding
const model = new M.TinyAttentionModel({ task: 'two-offsets', numHeads: 2, layers: 1, causal: true, generator: seeded });
check(model.config.vocab === 8 && model.config.task === 'two-offsets', 'TinyAttentionModel config');
const optimizers: Optimizer[] = [
  new M.SGD(model, { lr: 0.1, momentum: 0.9, dampening: 0, nesterov: true, weightDecay: 0 }),
  new M.Adam(model, { lr: 1e-2, betas: [0.9, 0.98], eps: 1e-8 }),
  new M.AdamW(model, { weightDecay: 0.05 }),
];
check(optimizers[2].options.kind === 'AdamW' && optimizers[0].options.nesterov && optimizers[1].model === model, 'optimizer settings');
const step = model.trainStep(optimizers[1], { batchSize: 8 });
check(step.loss > 0 && step.accuracy >= 0 && optimizers[1].steps === 1 && optimizers[1].zeroGrad() === optimizers[1], 'trainStep');
check(model.evaluate({ batchSize: 16, seed: 2 }).loss > 0 && model.evaluate().accuracy <= 1, 'evaluate');
const tokens = [1, 2, 3, 4];
check(model.attention(tokens)[0].weights.shape[0] === 2 && model.attention(Int32Array.from(tokens))[0].layer === 0, 'attention');
check(model.predict(tokens).length === 2 && model.predict(tokens)[0].shape[1] === 8, 'predict');
const roles = model.roleScores();
check(roles.every((s) => typeof s.role === 'string' && s.score >= 0 && s.layer === 0 && s.head < 2), 'roleScores');
check(model.shapeTrace().some((s) => s.op === 'readout') && model.shapeTrace(4)[0].shape[1] === 4, 'model shapeTrace');
check(model.ablate(0, 1).ablate(0, 1, false) === model && model.zeroGrad() === model && model.parameterCount() > 0, 'ablate');
const modelBytes = model.toSafetensors();
model.loadStateDict(M.loadSafetensors(modelBytes)).loadStateDict(model.stateDict());
check(M.readSafetensors(modelBytes).metadata.task === 'two-offsets', 'model safetensors');
const script: string = model.toPyTorch({ steps: 10, batchSize: 8, optimizer: 'sgd', lr: 0.1, momentum: 0.9, lossDigits: 6 });
check(script.includes('torch') && model.toPyTorch({ optimizer: optimizers[1] }).includes('Adam') && model.toPyTorch().length > 0, 'toPyTorch');

// Real checkpoints: a one-layer GPT-2 written here (config.json and model.safetensors), loaded, run and disposed
function safetensors(tensors: [string, number[]][], fill: (n: number) => Float32Array): Uint8Array<ArrayBuffer> {
  const header: Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }> = {};
  const data: Float32Array[] = [];
  let offset = 0;
  for (const [name, shape] of tensors) {
    const n = shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + 4 * n] };
    data.push(fill(n));
    offset += 4 * n;
  }
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - text.length % 8) % 8);
  const out = new Uint8Array(8 + text.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(new TextEncoder().encode(text), 8);
  let at = 8 + text.length;
  for (const d of data) {
    out.set(new Uint8Array(d.buffer), at);
    at += d.byteLength;
  }
  return out;
}
const layer = (n: string, shape: number[]): [string, number[]] => ['h.0.' + n, shape];
const gpt2Tensors: [string, number[]][] = [['wte.weight', [16, 8]], ['wpe.weight', [8, 8]], layer('ln_1.weight', [8]), layer('ln_1.bias', [8]),
  layer('attn.c_attn.weight', [8, 24]), layer('attn.c_attn.bias', [24]), layer('attn.c_proj.weight', [8, 8]), layer('attn.c_proj.bias', [8]),
  layer('ln_2.weight', [8]), layer('ln_2.bias', [8]), layer('mlp.c_fc.weight', [8, 32]), layer('mlp.c_fc.bias', [32]),
  layer('mlp.c_proj.weight', [32, 8]), layer('mlp.c_proj.bias', [8]), ['ln_f.weight', [8]], ['ln_f.bias', [8]]];
const config = { model_type: 'gpt2', n_layer: 1, n_head: 2, n_embd: 8, vocab_size: 16, n_positions: 8 };
const checkpoint: CheckpointFile[] = [
  { name: 'config.json', bytes: new TextEncoder().encode(JSON.stringify(config)) },
  { name: 'model.safetensors', bytes: new Blob([safetensors(gpt2Tensors, (n) => g.randn([n]).data)]) },
];
const fromServer: CheckpointFile = { name: 'model.safetensors', url: new URL('https://example.org/gpt2/model.safetensors') };
void fromServer;
const progress: LoadProgress[] = [];
const gpt: Model = await M.loadModel(checkpoint, { onProgress: (p) => progress.push(p), signal: new AbortController().signal });
const info: Readonly<ModelInfo> = gpt.info;
check(info.family === 'gpt2' && info.layers === 1 && info.kvHeads === 2 && info.hasLmHead && info.dtype === 'F32', 'loadModel: info');
check(progress.length >= 2 && progress[progress.length - 1].loaded === progress[0].total, 'loadModel: progress');
const out: ModelForwardResult = gpt.forward([1, 2, 3], { headsOff: [[0, 1]], logitsAt: [2] });
const steps: ModelTraceStep[] = out.trace;
check(out.attentions.shape.join() === '1,1,2,3,3' && out.hidden.shape[2] === 8 && out.logits !== null && out.logits.shape[1] === 16 &&
  steps.some((s) => s.op === 'softmax' && s.layer === 0), 'Model.forward');
const logitsOnly: ModelForwardResult<null> = gpt.forward([1, 2, 3], { headsOff: [[0, 1]], logitsAt: [2], attentions: false });
check(logitsOnly.attentions === null && logitsOnly.firstLayer === 0 && logitsOnly.logits?.data[0] === out.logits?.data[0],
  'Model.forward without attentions');
let said = '';
try {
  gpt.tokenize('hi');
} catch (e) {
  said = (e as Error).message;
}
check(said.includes('tokenizer.json'), 'tokenize needs tokenizer.json');
gpt.dispose();
check(gpt.disposed, 'Model.dispose');

for (const o of optimizers) o.delete();
model.delete();
mha.delete();
seeded.delete();
g.delete();
console.log(`typed API example: ok (${implementation})`);
