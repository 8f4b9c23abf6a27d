// MHA Explorer — reading the weights as a student does: one head's (or the average's) S×S matrix of the
// shown batch item, its name, a weight in words (masked, dropped, tiny), a row's top keys, and the hover
// tooltip. cur: the controller's current result {res, labels, eff, …}.
import { headMatrix } from '../model.js';
import { attachTip } from '../widgets/tooltip.js';
import { formatWeight, topKeysWords } from '../widgets/words.js';
export { fmtMax } from '../widgets/colors.js';

export function selB(cur) { return Math.min(cur.eff.batch, cur.res.B - 1); }
export function selH(cur) { return Math.min(cur.eff.head, cur.res.H - 1); }
// The heads of batch item b, read in one pass and kept with the result (the heads view, the enlarged head and the
// colour scale all ask): {avg: the average of the H heads {S, data [S·S]} (head 0 itself when H = 1), max: the
// largest weight of any head}. The average sums the heads in float32, in order, and divides once, as torch.mean does.
function headsOf(cur, b) {
  const r = cur.res, memo = r.headsByBatch || (r.headsByBatch = []);
  if (memo[b]) return memo[b];
  const w = r.weights, Sq = w.shape[2], H = r.H;
  let mx = 0, avg;
  if (H === 1) {
    avg = headMatrix(w, b, 0).data;
    for (let i = 0, n = avg.length; i < n; i++) if (avg[i] > mx) mx = avg[i];
  } else {
    avg = new Float32Array(headMatrix(w, b, 0).data);
    const n = avg.length;
    for (let i = 0; i < n; i++) if (avg[i] > mx) mx = avg[i];
    for (let k = 1; k < H; k++) {
      const m = headMatrix(w, b, k).data;
      for (let i = 0; i < n; i++) { const v = m[i]; avg[i] += v; if (v > mx) mx = v; }
    }
    for (let i = 0; i < n; i++) avg[i] /= H;
  }
  return (memo[b] = { avg: { S: Sq, data: avg }, max: mx });
}
// h: a head index or 'avg' → {S, data [S·S]}.
export function headMat(cur, b, h) {
  if (h === 'avg') return headsOf(cur, b).avg;
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
  const mx = headsOf(cur, b).max;
  return mx > 0 ? mx : 1;
}

// A weight as the student should read it: masked and dropped cells say so, tiny weights are not "0.000000".
export function weightText(cur, mat, q, k) {
  let r = cur.res, v = mat.data[q * mat.S + k];
  if (r.causal && k > q) return '0 (masked: a later key)';
  if (v === 0 && r.train && r.dropout > 0) return '0 (dropped by dropout)';
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
