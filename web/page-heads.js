// MHA Explorer — the heads view: one heatmap card per head and their average, on one colour scale, and the
// note that says what the student is looking at (untrained, loaded or hand-built heads, row sums, dropout,
// masks, colours). cur: the controller's current result {res, labels, eff, …}.
import widgets from './widgets.js';
import { $, setText, range } from './page-dom.js';
import { selB, selH, headMat, headName, fmtMax, attachHover } from './page-read.js';

const W = widgets;

function plotSize(Sq, H, width) {
  var w = width || 800;
  var cols = w < 500 ? 1 : H <= 2 ? H + 1 : H <= 4 ? Math.min(H + 1, w < 700 ? 2 : 3) : w < 700 ? 3 : 4;
  var size = Math.floor(w / Math.max(1, cols)) - (Sq <= 16 ? 90 : 36);
  return Math.max(96, Math.min(Sq <= 16 ? 220 : 260, size));
}

// The head cards are kept while the heads (count, names, S) stay the same; a redraw repaints their
// canvases and updates the selection. onPick(h): a card was clicked (h a head index or 'avg').
var headCards = null;             // {key, items: [{h, card, canvas}]}
export function drawHeads(cur, wd, getCur, onPick) {
  var eff = cur.eff, r = cur.res, b = selB(cur), grid = $('heads');
  var Sq = r.weights.shape[2], size = plotSize(Sq, r.H, wd.heads);
  var showLabels = Sq <= 16;
  var items = range(r.H).concat(r.H > 1 ? ['avg'] : []);
  var name = function (h) { return headName(cur, h); };
  var key = Sq + '|' + items.map(name).join('\u0001');
  if (!headCards || headCards.key !== key || grid.firstChild !== headCards.items[0].card) {
    grid.textContent = '';
    headCards = { key: key, items: items.map(function (h) {
      var card = W.el('button', { type: 'button', class: 'head-card', 'aria-label': name(h) + ': enlarge' });
      card.appendChild(W.el('span', { class: 'head-title' }, name(h)));
      var c = W.el('canvas', h === 'avg' ? { 'data-avg': '1', role: 'img' } : { 'data-head': String(h), role: 'img' });
      c.setAttribute('aria-label', name(h) + ' attention heatmap, ' + Sq + ' by ' + Sq + '. Use "Show as table" for the numbers.');
      card.appendChild(c);
      attachHover(c, function () { return c._mat; }, getCur);
      card.addEventListener('click', function () { onPick(h); });
      grid.appendChild(card);
      return { h: h, card: card, canvas: c };
    }) };
  }
  headCards.items.forEach(function (it) {
    var mat = headMat(cur, b, it.h);
    it.canvas._mat = mat;
    W.drawHeatmap(it.canvas, mat, { labels: cur.labels, scale: eff.scale, norm: eff.norm, vmax: r.vmax, size: size,
      showLabels: showLabels });
    if (!it.maxEl) it.maxEl = it.card.insertBefore(W.el('span', { class: 'head-max' }), it.canvas);
    var mx = 0;
    if (eff.norm === 'max') for (var i = 0; i < mat.data.length; i++) if (mat.data[i] > mx) mx = mat.data[i];
    setText(it.maxEl, eff.norm === 'max' ? 'colours 0 – ' + fmtMax(mx) : '');
  });
  drawHeadsSelection(cur);
}
export function drawHeadsSelection(cur) {
  if (!headCards) return;
  var sel = cur.eff.avg ? 'avg' : selH(cur);
  headCards.items.forEach(function (it) {
    var on = it.h === sel;
    it.card.classList.toggle('selected', on);
    W.setAttr(it.card, 'aria-pressed', String(on));
  });
}

// What the student is looking at, in words. The result says whether its weights came from a file
// (cur.cfg.weights: {file, layer, kind}).
export function headsNote(cur) {
  var eff = cur.eff, r = cur.res, loaded = cur.cfg && cur.cfg.weights;
  var box = $('heads-note'), key = [eff.preset, eff.view, eff.seed, eff.train, eff.dropout, eff.causal, eff.norm, r.vmax,
    loaded ? loaded.file + ':' + loaded.layer : ''].join('|');
  if (box._key === key) return;
  box._key = key;
  box.textContent = '';
  var add = function (t) { box.appendChild(document.createTextNode(t)); };
  if (r.headNames) {
    add('Hand-built logits, not learned: the lesson writes them to show what trained heads can do. ');
  } else if (loaded) {
    add('These heads use the weights loaded from ' + loaded.file + (loaded.kind === 'model' ? ' (layer ' + loaded.layer +
      ' of the training lab\'s model, which learned them on token ids with its own embeddings: on your sentence\'s ' +
      'embeddings their patterns need not be the roles the lab showed)' : '') + '. ');
  } else {
    add('These heads are untrained: random initial weights (' + (r.origin || 'nn.Linear\'s init after torch.manual_seed(' + eff.seed + ')') +
      '). Untrained heads spread their attention almost evenly and look alike; training is what makes heads ' +
      'specialize — see the hand-built heads of lesson 002, or watch heads learn their roles in the ');
    box.appendChild(W.el('a', { href: 'lab.html?preset=train-two-offsets' }, 'training lab'));
    add('. ');
  }
  add('Rows are queries, columns are keys. ');
  if (r.dropout > 0 && r.train) {
    add('train() with dropout p = ' + r.dropout + ': each weight was zeroed with probability p and the rest scaled by 1/(1 − p), ' +
      'so a row no longer sums to 1 (PyTorch does the same). ');
  } else {
    add('Each row sums to 1. ');
    if (r.dropout > 0) add('Dropout p = ' + r.dropout + ' does nothing in eval() mode: choose train() to see it act. ');
  }
  if (r.causal) add('Causal mask: a query sees only itself and earlier keys; the masked cells are exactly 0. ');
  add(eff.norm === 'shared' ? 'Colours: one scale, 0 to ' + fmtMax(r.vmax) + ', for every head (legend above).'
    : eff.norm === 'max' ? 'Colours: each heatmap from 0 to its own max (printed on its card): heads cannot be compared by colour.'
      : 'Colours: 0 to 1 for every head.');
}
