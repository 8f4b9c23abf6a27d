// MHA Explorer — the attention view: the heads of any attention weights, for hosts that have a tensor and not a
// model. mountAttention(element, options) → {update(options), dispose(), root}; options: {weights (Float32Array,
// or numbers, nested or flat), shape ([L, B, H, T, S]; shorter shapes get leading 1s), tokens (the S keys'
// labels), queryTokens (the T queries'; tokens when T = S), trace (the page's trace steps: {op or name, shape,
// strides, contiguous}), title, caption (a sentence before the view's note: how the host read its tensor), theme ('auto' | 'light' | 'dark'), scale (a name of widgets/scales.js: 'blues' | 'cividis')}.
// Built from the page's widgets (web/widgets/): the head cards on one numbered colour scale with hover values,
// the head average, the enlarged head with its cell cursor and line view, the table, the shape trace, exports.
// Everything is the instance's own: no ids, no globals; its root carries data-mha-explorer-view and mhaExplorer.
import { el, setAttr, themeColors } from '../widgets/dom.js';
import { legend, fmtMax } from '../widgets/colors.js';
import { DEFAULT_SCALE, SCALE_NAMES } from '../widgets/scales.js';
import { drawHeatmap, CellCursor } from '../widgets/heatmap.js';
import { lineView, wireLineHover, matrixTable, corner, LINE_ROWS, LINE_TOP } from '../widgets/lines.js';
import { traceTable, pipeline, highlightStep } from '../widgets/trace.js';
import { exportSVG, exportPNG } from '../widgets/export.js';
import { download } from '../chrome/download.js';
import { HeadCards, plotSize, cardLabels } from '../widgets/heads.js';
import { attachTip } from '../widgets/tooltip.js';
import { formatWeight, topKeysWords } from '../widgets/words.js';
import { STYLE } from './attention-style.js';

const STYLE_ATTR = 'data-mha-explorer-view-style';
const DEFAULTS = { title: 'Attention weights', theme: 'auto', scale: DEFAULT_SCALE };
const ROW_TOLERANCE = 1e-3;   // |row sum − 1| above this: not softmax weights over the keys

// The stylesheet, once per document or shadow root (a notebook's document, or a host's shadow DOM).
function ensureStyle(node) {
  const rootNode = node.isConnected ? node.getRootNode() : node.ownerDocument;
  const where = rootNode.head || rootNode;   // a Document's <head>, or the ShadowRoot itself
  if (where.querySelector && !where.querySelector('style[' + STYLE_ATTR + ']')) {
    const s = node.ownerDocument.createElement('style');
    s.setAttribute(STYLE_ATTR, '');
    s.textContent = STYLE;
    where.appendChild(s);
  }
}

// Any weights → a Float32Array (a copy: the view keeps exactly the values it was given) and the shape nested
// arrays imply (null for flat input).
function toFloat32(w) {
  if (w instanceof Float32Array) return { data: new Float32Array(w.buffer.slice(w.byteOffset, w.byteOffset + w.byteLength)), nested: null };
  if (w instanceof ArrayBuffer) return { data: new Float32Array(w.slice(0)), nested: null };
  if (ArrayBuffer.isView(w) && !(w instanceof DataView)) return { data: Float32Array.from(w), nested: null };
  if (w instanceof DataView) return { data: new Float32Array(w.buffer.slice(w.byteOffset, w.byteOffset + w.byteLength)), nested: null };
  if (Array.isArray(w)) {
    const nested = [];
    for (let a = w; Array.isArray(a); a = a[0]) nested.push(a.length);
    return { data: Float32Array.from(w.flat(Infinity), Number), nested: nested.length > 1 ? nested : null };
  }
  return null;
}

