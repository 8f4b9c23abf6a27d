// MHA Explorer — reading the weights as a student does: one head's (or the average's) S×S matrix of the
// shown batch item, its name, a weight in words (masked, dropped, tiny), a row's top keys, and the hover
// tooltip. cur: the controller's current result {res, labels, eff, …}.
import { headMatrix } from '../core/model.js';
import { attachTip } from '../widgets/tooltip.js';
import { formatWeight, topKeysWords } from '../widgets/words.js';
export { fmtMax } from '../widgets/colors.js';

export function selB(cur) { return Math.min(cur.eff.batch, cur.res.B - 1); }
export function selH(cur) { return Math.min(cur.eff.head, cur.res.H - 1); }
// h: a head index or 'avg' → {S, data [S·S]}.
export function headMat(cur, b, h) {
  let r = cur.res, Sq = r.weights.shape[2];
  if (h === 'avg') {
    // computed once per result and batch item (the heads view and the enlarged head both show it)
    let memo = r.avgByBatch || (r.avgByBatch = []);
    if (memo[b]) return memo[b];
    let acc = new Float32Array(Sq * Sq), H = r.H, n = acc.length;
    for (let k = 0; k < H; k++) {
      let m = headMatrix(r.weights, b, k).data;
      for (let i = 0; i < n; i++) acc[i] += m[i] / H;
    }
    return (memo[b] = { S: Sq, data: acc });
  }
  return { S: Sq, data: headMatrix(r.weights, b, h).data };
}
export function headName(cur, h) {
  let names = cur.res.headNames;
  if (h === 'avg') return 'Average of ' + cur.res.H + ' heads';
  return names && names[h] ? 'HEAD ' + (h + 1) + ' · ' + names[h] : 'Head ' + h;
}

// The colour range: one scale for every head of the batch item (default), each head's own max, or 0..1.
export function colourMax(cur, b) {
  let eff = cur.eff;
  if (eff.norm === 'one') return 1;
  if (eff.norm === 'max') return 0;   // per heatmap
  let w = cur.res.weights, mx = 0;
  // the pool's weights are read from their parts ([B, h, S, S] each), without joining them
  (w.parts || [{ h0: 0, h1: w.shape[1], data: w.data }]).forEach(function (p) {
    let n = (p.h1 - p.h0) * w.shape[2] * w.shape[3], d = p.data;
    for (let i = b * n, e = i + n; i < e; i++) if (d[i] > mx) mx = d[i];
  });
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
