// MHA Explorer — the training lab's views: the loss and accuracy chart, the head cards, the model's
// predictions, and the closer look at one head (the main page's heatmap and shape-trace widgets on
// the trained layers). Each draws from the data it is given into the elements it is given, in the colours of
// the theme around them (the lab's root); the controller (controller.js) owns the state.
import { el, themeColors } from '../widgets/dom.js';
import { legend } from '../widgets/colors.js';
import { drawHeatmap, topKeys } from '../widgets/heatmap.js';
import { traceTable } from '../widgets/trace.js';
import { task as taskInfo } from '../state/lab.js';


// The heatmaps' colours (labels, cursor) of the theme the lab's root carries.
function colorsAround(node) { const scope = node.closest('[data-theme]'); return scope ? themeColors(scope) : themeColors(); }

// Loss (log scale, left axis) and accuracy (right axis) per step; the one-head twin dashed.
export function drawChart(c, curve, twinCurve) {
  let dpr = window.devicePixelRatio || 1;
  let w = c.clientWidth || 900, h = c.clientHeight || 240;
  if (c.width !== Math.round(w * dpr)) { c.width = Math.round(w * dpr); c.height = Math.round(h * dpr); }
  let g = c.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  let left = 44, right = 40, top = 10, bottom = 22, pw = w - left - right, ph = h - top - bottom;
  const col = colorsAround(c);   // read once per theme, not on every training step
  g.strokeStyle = col.border; g.fillStyle = col.fgMuted; g.font = '11px system-ui, sans-serif';
  g.strokeRect(left, top, pw, ph);
  let n = Math.max(curve.length, 10);
  let losses = curve.map(function (p) { return Math.max(p.loss, 1e-6); });
  let hi = Math.ceil(Math.log10(Math.max.apply(null, losses.concat([3])))), lo = Math.floor(Math.log10(Math.min.apply(null, losses.concat([0.01]))));
  let y = function (v) { return top + ph * (hi - Math.log10(Math.max(v, 1e-6))) / (hi - lo); };
  let ya = function (a) { return top + ph * (1 - a); };
  let x = function (i) { return left + pw * i / (n - 1); };
  g.textAlign = 'right';
  for (let e = lo; e <= hi; e++) g.fillText(String(Math.pow(10, e) >= 1 ? Math.pow(10, e) : Math.pow(10, e).toPrecision(1)), left - 4, y(Math.pow(10, e)) + 4);
  g.textAlign = 'left';
  [0, 0.5, 1].forEach(function (a) { g.fillText(a.toFixed(1), w - right + 4, ya(a) + 4); });
  // steps along the bottom: the first, round steps in between, the last (the curve's steps are consecutive)
  g.textAlign = 'center';
  if (curve.length) {
    let first = curve[0].step, lastStep = curve[curve.length - 1].step;
    [first].concat(roundSteps(first, lastStep), curve.length > 1 ? [lastStep] : [])
      .forEach(function (st) { g.fillText(String(st), x(st - first), h - 6); });
  }
  if (!curve.length) g.fillText('step 0', left + pw / 2, h - 6);
  let line = function (points, color, f) {
    g.strokeStyle = color; g.lineWidth = 1.5; g.beginPath();
    points.forEach(function (p, i) { let px = x(i), py = f(p); if (i) g.lineTo(px, py); else g.moveTo(px, py); });
    g.stroke();
  };
  let lossY = function (p) { return y(p.loss); }, accY = function (p) { return ya(p.accuracy); };
  line(curve, col.line, lossY);
  line(curve, col.ok, accY);
  if (twinCurve.length) {
    g.setLineDash([4, 3]);
    line(twinCurve, col.line, lossY);
    line(twinCurve, col.ok, accY);
    g.setLineDash([]);
  }
}
// About four round step numbers strictly between first and last, far enough from both to be read.
function roundSteps(first, last) {
  let span = last - first;
  if (span < 4) return [];
  let raw = span / 4, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  let size = [1, 2, 5, 10].map(function (k) { return k * mag; }).find(function (k) { return k >= raw; });
  let out = [];
  for (let st = Math.ceil((first + size / 2) / size) * size; st <= last - size / 2; st += size) out.push(st);
  return out;
}

