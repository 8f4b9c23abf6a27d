// @ts-check
// MHA Explorer — the attention view's one state object (AttentionState: its options, the input read from them and the
// selection) and the reading of its options: the weights as float32 with their [L, B, H, T, S] dims, the labels, the
// trace, and a note for each problem of the input. Every part of the view (attention.js, attention-detail.js) reads it.
import { DEFAULT_SCALE, SCALE_NAMES } from '../state/scales.js';
import { themeColors } from '../widgets/dom.js';
import { fmtMax, quantileTop } from '../widgets/colors.js';
import { formatWeight, topKeysWords } from '../widgets/words.js';

/** @typedef {number | 'avg'} HeadId a head's index, or 'avg': the average of the shown heads */

const ROW_TOLERANCE = 1e-3; // |row sum − 1| above this: not softmax weights over the keys

// Any weights → a Float32Array (a copy: the view keeps exactly the values it was given) and the shape nested
// arrays imply (null for flat input).
/** @param {any} w */
function toFloat32(w) {
  if (w instanceof Float32Array)
    return { data: new Float32Array(w.buffer.slice(w.byteOffset, w.byteOffset + w.byteLength)), nested: null };
  if (w instanceof ArrayBuffer) return { data: new Float32Array(w.slice(0)), nested: null };
  if (ArrayBuffer.isView(w) && !(w instanceof DataView))
    return { data: Float32Array.from(/** @type {ArrayLike<number>} */ (/** @type {unknown} */ (w))), nested: null };
  if (w instanceof DataView)
    return { data: new Float32Array(w.buffer.slice(w.byteOffset, w.byteOffset + w.byteLength)), nested: null };
  if (Array.isArray(w)) {
    const nested = [];
    for (let a = w; Array.isArray(a); a = a[0]) nested.push(a.length);
    return { data: Float32Array.from(w.flat(Infinity), Number), nested: nested.length > 1 ? nested : null };
  }
  return null;
}

// The notes on weights read as dims {L, B, H, T, S}: non-finite values, rows that do not sum to 1, negative values.
function weightNotes(data, { L, B, H, T, S }) {
  const notes = [];
  const where = (row) => {
    const t = row % T,
      h = Math.floor(row / T) % H,
      b = Math.floor(row / (T * H)) % B,
      l = Math.floor(row / (T * H * B));
    return (L > 1 ? 'layer ' + l + ', ' : '') + (B > 1 ? 'batch item ' + b + ', ' : '') + 'head ' + h + ', query ' + t;
  };
  let bad = 0,
    firstBad = -1,
    neg = 0,
    rows = 0,
    firstRow = -1,
    firstSum = 0;
  for (let r = 0, d = data; r < L * B * H * T; r++) {
    let sum = 0,
      finite = true;
    for (let j = r * S, e = j + S; j < e; j++) {
      const v = d[j];
      if (!Number.isFinite(v)) {
        finite = false;
        if (!bad++) firstBad = r;
      } else {
        if (v < 0) neg++;
        sum += v;
      }
    }
    if (finite && Math.abs(sum - 1) > ROW_TOLERANCE) {
      if (!rows++) {
        firstRow = r;
        firstSum = sum;
      }
    }
  }
  if (bad)
    notes.push(
      bad +
        ' weight' +
        (bad === 1 ? ' is' : 's are') +
        ' NaN or infinite (the first at ' +
        where(firstBad) +
        "): drawn in the scale's lowest colour and left out of its range.",
    );
  if (rows)
    notes.push(
      rows +
        ' of ' +
        L * B * H * T +
        ' rows do not sum to 1 (the first: ' +
        where(firstRow) +
        ' sums to ' +
        firstSum.toPrecision(4) +
        '): softmax weights over the keys sum to 1 for every query; these may be scores before the softmax, or masked or dropped.',
    );
  if (neg)
    notes.push(
      neg +
        ' weight' +
        (neg === 1 ? ' is' : 's are') +
        ' negative: attention weights are never below 0; negative cells are drawn as 0.',
    );
  return notes;
}

// The len labels of an axis from a list given as option `name` (numbered 0… when absent or unusable, with a note).
function labelsFor(list, len, name, axis, notes) {
  const numbered = Array.from({ length: len }, (_, i) => String(i));
  if (list == null) return numbered;
  if (!Array.isArray(list)) {
    notes.push(name + ' is not a list of labels: the ' + axis + ' are numbered 0 to ' + (len - 1) + '.');
    return numbered;
  }
  if (list.length !== len) {
    notes.push(
      name +
        ' has ' +
        list.length +
        ' label' +
        (list.length === 1 ? '' : 's') +
        ' for ' +
        len +
        ' ' +
        axis +
        ': the ' +
        axis +
        ' are numbered 0 to ' +
        (len - 1) +
        ' instead.',
    );
    return numbered;
  }
  return list.map(String);
}

