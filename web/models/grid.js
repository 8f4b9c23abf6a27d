// MHA Explorer, the model page — every head of every layer at a glance: one small heatmap per head (widgets/heatmap.js)
// on one colour scale from 0 to 1 (or from 0 to each layer's or each head's largest weight: headRange), layer by layer (a row per layer, folded into equal rows on a phone: gridLayout) or
// ranked by a role score; heads below the chosen minimum score are dimmed (hidden when ranked), heads switched off are
// marked. One head is selected (enlarged below the grid):
// arrow keys move it (↑/↓ layer, ←/→ head; in the ranked order ←/→ the previous and next head), a click selects,
// the O key switches the focused head off or on. The cards use a roving tabindex: one tab stop for the grid.
import { el } from '../widgets/dom.js';
import { drawHeatmap } from '../widgets/heatmap.js';
import { quantileTop } from '../widgets/colors.js';
import { attachTip } from '../widgets/tooltip.js';
import { rankHeads } from './roles.js';

// The grid's layout for H heads in `width` px beside a `label` px layer label: {perRow, rows, size}. A row holds the
// label, then per card a 4 px gap and the card (its plot of `size` px, the plot's 2 px frame, 2·4 px padding, a 2 px
// border: size + 16 px in all), with 2 px to spare. The plot is at least MIN_CARD px (a 32 px card: above WCAG 2.5.8's
// 24 px target; a plot where a diagonal, a first column, a stripe still show) and at most 120 px.
// All H heads of a layer stay in one row while H cards of the floor size fit: a 12-head model from the 495 px the grid
// has in the two-column page at its narrowest (901 px wide) down to a 458 px grid (a page 508 px wide). Below that
// a layer's heads wrap into the fewest equal rows (6 + 6 for 12 heads, 6 + 5 for 11) whose cards grow to fill the width:
// on a phone every head shows without a sideways scroll, and the grid stays an overview (two rows a layer rather than
// three of larger cards: the enlarged head is below it). The keys keep their meaning across a wrap (grid.js's key_).
export const MIN_CARD = 20;
export function gridLayout(H, width, label = 34) {
  const room = width - label - 2,
    fit = Math.max(1, Math.floor(room / (MIN_CARD + 16))),
    rows = Math.ceil(H / Math.min(H, fit)),
    perRow = Math.ceil(H / rows);
  return { perRow, rows, size: Math.max(MIN_CARD, Math.min(120, Math.floor(room / perRow) - 16)) };
}

// The top of each card's colour range for a choice of the Colours control: 'one' (1 for every head), 'layer' (the
// 99th percentile (colors.js's quantileTop) of the head's layer's weights), 'head' (of its own weights). Not the largest weight: in a causal
// head the first query's one weight is 1, so a largest-weight range would be 0 to 1 again; above the percentile a
// weight takes the top colour. mat(l, h): the heads' matrices. → vmax(l, h, mat).
export function headRange(range, L, H, mat) {
  if (range === 'head') {
    const memo = new Map(); // kept with the matrices (panels.js keeps the function while they stay)
    return (l, h, m) => {
      if (!memo.has(l * H + h)) memo.set(l * H + h, quantileTop([m.data]));
      return memo.get(l * H + h);
    };
  }
  if (range !== 'layer') return () => 1;
  const layers = [];
  for (let l = 0; l < L; l++) layers.push(quantileTop(Array.from({ length: H }, (_, h) => mat(l, h).data)));
  return (l) => layers[l];
}

