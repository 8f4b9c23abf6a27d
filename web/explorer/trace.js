// MHA Explorer — the shape trace of the forward pass (lesson 004's table, worded by widgets/trace.js)
// beside the Mix → Split → Attend → Concat → Mix diagram; a hovered or focused row lights its stage.
import { traceTable, highlightStep } from '../widgets/trace.js';
import { OffScreen, largeResult } from './offscreen.js';

export class TracePanel {
  constructor(scope) {
    this.scope = scope;
    this.offScreen = new OffScreen(scope.$('trace-body').closest('[data-section]') || scope.$('trace-body'));
  }
  // A large result's trace waits while the table is off screen (offscreen.js).
  draw(cur) {
    this.offScreen.run(() => this.drawNow(cur), largeResult(cur));
  }
  clear() {
    this.offScreen.drop();
  }
  dispose() {
    this.offScreen.dispose();
  }
  drawNow(cur) {
    const $ = (n) => this.scope.$(n),
      r = cur.res,
      trace = r.trace || [];
    this.scope.setText(
      'trace-note',
      !trace.length
        ? 'Hand-built weights: there is no forward pass here, so no shapes to trace. ' +
            'Pick another example of the lesson to see its trace.'
        : 'Live for B=' +
            r.B +
            ', S=' +
            r.S +
            ', D=' +
            r.D +
            ', H=' +
            r.H +
            ' (d_k=' +
            r.D / r.H +
            '). Hover or focus a row (↑/↓ move) to highlight its pipeline stage.',
    );
    const mask = trace.length ? cur.forward.mask : null; // as the forward applied it
    const highlight = (i) => highlightStep($('trace-body'), $('pipeline'), i);
    traceTable($('trace-body'), trace, highlight, mask); // rebuilds the rows only when the trace changed
    highlight(null);
  }
}
