// MHA Explorer — the enlarged head: its heatmap (arrow keys and clicks pick a cell, read aloud), the
// line view (as BertViz's head view) and "Show as table". cur: the explorer's current result.
import { setAttr } from '../widgets/dom.js';
import { selB, selH, headMat, headName, weightText, topKeysText, attachHover } from './read.js';
import { drawHeatmap, CellCursor } from '../widgets/heatmap.js';
import { lineView, lineViewNote, matrixTable, wireLineHover, corner } from '../widgets/lines.js';
import { OffScreen, largeResult } from './offscreen.js';

function shownHead(cur) {
  return cur.eff.avg ? 'avg' : selH(cur);
}

export class DetailPanel {
  // scope: the explorer's (scope.js); getCur() → the current result (null while there is none); colors() → the
  // explorer's theme colours. Wires the detail canvas's and the line view's events.
  constructor(scope, getCur, colors) {
    Object.assign(this, { scope, getCur, colors, hoverQuery: null });
    const $ = (n) => scope.$(n),
      dc = $('detail-canvas');
    this.offScreen = new OffScreen(dc.closest('[data-section]') || dc);
    const redraw = (read) => {
      const cur = getCur();
      if (!cur) return;
      this.draw(cur);
      if (read) this.readCell(cur);
    };
    attachHover(dc, $('tooltip'), () => dc._mat, getCur);
    this.cursor = new CellCursor(dc, () => dc._mat, redraw);
    wireLineHover($('lines'), (q) => {
      this.hoverQuery = q;
      redraw(false);
    });
  }

  // wd: widths measured before the redraw's writes (the explorer's draw()); without it (event handlers) read here.
  // A redraw of the whole page (wd given) of a large result waits while the enlarged head is off screen (offscreen.js;
  // it measures its widths when it runs); events (a click, the cursor, a picked head) draw at once.
  draw(cur, wd) {
    this.offScreen.run((late) => this.drawNow(cur, late ? null : wd), !!wd && largeResult(cur));
  }
  drawNow(cur, wd) {
    const $ = (n) => this.scope.$(n),
      cursor = this.cursor;
    const eff = cur.eff,
      b = selB(cur),
      h = shownHead(cur);
    const mat = headMat(cur, b, h),
      Sq = mat.S;
    this.scope.setText('detail-title', headName(cur, h) + (cur.res.B > 1 ? ' · batch item ' + b : ''));
    const c = $('detail-canvas');
    const avail = Math.min(480, ((wd ? wd.detail : c.parentNode.parentNode.clientWidth) || 700) - 120);
    const cell = cursor.fit(mat);
    const oldW = c.style.width,
      oldH = c.style.height;
    const colors = this.colors();
    drawHeatmap(c, mat, {
      labels: cur.labels,
      scale: eff.scale,
      norm: eff.norm,
      vmax: cur.res.vmax,
      size: Math.max(160, Math.min(avail, 480)),
      showLabels: true,
      selected: cursor.shown(),
      colors,
    });
    c._mat = mat;
    setAttr(c, 'aria-label', headName(cur, h) + ' enlarged heatmap; arrow keys move between cells.');
    // the line view's column shares the row with the heatmap: re-measure only if the heatmap changed size
    const linesW =
      wd && c.style.width === oldW && c.style.height === oldH ? wd.lines : $('lines').parentNode.clientWidth;
    const lw = Math.min(420, Math.max(260, linesW || 360));
    this.scope.setText('lines-note', lineViewNote(Sq));
    lineView($('lines'), mat, cur.labels, {
      focus: this.hoverQuery != null && this.hoverQuery < Sq ? this.hoverQuery : null,
      query: cell[0],
      width: lw,
      colors,
    });
    if (!$('table-box').hidden) this.drawTable(cur);
  }
  // No result (no tokens): the enlarged head, its line view and readout are emptied, not left from before.
  clear() {
    const $ = (n) => this.scope.$(n),
      c = $('detail-canvas');
    this.offScreen.drop();
    c._mat = null;
    c._geom = null;
    c._hm = null;
    c.width = 0;
    c.height = 0;
    c.style.width = '0px';
    c.style.height = '0px';
    $('lines').textContent = '';
    $('lines')._lv = null;
    this.scope.setText('detail-title', 'Head');
    this.scope.setText('lines-note', '');
    this.scope.setText('cell-readout', 'Use the arrow keys on the heatmap to read cells.');
  }
  readCell(cur) {
    const mat = this.scope.$('detail-canvas')._mat;
    if (!mat) return;
    const q = this.cursor.cell[0],
      k = this.cursor.cell[1],
      L = cur.labels;
    this.scope.$('cell-readout').textContent =
      'query “' +
      L[q] +
      '” (' +
      q +
      ') → key “' +
      L[k] +
      '” (' +
      k +
      '): ' +
      weightText(cur, mat, q, k) +
      ' · top keys: ' +
      topKeysText(cur, mat, q);
  }
  drawTable(cur) {
    const box = this.scope.$('table-box'),
      h = shownHead(cur),
      mat = headMat(cur, selB(cur), h);
    box.textContent = '';
    box.appendChild(
      matrixTable(
        corner(mat, 64),
        cur.labels.slice(0, 64),
        headName(cur, h) +
          ': attention weights (rows: queries, columns: keys)' +
          (mat.S > 64 ? ' — first 64 of ' + mat.S + ' tokens' : ''),
      ),
    );
  }
  dispose() {
    this.offScreen.dispose();
  }
}