// The head cards: the page's heatmap in Blues, as the lessons' heatmaps, on one shared 0..1 scale, drawn at
// the cards' largest CSS size (lab.css: 168 px, the heatmap's 1 px border on each side included).
const CARD_PLOT = 166;

// The cards of one model's heads (view: {attention: [{layer, weights [H, T, T]}], roles}); interactive
// cards are toggle buttons that switch a head off and on (onAblate(event)), ablated: {"l:h": true}.
export function drawHeadCards(box, view, H, T, opts) {
  if (!view || !H) { box.textContent = ''; return; }
  let interactive = !!opts.onAblate;
  let cards = box.querySelectorAll('.lab-head'), key = view.attention.length + '|' + H + '|' + T;
  if (box.dataset.key !== key) {   // layers, heads or the sequence length changed: new cards
    box.textContent = '';
    box.dataset.key = key;
    view.attention.forEach(function (layer) {
      for (let h = 0; h < H; h++) {
        let b = el('button', { type: 'button', class: 'lab-head', 'data-layer': String(layer.layer), 'data-head': String(h) });
        b.appendChild(el('span', { class: 'head-title' }, (interactive ? '' : 'One-head model: ') + 'Layer ' + layer.layer + ' · head ' + h));
        b.appendChild(el('canvas'));
        b.appendChild(el('span', { class: 'role' }));
        if (interactive) b.addEventListener('click', opts.onAblate); else b.disabled = true;
        box.appendChild(b);
      }
    });
    cards = box.querySelectorAll('.lab-head');
  }
  Array.prototype.forEach.call(cards, function (card) {
    let l = Number(card.dataset.layer), h = Number(card.dataset.head);
    let w = view.attention[l].weights.data, canvas = card.querySelector('canvas');
    drawHeatmap(canvas, { S: T, data: w.subarray(h * T * T, (h + 1) * T * T) }, { scale: 'blues', norm: 'one', vmax: 1, size: CARD_PLOT, colors: colorsAround(box) });
    canvas.style.width = canvas.style.height = '';   // lab.css sizes the cards (168 px, 132 px on narrow screens)
    let r = view.roles.find(function (x) { return x.layer === l && x.head === h; });
    let off = interactive && !!opts.ablated[l + ':' + h];
    card.classList.toggle('ablated', off);
    card.setAttribute('aria-pressed', off ? 'true' : 'false');
    let role = card.querySelector('.role');
    role.textContent = '';
    role.appendChild(el('strong', null, r ? roleName(r) : ''));
    role.appendChild(document.createTextNode(r ? ' · ' + r.score.toFixed(2) + (off ? ' · switched off' : '') : ''));
    // the accessible name is the visible text (title, role, score); the action is in aria-pressed and the tooltip
    card.title = 'Rows: query position t; columns: key position.' + (interactive ? ' Click to ' + (off ? 'switch this head back on' : 'switch this head off (ablate it)') : '');
  });
}

// A head's role as the cards name it: a score below CLEAR_ROLE is only the closest role, not one the head has.
const CLEAR_ROLE = 0.6;
export function roleName(r) { return r.score >= CLEAR_ROLE ? r.role : 'no clear role (closest: ' + r.role + ')'; }

