// MHA Explorer — colour scales (256-entry lookup tables from scales.js's anchor colours), the colour of a value,
// a matrix's colour range, and the numbered legend.
import { el } from './dom.js';
import { scaleByName } from '../state/scales.js';

const LUTS = {},
  LUT32 = {};
const LITTLE = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const hex = (h) => [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)];

// name → Uint8ClampedArray(256·3) of r, g, b
export function lut(name) {
  if (LUTS[name]) return LUTS[name];
  const a = scaleByName(name).anchors.map(hex),
    out = new Uint8ClampedArray(256 * 3);
  for (let i = 0; i < 256; i++) {
    const t = (i / 255) * (a.length - 1),
      k = Math.min(a.length - 2, Math.floor(t)),
      f = t - k;
    for (let c = 0; c < 3; c++) out[i * 3 + c] = Math.round(a[k][c] * (1 - f) + a[k + 1][c] * f);
  }
  return (LUTS[name] = out);
}
// name → Uint32Array(256) of opaque RGBA pixels in the platform's byte order (for ImageData)
export function lut32(name) {
  if (LUT32[name]) return LUT32[name];
  const L = lut(name),
    out = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    const r = L[i * 3],
      g = L[i * 3 + 1],
      b = L[i * 3 + 2];
    out[i] = LITTLE ? ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0 : ((r << 24) | (g << 16) | (b << 8) | 255) >>> 0;
  }
  return (LUT32[name] = out);
}
export function colorOf(name, t) {
  const L = lut(name),
    i = t > 0 ? Math.min(255, Math.round(t * 255)) : 0; // NaN and negatives: the scale's 0
  return 'rgb(' + L[i * 3] + ',' + L[i * 3 + 1] + ',' + L[i * 3 + 2] + ')';
}
// The top of a matrix's colour range: 1 (norm 'one'), its 99th percentile ('p99'), or its largest finite value (1 when
// none is above 0).
export function rangeOf(data, norm) {
  if (norm === 'one') return 1;
  if (norm === 'p99') return quantileTop([data]); // its 99th percentile: the top 1% in the top colour
  let mx = 0;
  for (let i = 0; i < data.length; i++) if (data[i] > mx && data[i] !== Infinity) mx = data[i];
  return mx > 0 ? mx : 1;
}
export function legendStops(scale) {
  const st = [];
  for (let i = 0; i <= 8; i++) st.push(colorOf(scale, i / 8));
  return st;
}
export function fmtMax(v) {
  return v >= 0.1 ? v.toFixed(2) : v.toPrecision(2);
}

// The legend: "0 [gradient] vmax" (vmax as text), rebuilt only when the scale or its top changes.
export function legend(container, scale, vmax) {
  if (container._key === scale + '|' + vmax) return; // unchanged: keep the DOM
  container._key = scale + '|' + vmax;
  container.textContent = '';
  const bar = el('span', { class: 'legend-bar', 'aria-hidden': 'true' });
  bar.style.background = 'linear-gradient(90deg,' + legendStops(scale).join(',') + ')';
  container.appendChild(el('span', { class: 'legend-lo' }, '0'));
  container.appendChild(bar);
  container.appendChild(el('span', { class: 'legend-hi' }, vmax));
}

// The q-th quantile of the arrays' values together (the model page's per-head and per-layer colour ranges): with the n values sorted, the one at
// floor(q · (n − 1)) (quickselect on a copy); its largest value when that is 0, and 1 when no value is above 0.
export function quantileTop(arrays, q = 0.99) {
  const n = arrays.reduce((a, d) => a + d.length, 0),
    v = new Float32Array(n);
  let at = 0,
    max = 0;
  for (const d of arrays) {
    v.set(d, at);
    at += d.length;
  }
  for (let i = 0; i < n; i++) if (!(v[i] <= max)) max = Number.isFinite(v[i]) ? v[i] : max;
  if (!(max > 0)) return 1;
  const k = Math.floor(q * (n - 1)),
    top = select(v, k);
  return top > 0 ? top : max;
}

// The k-th smallest of v (reordered in place): Hoare's quickselect with the middle element as pivot.
function select(v, k) {
  let lo = 0,
    hi = v.length - 1;
  while (lo < hi) {
    const pivot = v[(lo + hi) >> 1];
    let i = lo,
      j = hi;
    while (i <= j) {
      while (v[i] < pivot) i++;
      while (v[j] > pivot) j--;
      if (i <= j) {
        const t = v[i];
        v[i++] = v[j];
        v[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return v[k];
  }
  return v[k];
}
