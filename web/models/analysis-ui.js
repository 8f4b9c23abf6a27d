// MHA Explorer, the model page — what the panels of issue 41 share (generation.js, lens.js, attribution.js,
// patching.js): a panel's section added to the page, a token typed as text read as one token id (or said to be
// several pieces, offered as buttons), a layers × columns table on a diverging scale, and a Copy as Python button.
import { el } from '../widgets/dom.js';
import { copyWithButton } from '../chrome/clipboard.js';

// A panel's section (its markup) inserted before the selected head's view; → the section.
export function addPanel(ctx, html) {
  const view = ctx.$('view').closest('section');
  view.insertAdjacentHTML('beforebegin', html);
  return view.previousElementSibling;
}

// A causal model with an LM head, or the words saying why a panel is not there.
export function whyNot(S, what) {
  if (!S.model) return 'Load a model to see ' + what + '.';
  if (!S.info.causal || !S.info.hasLmHead)
    return (
      'A ' + S.info.modelType + ' model is not a causal language model: ' + what + ' needs one (GPT-2, Llama, Qwen2).'
    );
  return '';
}

// A model with a head to read each layer through (a causal LM's, or an encoder's MLM head: the lens), or why not.
export function whyNoHead(S, what) {
  if (!S.model) return 'Load a model to see ' + what + '.';
  if (!S.info.hasLmHead)
    return (
      'This ' +
      S.info.modelType +
      ' model has no language-model head (nor an MLM head): ' +
      what +
      ' reads each layer through one (a *ForMaskedLM or *ForCausalLM checkpoint has it).'
    );
  return '';
}

// A token as the student types it ("Mary": the vocabulary's " Mary" for a word) or an id → the id; throws, naming
// the pieces the tokenizer makes of it, when it is not one token. pick(id) (optional): the pieces as buttons in `box`.
export function tokenId(ctx, value, box, pick) {
  const S = ctx.S;
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0 && value < S.info.vocab) return value;
    throw new Error('token ' + value + ' is not an id from 0 to ' + (S.info.vocab - 1));
  }
  const text = String(value);
  const id = text ? S.vocab.findToken(text) : -1;
  if (id >= 0) return id;
  if (box) box.textContent = '';
  const pieces = text ? S.model.tokenize(text).ids : [];
  if (box && pick)
    for (const p of pieces) {
      const b = box.appendChild(el('button', { type: 'button', class: 'btn small' }, ctx.tokenText(p)));
      b.addEventListener('click', () => pick(p));
    }
  const names = pieces.map((p) => '“' + ctx.tokenText(p) + '”').join(' + ');
  throw new Error(
    text
      ? '“' + text + '” is not one token for this tokenizer' + (names ? ': it is ' + names + '; pick one piece' : '')
      : 'type a token',
  );
}

// A diverging colour for v in [-m, m]: blue above 0, red below (see-through, so the text keeps its contrast).
const shade = (v, m) =>
  m > 0 && v ? (v > 0 ? 'rgba(33,113,181,' : 'rgba(203,24,29,') + Math.min(0.45, (0.45 * Math.abs(v)) / m) + ')' : '';

// table ← rows × columns of values (rows: [{label, values}]), each cell its value to `digits` decimals, coloured on
// one diverging scale (the largest |v| of all) ; columns: the header labels.
export function heatTable(table, columns, rows, digits = 3) {
  let m = 0;
  for (const r of rows) for (const v of r.values) if (Math.abs(v) > m && Number.isFinite(v)) m = Math.abs(v);
  table.textContent = '';
  const head = table.appendChild(el('thead')).appendChild(el('tr'));
  head.appendChild(el('th', { scope: 'col' }, ''));
  for (const c of columns) head.appendChild(el('th', { scope: 'col' }, c));
  const body = table.appendChild(el('tbody'));
  for (const r of rows) {
    const tr = body.appendChild(el('tr'));
    tr.appendChild(el('th', { scope: 'row' }, r.label));
    for (const v of r.values) {
      const td = tr.appendChild(el('td', null, v.toFixed(digits).replace('-', '−')));
      td.style.background = shade(v, m);
    }
  }
  return m;
}

// The panel's "Copy as Python" button: copies text() (a string or a promise of it; through the page's copy-out box
// when the clipboard refuses).
export function wireCopy(ctx, button, text) {
  button.addEventListener('click', () => {
    if (ctx.S.model) Promise.resolve(text()).then((t) => copyWithButton(t, ctx.$('copy-out'), button));
  });
}

// A whole number from an input within [lo, hi] (its default when empty), or a message naming the field.
export function readNumber(input, name, lo, hi, whole = true) {
  const raw = input.value.trim(),
    v = raw === '' ? NaN : Number(raw);
  if (!(Number.isFinite(v) && v >= lo && v <= hi && (!whole || Number.isInteger(v))))
    throw new Error(name + ' must be ' + (whole ? 'a whole number' : 'a number') + ' from ' + lo + ' to ' + hi);
  return v;
}
