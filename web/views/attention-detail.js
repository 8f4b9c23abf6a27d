// @ts-check
// MHA Explorer — the attention view's enlarged head: its title and "Show as table" button, its heatmap (arrow keys
// and clicks pick a cell, read aloud), the line view (as BertViz's head view) and the table. state: the view's
// AttentionState (attention-state.js); colors() → the view's theme colours; onCursor(): the cursor moved or was read.
import { el, svgEl, setAttr } from '../widgets/dom.js';
import { drawHeatmap, CellCursor } from '../widgets/heatmap.js';
import { lineView, lineViewNote, wireLineHover, matrixTable, corner } from '../widgets/lines.js';
import { topKeysWords } from '../widgets/words.js';

export class AttentionDetail {
  // Appends the enlarged head's elements to root and wires their events.
  constructor(root, state, colors, onCursor) {
    this.root = root;
    this.state = state;
    this.colors = colors;
    this.head = root.appendChild(el('div', { class: 'mhav-head' }));
    this.title = this.head.appendChild(el('h3', { class: 'mhav-sub' }, 'Head'));
    this.tableBtn = this.head.appendChild(
      el('button', { type: 'button', class: 'mhav-btn', 'aria-expanded': 'false' }, 'Show as table'),
    );
    this.box = root.appendChild(el('div', { class: 'mhav-detail' }));
    const mapFig = this.box.appendChild(el('figure', { class: 'mhav-map' }));
    this.canvas = mapFig.appendChild(el('canvas', { tabindex: '0', role: 'img' }));
    this.readout = mapFig.appendChild(
      el('figcaption', { class: 'readout', 'aria-live': 'polite' }, 'Use the arrow keys on the heatmap to read cells.'),
    );
    const linesFig = this.box.appendChild(el('figure', { class: 'mhav-lines' }));
    this.lines = linesFig.appendChild(svgEl('svg', { role: 'img', 'aria-label': 'Line view of the enlarged head' }));
    this.linesNote = linesFig.appendChild(el('figcaption', { class: 'mhav-note' }));
    this.table = root.appendChild(
      el('div', { class: 'mhav-table', tabindex: '0', role: 'region', 'aria-label': 'The enlarged head as a table' }),
    );
    this.table.hidden = true;
    this.cursor = new CellCursor(
      this.canvas,
      () => this.canvas._mat,
      (read) => {
        this.draw();
        if (read) this.readCell();
        onCursor();
      },
    );
    wireLineHover(this.lines, (q) => {
      state.sel.hoverQuery = q;
      this.draw();
    });
    this.tableBtn.addEventListener('click', () => {
      const sel = state.sel;
      sel.tableOpen = !sel.tableOpen;
      this.tableBtn.setAttribute('aria-expanded', String(sel.tableOpen));
      this.tableBtn.textContent = sel.tableOpen ? 'Hide table' : 'Show as table';
      this.draw();
    });
  }
  // Shows or hides the enlarged head (hidden while the input has no weights to draw).
  show(shown) {
    this.head.hidden = this.box.hidden = !shown;
    if (!shown) this.table.hidden = true;
  }
  draw() {
    const state = this.state,
      input = state.input,
      sel = state.sel;
    if (!state.ok()) return;
    const m = state.mat(sel.head),
      c = this.canvas,
      N = Math.max(m.S, m.T),
      colors = this.colors();
    const heading = state.name(sel.head) + state.where();
    this.title.textContent = heading;
    const cell = this.cursor.fit(m);
    c._mat = m;
    const width = this.root.clientWidth - 34;
    const size = Math.max(160, Math.min(width - 120, 420));
    // token labels where a cell is tall enough for their 10 px text
    drawHeatmap(c, m, {
      labels: input.labels,
      rowLabels: input.rowLabels,
      scale: state.opts.scale,
      norm: state.colourRange().norm,
      vmax: state.colourRange().vmax,
      size,
      showLabels: size / N >= 14, // column labels at 45° overlap below 14 px a cell (10 px text)
      selected: this.cursor.shown(),
      colors,
    });
    setAttr(
      c,
      'aria-label',
      heading +
        ', enlarged heatmap of ' +
        m.T +
        ' queries by ' +
        m.S +
        ' keys; arrow keys move between cells, "Show as table" gives the numbers.',
    );
    this.linesNote.textContent = lineViewNote(N);
    lineView(this.lines, m, input.labels, {
      rowLabels: input.rowLabels,
      focus: sel.hoverQuery != null && sel.hoverQuery < m.T ? sel.hoverQuery : null,
      query: cell[0],
      width: Math.min(420, Math.max(260, width - c.offsetWidth - 20)),
      colors,
    });
    this.table.hidden = !sel.tableOpen;
    if (sel.tableOpen) {
      this.table.textContent = '';
      this.table.appendChild(
        matrixTable(
          corner(m, 64),
          input.labels.slice(0, 64),
          heading + ': attention weights (rows: queries, columns: keys)' + (N > 64 ? ' — the first 64' : ''),
          input.rowLabels.slice(0, 64),
        ),
      );
    }
  }
  // The cursor's cell in words, into the readout (a live region).
  readCell() {
    const m = this.canvas._mat;
    if (!m) return;
    const input = this.state.input,
      [q, k] = this.cursor.cell,
      w = this.state.describe([q, k], m);
    this.readout.textContent =
      'query “' +
      input.rowLabels[q] +
      '” (' +
      q +
      ') → key “' +
      input.labels[k] +
      '” (' +
      k +
      '): ' +
      w.value.replace(/^weight /, '') +
      ' · top keys: ' +
      topKeysWords(m, q, input.labels);
  }
}
