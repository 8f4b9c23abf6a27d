// Lesson 003 — MultiHeadAttention(64, 4, dropout=0.1) left in train mode, x = torch.randn(2, 8, 64), a triu mask (1 = blocked).
import { commas, sizeStr } from '../compute/explorer-run.js';
import { cells, fill } from './python.js';
import text from './lesson003.py';
import { maskedFill } from './trace-words.js';

const code = cells(text);

export const lesson003 = {
  title: (v) =>
    'Lesson 003 — MultiHeadAttention(' +
    v.dmodel +
    ', ' +
    v.heads +
    ', dropout=' +
    v.dropout +
    ')' +
    (v.causal ? ' with a causal triu mask' : ''),
  file: '003_e7dacf0824130998.txt',
  seedNote: 'The notebook sets no seed',
  blurb: (v) =>
    'The module is built first, then x = torch.randn(2, 8, ' +
    v.dmodel +
    '). mask = torch.triu(ones(8, 8), diagonal=1): ' +
    '1 is blocked (' +
    maskedFill('scores', { style: 'triu-block', fill: v.fill }) +
    '). The notebook leaves the module in train mode, so dropout(0.1) acts on the ' +
    'weights. No seed in the notebook: the page uses ' +
    v.seed +
    '.',
  defaults: { dmodel: 64, heads: 4, seed: 0, causal: true, fill: '-inf', dropout: 0.1, train: true },
  input: { type: 'randn', batch: 2, seqLen: 8 },
  order: 'module-first',
  maskStyle: 'triu-block',
  lessonCode: (v) =>
    code.definitions +
    '\n\n' +
    fill(code.run, { ...v, dropout_arg: v.dropout !== 0.1 ? ', dropout=' + v.dropout : '' }),
  lessonOutput(res) {
    const D = res.D,
      weight = (name) => '  ' + name + ': ' + D + ' × ' + D + ' = ' + D * D;
    return [
      'Input shape: ' + sizeStr(res.x.shape),
      'Output shape: ' + sizeStr(res.output.shape),
      'Attention weights shape: ' + sizeStr(res.weights.shape),
      '  (batch, num_heads, seq_len, seq_len)',
      '',
      'Multi-Head Attention Parameters:',
      weight('W_q'),
      weight('W_k'),
      weight('W_v'),
      weight('W_o'),
      '  + biases',
      '  Total: ' + commas(res.paramCount) + ' parameters',
    ].join('\n');
  },
};
