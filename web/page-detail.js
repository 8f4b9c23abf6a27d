// MHA Explorer — the enlarged head: its heatmap (arrow keys and clicks pick a cell, read aloud), the
// line view (as BertViz's head view) and "Show as table". cur: the controller's current result.
import { setAttr } from './widgets/dom.js';
import { $, setText } from './page-dom.js';
import { selB, selH, headMat, headName, weightText, topKeysText, attachHover } from './page-read.js';
import { drawHeatmap, CellCursor } from './widgets/heatmap.js';
import { lineView, matrixTable, wireLineHover, corner, LINE_ROWS, LINE_TOP } from './widgets/lines.js';

var cursor = null, hoverQuery = null;
// Painting the enlarged head off screen is put off above this many cells (128 tokens and more).
const LAZY_CELLS = 128 * 128;
var detailSeen = null, detailOnScreen = true, pendingPaint = null;

function shownHead(cur) { return cur.eff.avg ? 'avg' : selH(cur); }

// wd: widths measured before the redraw's writes (the controller's draw()); without it (event handlers) read here.
export function drawDetail(cur, wd) {
  var eff = cur.eff, b = selB(cur), h = shownHead(cur);
  var mat = headMat(cur, b, h), Sq = mat.S;
  setText('detail-title', headName(cur, h) + (cur.res.B > 1 ? ' · batch item ' + b : ''));
  var c = $('detail-canvas');
  var avail = Math.min(480, ((wd ? wd.detail : c.parentNode.parentNode.clientWidth) || 700) - 120);
  var cell = cursor.fit(mat);
  var oldW = c.style.width, oldH = c.style.height;
  const paint = function () {
    drawHeatmap(c, mat, { labels: cur.labels, scale: eff.scale, norm: eff.norm, vmax: cur.res.vmax, size: Math.max(160, Math.min(avail, 480)),
      showLabels: true, selected: cursor.shown() });
    c._mat = mat;
  };
  setAttr(c, 'aria-label', headName(cur, h) + ' enlarged heatmap; arrow keys move between cells.');
  // A redraw of the whole page (wd given) paints a large enlarged head only when it is on screen (or within 200 px of
  // it): below the fold it paints when scrolled into view. Events (a click, the cursor, a picked head) paint at once.
  pendingPaint = null;
  if (wd && detailSeen && !detailOnScreen && mat.S * (mat.T || mat.S) > LAZY_CELLS) { c._mat = null; pendingPaint = paint; } else paint();
  // the line view's column shares the row with the heatmap: re-measure only if the heatmap changed size
  var linesW = wd && c.style.width === oldW && c.style.height === oldH ? wd.lines : $('lines').parentNode.clientWidth;
  var lw = Math.min(420, Math.max(260, (linesW || 360)));
  setText('lines-note', Sq > LINE_ROWS
    ? 'Line view of one query (' + Sq + ' tokens are too many to draw at once): its ' + LINE_TOP + ' strongest keys. ' +
      'Click a cell of the heatmap, or use the arrow keys on it, to pick the query.'
    : 'Line view (as BertViz\'s head view): a line from each query to each key, thicker for more weight. Hover a query token to isolate it.');
  lineView($('lines'), mat, cur.labels, { focus: hoverQuery != null && hoverQuery < Sq ? hoverQuery : null,
    query: cell[0], width: lw });
  if (!$('table-box').hidden) drawTable(cur);
}
// No result (no tokens): the enlarged head, its line view and readout are emptied, not left from before.
export function clearDetail() {
  var c = $('detail-canvas');
  c._mat = null; c._geom = null; c._hm = null; pendingPaint = null;
  c.width = 0; c.height = 0; c.style.width = '0px'; c.style.height = '0px';
  $('lines').textContent = ''; $('lines')._lv = null;
  setText('detail-title', 'Head');
  setText('lines-note', '');
  setText('cell-readout', 'Use the arrow keys on the heatmap to read cells.');
}
function readCell(cur) {
  var c = $('detail-canvas'), mat = c._mat; if (!mat) return;
  var q = cursor.cell[0], k = cursor.cell[1], L = cur.labels;
  $('cell-readout').textContent = 'query “' + L[q] + '” (' + q + ') → key “' + L[k] + '” (' + k + '): ' +
    weightText(cur, mat, q, k) + ' · top keys: ' + topKeysText(cur, mat, q);
}
export function drawTable(cur) {
  var box = $('table-box'), h = shownHead(cur), mat = headMat(cur, selB(cur), h);
  box.textContent = '';
  box.appendChild(matrixTable(corner(mat, 64), cur.labels.slice(0, 64), headName(cur, h) + ': attention weights (rows: queries, columns: keys)' +
    (mat.S > 64 ? ' — first 64 of ' + mat.S + ' tokens' : '')));
}

// The detail canvas and the line view's events; getCur() → the current result (null while there is none).
export function wireDetail(getCur) {
  var dc = $('detail-canvas');
  if (typeof IntersectionObserver === 'function') {
    detailSeen = new IntersectionObserver(function (entries) {
      detailOnScreen = entries[entries.length - 1].isIntersecting;
      if (detailOnScreen && pendingPaint) { var p = pendingPaint; pendingPaint = null; p(); }
    }, { rootMargin: '200px' });
    detailSeen.observe(dc);
  }
  var redraw = function (read) { var cur = getCur(); if (!cur) return; drawDetail(cur); if (read) readCell(cur); };
  attachHover(dc, function () { return dc._mat; }, getCur);
  cursor = new CellCursor(dc, function () { return dc._mat; }, redraw);
  wireLineHover($('lines'), function (q) { hoverQuery = q; redraw(false); });
}
