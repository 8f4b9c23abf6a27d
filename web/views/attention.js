// @ts-check
// MHA Explorer — the attention view: the heads of any attention weights, for hosts that have a tensor and not a
// model. mountAttention(element, options) → {update(options), dispose(), root}; options: {weights (Float32Array,
// or numbers, nested or flat), shape ([L, B, H, T, S]; shorter shapes get leading 1s), tokens (the S keys'
// labels), queryTokens (the T queries'; tokens when T = S), trace (the page's trace steps: {op or name, shape,
// strides, contiguous}), title, caption (a sentence before the view's note: how the host read its tensor), theme ('auto' | 'light' | 'dark'), scale (a name in state/scales.js's SCALES; DEFAULT_SCALE when absent), onSelect,
// download (how an export is saved: the bundles' entries pass chrome/download.js's; the browser's download without)}.
// Built from the page's widgets (web/widgets/): the head cards on one numbered colour scale with hover values,
// the head average, the enlarged head with its cell cursor and line view, the table, the shape trace, exports.
// Everything is the instance's own: no ids, no globals; its root carries data-mha-explorer-view and mhaExplorer.
// One part per file, as CircuitsVis's components: attention-state.js (the options read, the selection),
// attention-detail.js (the enlarged head), attention-trace.js (the shape trace); the head cards are widgets/heads.js.
import { el, setAttr } from '../widgets/dom.js';
import { legend } from '../widgets/colors.js';
import { DEFAULT_SCALE } from '../state/scales.js';
import { exportSVG, exportPNG, saveFile } from '../widgets/export.js';
import { HeadCards, plotSize, cardLabels } from '../widgets/heads.js';
import { attachTip } from '../widgets/tooltip.js';
import { STYLE } from './attention-style.js';
import { AttentionState } from './attention-state.js';
import { AttentionDetail } from './attention-detail.js';
import { AttentionTrace } from './attention-trace.js';

const STYLE_ATTR = 'data-mha-explorer-view-style';
const DEFAULTS = { title: 'Attention weights', theme: 'auto', scale: DEFAULT_SCALE };

// The stylesheet, once per document or shadow root (a notebook's document, or a host's shadow DOM).
function ensureStyle(node) {
  const rootNode = node.isConnected ? node.getRootNode() : node.ownerDocument;
  const where = rootNode.head || rootNode; // a Document's <head>, or the ShadowRoot itself
  if (where.querySelector && !where.querySelector('style[' + STYLE_ATTR + ']')) {
    const s = node.ownerDocument.createElement('style');
    s.setAttribute(STYLE_ATTR, '');
    s.textContent = STYLE;
    where.appendChild(s);
  }
}

const range = (n) => Array.from({ length: n }, (_, i) => i);
// A <select>'s options, rebuilt only when the values change.
function setOptions(sl, values) {
  const key = values.join(',');
  if (sl._key !== key) {
    sl._key = key;
    sl.textContent = '';
    values.forEach((v) => sl.appendChild(el('option', { value: String(v) }, v)));
  }
}

// The view's heading (title, layer and batch pickers, legend, export buttons), its problems, note and head cards' grid.
function frame(root) {
  const E = {};
  const head = root.appendChild(el('div', { class: 'mhav-head' }));
  E.title = head.appendChild(el('h3', { class: 'mhav-title' }, ''));
  const tools = head.appendChild(el('div', { class: 'mhav-tools' }));
  const picker = (label) => {
    const wrap = tools.appendChild(el('label', null, label + ' '));
    return { wrap, s: wrap.appendChild(el('select')) };
  };
  E.layer = picker('layer');
  E.batch = picker('batch item');
  E.legend = tools.appendChild(el('span', { class: 'legend', 'aria-hidden': 'true' }));
  E.png = tools.appendChild(el('button', { type: 'button', class: 'mhav-btn' }, 'Save as PNG'));
  E.svg = tools.appendChild(el('button', { type: 'button', class: 'mhav-btn' }, 'Save as SVG'));
  E.problems = root.appendChild(el('div', { class: 'mhav-problems' }));
  E.note = root.appendChild(el('p', { class: 'mhav-note' }));
  E.grid = root.appendChild(el('div', { class: 'heads-grid' }));
  return E;
}