// The argmax of each readout at each position, as a small table of text (· where the task has no target:
// view.targets, the core's targets for the probe, -100 there).
export function predictionsText(view, cfg, probe) {
  let names = taskInfo(cfg.task).readouts, V = cfg.vocab, T = probe.length;
  let pad = function (s, n) { s = String(s); while (s.length < n) s = ' ' + s; return s; };
  let width = Math.max(3, String(V - 1).length + 1);
  let label = Math.max.apply(null, names.map(function (n) { return n.length + 2; }).concat([10]));   // '→ ' + name
  let lines = [pad('position t', label) + ' ' + probe.map(function (_, t) { return pad(t, width); }).join(''),
    pad('token x[t]', label) + ' ' + probe.map(function (v) { return pad(v, width); }).join('')];
  view.logits.forEach(function (l, r) {
    let row = [], targets = view.targets[r];
    for (let t = 0; t < T; t++) {
      if (targets[t] === -100) { row.push(pad('·', width)); continue; }
      let best = 0;
      for (let v = 1; v < V; v++) if (l.data[t * V + v] > l.data[t * V + best]) best = v;
      row.push(pad(best, width));
    }
    lines.push(pad('→ ' + names[r], label) + ' ' + row.join(''));
  });
  return 'The model\'s predictions for this sequence (argmax of each readout; · where there is nothing to predict):\n' + lines.join('\n');
}

// A weight as a student reads it: tiny weights are not "0.000".
function weightText(v) { return v === 0 ? '0' : v < 0.001 ? '< 0.001' : v.toFixed(3); }

// The closer look: one head enlarged with its tokens as labels (the main page's heatmap), what the
// selected query attends to, and the shape trace of the model's forward on the probe sequence.
// els: {select, canvas, legend, readout, traceBody}; sel: {layer, head, query, key (null: the query's top key)}.
export function drawCloser(els, view, cfg, probe, sel) {
  let T = probe.length, H = cfg.numHeads;
  let key = view.attention.length + '|' + H;
  if (els.select._key !== key) {
    els.select._key = key;
    els.select.textContent = '';
    view.attention.forEach(function (layer) {
      for (let h = 0; h < H; h++) els.select.appendChild(el('option', { value: layer.layer + ':' + h }, 'Layer ' + layer.layer + ' · head ' + h));
    });
  }
  els.select.value = sel.layer + ':' + sel.head;
  let w = view.attention[sel.layer].weights.data, off = sel.head * T * T;
  let mat = { S: T, data: w.subarray(off, off + T * T) };
  let labels = probe.map(function (tok, t) { return t + ':' + tok; });
  let q = Math.min(sel.query, T - 1), r = view.roles.find(function (x) { return x.layer === sel.layer && x.head === sel.head; });
  let top = topKeys(mat, q, 3).filter(function (j) { return !(cfg.causal && j > q); });
  let k = sel.key === null || sel.key === undefined ? top[0] : Math.min(sel.key, T - 1);
  sel.shown = k;   // the highlighted key, where the arrow keys move from
  let size = Math.max(200, Math.min(els.canvas.parentNode.parentNode.clientWidth - 120 || 360, 28 * T, 420));
  drawHeatmap(els.canvas, mat, { labels: labels, showLabels: true, scale: 'blues', norm: 'one', vmax: 1, size: size, selected: [q, k],
    colors: colorsAround(els.canvas) });
  legend(els.legend, 'blues', '1');
  let masked = cfg.causal && k > q;
  els.readout.textContent = 'Layer ' + sel.layer + ' · head ' + sel.head + (r ? ' (' + roleName(r) + ' · ' + r.score.toFixed(2) + ')' : '') +
    ': query t=' + q + ' (token ' + probe[q] + ') → key t=' + k + ' (token ' + probe[k] + '): ' +
    (masked ? '0 (masked: a later key)' : weightText(mat.data[q * T + k])) + '. It attends most to ' + top.map(function (j) {
      return 't=' + j + ' (token ' + probe[j] + ') ' + weightText(mat.data[q * T + j]);
    }).join(', ') + (cfg.causal && q < T - 1 ? '; keys after t=' + q + ' are masked (causal).' : '.') +
    ' Click a cell, or use the arrow keys, to pick a query (↑↓) and a key (←→).';
  els.canvas.setAttribute('aria-label', 'Attention weights of layer ' + sel.layer + ', head ' + sel.head + ': rows are queries, columns keys. ' + els.readout.textContent);
  traceTable(els.traceBody, view.trace, null, cfg.causal ? { style: 'tril-keep', fill: '-1e9' } : null);
}
