// MHA Explorer — the colour scales, one registry (no DOM): a scale added here is a value of the page's `scale`
// property (state/page.js), an option of its picker (app.js builds it from SCALES), and drawn by the legend,
// the heatmaps and the exports (colors.js interpolates its anchors into 256 colours).
// Each: {name (the URL value), label (the picker's text), anchors (evenly spaced colours, lowest value first)}.
export const SCALES = [
  // matplotlib 'Blues' (ColorBrewer), the lessons' scale
  { name: 'blues', label: 'Blues',
    anchors: ['#f7fbff', '#deebf7', '#c6dbef', '#9ecae1', '#6baed6', '#4292c6', '#2171b5', '#08519c', '#08306b'] },
  // 'cividis': perceptually uniform and readable with colour-vision deficiencies
  { name: 'cividis', label: 'Cividis (CVD-safe)',
    anchors: ['#00224e', '#123570', '#3b496c', '#575d6d', '#707173', '#8a8779', '#a69d75', '#c4b56c', '#e4cf5b', '#fee838'] }
];
export const DEFAULT_SCALE = 'blues';
export const SCALE_NAMES = SCALES.map((s) => s.name);
export const scaleByName = (name) => SCALES.find((s) => s.name === name);
