// MHA Explorer — reading the weights as a student does: one head's (or the average's) S×S matrix of the
// shown batch item, its name, a weight in words (masked, dropped, tiny), a row's top keys, and the hover
// tooltip. cur: the controller's current result {res, labels, eff, …}.
import { headMatrix } from '../compute/model.js';
import { attachTip } from '../widgets/tooltip.js';
import { formatWeight, topKeysWords } from '../widgets/words.js';
export { fmtMax } from '../widgets/colors.js';

export function selB(cur) { return Math.min(cur.eff.batch, cur.res.B - 1); }
export function selH(cur) { return Math.min(cur.eff.head, cur.res.H - 1); }
// What the views read from all heads of batch item b, each computed once per result when first asked (the heads view,
// the enlarged head and the colour scale ask; an average card off screen is not painted, so not asked for).
function headsOf(cur, b) {
  const memo = cur.res.headsByBatch || (cur.res.headsByBatch = []);
  return memo[b] || (memo[b] = { avg: null, max: null });
}
// The average of the H heads {S, data [S·S]} (head 0 itself when H = 1): summed in float32 in head order and divided
// once, as torch.mean(dim=1) does.
function headsAverage(cur, b) {
  const w = cur.res.weights, H = cur.res.H, avg = new Float32Array(headMatrix(w, b, 0).data), n = avg.length;
  for (let k = 1; k < H; k++) {
    const m = headMatrix(w, b, k).data;
    for (let i = 0; i < n; i++) avg[i] += m[i];
  }
  if (H > 1) for (let i = 0; i < n; i++) avg[i] /= H;
  return { S: w.shape[2], data: avg };
}
// The largest weight of any head (four running maxima: the loop is bound by its compare chain otherwise).
function headsMax(cur, b) {
  const w = cur.res.weights;
  let m0 = 0, m1 = 0, m2 = 0, m3 = 0;
  for (let k = 0; k < cur.res.H; k++) {
    const m = headMatrix(w, b, k).data, n = m.length;
    let i = 0;
    for (; i + 3 < n; i += 4) {
      const a = m[i], c = m[i + 1], d = m[i + 2], e = m[i + 3];
      if (a > m0) m0 = a;
      if (c > m1) m1 = c;
      if (d > m2) m2 = d;
      if (e > m3) m3 = e;
    }
    for (; i < n; i++) if (m[i] > m0) m0 = m[i];
  }
  return Math.max(m0, m1, m2, m3);
}
// h: a head index or 'avg' → {S, data [S·S]}.
export function headMat(cur, b, h) {
  if (h === 'avg') { const memo = headsOf(cur, b); return memo.avg || (memo.avg = headsAverage(cur, b)); }
  return { S: cur.res.weights.shape[2], data: headMatrix(cur.res.weights, b, h).data };
}
export function headName(cur, h) {
  let names = cur.res.headNames;
  if (h === 'avg') return 'Average of ' + cur.res.H + ' heads';
  return names && names[h] ? 'HEAD ' + (h + 1) + ' · ' + names[h] : 'Head ' + h;
}

// The colour range: one scale for every head of the batch item (default), each head's own max, or 0..1.
export function colourMax(cur, b) {
  const norm = cur.eff.norm;
  if (norm === 'one') return 1;
  if (norm === 'max') return 0;   // per heatmap
  const memo = headsOf(cur, b);
  if (memo.max === null) memo.max = headsMax(cur, b);
  return memo.max > 0 ? memo.max : 1;
}

// A weight as the student should read it: masked and dropped cells say so, tiny weights are not "0.000000".
export function weightText(cur, mat, q, k) {
  const f = cur.forward, v = mat.data[q * mat.S + k];
  if (f.mask && k > q) return '0 (masked: a later key)';
  if (v === 0 && f.train && f.dropout > 0) return '0 (dropped by dropout)';
  return formatWeight(v);
}
// The three largest weights of a row, leaving out masked and dropped keys.
export function topKeysText(cur, mat, q) { return topKeysWords(mat, q, cur.labels); }

// The words of the hover tooltip for a cell: the query and key, the weight, the row's top keys.
export function hoverWords(getCur) {
  return function (cell, mat) {
    let cur = getCur(); if (!cur) return null;
    let L = cur.labels, q = cell[0], k = cell[1];
    return { main: '“' + L[q] + '” (' + q + ') → “' + L[k] + '” (' + k + ')', value: 'weight ' + weightText(cur, mat, q, k),
      top: 'top keys for “' + L[q] + '”: ' + topKeysText(cur, mat, q) };
  };
}
// The tooltip of a heatmap canvas (tip: the explorer's tooltip element): the cell under the pointer, its weight and
// the row's top keys.
export function attachHover(canvas, tip, getMat, getCur) { attachTip(canvas, tip, getMat, hoverWords(getCur)); }
