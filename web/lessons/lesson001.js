// Lesson 001 — the self-attention article's MultiHeadSelfAttention(embed_size=8, num_heads=2) on X = torch.rand(1, 4, 8).
import { sizeStr } from '../compute/explorer-run.js';
import { cells, fill } from './python.js';
import text from './lesson001.py';

const code = cells(text);

export const lesson001 = {
  title: (v) => 'Lesson 001 — MultiHeadSelfAttention(embed_size=' + v.dmodel + ', num_heads=' + v.heads + ')',
  file: '001_03857b64a6c4b894.txt',
  seedNote: 'The article sets no seed',
  blurb: (v) =>
    'Self-attention on X = torch.rand(1, 4, ' +
    v.dmodel +
    '), drawn before the module. The article sets no seed: ' +
    'the page uses seed ' +
    v.seed +
    ' (change it below).',
  defaults: { dmodel: 8, heads: 2, seed: 0, causal: false, fill: '-inf', dropout: 0, train: false },
  input: { type: 'rand', batch: 1, seqLen: 4 },
  order: 'input-first',
  maskStyle: 'tril-keep',
  lessonCode: (v) => code.definitions + '\n\n' + fill(code.run, v),
  lessonOutput: (res) => 'Multi-Head Attention Output Shape: ' + sizeStr(res.output.shape),
};
