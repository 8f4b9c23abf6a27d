// MHA Explorer — the shape trace of the forward pass (lesson 004's table, worded by widgets/trace.js)
// beside the Mix → Split → Attend → Concat → Mix diagram; a hovered or focused row lights its stage.
import { $, setText } from './page-dom.js';
import { traceTable, highlightStep } from './widgets/trace.js';

export function drawTrace(cur) {
  var r = cur.res, trace = r.trace || [];
  setText('trace-note', !trace.length ? 'Hand-built weights: there is no forward pass here, so no shapes to trace. ' +
    'Pick another example of the lesson to see its trace.' : 'Live for B=' + r.B + ', S=' + r.S + ', D=' + r.D + ', H=' + r.H +
    ' (d_k=' + (r.D / r.H) + '). Hover or focus a row (↑/↓ move) to highlight its pipeline stage.');
  // the mask as the forward applied it: a fixed lesson's result says its own fill (r.shown), the page's is eff's
  var fill = r.shown ? r.shown.fill : cur.eff.fill, style = cur.cfg ? cur.cfg.maskStyle : 'tril-keep';
  var mask = r.causal && trace.length ? { style: style, fill: fill } : null;
  traceTable($('trace-body'), trace, highlight, mask);   // rebuilds the rows only when the trace changed
  highlight(null);
}
function highlight(i) { highlightStep($('trace-body'), $('pipeline'), i); }
