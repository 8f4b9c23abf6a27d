// MHA Explorer — reading the weights as a student does: one head's (or the average's) S×S matrix of the
// shown batch item, its name, a weight in words (masked, dropped, tiny), a row's top keys, and the hover
// tooltip. cur: the controller's current result {res, labels, eff, …}.
import model from './model.js';
import widgets from './widgets.js';
import { $ } from './page-dom.js';

const W = widgets;
const root = window;

export function selB(cur) { return Math.min(cur.eff.batch, cur.res.B - 1); }
export function selH(cur) { return Math.min(cur.eff.head, cur.res.H - 1); }
// h: a head index or 'avg' → {S, data [S·S]}.
export function headMat(cur, b, h) {
  var r = cur.res, Sq = r.weights.shape[2];
  if (h === 'avg') {
    var acc = new Float32Array(Sq * Sq);
    for (var k = 0; k < r.H; k++) {
      var m = model.headMatrix(r.weights, b, k).data;
      for (var i = 0; i < acc.length; i++) acc[i] += m[i] / r.H;
    }
    return { S: Sq, data: acc };
  }
  return { S: Sq, data: model.headMatrix(r.weights, b, h).data };
}
export function headName(cur, h) {
  var names = cur.res.headNames;
  if (h === 'avg') return 'Average of ' + cur.res.H + ' heads';
  return names && names[h] ? 'HEAD ' + (h + 1) + ' · ' + names[h] : 'Head ' + h;
}
export function fmtMax(v) { return v >= 0.1 ? v.toFixed(2) : v.toPrecision(2); }

// The colour range: one scale for every head of the batch item (default), each head's own max, or 0..1.
export function colourMax(cur, b) {
  var eff = cur.eff;
  if (eff.norm === 'one') return 1;
  if (eff.norm === 'max') return 0;   // per heatmap
  var w = cur.res.weights, n = w.shape[1] * w.shape[2] * w.shape[3], d = w.data, mx = 0;
  for (var i = b * n, e = i + n; i < e; i++) if (d[i] > mx) mx = d[i];
  return mx > 0 ? mx : 1;
}

// A weight as the student should read it: masked and dropped cells say so, tiny weights are not "0.000000".
export function weightText(cur, mat, q, k) {
  var r = cur.res, v = mat.data[q * mat.S + k];
  if (r.causal && k > q) return '0 (masked: a later key)';
  if (v === 0 && r.train && r.dropout > 0) return '0 (dropped by dropout)';
  return v !== 0 && Math.abs(v) < 1e-4 ? v.toExponential(2) : v.toFixed(6);
}
// The three largest weights of a row, leaving out masked and dropped keys.
export function topKeysText(cur, mat, q) {
  var L = cur.labels, Sq = mat.S;
  return W.topKeys(mat, q, 3).filter(function (j) { return mat.data[q * Sq + j] > 0; }).map(function (j) {
    var v = mat.data[q * Sq + j];
    return L[j] + ' ' + (v < 1e-3 ? v.toExponential(1) : v.toFixed(3));
  }).join(', ');
}

// The tooltip of a heatmap canvas: the cell under the pointer, its weight and the row's top keys.
export function attachHover(canvas, getMat, getCur) {
  var tip = $('tooltip');
  canvas.addEventListener('mousemove', function (e) {
    var cell = W.cellAt(canvas, e), cur = getCur(), mat = getMat();
    if (!cell || !cur || !mat || cell[0] >= mat.S || cell[1] >= mat.S) { tip.hidden = true; return; }
    var L = cur.labels, q = cell[0], k = cell[1];
    tip.textContent = '';
    tip.appendChild(W.el('div', { class: 'tip-main' }, '“' + L[q] + '” (' + q + ') → “' + L[k] + '” (' + k + ')'));
    tip.appendChild(W.el('div', { class: 'tip-val' }, 'weight ' + weightText(cur, mat, q, k)));
    tip.appendChild(W.el('div', { class: 'tip-top' }, 'top keys for “' + L[q] + '”: ' + topKeysText(cur, mat, q)));
    tip.hidden = false;
    var x = e.clientX + 14, y = e.clientY + 14;
    var tw = tip.offsetWidth, th = tip.offsetHeight;
    if (x + tw > root.innerWidth - 8) x = e.clientX - tw - 14;
    if (y + th > root.innerHeight - 8) y = e.clientY - th - 14;
    tip.style.left = x + 'px'; tip.style.top = y + 'px';
  });
  canvas.addEventListener('mouseleave', function () { tip.hidden = true; });
}