// Options → what the view draws, and the notes naming each problem of the input. An unknown colour scale is
// replaced by the default in o (the view's own copy of its options), with a note.
function readInput(o) {
  const notes = [];
  if (!SCALE_NAMES.includes(o.scale)) {
    notes.push('scale ' + JSON.stringify(String(o.scale)) + ' is not one of ' + SCALE_NAMES.join(', ') + ': drawn in ' + DEFAULT_SCALE + '.');
    o.scale = DEFAULT_SCALE;
  }
  const w = o.weights == null ? null : toFloat32(o.weights);
  if (!w) return { notes: [...notes, o.weights == null ? 'No weights were given: pass weights (a Float32Array laid out [L, B, H, T, S]) and their shape.'
    : 'weights must be a Float32Array (or an array of numbers); got ' + Object.prototype.toString.call(o.weights).slice(8, -1) + '.'] };
  const given = o.shape != null ? Array.from(o.shape, Number) : w.nested;
  if (!given) return { notes: [...notes, 'No shape was given for ' + w.data.length + ' weights: pass shape [L, B, H, T, S].'], data: w.data };
  if (given.length < 2 || given.length > 5 || given.some((n) => !(Number.isInteger(n) && n > 0))) {
    return { notes: [...notes, 'shape [' + given.join(', ') + '] is not [L, B, H, T, S] (2 to 5 positive whole numbers).'], data: w.data, shape: given };
  }
  const dims = [1, 1, 1, 1, 1].slice(0, 5 - given.length).concat(given), [L, B, H, T, S] = dims;
  const n = dims.reduce((a, b) => a * b, 1);
  if (n !== w.data.length) {
    return { notes: [...notes, 'weights has ' + w.data.length + ' values, but shape [' + given.join(', ') + '] needs ' + n + '.'], data: w.data, shape: given };
  }
  const where = (row) => {
    const t = row % T, h = Math.floor(row / T) % H, b = Math.floor(row / (T * H)) % B, l = Math.floor(row / (T * H * B));
    return (L > 1 ? 'layer ' + l + ', ' : '') + (B > 1 ? 'batch item ' + b + ', ' : '') + 'head ' + h + ', query ' + t;
  };
  let bad = 0, firstBad = -1, neg = 0, rows = 0, firstRow = -1, firstSum = 0;
  for (let r = 0, d = w.data; r < L * B * H * T; r++) {
    let sum = 0, finite = true;
    for (let j = r * S, e = j + S; j < e; j++) {
      const v = d[j];
      if (!Number.isFinite(v)) { finite = false; if (!bad++) firstBad = r; } else { if (v < 0) neg++; sum += v; }
    }
    if (finite && Math.abs(sum - 1) > ROW_TOLERANCE) { if (!rows++) { firstRow = r; firstSum = sum; } }
  }
  if (bad) notes.push(bad + ' weight' + (bad === 1 ? ' is' : 's are') + ' NaN or infinite (the first at ' + where(firstBad) +
    '): drawn in the scale\'s lowest colour and left out of its range.');
  if (rows) notes.push(rows + ' of ' + L * B * H * T + ' rows do not sum to 1 (the first: ' + where(firstRow) + ' sums to ' +
    firstSum.toPrecision(4) + '): softmax weights over the keys sum to 1 for every query; these may be scores before the softmax, or masked or dropped.');
  if (neg) notes.push(neg + ' weight' + (neg === 1 ? ' is' : 's are') + ' negative: attention weights are never below 0; negative cells are drawn as 0.');
  const labelsFor = (list, len, name, axis) => {
    const numbered = Array.from({ length: len }, (_, i) => String(i));
    if (list == null) return numbered;
    if (!Array.isArray(list)) { notes.push(name + ' is not a list of labels: the ' + axis + ' are numbered 0 to ' + (len - 1) + '.'); return numbered; }
    if (list.length !== len) {
      notes.push(name + ' has ' + list.length + ' label' + (list.length === 1 ? '' : 's') + ' for ' + len + ' ' + axis + ': the ' + axis +
        ' are numbered 0 to ' + (len - 1) + ' instead.');
      return numbered;
    }
    return list.map(String);
  };
  const labels = labelsFor(o.tokens, S, 'tokens', 'keys');
  const qGiven = o.queryTokens != null ? o.queryTokens : T === S && o.tokens != null && Array.isArray(o.tokens) && o.tokens.length === S ? o.tokens : null;
  const rowLabels = o.queryTokens == null && T === S ? labels : labelsFor(qGiven, T, 'queryTokens', 'queries');
  let trace = null;
  if (o.trace != null) {
    if (Array.isArray(o.trace) && o.trace.every((t) => t && typeof t === 'object')) trace = o.trace;
    else notes.push('trace is not a list of steps ({name, shape, strides, contiguous}): it is not shown.');
  }
  return { notes, data: w.data, shape: given, dims: { L, B, H, T, S }, labels, rowLabels, trace };
}

