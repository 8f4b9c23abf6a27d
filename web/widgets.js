// MHA Explorer — the widgets as one object for the modules written against it (the lab, the lessons): the
// pieces live in web/widgets/ (dom, colors, heatmap, lines, trace, export, tooltip, heads), element-scoped and
// shared by the page and the attention view (web/views/attention.js). Token chips are the page's own.
import { el, setAttr, shortLabel } from './widgets/dom.js';
import { lut, colorOf, rangeOf, legend } from './widgets/colors.js';
import { drawHeatmap, cellAt, topKeys } from './widgets/heatmap.js';
import { lineView, matrixTable, LINE_ROWS, LINE_TOP } from './widgets/lines.js';
import { traceWords, traceTable, pipeline, STAGES } from './widgets/trace.js';
import { exportSVG, exportPNG } from './widgets/export.js';

// ---- Token chips ----------------------------------------------------------------------------------
export function chips(container, tokens, max) {
  const n = Math.min(tokens.length, max || 80);
  const key = tokens.length + '|' + n + '|' + tokens.slice(0, n).join('\u0001');
  if (container._key === key && container.firstChild) return;   // unchanged: keep the DOM
  container._key = key;
  container.textContent = '';
  for (let i = 0; i < n; i++) {
    const c = el('span', { class: 'chip', title: 'token ' + i }, tokens[i]);
    c.appendChild(el('sub', null, i));
    container.appendChild(c);
  }
  if (tokens.length > n) container.appendChild(el('span', { class: 'chip more' }, '+' + (tokens.length - n) + ' more'));
}

const widgets = {
  el, setAttr, lut, colorOf, rangeOf, drawHeatmap, cellAt, topKeys, legend, chips, traceTable, pipeline, lineView,
  matrixTable, exportSVG, exportPNG, shortLabel, STAGES, traceWords, LINE_ROWS, LINE_TOP
};
export default widgets;
