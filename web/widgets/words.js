// MHA Explorer — a weight in words, as the hover readouts and the cell readout say it.
import { topKeys } from './heatmap.js';

// A weight with six decimals; tiny weights are not "0.000000"; NaN and infinities are named.
export function formatWeight(v) {
  if (Number.isNaN(v)) return 'NaN (not a number)';
  if (!Number.isFinite(v)) return String(v);
  return v !== 0 && Math.abs(v) < 1e-4 ? v.toExponential(2) : v.toFixed(6);
}
// The three largest weights of row q with their key labels, leaving out keys weighted 0 (masked, dropped).
export function topKeysWords(mat, q, labels) {
  const S = mat.S;
  return topKeys(mat, q, 3)
    .filter((j) => mat.data[q * S + j] > 0)
    .map((j) => {
      const v = mat.data[q * S + j];
      return labels[j] + ' ' + (v < 1e-3 ? v.toExponential(1) : v.toFixed(3));
    })
    .join(', ');
}
