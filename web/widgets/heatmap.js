// MHA Explorer — the canvas heatmap (ImageData, scales to 512 tokens), the cell under the pointer, a row's
// strongest keys, and the keyboard/click cursor of an enlarged heatmap.
// A matrix is {S, T?, data}: T rows (queries; T = S when absent) of S columns (keys), row-major.
import { themeColors, shortLabel, arrowStep } from './dom.js';
import { lut32, rangeOf } from './colors.js';

// One scratch canvas of w×h texels per size in use (the head cards share one, the enlarged head has its own), the
// last few sizes kept: a redraw that alternates between them makes no canvas. Only plots whose texels are not the
// canvas's own device pixels go through one (drawPlot).
const SCRATCH_SIZES = 4;
const scratches = new Map(); // 'w×h' → {canvas, ctx, img, px, cols, rows}, oldest first
function scratchFor(w, h) {
  const key = w + 'x' + h;
  let sc = scratches.get(key);
  if (!sc) {
    const c = document.createElement('canvas');
    c.width = w;
    c.height = h;
    const x = c.getContext('2d');
    sc = { canvas: c, ctx: x, ...texelsOf(x, w, h) };
    if (scratches.size >= SCRATCH_SIZES) scratches.delete(scratches.keys().next().value);
  } else scratches.delete(key);
  scratches.set(key, sc); // the most recent last
  return sc;
}
// An ImageData of w×h texels, its pixels as one word each, and the sampling of its columns and rows (texels).
function texelsOf(ctx, w, h) {
  const img = ctx.createImageData(w, h);
  return { img, px: new Uint32Array(img.data.buffer), cols: null, colsOf: 0, rows: null, rowsOf: 0 };
}
// The cell each of n texels shows out of m cells (n ≤ m): the cell under the texel's centre, as an unsmoothed
// drawImage of all m cells onto n device pixels would pick.
function sampleIndex(n, m) {
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i++) idx[i] = Math.min(m - 1, Math.floor(((i + 0.5) * m) / n));
  return idx;
}
const LABEL_FONT = '10px sans-serif';

// The frame of a plot of T×S cells of `cell` CSS px (f: {S, T, cell, labels, rowLabels, showLabels, dpr, col}): the
// canvas's size, cleared, and the axis labels with the margins they need. Returns the frame's state {ctx, marginL,
// marginT} and keeps the plot's geometry as canvas._geom.
function drawFrame(canvas, f) {
  const { S, T, cell, labels, rowLabels, showLabels, dpr, col } = f;
  const ctx = canvas.getContext('2d');
  ctx.font = LABEL_FONT;
  // margins from the labels as drawn: row labels on the left, column labels rotated 45° up and to the
  // right (the last ones reach past the plot's right edge by about 0.71 of their width)
  let marginL = 0,
    marginT = 0,
    marginR = 0;
  if (showLabels) {
    let wr = 0,
      wc = 0;
    for (let i = 0; i < T; i++) wr = Math.max(wr, ctx.measureText(shortLabel(rowLabels[i], 10)).width);
    for (let i = 0; i < S; i++) wc = Math.max(wc, ctx.measureText(shortLabel(labels[i], 10)).width);
    marginL = Math.ceil(wr) + 6;
    marginT = Math.ceil(wc * 0.71) + 12;
    marginR = Math.max(0, Math.ceil(wc * 0.71 + 6 - cell / 2));
  }
  const cssW = marginL + cell * S + 2 + marginR,
    cssH = marginT + cell * T + 2;
  const pw = Math.round(cssW * dpr),
    ph = Math.round(cssH * dpr);
  if (canvas.width !== pw || canvas.height !== ph) {
    canvas.width = pw;
    canvas.height = ph;
  }
  if (canvas.style.width !== cssW + 'px') canvas.style.width = cssW + 'px';
  if (canvas.style.height !== cssH + 'px') canvas.style.height = cssH + 'px';
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, pw, ph);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.font = LABEL_FONT; // set again: resizing the canvas resets the context
  if (showLabels) {
    ctx.fillStyle = col.fgMuted;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    for (let r = 0; r < T; r++) ctx.fillText(shortLabel(rowLabels[r], 10), marginL - 4, marginT + 1 + (r + 0.5) * cell);
    ctx.textAlign = 'left';
    for (let c = 0; c < S; c++) {
      ctx.save();
      ctx.translate(marginL + 1 + (c + 0.5) * cell, marginT - 4);
      ctx.rotate(-Math.PI / 4);
      ctx.fillText(shortLabel(labels[c], 10), 0, 0);
      ctx.restore();
    }
  }
  canvas._geom = { x0: marginL + 1, y0: marginT + 1, cell, S, T };
  return { ctx, marginL, marginT };
}

