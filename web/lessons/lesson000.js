// Lesson 000 — Chapter 2.3: MultiHeadAttention(64, 8) on x = torch.rand(1, 5, 64), drawn before the module.
import { sizeStr } from '../compute/explorer-run.js';
import { cells, fill } from './python.js';
import { constructor } from './constructor.js';
import { maskedFill } from './trace-words.js';
import text from './lesson000.py';

const code = cells(text);
const definitions = fill(code.definitions, { constructor });

export const lesson000 = {
  title: (v) => 'Lesson 000 — Chapter 2.3: MultiHeadAttention(' + v.dmodel + ', ' + v.heads + ')',
  file: '000_ea70833c9da742fb.txt',
  blurb: (v) =>
    'torch.manual_seed(' +
    v.seed +
    '); x = torch.rand(1, 5, ' +
    v.dmodel +
    ') is drawn BEFORE the four nn.Linear ' +
    'layers, as in the notebook. Self-attention, no mask (' +
    maskedFill('scores', { style: 'tril-keep', fill: v.fill }) +
    ' when causal is on).',
  defaults: { dmodel: 64, heads: 8, seed: 0, causal: false, fill: '-inf', dropout: 0, train: false },
  input: { type: 'rand', batch: 1, seqLen: 5 },
  order: 'input-first',
  maskStyle: 'tril-keep',
  lessonCode: (v) => definitions + '\n\n' + fill(code.run, v),
  lessonOutput: (res) =>
    'Output shape: ' + sizeStr(res.output.shape) + '\nAttention shape: ' + sizeStr(res.weights.shape),
};
