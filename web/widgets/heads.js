// MHA Explorer — the head cards: one button per head (and their average) with its heatmap, all on one colour
// scale; a click enlarges the head. Used by the page's heads view and by the attention view.
import { el, setAttr } from './dom.js';
import { drawHeatmap } from './heatmap.js';
import { attachTip } from './tooltip.js';

// The plot size of a card: as many cards per row as the width allows (H heads and the average).
export function plotSize(Sq, H, width) {
  const w = width || 800;
  // a phone: two cards to a row, without token labels (the enlarged head and the hover readout have them)
  const cols = w < 500 ? (H > 1 ? 2 : 1) : H <= 2 ? H + 1 : H <= 4 ? Math.min(H + 1, w < 700 ? 2 : 3) : w < 700 ? 3 : 4;
  const size = Math.floor(w / Math.max(1, cols)) - (cardLabels(Sq, w) ? 90 : 36);
  return Math.max(96, Math.min(Sq <= 16 ? 220 : 260, size));
}

// Whether the head cards of a Sq-token input in a grid width px wide carry token labels.
export function cardLabels(Sq, width) {
  return Sq <= 16 && (width || 800) >= 500;
}

// grid: the cards' container; tip: the tooltip element; describe: as attachTip's; onPick(h): a card was clicked
// (h a head index or 'avg'). The cards are kept while the heads (count, names, size) stay the same; a draw
// repaints the canvases on screen, and the others when they scroll into view (or when canvases() is asked for).
export class HeadCards {
  constructor(grid, tip, describe, onPick) {
    Object.assign(this, { grid, tip, describe, onPick, key: null, items: [] });
    this.seen =
      typeof IntersectionObserver === 'function'
        ? new IntersectionObserver(
            (entries) => {
              for (const e of entries) {
                const it = this.items.find((x) => x.canvas === e.target);
                if (!it) continue;
                it.onScreen = e.isIntersecting;
                if (it.onScreen) this.paint(it);
              }
            },
            { rootMargin: '200px' },
          )
        : null;
  }
  // Stops watching the cards' visibility (the view that drew them is gone).
  dispose() {
    if (this.seen) this.seen.disconnect();
    this.items = [];
  }
  // items: head indices and 'avg'; o: {name(h), mat(h) → {S, T?, data}, maxText(mat) (a card's own range, or ''),
  // and drawHeatmap's options (labels, rowLabels, scale, norm, vmax, size, showLabels, colors)}.
  draw(items, o) {
    const first = items.length ? o.mat(items[0]) : null,
      Sq = first ? first.T || first.S : 0;
    const key = (first ? first.S + 'x' + Sq : '') + '|' + items.map(o.name).join('\u0001');
    if (this.key !== key || !this.items.length || this.grid.firstChild !== this.items[0].card) {
      this.grid.textContent = '';
      if (this.seen) this.seen.disconnect();
      this.key = key;
      this.items = items.map((h) => {
        const card = el('button', { type: 'button', class: 'head-card', 'aria-label': o.name(h) + ': enlarge' });
        card.appendChild(el('span', { class: 'head-title' }, o.name(h)));
        const c = el(
          'canvas',
          h === 'avg' ? { 'data-avg': '1', role: 'img' } : { 'data-head': String(h), role: 'img' },
        );
        c.setAttribute(
          'aria-label',
          o.name(h) +
            ' attention heatmap, ' +
            Sq +
            ' by ' +
            (first ? first.S : 0) +
            '. Use "Show as table" for the numbers.',
        );
        card.appendChild(c);
        attachTip(c, this.tip, () => c._mat, this.describe);
        card.addEventListener('click', () => this.onPick(h));
        this.grid.appendChild(card);
        if (this.seen) this.seen.observe(c);
        return { h, card, canvas: c, maxEl: null, onScreen: true, pending: null };
      });
    }
    for (const it of this.items) {
      it.pending = () => {
        const mat = it.h === items[0] ? first : o.mat(it.h);
        it.canvas._mat = mat;
        drawHeatmap(it.canvas, mat, o);
        if (!it.maxEl) it.maxEl = it.card.insertBefore(el('span', { class: 'head-max' }), it.canvas);
        const t = o.maxText ? o.maxText(mat) : '';
        if (it.maxEl.textContent !== t) it.maxEl.textContent = t;
      };
      if (it.onScreen) this.paint(it);
      else it.canvas._mat = null; // no hover readout of a stale picture until it is painted
    }
  }
  paint(it) {
    const draw = it.pending;
    it.pending = null;
    if (draw) draw();
  }
  // Whether the card of h (a head index or 'avg') paints on the next draw: on screen, or not yet watched.
  shown(h) {
    const it = this.items.find((x) => x.h === h);
    return !it || it.onScreen;
  }
  // sel: the enlarged head (an index or 'avg')
  select(sel) {
    for (const it of this.items) {
      const on = it.h === sel;
      it.card.classList.toggle('selected', on);
      setAttr(it.card, 'aria-pressed', String(on));
    }
  }
  canvases() {
    this.items.forEach((it) => this.paint(it));
    return this.items.map((it) => it.canvas);
  }
}
