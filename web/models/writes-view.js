// MHA Explorer, the model page — what a head writes, not only where it looks (Kobayashi et al. 2020, "Attention is
// not only a weight"): each weight α_ij times ‖v_j·W_O^h‖, the norm of what key j writes through head h (its value
// vector, bias in, through the head's rows of the output projection, no bias), as a toggle beside the grid's
// colours; the grid, the enlarged head and "where a token looks" then read α·‖v·W_O‖. The norms are the core's
// (model.forward's writes [L, H, T]), of the model whose attention is shown. ctx: context.js's.
import { el } from '../widgets/dom.js';
import { dimsOf } from './attentions.js';

// α [L, 1, H, T, T] · writes [L, H, T] broadcast over the queries (each key's column scaled). No DOM.
export function weightedByWrites(attentions, writes) {
  const { L, H, T } = dimsOf(attentions),
    a = attentions.data,
    w = writes.data || writes;
  if (w.length !== L * H * T) throw new Error('the norms are not [L, H, T] of these attentions');
  const data = new Float32Array(a.length);
  for (let lh = 0; lh < L * H; lh++)
    for (let i = 0; i < T; i++) {
      const row = (lh * T + i) * T;
      for (let j = 0; j < T; j++) data[row + j] = a[row + j] * w[lh * T + j];
    }
  return { shape: attentions.shape.slice(), data };
}

export function createWritesView(ctx, redraw) {
  const { S, $ } = ctx;
  const field = el('div', { class: 'field mp-weighting' });
  const label = field.appendChild(el('label', { class: 'mp-check' }));
  const box = label.appendChild(el('input', { type: 'checkbox', id: 'weighting' }));
  label.append(' Weigh each weight by what its key writes (α·‖v·W_O‖)');
  const note = field.appendChild(el('p', { class: 'note', 'aria-live': 'polite' }));
  $('range').parentElement.after(field);
  const made = new WeakMap(); // attentions → their weighted maps
  let asking = null;
  // The full model's norms of the text shown, asked once per text (the heads-off forward brings its own).
  const askFull = () => {
    if (asking || S.writes || !S.model || !S.enc) return;
    const m = S.model,
      enc = S.enc;
    const busy = ctx.busy.start('Computing what each key writes…');
    asking = m
      .forward(enc.ids, { attentions: false, writes: true, logitsAt: [] })
      .then(
        (out) => {
          if (m === S.model && enc === S.enc) S.writes = out.writes;
        },
        (err) => ctx.say('writes', err.cancelled ? '' : 'What each key writes could not be computed: ' + err.message),
      )
      .finally(() => {
        busy.end();
        asking = null;
        redraw();
      });
  };
  box.addEventListener('change', () => set(box.checked ? 'norm' : 'attention'));
  // 'norm' | 'attention' → a promise once drawn
  const set = (w) => {
    S.weighting = w === 'norm' ? 'norm' : 'attention';
    if (S.weighting === 'norm' && S.headsOff.length && !S.offWrites) S.offOut = null; // its forward again, with norms
    redraw();
    return Promise.resolve(asking).then(() => ctx.ablation);
  };
  return {
    set,
    // the maps to draw for attentions a (the full model's or the ablated one's): weighted in the norm view once its
    // norms are there, else a itself
    weigh(a) {
      if (S.weighting !== 'norm' || !a) return a;
      const w = a === S.offOut ? S.offWrites : S.writes;
      if (!w) {
        if (a !== S.offOut) askFull();
        return a;
      }
      if (!made.has(a) || made.get(a).w !== w) made.set(a, { w, maps: weightedByWrites(a, w) });
      return made.get(a).maps;
    },
    // whether the maps drawn are weighted (their values are not probabilities: no 0-to-1 scale)
    on: () => S.weighting === 'norm',
    update() {
      box.checked = S.weighting === 'norm';
      note.textContent =
        S.weighting !== 'norm'
          ? ''
          : (S.writes ? '' : 'Computing the norms… ') +
            'Each weight α times ‖v·W_O‖ of its key: how much of the key’s value the head writes into the residual stream' +
            ' (before the output projection’s bias), not only how much it looks' +
            (S.range === 'one' ? ': the values are not probabilities, so the colours run per layer.' : '.');
    },
    dispose: () => field.remove(),
  };
}
