// @ts-check
// MHA Explorer — the training lab's chart: loss (log scale, left axis) and accuracy (right axis) per step, the
// one-head twin dashed, in the colours of the theme on the lab's root.
import { colorsAround } from './cards.js';

/** @typedef {{step: number, loss: number, accuracy: number}} CurvePoint */
/**
 * The plot: its box in CSS pixels inside the canvas (w × h) and where a loss (y, log scale), an accuracy (ya) and the
 * i-th point of a curve (x) fall.
 * @typedef {{w: number, h: number, left: number, right: number, top: number, pw: number, ph: number, lo: number,
 *   hi: number, y: (v: number) => number, ya: (a: number) => number, x: (i: number) => number}} Plot
 */

// The canvas sized to its CSS box at the device's pixel ratio, cleared: its context (in CSS pixels) and size.
/** @param {HTMLCanvasElement} c */
function clearedCanvas(c) {
  let dpr = window.devicePixelRatio || 1;
  let w = c.clientWidth || 900,
    h = c.clientHeight || 240;
  if (c.width !== Math.round(w * dpr)) {
    c.width = Math.round(w * dpr);
    c.height = Math.round(h * dpr);
  }
  let g = c.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  return { g: g, w: w, h: h };
}

// The plot of a curve in a w × h canvas: the loss axis spans whole decades around the losses (at least 0.01 … 3),
// the step axis at least 10 points.
/** @param {CurvePoint[]} curve @param {number} w @param {number} h @returns {Plot} */
function plotOf(curve, w, h) {
  let left = 44,
    right = 40,
    top = 10,
    bottom = 22,
    pw = w - left - right,
    ph = h - top - bottom;
  let n = Math.max(curve.length, 10);
  let losses = curve.map(function (p) {
    return Math.max(p.loss, 1e-6);
  });
  let hi = Math.ceil(Math.log10(Math.max.apply(null, losses.concat([3])))),
    lo = Math.floor(Math.log10(Math.min.apply(null, losses.concat([0.01]))));
  return {
    w: w,
    h: h,
    left: left,
    right: right,
    top: top,
    pw: pw,
    ph: ph,
    lo: lo,
    hi: hi,
    y: function (v) {
      return top + (ph * (hi - Math.log10(Math.max(v, 1e-6)))) / (hi - lo);
    },
    ya: function (a) {
      return top + ph * (1 - a);
    },
    x: function (i) {
      return left + (pw * i) / (n - 1);
    },
  };
}

// The frame and its numbers: decades of loss on the left, accuracy 0 … 1 on the right, steps along the bottom.
/** @param {CanvasRenderingContext2D} g @param {Plot} p @param {CurvePoint[]} curve @param {{border: string, fgMuted: string}} col */
function drawAxes(g, p, curve, col) {
  g.strokeStyle = col.border;
  g.fillStyle = col.fgMuted;
  g.font = '11px system-ui, sans-serif';
  g.strokeRect(p.left, p.top, p.pw, p.ph);
  g.textAlign = 'right';
  for (let e = p.lo; e <= p.hi; e++)
    g.fillText(
      String(Math.pow(10, e) >= 1 ? Math.pow(10, e) : Math.pow(10, e).toPrecision(1)),
      p.left - 4,
      p.y(Math.pow(10, e)) + 4,
    );
  g.textAlign = 'left';
  [0, 0.5, 1].forEach(function (a) {
    g.fillText(a.toFixed(1), p.w - p.right + 4, p.ya(a) + 4);
  });
  // steps along the bottom: the first, round steps in between, the last (the curve's steps are consecutive)
  g.textAlign = 'center';
  if (curve.length) {
    let first = curve[0].step,
      lastStep = curve[curve.length - 1].step;
    [first].concat(roundSteps(first, lastStep), curve.length > 1 ? [lastStep] : []).forEach(function (st) {
      g.fillText(String(st), p.x(st - first), p.h - 6);
    });
  }
  if (!curve.length) g.fillText('step 0', p.left + p.pw / 2, p.h - 6);
}

// One curve's loss and accuracy lines.
/** @param {CanvasRenderingContext2D} g @param {Plot} p @param {CurvePoint[]} curve @param {{line: string, ok: string}} col */
function drawCurve(g, p, curve, col) {
  let line = function (color, f) {
    g.strokeStyle = color;
    g.lineWidth = 1.5;
    g.beginPath();
    curve.forEach(function (point, i) {
      let px = p.x(i),
        py = f(point);
      if (i) g.lineTo(px, py);
      else g.moveTo(px, py);
    });
    g.stroke();
  };
  line(col.line, function (point) {
    return p.y(point.loss);
  });
  line(col.ok, function (point) {
    return p.ya(point.accuracy);
  });
}

// Loss (log scale, left axis) and accuracy (right axis) per step; the one-head twin dashed.
/** @param {HTMLCanvasElement} c @param {CurvePoint[]} curve @param {CurvePoint[]} twinCurve */
export function drawChart(c, curve, twinCurve) {
  const { g, w, h } = clearedCanvas(c);
  const p = plotOf(curve, w, h);
  const col = colorsAround(c); // read once per theme, not on every training step
  drawAxes(g, p, curve, col);
  drawCurve(g, p, curve, col);
  if (twinCurve.length) {
    g.setLineDash([4, 3]);
    drawCurve(g, p, twinCurve, col);
    g.setLineDash([]);
  }
}
// About four round step numbers strictly between first and last, far enough from both to be read.
/** @param {number} first @param {number} last @returns {number[]} */
function roundSteps(first, last) {
  let span = last - first;
  if (span < 4) return [];
  let raw = span / 4,
    mag = Math.pow(10, Math.floor(Math.log10(raw)));
  let size = [1, 2, 5, 10]
    .map(function (k) {
      return k * mag;
    })
    .find(function (k) {
      return k >= raw;
    });
  let out = [];
  for (let st = Math.ceil((first + size / 2) / size) * size; st <= last - size / 2; st += size) out.push(st);
  return out;
}
