// MHA Explorer — the shape trace drawn: the trace table (#, operation, PyTorch expression, shape, strides, contiguous;
// each step worded by lessons/trace-words.js) and the Mix → Split → Attend → Concat → Mix pipeline whose stage lights
// up for the hovered or focused row.
import { el } from './dom.js';
import { traceWords } from '../lessons/trace-words.js';

export const STAGES = ['Mix', 'Split', 'Attend', 'Concat', 'Mix'];
const STAGE_HELP = [
  'W_q, W_k, W_v: each output dim mixes all D inputs',
  'view + transpose into [B, H, S, d_k]',
  'softmax(QKᵀ/√d_k)·V per head, in parallel',
  'transpose back + contiguous().view to [B, S, D]',
  'W_o blends the heads',
];
// onFocus(i): a row was hovered or focused (rows are focusable only then); mask: as traceWords'.
export function traceTable(tbody, trace, onFocus, mask) {
  const key = JSON.stringify(trace) + '|' + (mask ? mask.style + ' ' + mask.fill : '');
  if (tbody._key === key && tbody.childNodes.length === trace.length) return; // unchanged
  tbody._key = key;
  tbody.textContent = '';
  const words = traceWords(trace, mask);
  trace.forEach((t, i) => {
    const w = words[i];
    const tr = el(
      'tr',
      onFocus
        ? { 'data-step': String(i), tabindex: '0', 'data-stage': String(w.stage) }
        : { 'data-step': String(i), 'data-stage': String(w.stage) },
    );
    tr.appendChild(el('td', { class: 'num', 'data-label': '#' }, i));
    const stepCell = el('td', { 'data-label': 'Operation' });
    stepCell.appendChild(el('div', null, w.label));
    if (w.description) stepCell.appendChild(el('small', { class: 'desc' }, w.description));
    tr.appendChild(stepCell);
    const code = el('td', { 'data-label': 'PyTorch' });
    code.appendChild(el('code', null, w.expr));
    tr.appendChild(code);
    tr.appendChild(el('td', { class: 'mono', 'data-label': 'Shape' }, '[' + (t.shape || []).join(', ') + ']'));
    tr.appendChild(
      el('td', { class: 'mono', 'data-label': 'Strides' }, t.strides ? '(' + t.strides.join(', ') + ')' : ''),
    );
    const ok = t.contiguous;
    tr.appendChild(el('td', { class: ok ? 'yes' : 'no', 'data-label': 'Contiguous' }, ok ? 'yes' : 'no'));
    if (onFocus) {
      tr.addEventListener('mouseenter', () => onFocus(i));
      tr.addEventListener('focus', () => onFocus(i));
      tr.addEventListener('keydown', (e) => {
        if (e.key === 'ArrowDown' && tr.nextSibling) {
          e.preventDefault();
          tr.nextSibling.focus();
        }
        if (e.key === 'ArrowUp' && tr.previousSibling) {
          e.preventDefault();
          tr.previousSibling.focus();
        }
      });
    }
    tbody.appendChild(tr);
  });
}
export function pipeline(container) {
  container.textContent = '';
  STAGES.forEach((s, i) => {
    if (i) container.appendChild(el('span', { class: 'arrow', 'aria-hidden': 'true' }, '→'));
    const b = el('div', { class: 'stage', 'data-stage': String(i), title: STAGE_HELP[i] });
    b.appendChild(el('strong', null, s));
    b.appendChild(el('small', null, STAGE_HELP[i]));
    container.appendChild(b);
  });
}
// Lights row i of a trace table (null: none) and its stage in the pipeline.
export function highlightStep(tbody, pipe, i) {
  const rows = tbody.querySelectorAll('tr');
  const stage = i == null ? null : rows[i] && rows[i].getAttribute('data-stage');
  rows.forEach((tr, k) => tr.classList.toggle('current', k === i));
  if (pipe)
    pipe
      .querySelectorAll('.stage')
      .forEach((s) => s.classList.toggle('current', stage !== null && s.getAttribute('data-stage') === stage));
}