// The texels of mat (S columns, T rows) in colours into tex (texelsOf: tw×th, opaque): one texel per cell, or, when
// the plot has fewer device pixels than cells (512 tokens on a 260 px card), one per device pixel, each the cell
// under its centre, which is what a scaled drawImage shows, for a quarter of the colour lookups and upload.
function colourTexels(tex, mat, S, T, tw, th, opts) {
  const px = tex.px,
    L = lut32(opts.scale),
    data = mat.data,
    vmax = opts.vmax || rangeOf(data, opts.norm);
  const k = 255 / vmax;
  if (tw === S && th === T) {
    for (let p = 0, n = S * T; p < n; p++) {
      const t = (data[p] * k + 0.5) | 0; // round to the nearest of 256 colours; NaN gives 0
      px[p] = L[t > 255 ? 255 : t < 0 ? 0 : t];
    }
    return;
  }
  if (tex.colsOf !== S) {
    tex.cols = sampleIndex(tw, S);
    tex.colsOf = S;
  }
  if (tex.rowsOf !== T) {
    tex.rows = sampleIndex(th, T);
    tex.rowsOf = T;
  }
  const cols = tex.cols,
    rows = tex.rows;
  for (let y = 0, p = 0; y < th; y++) {
    const base = rows[y] * S;
    for (let x = 0; x < tw; x++) {
      const t = (data[base + cols[x]] * k + 0.5) | 0;
      px[p++] = L[t > 255 ? 255 : t < 0 ? 0 : t];
    }
  }
}

// Whether a length in device pixels is the whole number n (a cell of 257/500 px times 500 cells is 257 within rounding).
const whole = (v, n) => Math.abs(v - n) < 1e-6;