// One mounted view: its state, its parts (the frame's elements, the head cards, the enlarged head, the trace) and
// its listeners.
class AttentionView {
  constructor(element, options) {
    const win = (this.win = element.ownerDocument.defaultView);
    const state = (this.state = new AttentionState(win, options));
    const root = (this.root = el('section', { class: 'mhav', 'data-mha-explorer-view': '' }));
    const colors = (this.colors = () => state.colors(root));
    const describe = (cell, m) => state.describe(cell, m);
    this.E = frame(root);
    this.detail = new AttentionDetail(root, state, colors, () => this.queryPicked());
    this.trace = new AttentionTrace(root);
    const tip = root.appendChild(el('div', { class: 'tooltip', role: 'tooltip' }));
    tip.hidden = true;
    element.appendChild(root);
    this.cards = new HeadCards(this.E.grid, tip, describe, (h) => {
      state.sel.head = h;
      this.cards.select(h);
      this.detail.draw();
      this.picked();
    });
    attachTip(this.detail.canvas, tip, () => this.detail.canvas._mat, describe);
    this.lastWidth = 0;
    this.frame = 0;
    this.disposed = false;
    this.lastQuery = 0;
    this.listen();
  }
  // An export saved: through options.download(name, blob, control, fallback) where the host gives one (the bundles'
  // entries give chrome/download.js's, which says what a sandboxed frame does to it next to the control, and shows
  // fallback: 'image' the picture, {text, say} the text to copy), else by the browser's download from the view's root.
  /** @param {string} name @param {Blob} blob @param {HTMLElement} control @param {any} fallback */
  save(name, blob, control, fallback) {
    const host = this.state.opts.download;
    if (typeof host === 'function') host(name, blob, control, fallback);
    else saveFile(name, blob, this.root);
  }
  // options.onSelect({layer, batch, head, query}): the student picked a layer, batch item, head or query (a host's sync)
  selection() {
    const sel = this.state.sel;
    return { layer: sel.layer, batch: sel.batch, head: sel.head, query: this.detail.cursor.cell[0] };
  }
  picked() {
    if (typeof this.state.opts.onSelect === 'function') this.state.opts.onSelect(this.selection());
  }
  // The enlarged head's cursor moved: a new query is a pick.
  queryPicked() {
    const q = this.detail.cursor.cell[0];
    if (q !== this.lastQuery) {
      this.lastQuery = q;
      this.picked();
    }
  }
  // The pickers and export buttons, the system's colour scheme (for theme 'auto') and the view's width.
  listen() {
    const { E, state, root, win } = this,
      sel = state.sel;
    E.layer.s.addEventListener('change', () => {
      sel.layer = +E.layer.s.value;
      this.draw();
      this.picked();
    });
    E.batch.s.addEventListener('change', () => {
      sel.batch = +E.batch.s.value;
      this.draw();
      this.picked();
    });
    E.png.addEventListener('click', () =>
      this.toPNG().then((blob) => blob && this.save('attention-heads.png', blob, E.png, 'image')),
    );
    E.svg.addEventListener('click', () => {
      const s = this.toSVG();
      if (s)
        this.save('attention-heads.svg', new Blob([s], { type: 'image/svg+xml' }), E.svg, {
          text: s,
          say: 'Here is the SVG: copy it into a file named attention-heads.svg.',
        });
    });
    this.onScheme = () => {
      if (state.opts.theme !== 'light' && state.opts.theme !== 'dark') this.draw();
    };
    if (state.darkQuery) state.darkQuery.addEventListener('change', this.onScheme);
    // width changes: redraw at the new size
    this.resize =
      typeof ResizeObserver === 'function'
        ? new ResizeObserver(() => {
            if (this.frame || Math.abs(root.clientWidth - 34 - this.lastWidth) < 1) return;
            this.frame = win.requestAnimationFrame(() => {
              this.frame = 0;
              if (state.ok()) this.draw();
            });
          })
        : null;
    if (this.resize) this.resize.observe(root);
  }
  update(next) {
    if (this.disposed) throw new Error('this attention view was disposed');
    this.state.update(next);
    this.draw();
  }
  draw() {
    const { E, state, root } = this,
      { input, opts, sel } = state;
    ensureStyle(root);
    setAttr(root, 'data-mhav-theme', state.theme());
    setAttr(root, 'aria-label', String(opts.title));
    E.title.textContent = String(opts.title);
    E.problems.textContent = '';
    for (const n of input.notes) E.problems.appendChild(el('p', { class: 'mhav-problem', role: 'note' }, n));
    const shown = state.ok();
    for (const e of [E.grid, E.legend, E.png, E.svg]) e.hidden = !shown;
    this.detail.show(shown);
    E.layer.wrap.hidden = !shown || input.dims.L <= 1;
    E.batch.wrap.hidden = !shown || input.dims.B <= 1;
    this.trace.draw(input.trace);
    if (!shown) {
      E.note.textContent = '';
      return;
    }
    state.clamp();
    setOptions(E.layer.s, range(input.dims.L));
    E.layer.s.value = String(sel.layer);
    setOptions(E.batch.s, range(input.dims.B));
    E.batch.s.value = String(sel.batch);
    this.drawHeads();
    this.detail.draw();
  }
  // The legend, the note and the head cards of the shown layer and batch item, on one colour scale.
  drawHeads() {
    const { E, state } = this,
      { input, opts } = state,
      { H, T, S } = input.dims;
    const range = state.colourRange();
    legend(E.legend, opts.scale, range.hi);
    E.note.textContent =
      (opts.caption ? String(opts.caption) + ' ' : '') +
      'Rows are queries (' +
      T +
      '), columns are keys (' +
      S +
      '). Colours: ' +
      range.words +
      state.where().replace(' · ', ' of ').replace(' · ', ', ') +
      state.where().replace(' · ', ' of ').replace(' · ', ', ') +
      '. Hover a cell for its weight; click a head to enlarge it.';
    const width = (this.lastWidth = this.root.clientWidth - 34),
      N = Math.max(T, S),
      size = plotSize(N, H, width);
    this.cards.draw(state.heads(), {
      name: (h) => state.name(h),
      mat: (h) => state.mat(h),
      labels: input.labels,
      rowLabels: input.rowLabels,
      scale: opts.scale,
      norm: range.norm,
      vmax: range.vmax,
      size,
      // column labels at 45° overlap below 14 px a cell (10 px text: 0.71 · cell apart)
      showLabels: cardLabels(N, width) && size / N >= 14,
      colors: this.colors(),
    });
    this.cards.select(state.sel.head);
  }
  // ---- Exports: the visible heads (those of the shown layer and batch item) ---------------------------------
  exportInfo() {
    const state = this.state,
      { T, S } = state.input.dims;
    return {
      caption: String(state.opts.title) + state.where() + ' · ' + T + ' queries × ' + S + ' keys',
      scale: state.opts.scale,
      norm: state.colourRange().norm,
      vmax: state.colourRange().vmax,
      rowLabels: state.input.rowLabels,
      colors: this.colors(),
    };
  }
  toSVG() {
    const state = this.state;
    if (!state.ok()) return null;
    const heads = state.heads();
    return exportSVG(
      heads.map((h) => state.mat(h)),
      state.input.labels,
      heads.map((h) => state.name(h)),
      this.exportInfo(),
    );
  }
  toPNG() {
    return new Promise((resolve) => {
      if (!this.state.ok()) {
        resolve(null);
        return;
      }
      exportPNG(
        this.cards.canvases(),
        this.state.heads().map((h) => this.state.name(h)),
        this.exportInfo(),
      ).toBlob(resolve);
    });
  }
  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    if (this.state.darkQuery) this.state.darkQuery.removeEventListener('change', this.onScheme);
    if (this.resize) this.resize.disconnect();
    if (this.frame) this.win.cancelAnimationFrame(this.frame);
    this.cards.dispose();
    delete this.root.mhaExplorer;
    this.root.remove();
  }
  // The script API on the root (root.mhaExplorer).
  api() {
    const state = this.state,
      sel = state.sel,
      input = () => state.input;
    return {
      // exactly the weights given ({shape as given, data: a Float32Array copy}), or null when none could be read
      getWeights: () =>
        input() && input().data ? { shape: (input().shape || []).slice(), data: new Float32Array(input().data) } : null,
      getLabels: () =>
        state.ok()
          ? { tokens: input().labels.slice(), queryTokens: input().rowLabels.slice() }
          : { tokens: [], queryTokens: [] },
      getTrace: () => (input() && input().trace ? JSON.parse(JSON.stringify(input().trace)) : []),
      getNotes: () => (input() ? input().notes.slice() : []),
      getSelection: () => this.selection(),
      select: (s) => {
        if (s.layer != null) sel.layer = +s.layer;
        if (s.batch != null) sel.batch = +s.batch;
        if (s.head != null) sel.head = s.head === 'avg' ? 'avg' : +s.head;
        if (s.query != null) {
          this.detail.cursor.cell = [+s.query, this.detail.cursor.cell[1]];
          this.lastQuery = +s.query;
        }
        this.draw();
      },
      toSVG: () => this.toSVG(),
      toPNG: () => this.toPNG(),
      update: (next) => this.update(next),
      dispose: () => this.dispose(),
    };
  }
}

export function mountAttention(element, options) {
  if (!element || element.nodeType !== 1)
    throw new TypeError('mountAttention(element, options): element must be an Element');
  ensureStyle(element);
  const view = new AttentionView(element, Object.assign({}, DEFAULTS, options));
  view.root.mhaExplorer = view.api();
  view.update({});
  return { root: view.root, update: (next) => view.update(next), dispose: () => view.dispose() };
}
