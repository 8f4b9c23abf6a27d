// @ts-check
// MHA Explorer — the training lab's closer look: one head enlarged with its tokens as labels (the main page's heatmap),
// what the selected query attends to, and the shape trace of the model's forward on the probe sequence.
import { el } from '../widgets/dom.js';
import { legend } from '../widgets/colors.js';
import { drawHeatmap, topKeys } from '../widgets/heatmap.js';
import { traceTable } from '../widgets/trace.js';
import { colorsAround, roleName } from './cards.js';

// A weight as a student reads it: tiny weights are not "0.000".
/** @param {number} v */
function weightText(v) {
  return v === 0 ? '0' : v < 0.001 ? '< 0.001' : v.toFixed(3);
}

// The closer look: one head enlarged with its tokens as labels (the main page's heatmap), what the
// selected query attends to, and the shape trace of the model's forward on the probe sequence.
// els: {select, canvas, legend, readout, traceBody}; sel: {layer, head, query, key (null: the query's top key)}.
/** @param {any} els @param {any} view @param {any} cfg @param {number[]} probe @param {any} sel */
export function drawCloser(els, view, cfg, probe, sel) {
  let T = probe.length,
    H = cfg.numHeads;
  let key = view.attention.length + '|' + H;
  if (els.select._key !== key) {
    els.select._key = key;
    els.select.textContent = '';
    view.attention.forEach(function (layer) {
      for (let h = 0; h < H; h++)
        els.select.appendChild(el('option', { value: layer.layer + ':' + h }, 'Layer ' + layer.layer + ' · head ' + h));
    });
  }
  els.select.value = sel.layer + ':' + sel.head;
  let w = view.attention[sel.layer].weights.data,
    off = sel.head * T * T;
  let mat = { S: T, data: w.subarray(off, off + T * T) };
  let labels = probe.map(function (tok, t) {
    return t + ':' + tok;
  });
  let q = Math.min(sel.query, T - 1),
    r = view.roles.find(function (x) {
      return x.layer === sel.layer && x.head === sel.head;
    });
  let top = topKeys(mat, q, 3).filter(function (j) {
    return !(cfg.causal && j > q);
  });
  let k = sel.key === null || sel.key === undefined ? top[0] : Math.min(sel.key, T - 1);
  sel.shown = k; // the highlighted key, where the arrow keys move from
  let size = Math.max(200, Math.min(els.canvas.parentNode.parentNode.clientWidth - 120 || 360, 28 * T, 420));
  drawHeatmap(els.canvas, mat, {
    labels: labels,
    showLabels: true,
    scale: 'blues',
    norm: 'one',
    vmax: 1,
    size: size,
    selected: [q, k],
    colors: colorsAround(els.canvas),
  });
  legend(els.legend, 'blues', '1');
  let masked = cfg.causal && k > q;
  els.readout.textContent =
    'Layer ' +
    sel.layer +
    ' · head ' +
    sel.head +
    (r ? ' (' + roleName(r) + ' · ' + r.score.toFixed(2) + ')' : '') +
    ': query t=' +
    q +
    ' (token ' +
    probe[q] +
    ') → key t=' +
    k +
    ' (token ' +
    probe[k] +
    '): ' +
    (masked ? '0 (masked: a later key)' : weightText(mat.data[q * T + k])) +
    '. It attends most to ' +
    top
      .map(function (j) {
        return 't=' + j + ' (token ' + probe[j] + ') ' + weightText(mat.data[q * T + j]);
      })
      .join(', ') +
    (cfg.causal && q < T - 1 ? '; keys after t=' + q + ' are masked (causal).' : '.') +
    ' Click a cell, or use the arrow keys, to pick a query (↑↓) and a key (←→).';
  els.canvas.setAttribute(
    'aria-label',
    'Attention weights of layer ' +
      sel.layer +
      ', head ' +
      sel.head +
      ': rows are queries, columns keys. ' +
      els.readout.textContent,
  );
  traceTable(els.traceBody, view.trace, null, cfg.causal ? { style: 'tril-keep', fill: '-1e9' } : null);
}
