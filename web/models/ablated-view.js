// MHA Explorer, the model page — the attention with heads switched off: a head off changes what every layer above it
// receives, so its attention too. With heads off the grid, the enlarged head and "where a token looks" show the
// ablated model's attention (S.offOut: forward.js's forward with headsOff), with a choice of the full model's and of
// the difference (ablated − full) on a diverging scale, one for every head (its largest |change|). ctx: context.js's.
import { el } from '../widgets/dom.js';
import { legendStops, fmtMax } from '../widgets/colors.js';
import { DEFAULT_SCALE, DIVERGING } from '../state/scales.js';
import { headMatrix, dimsOf } from './attentions.js';
import { describeHeads } from './ablate.js';

const MODES = [
  ['ablated', 'With the heads off'],
  ['full', 'Full model'],
  ['diff', 'Difference (off − full)'],
];

// ablated − full, element by element, and the largest |difference| (0 when they are equal). No DOM.
export function attentionDifference(full, off) {
  if (full.data.length !== off.data.length) throw new Error('the two attentions differ in shape');
  const data = new Float32Array(full.data.length);
  let max = 0;
  for (let i = 0; i < data.length; i++) {
    const d = off.data[i] - full.data[i];
    data[i] = d;
    if (Math.abs(d) > max) max = Math.abs(d);
  }
  return { shape: full.shape.slice(), data, max };
}

// The lowest layer with a head off (-1 with none): the layers above it are the ones whose attention changes.
export const lowestOff = (heads) => (heads.length ? Math.min(...heads.map((x) => x[0])) : -1);

export function createAblatedView(ctx) {
  const { S } = ctx;
  const box = el('div', { class: 'mp-attn-mode', hidden: '' });
  const group = box.appendChild(
    el('div', { class: 'mp-buttons', role: 'radiogroup', 'aria-label': 'Attention shown' }),
  );
  const radios = MODES.map(([value, text]) => {
    const label = group.appendChild(el('label', { class: 'mp-radio' }));
    const r = label.appendChild(el('input', { type: 'radio', name: 'attn-mode', value }));
    label.append(' ' + text);
    r.addEventListener('change', () => {
      if (!r.checked) return;
      S.attnMode = value;
      ctx.redrawAttention();
    });
    return r;
  });
  const note = box.appendChild(el('p', { class: 'note', 'aria-live': 'polite' }));
  ctx.$('grid').before(box);
  let diff = null; // {of: S.offOut, ...attentionDifference}: made when the difference is first shown
  const on = () => S.headsOff.length > 0 && !!S.out;
  // the mode asked for; until the heads-off attentions are there (forward.js computes them), the full model's drawn
  const asked = () => (on() ? S.attnMode || 'ablated' : 'full');
  const mode = () => (S.offOut ? asked() : 'full');
  // the maps of the full and the ablated model as drawn (writes-view.js: weighted by ‖v·W_O‖ in the norm view)
  const weigh = (a) => (ctx.writesView ? ctx.writesView.weigh(a) : a);
  const difference = () => {
    const full = weigh(S.out.attentions),
      off = weigh(S.offOut);
    if (!diff || diff.of !== off || diff.full !== full) {
      const d = attentionDifference(full, off),
        k = d.max > 0 ? 0.5 / d.max : 0;
      const unit = new Float32Array(d.data.length); // 0 … 1 for the colour scale, ½ at no change
      for (let i = 0; i < unit.length; i++) unit[i] = 0.5 + d.data[i] * k;
      diff = { of: off, full, ...d, unit: { shape: d.shape, data: unit } };
    }
    return diff;
  };
  return {
    mode,
    // the attentions the enlarged head and "where a token looks" read: the ablated model's unless the full is asked
    weights: () => weigh(mode() === 'full' ? S.out.attentions : S.offOut),
    // what the grid draws: {mat(l, h), scale, legend(box), note}
    grid: () => gridSource(S, mode(), mode() === 'diff' ? difference() : null, weigh),
    update: () => {
      box.hidden = !on();
      radios.forEach((r) => (r.checked = r.value === asked()));
      note.textContent = !on()
        ? ''
        : S.ablationRefused
          ? S.ablationRefused + ' The grid shows the full model’s attention.'
          : S.offOut || asked() === 'full'
            ? modeNote(S, mode())
            : 'Computing the attention with the heads off: the grid shows the full model’s until then.';
    },
    dispose: () => {
      box.remove();
      diff = null;
    },
  };
}

// The grid's drawing of one mode: each head's matrix (its raw values as mat.raw: the tooltip's), scale and legend.
function gridSource(S, mode, diff, weigh) {
  if (mode !== 'diff') {
    const a = weigh(mode === 'full' ? S.out.attentions : S.offOut);
    return { mat: (l, h) => headMatrix(a, l, h), scale: DEFAULT_SCALE, legend: null };
  }
  return {
    mat: (l, h) => Object.assign(headMatrix(diff.unit, l, h), { raw: headMatrix(diff, l, h).data }),
    scale: DIVERGING.name,
    legend: (box) => divergingLegend(box, diff.max),
  };
}

// "−m [red … white … blue] +m ablated − full": the difference's legend (m: its largest |value|).
function divergingLegend(box, m) {
  const key = 'diff|' + m;
  if (box._key === key) return;
  box._key = key;
  box.textContent = '';
  const bar = el('span', { class: 'legend-bar', 'aria-hidden': 'true' });
  bar.style.background = 'linear-gradient(90deg,' + legendStops(DIVERGING.name).join(',') + ')';
  box.append(
    el('span', { class: 'legend-lo' }, '−' + fmtMax(m || 0)),
    bar,
    el('span', { class: 'legend-hi' }, '+' + fmtMax(m || 0)),
  );
  box.append(el('span', { class: 'legend-what' }, 'ablated − full'));
}

// The words under the choice: what the grid shows and which layers changed.
function modeNote(S, mode) {
  const i = S.info,
    low = lowestOff(S.headsOff),
    { L } = dimsOf(S.out.attentions);
  const changed =
    low + 1 < L
      ? low + 2 < L
        ? 'layers ' + (low + 1) + '–' + (L - 1) + ' attend otherwise'
        : 'layer ' + (low + 1) + ' attends otherwise'
      : 'no layer above them, so no attention changes';
  const what = {
    ablated: 'The grid shows the attention of the model with the heads off',
    full: 'The grid shows the full model’s attention',
    diff: 'The grid shows each weight with the heads off minus the full model’s, on a diverging scale (red: less, blue: more, white: no change); the enlarged head and “where a token looks” show the heads-off attention',
  }[mode];
  return (
    what +
    '. Heads off: ' +
    describeHeads(S.headsOff, i.layers, i.heads) +
    '; layer ' +
    low +
    ' and below are unchanged, ' +
    changed +
    (i.hasLmHead
      ? '.'
      : '. This checkpoint has no prediction head: heads off change the attention of later layers and the embeddings, but no prediction.')
  );
}
