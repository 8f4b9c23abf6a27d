// MHA Explorer — reading the weights as a student does: one head's (or the average's) S×S matrix of the
// shown batch item, its name, a weight in words (masked, dropped, tiny), a row's top keys, and the hover
// tooltip. cur: the controller's current result {res, labels, eff, …}.
import { headMatrix } from '../compute/explorer-run.js';
import { attachTip } from '../widgets/tooltip.js';
import { formatWeight, topKeysWords } from '../widgets/words.js';
export { fmtMax } from '../widgets/colors.js';

export function selB(cur) {
  return Math.min(cur.eff.batch, cur.res.B - 1);
}
export function selH(cur) {
  return Math.min(cur.eff.head, cur.res.H - 1);
}
// What the views read from all heads of batch item b, computed once per result when first asked (the heads view, the
// enlarged head and the colour scale ask).
function headsOf(cur, b) {
  const memo = cur.res.headsByBatch || (cur.res.headsByBatch = []);
  return memo[b] || (memo[b] = { avg: null, max: null });
}
// The average of the H heads {S, data [S·S]} (head 0 itself when H = 1) and the largest weight of any head, in one pass
// over the weights (both are asked for each result: the average card and the shared colour scale). The heads are summed
// in float32 in head order (Math.fround after each add, as a Float32Array store rounds) and divided once, as
// torch.mean(dim=1) does; four heads per pass keep the sum in a register (a pass per head stores and reloads the
// whole S×S sum each time: 4-7× slower at 512 tokens), and each head has its own running maximum.
function headsAverageMax(cur, b) {
  const w = cur.res.weights,
    H = cur.res.H,
    head = (k) => headMatrix(w, b, k).data,
    n = head(0).length;
  const avg = new Float32Array(n),
    f = Math.fround;
  let mx = 0,
    k = 0;
  for (; k + 4 <= H; k += 4) {
    const a = head(k),
      bb = head(k + 1),
      c = head(k + 2),
      d = head(k + 3),
      div = k + 4 === H ? H : 1;
    let ma = 0,
      mb = 0,
      mc = 0,
      md = 0;
    for (let i = 0; i < n; i++) {
      const x = a[i],
        y = bb[i],
        z = c[i],
        u = d[i];
      if (x > ma) ma = x;
      if (y > mb) mb = y;
      if (z > mc) mc = z;
      if (u > md) md = u;
      avg[i] = f(f(f((k ? f(avg[i] + x) : x) + y) + z) + u) / div;
    }
    mx = Math.max(mx, ma, mb, mc, md);
  }
  for (; k < H; k++) {
    // the last H mod 4 heads one by one
    const a = head(k);
    for (let i = 0; i < n; i++) {
      const x = a[i];
      if (x > mx) mx = x;
      avg[i] = k ? avg[i] + x : x;
    }
  }
  if (H % 4 && H > 1) for (let i = 0; i < n; i++) avg[i] /= H;
  return { avg: { S: w.shape[2], data: avg }, max: mx };
}
function averageMax(cur, b) {
  const memo = headsOf(cur, b);
  if (memo.avg === null) Object.assign(memo, headsAverageMax(cur, b));
  return memo;
}
// The largest weight of any head alone, as headsAverageMax finds it (a running maximum per lane, NaN skipped), for a
// redraw whose average is not drawn now (its card off screen): half the reads of the average's pass at 8 heads.
function headsMax(cur, b) {
  const w = cur.res.weights;
  let mx = 0;
  for (let k = 0; k < cur.res.H; k++) {
    const a = headMatrix(w, b, k).data,
      n = a.length;
    let m0 = 0,
      m1 = 0,
      m2 = 0,
      m3 = 0,
      i = 0;
    for (; i + 4 <= n; i += 4) {
      const x = a[i],
        y = a[i + 1],
        z = a[i + 2],
        u = a[i + 3];
      if (x > m0) m0 = x;
      if (y > m1) m1 = y;
      if (z > m2) m2 = z;
      if (u > m3) m3 = u;
    }
    for (; i < n; i++) if (a[i] > m0) m0 = a[i];
    mx = Math.max(mx, m0, m1, m2, m3);
  }
  return mx;
}
// h: a head index or 'avg' → {S, data [S·S]}.
export function headMat(cur, b, h) {
  if (h === 'avg') return averageMax(cur, b).avg;
  return { S: cur.res.weights.shape[2], data: headMatrix(cur.res.weights, b, h).data };
}
export function headName(cur, h) {
  let names = cur.res.headNames;
  if (h === 'avg') return 'Average of ' + cur.res.H + ' heads';
  return names && names[h] ? 'HEAD ' + (h + 1) + ' · ' + names[h] : 'Head ' + h;
}

// The colour range: one scale for every head of the batch item (default), each head's own max, or 0..1. withAverage:
// the average is drawn now too (found in the same pass); otherwise the maximum is found alone.
export function colourMax(cur, b, withAverage = true) {
  const norm = cur.eff.norm;
  if (norm === 'one') return 1;
  if (norm === 'max') return 0; // per heatmap
  const memo = headsOf(cur, b);
  if (memo.max === null) {
    if (withAverage) averageMax(cur, b);
    else memo.max = headsMax(cur, b);
  }
  const max = memo.max;
  return max > 0 ? max : 1;
}

// A weight as the student should read it: masked and dropped cells say so, tiny weights are not "0.000000".
export function weightText(cur, mat, q, k) {
  const f = cur.forward,
    v = mat.data[q * mat.S + k];
  if (f.mask && k > q) return '0 (masked: a later key)';
  if (v === 0 && f.train && f.dropout > 0) return '0 (dropped by dropout)';
  return formatWeight(v);
}
// The three largest weights of a row, leaving out masked and dropped keys.
export function topKeysText(cur, mat, q) {
  return topKeysWords(mat, q, cur.labels);
}

// The words of the hover tooltip for a cell: the query and key, the weight, the row's top keys.
export function hoverWords(getCur) {
  return function (cell, mat) {
    let cur = getCur();
    if (!cur) return null;
    let L = cur.labels,
      q = cell[0],
      k = cell[1];
    return {
      main: '“' + L[q] + '” (' + q + ') → “' + L[k] + '” (' + k + ')',
      value: 'weight ' + weightText(cur, mat, q, k),
      top: 'top keys for “' + L[q] + '”: ' + topKeysText(cur, mat, q),
    };
  };
}
// The tooltip of a heatmap canvas (tip: the explorer's tooltip element): the cell under the pointer, its weight and
// the row's top keys.
export function attachHover(canvas, tip, getMat, getCur) {
  attachTip(canvas, tip, getMat, hoverWords(getCur));
}
