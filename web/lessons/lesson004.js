// Lesson 004 — L04's earlier version: the shape table of MultiHeadAttention(512, 8) on x = torch.randn(2, 10, 512),
// its rows the page's live trace. Its code is lesson 002's setup and shape-table cell.
import { setup, shapeTableCode, shapeTableText } from './lesson002.js';

export const lesson004 = {
  title: (v) => 'Lesson 004 — L04 (earlier version): the shape table at B=2, S=10, D=' + v.dmodel + ', H=' + v.heads,
  file: '004_3770f4e89b29f000.txt',
  seedNote: 'The lesson draws no input here',
  blurb: (v) =>
    'The shape transformation table of the lesson, live: every row of the trace below is the real ' +
    'forward pass of MultiHeadAttention(' +
    v.dmodel +
    ', ' +
    v.heads +
    ') on x = torch.randn(2, 10, ' +
    v.dmodel +
    ') (seed ' +
    v.seed +
    ').',
  defaults: { dmodel: 512, heads: 8, seed: 0, causal: false, fill: '-1e9', dropout: 0, train: false },
  input: { type: 'randn', batch: 2, seqLen: 10 },
  order: 'module-first',
  maskStyle: 'tril-keep',
  lessonCode: (v) => setup + '\n' + shapeTableCode(2, 10, v.dmodel, v.heads, v.seed),
  lessonOutput: (res) => shapeTableText(res.trace),
};
