// MHA Explorer, the model page — how the heads off are switched off (model.forward's ablation): their output before
// the output projection (TransformerLens's hook_z) zeroed, replaced by its mean over the text's positions (mean
// ablation), or by their output on another text of the same token count (resample ablation); the choice under "Switch
// heads off", its words beside the top 5. ctx: context.js's.
import { el } from '../widgets/dom.js';

const MODES = [
  ['zero', 'zeroed'],
  ['mean', 'replaced by its mean over the positions'],
  ['resample', 'replaced by its output on another text'],
];

// The ablation in words, for the predictions' note and the side panel (S: the page's state).
export function ablationWords(S) {
  const n = S.enc ? S.enc.ids.length : 0;
  if (S.ablation === 'mean')
    return 'each one’s output replaced by its mean over the text’s ' + n + ' positions (mean ablation)';
  if (S.ablation === 'resample')
    return 'each one’s output replaced by its output on “' + S.resampleText + '” (resample ablation)';
  return 'each one’s output zeroed before the output projection';
}

// model.forward's {ablation, resampleFrom} for the text enc, or {refused: words} (another text of another count).
export function ablationOptions(S, enc) {
  if (S.ablation !== 'resample') return { ablation: S.ablation };
  let other;
  try {
    other = S.model.tokenize(S.resampleText).ids;
  } catch (err) {
    return { refused: 'The tokenizer could not read the other text: ' + err.message };
  }
  if (other.length !== enc.ids.length)
    return {
      refused:
        'Resampling takes the heads’ output on another text of the same token count: the text has ' +
        enc.ids.length +
        ' tokens and the other text ' +
        other.length +
        '. Change one of them.',
    };
  return { ablation: 'resample', resampleFrom: Array.from(other) };
}

// The choice (radios and the other text's box) after the heads-off buttons. onChange: the heads off computed again.
export function createAblationMode(ctx, onChange) {
  const { S, $ } = ctx;
  const box = el('div', { class: 'mp-ablation' });
  box.appendChild(el('p', { class: 'mp-ablation-how', id: 'ablation-how' }, 'A head off has its output'));
  const group = box.appendChild(
    el('div', { class: 'mp-buttons', role: 'radiogroup', 'aria-labelledby': 'ablation-how' }),
  );
  const radios = MODES.map(([value, text]) => {
    const label = group.appendChild(el('label', { class: 'mp-radio' }));
    const r = label.appendChild(el('input', { type: 'radio', name: 'ablation', value }));
    label.append(' ' + text);
    r.addEventListener('change', () => r.checked && set({ ablation: value }));
    return r;
  });
  const field = box.appendChild(el('div', { class: 'field' }));
  field.appendChild(el('label', { for: 'resample-text' }, 'The other text (as many tokens as the text)'));
  const other = field.appendChild(el('textarea', { id: 'resample-text', rows: '2', spellcheck: 'false' }));
  other.addEventListener('input', () => set({ text: other.value }));
  const note = box.appendChild(el('p', { class: 'note', 'aria-live': 'polite' }));
  $('off-desc').parentElement.querySelector('[aria-labelledby="off-title"]').after(box);
  // {ablation, text} → the heads off computed again (a promise)
  const set = (o) => {
    if (o.ablation != null) S.ablation = o.ablation;
    if (o.text != null) S.resampleText = String(o.text);
    update();
    return onChange();
  };
  const update = () => {
    radios.forEach((r) => (r.checked = r.value === S.ablation));
    other.value = S.resampleText;
    field.hidden = S.ablation !== 'resample';
    const words = 'Heads off have ' + ablationWords(S) + '.';
    const refused = S.ablation === 'resample' && S.model && S.enc ? ablationOptions(S, S.enc).refused : '';
    note.textContent = refused || words;
  };
  update();
  return { set, update, dispose: () => box.remove() };
}
