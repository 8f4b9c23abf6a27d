// @ts-check
// MHA Explorer — the attention view's shape trace: the pipeline (Mix, Split, Attend, Concat, Mix) over the table of
// the trace's steps; hovering or focusing a row highlights its stage. Hidden when the view has no trace.
import { el } from '../widgets/dom.js';
import { traceTable, pipeline, highlightStep } from '../widgets/trace.js';

export class AttentionTrace {
  // Appends the trace's elements to root.
  constructor(root) {
    this.box = root.appendChild(el('div', { class: 'mhav-trace' }));
    this.box.appendChild(el('h3', { class: 'mhav-sub' }, 'Shape trace'));
    this.box.appendChild(
      el('p', { class: 'mhav-note' }, 'Hover or focus a row (↑/↓ move) to highlight its pipeline stage.'),
    );
    this.pipeline = this.box.appendChild(
      el('div', { class: 'pipeline', role: 'img', 'aria-label': 'Pipeline: Mix, Split, Attend, Concat, Mix' }),
    );
    pipeline(this.pipeline);
    const scroll = this.box.appendChild(el('div', { class: 'mhav-scroll' }));
    const table = scroll.appendChild(el('table', { class: 'trace' }));
    const thr = table.appendChild(el('thead')).appendChild(el('tr'));
    ['#', 'Step', 'PyTorch expression', 'Shape', 'Strides', 'Contiguous'].forEach((t) =>
      thr.appendChild(el('th', { scope: 'col' }, t)),
    );
    this.body = table.appendChild(el('tbody'));
  }
  // trace: the steps ({op or name, shape, strides, contiguous}), or null.
  draw(trace) {
    this.box.hidden = !trace;
    if (trace) traceTable(this.body, trace, (i) => highlightStep(this.body, this.pipeline, i), null);
  }
}
