// MHA Explorer, the model page — every head of every layer at a glance: one small heatmap per head (widgets/heatmap.js)
// on one colour scale from 0 to 1, layer by layer (a row per layer) or ranked by a role score; heads below the
// chosen minimum score are hidden, heads switched off are marked. One head is selected (enlarged below the grid):
// arrow keys move it (↑/↓ layer, ←/→ head; in the ranked order ←/→ the previous and next head), a click selects,
// the O key switches the focused head off or on. The cards use a roving tabindex: one tab stop for the grid.
import { el } from '../widgets/dom.js';
import { drawHeatmap } from '../widgets/heatmap.js';
import { attachTip } from '../widgets/tooltip.js';
import { rankHeads } from './roles.js';

// The plot size of a card so that H cards and a row label fit `width` px (clamped: readable, not huge).
// (a card: its plot and the plot's 2 px frame + 2·4 px padding + 2 px border + a 4 px gap; a row: its 34 px label + a 4 px gap)
// The 20 px floor lets 12 heads fit the 495 px the grid has in the two-column page at its narrowest (901 px wide, where
// it becomes one column, wider): a 12-head model shows every head without a scroll down to the phone layout; a card
// stays a 32 px target.
export const MIN_CARD = 20;
export function cardSize(H, width) {
  return Math.max(MIN_CARD, Math.min(120, Math.floor((width - 40) / H) - 16));
}

export class HeadGrid {
  // box: the grid's container; tip: the tooltip element; describe(cell, mat) → tooltip words;
  // on: {select(layer, head), toggle(layer, head)}.
  constructor(box, tip, describe, on) {
    Object.assign(this, { box, tip, describe, on, cards: [], key: '', order: [] });
    box.addEventListener('keydown', (e) => this.key_(e));
  }
  // o: {L, H, mat(l, h), labels, scale, colors, size, scores (L·H Float64Array or null), minScore, ranked, off (Set of
  // 'l:h'), selected: {layer, head}, roleLabel}.
  draw(o) {
    this.o = o;
    const { L, H } = o,
      key = L + 'x' + H + '|' + o.size + '|' + (o.ranked ? 'ranked' : 'grid');
    if (key !== this.key) this.build(o, key);
    const shown = o.ranked && o.scores ? rankHeads(o.scores, H) : null;
    this.order = shown ? shown.map((r) => r.layer * H + r.head) : this.cards.map((_, i) => i);
    if (shown) this.order.forEach((i) => this.flow.appendChild(this.cards[i].card)); // re-appended in rank order
    for (let i = 0; i < L * H; i++) {
      const c = this.cards[i],
        l = Math.floor(i / H),
        h = i % H,
        score = o.scores ? o.scores[i] : NaN;
      const mat = o.mat(l, h);
      c.canvas._mat = mat;
      if (!sameDrawing(c, mat, o))
        drawHeatmap(c.canvas, mat, {
          labels: o.labels,
          scale: o.scale,
          norm: 'one',
          vmax: 1,
          size: o.size,
          showLabels: false,
          colors: o.colors,
        });
      const off = o.off.has(l + ':' + h),
        hidden = o.scores != null && !(score >= o.minScore);
      c.card.classList.toggle('off', off);
      c.card.classList.toggle('dim', hidden);
      c.card.hidden = hidden && !!o.ranked;
      c.score.textContent = o.scores ? (Number.isFinite(score) ? score.toFixed(2) : '–') : '';
      c.card.setAttribute(
        'aria-label',
        'Layer ' +
          l +
          ' head ' +
          h +
          (o.scores ? ', ' + o.roleLabel + ' score ' + c.score.textContent : '') +
          (off ? ', switched off' : '') +
          (hidden && !o.ranked ? ', below the minimum score' : ''),
      );
      const sel = o.selected.layer === l && o.selected.head === h;
      c.card.classList.toggle('selected', sel);
      c.card.setAttribute('aria-pressed', String(sel));
      c.card.tabIndex = sel ? 0 : -1;
    }
  }
  build(o, key) {
    this.key = key;
    this.box.textContent = '';
    const { L, H } = o;
    this.cards = [];
    this.flow = null;
    const rows = [];
    if (o.ranked) this.flow = this.box.appendChild(el('div', { class: 'mg-flow' }));
    else {
      const head = this.box.appendChild(el('div', { class: 'mg-row mg-heads', 'aria-hidden': 'true' }));
      head.appendChild(el('span', { class: 'mg-label' }, ''));
      for (let h = 0; h < H; h++)
        head.appendChild(el('span', { class: 'mg-label mg-col' }, 'H' + h)).style.width = o.size + 12 + 'px';
      for (let l = 0; l < L; l++) {
        const r = this.box.appendChild(el('div', { class: 'mg-row' }));
        r.appendChild(el('span', { class: 'mg-label', 'aria-hidden': 'true' }, 'L' + l));
        rows.push(r);
      }
    }
    for (let l = 0; l < L; l++) {
      for (let h = 0; h < H; h++) {
        const card = el('button', {
          type: 'button',
          class: 'mg-card',
          'data-layer': String(l),
          'data-head': String(h),
        });
        if (o.ranked) card.appendChild(el('span', { class: 'mg-name' }, 'L' + l + ' H' + h));
        const canvas = card.appendChild(el('canvas', { role: 'img', 'aria-hidden': 'true' }));
        const score = card.appendChild(el('span', { class: 'mg-score' }));
        attachTip(
          canvas,
          this.tip,
          () => canvas._mat,
          (cell, mat) => this.describe(cell, mat, l, h),
        );
        card.addEventListener('click', () => this.on.select(l, h));
        (o.ranked ? this.flow : rows[l]).appendChild(card);
        this.cards.push({ card, canvas, score });
      }
    }
  }
  // The keyboard: arrows move the selection (and the focus), O switches the focused head off or on.
  key_(e) {
    const o = this.o;
    if (!o) return;
    const t = e.target.closest && e.target.closest('.mg-card');
    if (!t) return;
    const l = +t.getAttribute('data-layer'),
      h = +t.getAttribute('data-head');
    if (e.key === 'o' || e.key === 'O') {
      e.preventDefault();
      this.on.toggle(l, h);
      return;
    }
    let next = null;
    if (o.ranked) {
      const visible = this.order.filter((i) => !this.cards[i].card.hidden),
        at = visible.indexOf(l * o.H + h);
      const step = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 }[e.key];
      if (step && at + step >= 0 && at + step < visible.length) next = visible[at + step];
    } else {
      const d = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[e.key];
      if (d && l + d[0] >= 0 && l + d[0] < o.L && h + d[1] >= 0 && h + d[1] < o.H) next = (l + d[0]) * o.H + h + d[1];
    }
    if (next === null) return;
    e.preventDefault();
    this.on.select(Math.floor(next / o.H), next % o.H);
    this.cards[next].card.focus();
  }
  canvases() {
    return this.cards.map((c) => c.canvas);
  }
}

// Whether a card already shows this matrix (the same weights: a head switched off, a role picked, a selection) at
// this size and in these colours; remembers what it will show otherwise.
function sameDrawing(card, mat, o) {
  const d = card.drawn,
    now = {
      buffer: mat.data.buffer,
      offset: mat.data.byteOffset,
      size: o.size,
      colors: o.colors,
      labels: o.labels,
      dpr: globalThis.devicePixelRatio,
    };
  card.drawn = now;
  return !!d && Object.keys(now).every((k) => d[k] === now[k]);
}