export function mountAttention(element, options) {
  if (!element || element.nodeType !== 1) throw new TypeError('mountAttention(element, options): element must be an Element');
  ensureStyle(element);
  let opts = Object.assign({}, DEFAULTS, options);
  let input = null;
  const sel = { layer: 0, batch: 0, head: 0, hoverQuery: null, tableOpen: false };
  const root = el('section', { class: 'mhav', 'data-mha-explorer-view': '' });
  const E = {};   // the view's elements
  const heading = (cls, text) => { const h = el('h3', { class: cls }, text); return h; };
  const head = root.appendChild(el('div', { class: 'mhav-head' }));
  E.title = head.appendChild(heading('mhav-title', ''));
  const tools = head.appendChild(el('div', { class: 'mhav-tools' }));
  const picker = (label) => {
    const wrap = tools.appendChild(el('label', null, label + ' '));
    const s = wrap.appendChild(el('select'));
    return { wrap, s };
  };
  E.layer = picker('layer'); E.batch = picker('batch item');
  E.legend = tools.appendChild(el('span', { class: 'legend', 'aria-hidden': 'true' }));
  E.png = tools.appendChild(el('button', { type: 'button', class: 'mhav-btn' }, 'Save as PNG'));
  E.svg = tools.appendChild(el('button', { type: 'button', class: 'mhav-btn' }, 'Save as SVG'));
  E.problems = root.appendChild(el('div', { class: 'mhav-problems' }));
  E.note = root.appendChild(el('p', { class: 'mhav-note' }));
  E.grid = root.appendChild(el('div', { class: 'heads-grid' }));
  E.detailHead = root.appendChild(el('div', { class: 'mhav-head' }));
  E.detailTitle = E.detailHead.appendChild(heading('mhav-sub', 'Head'));
  E.tableBtn = E.detailHead.appendChild(el('button', { type: 'button', class: 'mhav-btn', 'aria-expanded': 'false' }, 'Show as table'));
  const detail = root.appendChild(el('div', { class: 'mhav-detail' }));
  const mapFig = detail.appendChild(el('figure', { class: 'mhav-map' }));
  E.canvas = mapFig.appendChild(el('canvas', { tabindex: '0', role: 'img' }));
  E.readout = mapFig.appendChild(el('figcaption', { class: 'readout', 'aria-live': 'polite' }, 'Use the arrow keys on the heatmap to read cells.'));
  const linesFig = detail.appendChild(el('figure', { class: 'mhav-lines' }));
  E.lines = linesFig.appendChild(document.createElementNS('http://www.w3.org/2000/svg', 'svg'));
  E.lines.setAttribute('role', 'img'); E.lines.setAttribute('aria-label', 'Line view of the enlarged head');
  E.linesNote = linesFig.appendChild(el('figcaption', { class: 'mhav-note' }));
  E.table = root.appendChild(el('div', { class: 'mhav-table', tabindex: '0', role: 'region', 'aria-label': 'The enlarged head as a table' }));
  E.table.hidden = true;
  E.trace = root.appendChild(el('div', { class: 'mhav-trace' }));
  E.trace.appendChild(heading('mhav-sub', 'Shape trace'));
  E.traceNote = E.trace.appendChild(el('p', { class: 'mhav-note' }, 'Hover or focus a row (↑/↓ move) to highlight its pipeline stage.'));
  E.pipeline = E.trace.appendChild(el('div', { class: 'pipeline', role: 'img', 'aria-label': 'Pipeline: Mix, Split, Attend, Concat, Mix' }));
  pipeline(E.pipeline);
  const scroll = E.trace.appendChild(el('div', { class: 'mhav-scroll' }));
  const table = scroll.appendChild(el('table', { class: 'trace' }));
  const thr = table.appendChild(el('thead')).appendChild(el('tr'));
  ['#', 'Step', 'PyTorch expression', 'Shape', 'Strides', 'Contiguous'].forEach((t) => thr.appendChild(el('th', { scope: 'col' }, t)));
  E.traceBody = table.appendChild(el('tbody'));
  E.tip = root.appendChild(el('div', { class: 'tooltip', role: 'tooltip' }));
  E.tip.hidden = true;
  element.appendChild(root);

  // ---- Reading the weights --------------------------------------------------------------------------
  const ok = () => !!(input && input.dims);
  // The [T, S] matrix of one head (or the average) of the shown layer and batch item.
  function mat(h) {
    const { B, H, T, S } = input.dims, size = T * S, base = ((sel.layer * B + sel.batch) * H) * size;
    if (h !== 'avg') return { S, T, data: input.data.subarray(base + h * size, base + (h + 1) * size) };
    const acc = new Float32Array(size);
    for (let k = 0; k < H; k++) {
      const off = base + k * size;
      for (let i = 0; i < size; i++) { const v = input.data[off + i]; if (Number.isFinite(v)) acc[i] += v / H; }
    }
    return { S, T, data: acc };
  }
  // The colour range: one scale for every head of the shown layer and batch item, from 0 to its largest finite weight.
  function vmaxOf() {
    const { B, H, T, S } = input.dims, n = H * T * S, d = input.data;
    let mx = 0;
    for (let i = (sel.layer * B + sel.batch) * n, e = i + n; i < e; i++) if (d[i] > mx && d[i] !== Infinity) mx = d[i];
    return mx > 0 ? mx : 1;
  }
  const name = (h) => h === 'avg' ? 'Average of ' + input.dims.H + ' heads' : 'Head ' + h;
  const where = () => (input.dims.L > 1 ? ' · layer ' + sel.layer : '') + (input.dims.B > 1 ? ' · batch item ' + sel.batch : '');
  const describe = (cell, m) => {
    const q = cell[0], k = cell[1], R = input.rowLabels, C = input.labels;
    return { main: '“' + R[q] + '” (' + q + ') → “' + C[k] + '” (' + k + ')', value: 'weight ' + formatWeight(m.data[q * m.S + k]),
      top: 'top keys for “' + R[q] + '”: ' + topKeysWords(m, q, C) };
  };

  // ---- Theme ------------------------------------------------------------------------------------------
  const win = element.ownerDocument.defaultView;
  const darkQuery = win.matchMedia ? win.matchMedia('(prefers-color-scheme: dark)') : null;
  const themeOf = () => opts.theme === 'dark' || (opts.theme !== 'light' && !!darkQuery && darkQuery.matches) ? 'dark' : 'light';
  const onScheme = () => { if (opts.theme !== 'light' && opts.theme !== 'dark') draw(); };
  if (darkQuery) darkQuery.addEventListener('change', onScheme);
  const colors = () => themeColors(root, themeOf());

  // ---- Drawing ----------------------------------------------------------------------------------------
  // options.onSelect({layer, batch, head, query}): the student picked a layer, batch item, head or query (a host's sync)
  const selection = () => ({ layer: sel.layer, batch: sel.batch, head: sel.head, query: cursor.cell[0] });
  const picked = () => { if (typeof opts.onSelect === 'function') opts.onSelect(selection()); };
  const cards = new HeadCards(E.grid, E.tip, describe, (h) => { sel.head = h; cards.select(h); drawDetail(); picked(); });
  let lastQuery = 0;
  const cursor = new CellCursor(E.canvas, () => E.canvas._mat, (read) => {
    drawDetail(); if (read) readCell();
    if (cursor.cell[0] !== lastQuery) { lastQuery = cursor.cell[0]; picked(); }
  });
  attachTip(E.canvas, E.tip, () => E.canvas._mat, describe);
  wireLineHover(E.lines, (q) => { sel.hoverQuery = q; drawDetail(); });
  const setOptions = (sl, values) => {
    const key = values.join(',');
    if (sl._key !== key) { sl._key = key; sl.textContent = ''; values.forEach((v) => sl.appendChild(el('option', { value: String(v) }, v))); }
  };
  const range = (n) => Array.from({ length: n }, (_, i) => i);
  let lastWidth = 0;

  function draw() {
    ensureStyle(root);
    setAttr(root, 'data-mhav-theme', themeOf());
    setAttr(root, 'aria-label', String(opts.title));
    E.title.textContent = String(opts.title);
    E.problems.textContent = '';
    for (const n of input.notes) E.problems.appendChild(el('p', { class: 'mhav-problem', role: 'note' }, n));
    const shown = ok();
    for (const e of [E.grid, E.detailHead, E.canvas.parentNode.parentNode, E.legend, E.png, E.svg]) e.hidden = !shown;
    E.layer.wrap.hidden = !shown || input.dims.L <= 1;
    E.batch.wrap.hidden = !shown || input.dims.B <= 1;
    E.trace.hidden = !input.trace;
    if (input.trace) traceTable(E.traceBody, input.trace, (i) => highlightStep(E.traceBody, E.pipeline, i), null);
    if (!shown) { E.note.textContent = ''; E.table.hidden = true; return; }
    const { L, B, H, T, S } = input.dims;
    sel.layer = Math.min(sel.layer, L - 1); sel.batch = Math.min(sel.batch, B - 1);
    if (sel.head !== 'avg' && sel.head >= H) sel.head = 0;
    if (sel.head === 'avg' && H <= 1) sel.head = 0;
    setOptions(E.layer.s, range(L)); E.layer.s.value = String(sel.layer);
    setOptions(E.batch.s, range(B)); E.batch.s.value = String(sel.batch);
    const vmax = vmaxOf();
    legend(E.legend, opts.scale, fmtMax(vmax));
    E.note.textContent = (opts.caption ? String(opts.caption) + ' ' : '') + 'Rows are queries (' + T + '), columns are keys (' + S + '). Colours: one scale, 0 to ' + fmtMax(vmax) +
      ', for every head' + where().replace(' · ', ' of ').replace(' · ', ', ') + '. Hover a cell for its weight; click a head to enlarge it.';
    const width = lastWidth = root.clientWidth - 34;
    cards.draw(range(H).concat(H > 1 ? ['avg'] : []), { name, mat, labels: input.labels, rowLabels: input.rowLabels,
      scale: opts.scale, norm: 'shared', vmax, size: plotSize(Math.max(T, S), H, width), showLabels: cardLabels(Math.max(T, S), width), colors: colors() });
    cards.select(sel.head);
    drawDetail();
  }
  function drawDetail() {
    if (!ok()) return;
    const m = mat(sel.head), c = E.canvas, N = Math.max(m.S, m.T);
    E.detailTitle.textContent = name(sel.head) + where();
    const cell = cursor.fit(m);
    c._mat = m;
    const width = root.clientWidth - 34;
    const size = Math.max(160, Math.min(width - 120, 420));
    // token labels where a cell is tall enough for their 10 px text
    drawHeatmap(c, m, { labels: input.labels, rowLabels: input.rowLabels, scale: opts.scale, norm: 'shared', vmax: vmaxOf(),
      size, showLabels: size / N >= 10, selected: cursor.shown(), colors: colors() });
    setAttr(c, 'aria-label', name(sel.head) + where() + ', enlarged heatmap of ' + m.T + ' queries by ' + m.S +
      ' keys; arrow keys move between cells, "Show as table" gives the numbers.');
    E.linesNote.textContent = N > LINE_ROWS
      ? 'Line view of one query (' + N + ' tokens are too many to draw at once): its ' + LINE_TOP + ' strongest keys. ' +
        'Click a cell of the heatmap, or use the arrow keys on it, to pick the query.'
      : 'Line view (as BertViz\'s head view): a line from each query to each key, thicker for more weight. Hover a query token to isolate it.';
    lineView(E.lines, m, input.labels, { rowLabels: input.rowLabels, focus: sel.hoverQuery != null && sel.hoverQuery < m.T ? sel.hoverQuery : null,
      query: cell[0], width: Math.min(420, Math.max(260, width - c.offsetWidth - 20)), colors: colors() });
    E.table.hidden = !sel.tableOpen;
    if (sel.tableOpen) {
      E.table.textContent = '';
      E.table.appendChild(matrixTable(corner(m, 64), input.labels.slice(0, 64), name(sel.head) + where() +
        ': attention weights (rows: queries, columns: keys)' + (N > 64 ? ' — the first 64' : ''), input.rowLabels.slice(0, 64)));
    }
  }
  function readCell() {
    const m = E.canvas._mat; if (!m) return;
    const [q, k] = cursor.cell, w = describe([q, k], m);
    E.readout.textContent = 'query “' + input.rowLabels[q] + '” (' + q + ') → key “' + input.labels[k] + '” (' + k + '): ' +
      w.value.replace(/^weight /, '') + ' · top keys: ' + topKeysWords(m, q, input.labels);
  }

  E.layer.s.addEventListener('change', () => { sel.layer = +E.layer.s.value; draw(); picked(); });
  E.batch.s.addEventListener('change', () => { sel.batch = +E.batch.s.value; draw(); picked(); });
  E.tableBtn.addEventListener('click', () => {
    sel.tableOpen = !sel.tableOpen;
    E.tableBtn.setAttribute('aria-expanded', String(sel.tableOpen));
    E.tableBtn.textContent = sel.tableOpen ? 'Hide table' : 'Show as table';
    drawDetail();
  });

  // ---- Exports: the visible heads (those of the shown layer and batch item) ---------------------------------
  const heads = () => range(input.dims.H).concat(input.dims.H > 1 ? ['avg'] : []);
  const exportInfo = () => ({ caption: String(opts.title) + where() + ' · ' + input.dims.T + ' queries × ' + input.dims.S + ' keys',
    scale: opts.scale, norm: 'shared', vmax: vmaxOf(), rowLabels: input.rowLabels, colors: colors() });
  const toSVG = () => ok() ? exportSVG(heads().map(mat), input.labels, heads().map(name), exportInfo()) : null;
  const toPNG = () => new Promise((resolve) => {
    if (!ok()) { resolve(null); return; }
    exportPNG(cards.canvases(), heads().map(name), exportInfo()).toBlob(resolve);
  });
  E.png.addEventListener('click', () => toPNG().then((blob) => blob && download('attention-heads.png', blob)));
  E.svg.addEventListener('click', () => { const s = toSVG(); if (s) download('attention-heads.svg', new Blob([s], { type: 'image/svg+xml' })); });

  // ---- Width changes: redraw at the new size ---------------------------------------------------------
  let frame = 0;
  const resize = typeof ResizeObserver === 'function' ? new ResizeObserver(() => {
    if (frame || Math.abs(root.clientWidth - 34 - lastWidth) < 1) return;
    frame = win.requestAnimationFrame(() => { frame = 0; if (ok()) draw(); });
  }) : null;
  if (resize) resize.observe(root);

  // ---- The handle and the script API --------------------------------------------------------------------
  let disposed = false;
  function update(next) {
    if (disposed) throw new Error('this attention view was disposed');
    opts = Object.assign({}, opts, next);
    input = readInput(opts);
    draw();
  }
  function dispose() {
    if (disposed) return;
    disposed = true;
    if (darkQuery) darkQuery.removeEventListener('change', onScheme);
    if (resize) resize.disconnect();
    if (frame) win.cancelAnimationFrame(frame);
    cards.dispose();
    delete root.mhaExplorer;
    root.remove();
  }
  root.mhaExplorer = {
    // exactly the weights given ({shape as given, data: a Float32Array copy}), or null when none could be read
    getWeights: () => input && input.data ? { shape: (input.shape || []).slice(), data: new Float32Array(input.data) } : null,
    getLabels: () => ok() ? { tokens: input.labels.slice(), queryTokens: input.rowLabels.slice() } : { tokens: [], queryTokens: [] },
    getTrace: () => input && input.trace ? JSON.parse(JSON.stringify(input.trace)) : [],
    getNotes: () => input ? input.notes.slice() : [],
    getSelection: selection,
    select: (s) => {
      if (s.layer != null) sel.layer = +s.layer;
      if (s.batch != null) sel.batch = +s.batch;
      if (s.head != null) sel.head = s.head === 'avg' ? 'avg' : +s.head;
      if (s.query != null) { cursor.cell = [+s.query, cursor.cell[1]]; lastQuery = +s.query; }
      draw();
    },
    toSVG, toPNG, update, dispose
  };
  update({});
  return { root, update, dispose };
}
