// Calls the declarations must reject (tsc --strict): each line below @ts-expect-error is an error, or tsc fails with
// "Unused '@ts-expect-error' directive". tests/npm/package.test.mjs also compiles this file without the directives
// and checks that every one of these lines, and only these, is an error.
import createMhaModule from 'mha-explorer';
import { mountAttention } from 'mha-explorer/view';

const M = await createMhaModule();
const g = new M.Generator(0);
const x = g.randn([2, 5, 32]);
const mha = new M.MultiHeadAttention({ dModel: 32, numHeads: 4, generator: g });

// @ts-expect-error dModel is a number
new M.MultiHeadAttention({ dModel: '32', numHeads: 4, generator: g });
// @ts-expect-error the generator is required
new M.MultiHeadAttention({ dModel: 32, numHeads: 4 });
// @ts-expect-error misspelt option
new M.MultiHeadAttention({ dModel: 32, numHeads: 4, generator: g, dropOut: 0.1 });
// @ts-expect-error an unknown mask mode
mha.forward(x, x, x, { mask: x, maskMode: 'mask' });
// @ts-expect-error an unknown mask mode
M.scaledDotProductAttention(x, x, x, { maskMode: 'causal' });
// @ts-expect-error causal is a boolean
mha.forward(x, x, x, { causal: 1 });
// @ts-expect-error heads is [start, end)
mha.forward(x, x, x, { heads: 2 });
// @ts-expect-error weights may be null when needWeights is not known to be true
const maybe: number[] = mha.forward(x, x, x, { needWeights: Math.random() < 0.5 }).weights.shape;
// @ts-expect-error weights are null with needWeights: false
const none: number[] = M.scaledDotProductAttention(x, x, x, { needWeights: false }).weights.shape;
// @ts-expect-error a tensor has a shape
M.matmul({ data: new Float32Array(4) }, x);
// @ts-expect-error an unknown task
new M.TinyAttentionModel({ task: 'copy', generator: g });
// @ts-expect-error trainStep takes an optimizer
new M.TinyAttentionModel({ generator: g }).trainStep({ lr: 0.01 });
// @ts-expect-error betas are two numbers
new M.Adam(new M.TinyAttentionModel({ generator: g }), { betas: [0.9] });
// @ts-expect-error SGD has no betas
new M.SGD(new M.TinyAttentionModel({ generator: g }), { lr: 0.1, betas: [0.9, 0.999] });
// @ts-expect-error an unknown optimizer name
new M.TinyAttentionModel({ generator: g }).toPyTorch({ optimizer: 'rmsprop' });
// @ts-expect-error implementation is one of three names
const impl: 'eigen' = M.implementation;
// @ts-expect-error headSpecialization takes strings
M.headSpecialization([1, 2, 3]);
// @ts-expect-error mountAttention needs an element
mountAttention('#attn', { weights: new Float32Array(4), shape: [2, 2] });
// @ts-expect-error an unknown theme
mountAttention(document.body, { theme: 'blue' });
// @ts-expect-error loadModel's files have names
void M.loadModel([new Uint8Array(4)]);
// @ts-expect-error a url is a string or a URL
void M.loadModel([{ name: 'config.json', url: 42 }]);
// @ts-expect-error headsOff are [layer, head] pairs
void M.loadModel([]).then((model) => model.forward([1, 2], { headsOff: [1, 2] }));
// @ts-expect-error a forward without attentions has none to read
void M.loadModel([]).then((model) => model.forward([1, 2], { attentions: false }).attentions.shape);
void maybe; void none; void impl;