// {attentions, layer}: a model's result (Model.forward's attentions, {shape: [L, 1, H, T, T], data}) as weights and
// shape; with layer, that layer alone. Given weights win. → {weights, shape}
function modelAttentions(o, notes) {
  const a = o.attentions;
  if (a == null || o.weights != null) return o;
  if (typeof a !== 'object' || a.shape == null || a.data == null || a.data.length === undefined) {
    notes.push("attentions must be a model's attentions {shape: [L, 1, H, T, T], data}, as model.forward(ids) gives.");
    return o;
  }
  const shape = Array.from(a.shape, Number),
    L = shape[0];
  if (o.layer == null || shape.length !== 5) return { weights: a.data, shape };
  if (!(Number.isInteger(o.layer) && o.layer >= 0 && o.layer < L)) {
    notes.push(
      'layer ' + String(o.layer) + ' is not one of the ' + L + ' layers (0 to ' + (L - 1) + '): all are drawn.',
    );
    return { weights: a.data, shape };
  }
  const n = a.data.length / L,
    part = a.data.subarray
      ? a.data.subarray(o.layer * n, (o.layer + 1) * n)
      : a.data.slice(o.layer * n, (o.layer + 1) * n);
  return { weights: part, shape: shape.slice(1) };
}

// Options → what the view draws, and the notes naming each problem of the input. An unknown colour scale is
// replaced by the default in o (the view's own copy of its options), with a note. A model's attentions
// (modelAttentions) stand for weights and shape.
export function readInput(o) {
  const notes = [];
  if (!SCALE_NAMES.includes(o.scale)) {
    notes.push(
      'scale ' +
        JSON.stringify(String(o.scale)) +
        ' is not one of ' +
        SCALE_NAMES.join(', ') +
        ': drawn in ' +
        DEFAULT_SCALE +
        '.',
    );
    o.scale = DEFAULT_SCALE;
  }
  const input = modelAttentions(o, notes);
  const w = input.weights == null ? null : toFloat32(input.weights);
  if (!w)
    return {
      notes: [
        ...notes,
        input.weights == null
          ? 'No weights were given: pass weights (a Float32Array laid out [L, B, H, T, S]) and their shape.'
          : 'weights must be a Float32Array (or an array of numbers); got ' +
            Object.prototype.toString.call(input.weights).slice(8, -1) +
            '.',
      ],
    };
  const given = input.shape != null ? Array.from(input.shape, Number) : w.nested;
  if (!given)
    return {
      notes: [...notes, 'No shape was given for ' + w.data.length + ' weights: pass shape [L, B, H, T, S].'],
      data: w.data,
    };
  if (given.length < 2 || given.length > 5 || given.some((n) => !(Number.isInteger(n) && n > 0))) {
    return {
      notes: [...notes, 'shape [' + given.join(', ') + '] is not [L, B, H, T, S] (2 to 5 positive whole numbers).'],
      data: w.data,
      shape: given,
    };
  }
  const dims = [1, 1, 1, 1, 1].slice(0, 5 - given.length).concat(given),
    [L, B, H, T, S] = dims;
  const n = dims.reduce((a, b) => a * b, 1);
  if (n !== w.data.length) {
    return {
      notes: [
        ...notes,
        'weights has ' + w.data.length + ' values, but shape [' + given.join(', ') + '] needs ' + n + '.',
      ],
      data: w.data,
      shape: given,
    };
  }
  notes.push(...weightNotes(w.data, { L, B, H, T, S }));
  const labels = labelsFor(o.tokens, S, 'tokens', 'keys', notes);
  const qGiven =
    o.queryTokens != null
      ? o.queryTokens
      : T === S && o.tokens != null && Array.isArray(o.tokens) && o.tokens.length === S
        ? o.tokens
        : null;
  const rowLabels = o.queryTokens == null && T === S ? labels : labelsFor(qGiven, T, 'queryTokens', 'queries', notes);
  let trace = null;
  if (o.trace != null) {
    if (Array.isArray(o.trace) && o.trace.every((t) => t && typeof t === 'object')) trace = o.trace;
    else notes.push('trace is not a list of steps ({name, shape, strides, contiguous}): it is not shown.');
  }
  return { notes, data: w.data, shape: given, dims: { L, B, H, T, S }, labels, rowLabels, trace };
}