export class HeadGrid {
  // box: the grid's container; tip: the tooltip element; describe(cell, mat) → tooltip words;
  // on: {select(layer, head), toggle(layer, head)}.
  constructor(box, tip, describe, on) {
    Object.assign(this, { box, tip, describe, on, cards: [], key: '', order: [] });
    box.addEventListener('keydown', (e) => this.key_(e));
  }
  // o: {L, H, mat(l, h), vmax(l, h, mat) (the top of a card's colour range; 1 without it), labels, scale, colors, size and perRow (gridLayout), scores (L·H Float64Array or null), minScore, ranked, off (Set of
  // 'l:h'), selected: {layer, head}, roleLabel}.
  draw(o) {
    this.o = o;
    const { L, H } = o,
      key = L + 'x' + H + '|' + o.size + '|' + (o.ranked ? 'ranked' : 'grid ' + o.perRow);
    if (key !== this.key) this.build(o, key);
    const shown = o.ranked && o.scores ? rankHeads(o.scores, H) : null;
    this.order = shown ? shown.map((r) => r.layer * H + r.head) : this.cards.map((_, i) => i);
    if (shown) this.order.forEach((i) => this.flow.appendChild(this.cards[i].card)); // re-appended in rank order
    for (let i = 0; i < L * H; i++) {
      const c = this.cards[i],
        l = Math.floor(i / H),
        h = i % H,
        score = o.scores ? o.scores[i] : NaN;
      const mat = o.mat(l, h),
        vmax = o.vmax ? o.vmax(l, h, mat) : 1;
      c.canvas._mat = mat;
      c.canvas._vmax = vmax; // the top of its colour range (the tests read it)
      if (!sameDrawing(c, mat, o, vmax))
        drawHeatmap(c.canvas, mat, {
          labels: o.labels,
          scale: o.scale,
          norm: 'one',
          vmax,
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
      c.card.setAttribute('aria-label', cardLabel(o, l, h, c.score.textContent, off, hidden));
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
    this.box.classList.toggle('mg-wrapped', !o.ranked && o.perRow < H);
    this.flow = o.ranked ? this.box.appendChild(el('div', { class: 'mg-flow' })) : null;
    const rows = o.ranked ? [] : this.layerRows(o);
    for (let l = 0; l < L; l++) {
      for (let h = 0; h < H; h++) {
        const card = el('button', {
          type: 'button',
          class: 'mg-card',
          'data-layer': String(l),
          'data-head': String(h),
        });
        // the space keeps the name and the score two words for assistive technology (the card is a flex column)
        if (o.ranked) card.append(el('span', { class: 'mg-name' }, 'L' + l + ' H' + h), ' ');
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
  // Layer by layer: the heads' column titles, then a row per layer (its label, its cards in o.perRow columns: one line
  // of cards, or several when the heads wrap, each title then naming the heads of its column top to bottom: H0 over
  // H6). → each layer's box of cards.
  layerRows(o) {
    const { L, H, perRow } = o;
    this.box.style.setProperty('--mg-per-row', String(perRow));
    const titles = this.box.appendChild(el('div', { class: 'mg-row mg-heads', 'aria-hidden': 'true' }));
    titles.appendChild(el('span', { class: 'mg-label' }, ''));
    const columns = titles.appendChild(el('div', { class: 'mg-cells' }));
    for (let c = 0; c < perRow; c++) {
      const title = columns.appendChild(el('span', { class: 'mg-label mg-col' }));
      title.style.width = o.size + 12 + 'px';
      for (let h = c; h < H; h += perRow) title.appendChild(el('span', null, 'H' + h));
    }
    const rows = [];
    for (let l = 0; l < L; l++) {
      const r = this.box.appendChild(el('div', { class: 'mg-row mg-layer' }));
      r.appendChild(el('span', { class: 'mg-label', 'aria-hidden': 'true' }, 'L' + l));
      rows.push(r.appendChild(el('div', { class: 'mg-cells' })));
    }
    return rows;
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

// A card's accessible name: layer, head, its score, off, below the minimum. In the ranked order it starts with what the
// card shows ("L0 H2 0.34": WCAG 2.5.3, a name spoken to a voice control is the one seen).
function cardLabel(o, l, h, score, off, hidden) {
  const which = 'layer ' + l + ' head ' + h;
  return (
    (o.ranked ? 'L' + l + ' H' + h + (o.scores ? ' ' + score : '') + ': ' + which : 'Layer ' + l + ' head ' + h) +
    (o.scores ? ', ' + o.roleLabel + ' score' + (o.ranked ? '' : ' ' + score) : '') +
    (off ? ', switched off' : '') +
    (hidden && !o.ranked ? ', below the minimum score' : '')
  );
}

// Whether a card already shows this matrix (the same weights: a head switched off, a role picked, a selection) at
// this size and in these colours; remembers what it will show otherwise.
function sameDrawing(card, mat, o, vmax) {
  const d = card.drawn,
    now = {
      vmax,
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
