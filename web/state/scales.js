// @ts-check
// MHA Explorer — the colour scales, one registry (no DOM): a scale added here is a value of the page's `scale`
// property (state/page.js), an option of its picker (explorer/controls.js fills it from SCALES), a scale of the
// attention view (views/attention.js; types/view.d.mts names them, checked by tests/node/protocol.test.mjs), and drawn
// by the legend, the heatmaps and the exports (widgets/colors.js interpolates its anchors into 256 colours).
// Each: {name (the URL value), label (the picker's text), anchors (evenly spaced colours, lowest value first)}.
/** @typedef {{name: string, label: string, anchors: string[]}} Scale */
/** @type {Scale[]} */
export const SCALES = [
  // matplotlib 'Blues' (ColorBrewer), the lessons' scale
  {
    name: 'blues',
    label: 'Blues',
    anchors: ['#f7fbff', '#deebf7', '#c6dbef', '#9ecae1', '#6baed6', '#4292c6', '#2171b5', '#08519c', '#08306b'],
  },
  // 'cividis': perceptually uniform and readable with colour-vision deficiencies
  {
    name: 'cividis',
    label: 'Cividis (CVD-safe)',
    anchors: [
      '#00224e',
      '#123570',
      '#3b496c',
      '#575d6d',
      '#707173',
      '#8a8779',
      '#a69d75',
      '#c4b56c',
      '#e4cf5b',
      '#fee838',
    ],
  },
];
export const DEFAULT_SCALE = 'blues';
// The model page's difference view's diverging scale (ColorBrewer RdBu, red lowest, white at the middle, blue
// highest): found by name for the colour tables, not one of SCALES (the pages' picker, the view's `scale`).
/** @type {Scale} */
export const DIVERGING = {
  name: 'rdbu',
  label: 'Red–blue (diverging)',
  anchors: [
    '#67001f',
    '#b2182b',
    '#d6604d',
    '#f4a582',
    '#fddbc7',
    '#f7f7f7',
    '#d1e5f0',
    '#92c5de',
    '#4393c3',
    '#2166ac',
    '#053061',
  ],
};
export const SCALE_NAMES = SCALES.map((s) => s.name);
export const scaleByName = (name) =>
  SCALES.find((s) => s.name === name) || (name === DIVERGING.name ? DIVERGING : undefined);

// The words beside a legend whose range is not 0 … 1 ('' when it is), where the student reads the scale: forward
// ({dropout, train}: the forward's, or null), norm (the page's colour range) and vmax (the legend's top).
/** @param {{dropout: number, train: boolean} | null} forward @param {string} norm @param {number} vmax */
export function rangeNote(forward, norm, vmax) {
  if (norm === 'max') return 'Each heatmap runs from 0 to its own largest weight.';
  if (vmax > 1 && forward && forward.train && forward.dropout > 0) {
    return (
      'Above 1: in train() dropout scales the weights it keeps by 1/(1 − ' +
      forward.dropout +
      ') = ' +
      (1 / (1 - forward.dropout)).toFixed(2) +
      '.'
    );
  }
  if (vmax < 1) return 'Top: the largest weight of any head, not 1.';
  return '';
}