// opts: the view's options (its own copy); input: readInput(opts); sel: the shown layer, batch item and head ('avg':
// their average), the query hovered in the line view, whether the table is open.
export class AttentionState {
  constructor(win, options) {
    this.opts = options;
    this.input = null;
    /** @type {{layer: number, batch: number, head: HeadId, hoverQuery: number | null, tableOpen: boolean}} */
    this.sel = { layer: 0, batch: 0, head: 0, hoverQuery: null, tableOpen: false };
    this.darkQuery = win.matchMedia ? win.matchMedia('(prefers-color-scheme: dark)') : null;
  }
  update(next) {
    this.opts = Object.assign({}, this.opts, next);
    this.input = readInput(this.opts);
  }
  // Whether the input could be read as weights of a shape (else only the notes are shown).
  ok() {
    return !!(this.input && this.input.dims);
  }
  theme() {
    const t = this.opts.theme;
    return t === 'dark' || (t !== 'light' && !!this.darkQuery && this.darkQuery.matches) ? 'dark' : 'light';
  }
  colors(root) {
    return themeColors(root, this.theme());
  }
  // The selection kept inside the input's dims (a new input may have fewer layers, batch items or heads).
  clamp() {
    const sel = this.sel,
      { L, B, H } = this.input.dims;
    sel.layer = Math.min(sel.layer, L - 1);
    sel.batch = Math.min(sel.batch, B - 1);
    if (sel.head !== 'avg' && sel.head >= H) sel.head = 0;
    if (sel.head === 'avg' && H <= 1) sel.head = 0;
  }
  // The heads drawn as cards: every head of the shown layer and batch item, and their average when there are two or more.
  /** @returns {HeadId[]} */
  heads() {
    const H = this.input.dims.H,
      heads = /** @type {HeadId[]} */ (Array.from({ length: H }, (_, i) => i));
    return H > 1 ? heads.concat(['avg']) : heads;
  }
  // The [T, S] matrix of one head (or the average) of the shown layer and batch item.
  mat(h) {
    const input = this.input,
      sel = this.sel;
    const { B, H, T, S } = input.dims,
      size = T * S,
      base = (sel.layer * B + sel.batch) * H * size;
    if (h !== 'avg') return { S, T, data: input.data.subarray(base + h * size, base + (h + 1) * size) };
    const acc = new Float32Array(size);
    for (let k = 0; k < H; k++) {
      const off = base + k * size;
      for (let i = 0; i < size; i++) {
        const v = input.data[off + i];
        if (Number.isFinite(v)) acc[i] += v / H;
      }
    }
    return { S, T, data: acc };
  }
  // The colour options of the heatmaps for opts.range: 'layer' (the default: one scale for every head of the shown
  // layer and batch item, from 0 to its largest weight), 'layer-p99' (to its 99th percentile weight), 'head' (each
  // heatmap from 0 to its own 99th percentile), 'one' (0 to 1). Above a percentile a weight takes the top colour.
  colourRange() {
    const r = this.opts.range;
    if (r === 'head')
      return { norm: 'p99', vmax: undefined, words: 'each head from 0 to its own 99th percentile weight', hi: 'p99' };
    const vmax = r === 'one' ? 1 : r === 'layer-p99' ? this.layerQuantile() : this.vmax();
    const what = r === 'layer-p99' ? ' (the layer’s 99th percentile weight)' : '';
    return {
      norm: 'shared',
      vmax,
      words: 'one scale, 0 to ' + fmtMax(vmax) + what + ', for every head',
      hi: fmtMax(vmax),
    };
  }
  // The shown layer and batch item's 99th percentile weight (colors.js's quantileTop).
  layerQuantile() {
    const { B, H, T, S } = this.input.dims,
      n = H * T * S,
      at = (this.sel.layer * B + this.sel.batch) * n;
    return quantileTop([this.input.data.subarray(at, at + n)]);
  }
  // The colour range: one scale for every head of the shown layer and batch item, from 0 to its largest finite weight.
  vmax() {
    const { B, H, T, S } = this.input.dims,
      n = H * T * S,
      d = this.input.data;
    let mx = 0;
    for (let i = (this.sel.layer * B + this.sel.batch) * n, e = i + n; i < e; i++)
      if (d[i] > mx && d[i] !== Infinity) mx = d[i];
    return mx > 0 ? mx : 1;
  }
  name(h) {
    return h === 'avg' ? 'Average of ' + this.input.dims.H + ' heads' : 'Head ' + h;
  }
  // ' · layer l · batch item b', each part only when there is more than one
  where() {
    const { L, B } = this.input.dims;
    return (L > 1 ? ' · layer ' + this.sel.layer : '') + (B > 1 ? ' · batch item ' + this.sel.batch : '');
  }
  // The hover words of a cell [q, k] of matrix m (attachTip's describe).
  describe(cell, m) {
    const q = cell[0],
      k = cell[1],
      R = this.input.rowLabels,
      C = this.input.labels;
    return {
      main: '“' + R[q] + '” (' + q + ') → “' + C[k] + '” (' + k + ')',
      value: 'weight ' + formatWeight(m.data[q * m.S + k]),
      top: 'top keys for “' + R[q] + '”: ' + topKeysWords(m, q, C),
    };
  }
}