// The plot's texels onto the canvas at (x0, y0) CSS px, plotW×plotH CSS px. When they are the canvas's own device
// pixels (one texel per device pixel from a device pixel on: every 512-token card and enlarged head at a whole
// devicePixelRatio), one putImageData into the canvas itself (hm.tex: its ImageData, kept while the canvas keeps
// its size); otherwise one into a scratch canvas and an unsmoothed drawImage of it, scaled, over the plot area. An
// unsmoothed drawImage at one texel per device pixel copies the texels, so both give the same pixels.
function drawPlot(hm, mat, S, T, geom, opts) {
  const { ctx, dpr } = hm,
    { x0, y0, plotW, plotH } = geom;
  const tw = Math.max(1, Math.min(S, Math.round(plotW * dpr))),
    th = Math.max(1, Math.min(T, Math.round(plotH * dpr)));
  const dx = Math.round(x0 * dpr),
    dy = Math.round(y0 * dpr);
  if (whole(plotW * dpr, tw) && whole(plotH * dpr, th) && whole(x0 * dpr, dx) && whole(y0 * dpr, dy)) {
    if (!hm.tex || hm.tex.img.width !== tw || hm.tex.img.height !== th) hm.tex = texelsOf(ctx, tw, th);
    colourTexels(hm.tex, mat, S, T, tw, th, opts);
    ctx.putImageData(hm.tex.img, dx, dy);
    return;
  }
  const sc = scratchFor(tw, th);
  colourTexels(sc, mat, S, T, tw, th, opts);
  sc.ctx.putImageData(sc.img, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(sc.canvas, 0, 0, tw, th, x0, y0, plotW, plotH);
}

// opts: {labels (keys), rowLabels (queries; labels when absent), scale, norm, vmax, size (CSS px of the plot's
// longer side), showLabels, selected: [row, col], colors (themeColors() of the scope; the page's when absent)}.
// Incremental: the frame (canvas size, axis labels) is redrawn only when its key changes; otherwise a redraw
// is the plot's texels (drawPlot: one putImageData), the border and the selected cell. Returns the plot's geometry (also kept as canvas._geom for cellAt).
export function drawHeatmap(canvas, mat, opts) {
  const S = mat.S,
    T = mat.T || S,
    labels = opts.labels,
    rowLabels = opts.rowLabels || labels;
  const dpr = (typeof self !== 'undefined' ? self : globalThis).devicePixelRatio || 1;
  const showLabels = !!(opts.showLabels && labels && Math.max(S, T) <= 64);
  const col = opts.colors || themeColors();
  const cell = opts.size / Math.max(S, T),
    plotW = cell * S,
    plotH = cell * T;
  const key =
    S +
    'x' +
    T +
    '|' +
    opts.size +
    '|' +
    dpr +
    '|' +
    col.border +
    '|' +
    col.fgMuted +
    '|' +
    (showLabels ? labels.slice(0, S).join('\u0001') + '\u0002' + rowLabels.slice(0, T).join('\u0001') : '-');
  if (!canvas._hm || canvas._hm.key !== key) {
    canvas._hm = { key, dpr, tex: null, ...drawFrame(canvas, { S, T, cell, labels, rowLabels, showLabels, dpr, col }) };
  }
  const { ctx, marginL: mL, marginT: mT } = canvas._hm;
  drawPlot(canvas._hm, mat, S, T, { x0: mL + 1, y0: mT + 1, plotW, plotH }, opts);
  ctx.strokeStyle = col.border;
  ctx.lineWidth = 1;
  ctx.strokeRect(mL + 0.5, mT + 0.5, plotW + 1, plotH + 1);
  if (opts.selected) {
    ctx.strokeStyle = col.accent;
    ctx.lineWidth = 2;
    const sq = opts.selected;
    ctx.strokeRect(mL + 1 + sq[1] * cell, mT + 1 + sq[0] * cell, cell, cell);
  }
  return canvas._geom;
}
// The [row, col] under a pointer event, or null outside the plot.
export function cellAt(canvas, evt) {
  const g = canvas._geom;
  if (!g) return null;
  const r = canvas.getBoundingClientRect();
  const x = (evt.clientX - r.left) * (parseFloat(canvas.style.width) / r.width) - g.x0;
  const y = (evt.clientY - r.top) * (parseFloat(canvas.style.height) / r.height) - g.y0;
  const col = Math.floor(x / g.cell),
    row = Math.floor(y / g.cell);
  if (col < 0 || row < 0 || col >= g.S || row >= (g.T || g.S)) return null;
  return [row, col];
}
// The k largest weights of a row, largest first: one pass with a small sorted list (S log S sorting of
// every row cost ~100 ms at S = 512).
export function topKeys(mat, row, k) {
  const S = mat.S,
    d = mat.data,
    off = row * S,
    idx = [],
    val = [];
  for (let j = 0; j < S; j++) {
    const v = d[off + j];
    if (idx.length === k && !(v > val[k - 1])) continue;
    let p = Math.min(idx.length, k - 1);
    while (p > 0 && v > val[p - 1]) {
      if (p < k) {
        idx[p] = idx[p - 1];
        val[p] = val[p - 1];
      }
      p--;
    }
    idx[p] = j;
    val[p] = v;
  }
  return idx;
}

// The cursor of an enlarged heatmap: arrow keys move the selected cell, a click picks one, focus and
// blur show and hide it. getMat() → the matrix drawn (null while there is none); onChange(read): redraw,
// and read the cell aloud when read is true.
export class CellCursor {
  constructor(canvas, getMat, onChange) {
    this.canvas = canvas;
    this.cell = [0, 0];
    canvas.addEventListener('keydown', (e) => {
      const mat = getMat();
      if (!mat) return;
      const d = arrowStep(e.key);
      if (!d) return;
      e.preventDefault();
      this.cell = [
        Math.max(0, Math.min((mat.T || mat.S) - 1, this.cell[0] + d[0])),
        Math.max(0, Math.min(mat.S - 1, this.cell[1] + d[1])),
      ];
      onChange(true);
    });
    canvas.addEventListener('focus', () => onChange(true));
    canvas.addEventListener('blur', () => onChange(false));
    canvas.addEventListener('click', (e) => {
      const c = cellAt(canvas, e);
      if (c) {
        this.cell = c;
        onChange(true);
      }
    });
  }
  // The cell to outline (only while the heatmap has the focus), kept inside a matrix of mat's size.
  fit(mat) {
    if (this.cell[0] >= (mat.T || mat.S) || this.cell[1] >= mat.S) this.cell = [0, 0];
    return this.cell;
  }
  shown() {
    return this.canvas.getRootNode().activeElement === this.canvas ? this.cell : null;
  }
}
