// @ts-check
// MHA Explorer — the training lab's chart: loss (log scale, left axis) and accuracy (right axis) per step, the
// one-head twin dashed, in the colours of the theme on the lab's root.
import { colorsAround } from './cards.js';

// Loss (log scale, left axis) and accuracy (right axis) per step; the one-head twin dashed.
/** @param {HTMLCanvasElement} c @param {{step: number, loss: number, accuracy: number}[]} curve @param {{step: number, loss: number, accuracy: number}[]} twinCurve */
export function drawChart(c, curve, twinCurve) {
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
  let left = 44,
    right = 40,
    top = 10,
    bottom = 22,
    pw = w - left - right,
    ph = h - top - bottom;
  const col = colorsAround(c); // read once per theme, not on every training step
  g.strokeStyle = col.border;
  g.fillStyle = col.fgMuted;
  g.font = '11px system-ui, sans-serif';
  g.strokeRect(left, top, pw, ph);
  let n = Math.max(curve.length, 10);
  let losses = curve.map(function (p) {
    return Math.max(p.loss, 1e-6);
  });
  let hi = Math.ceil(Math.log10(Math.max.apply(null, losses.concat([3])))),
    lo = Math.floor(Math.log10(Math.min.apply(null, losses.concat([0.01]))));
  let y = function (v) {
    return top + (ph * (hi - Math.log10(Math.max(v, 1e-6)))) / (hi - lo);
  };
  let ya = function (a) {
    return top + ph * (1 - a);
  };
  let x = function (i) {
    return left + (pw * i) / (n - 1);
  };
  g.textAlign = 'right';
  for (let e = lo; e <= hi; e++)
    g.fillText(
      String(Math.pow(10, e) >= 1 ? Math.pow(10, e) : Math.pow(10, e).toPrecision(1)),
      left - 4,
      y(Math.pow(10, e)) + 4,
    );
  g.textAlign = 'left';
  [0, 0.5, 1].forEach(function (a) {
    g.fillText(a.toFixed(1), w - right + 4, ya(a) + 4);
  });
  // steps along the bottom: the first, round steps in between, the last (the curve's steps are consecutive)
  g.textAlign = 'center';
  if (curve.length) {
    let first = curve[0].step,
      lastStep = curve[curve.length - 1].step;
    [first].concat(roundSteps(first, lastStep), curve.length > 1 ? [lastStep] : []).forEach(function (st) {
      g.fillText(String(st), x(st - first), h - 6);
    });
  }
  if (!curve.length) g.fillText('step 0', left + pw / 2, h - 6);
  let line = function (points, color, f) {
    g.strokeStyle = color;
    g.lineWidth = 1.5;
    g.beginPath();
    points.forEach(function (p, i) {
      let px = x(i),
        py = f(p);
      if (i) g.lineTo(px, py);
      else g.moveTo(px, py);
    });
    g.stroke();
  };
  let lossY = function (p) {
      return y(p.loss);
    },
    accY = function (p) {
      return ya(p.accuracy);
    };
  line(curve, col.line, lossY);
  line(curve, col.ok, accY);
  if (twinCurve.length) {
    g.setLineDash([4, 3]);
    line(twinCurve, col.line, lossY);
    line(twinCurve, col.ok, accY);
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
