// MHA Explorer, the model page — the logit lens (model.lens: each layer's residual stream through the final norm and
// the LM head, as TransformerLens's cache.accumulated_resid(apply_ln=True) @ W_U): a layers × positions table of
// each row's top token and its probability (the top 5 on hover), a target token's probability (by default each
// position's final answer), and the row where the final answer first leads marked ★. Computed while the panel is
// open, after the text's frame. createLens(ctx) → {read(target), update(), dispose(), snippet()}.
import { el } from '../widgets/dom.js';
import { topTokens, logSumExp } from './ablate.js';
import { percent } from './predictions.js';
import { addPanel, tokenId, whyNoHead, wireCopy } from './analysis-ui.js';
import { lensSnippet } from './analysis-snippets.js';

const MARKUP = `<section class="panel" aria-labelledby="lens-title">
<h2 id="lens-title">At which layer does the answer appear? (the logit lens)</h2>
<details id="lens-box"><summary>Show each layer’s guess</summary>
<p class="note">Each row is the residual stream after that layer, put through the final norm and the unembedding as if the model stopped there: the top token and its probability at each position (the top 5 on hover). ★ marks the first row where the model’s final answer leads.</p>
<div class="field mp-follow-box"><label for="lens-target">Probability of</label><input id="lens-target" type="text" spellcheck="false" autocomplete="off" placeholder="each position’s final answer"><span id="lens-pieces"></span></div>
<p id="lens-note" class="note" aria-live="polite"></p>
<div class="mp-scroll" tabindex="0" role="region" aria-label="The logit lens"><table id="lens" class="mp-heat mp-lens"></table></div>
<button id="lens-copy" class="btn small" type="button">Copy as Python</button>
</details>
</section>`;

export function createLens(ctx) {
  const { $ } = ctx;
  const section = addPanel(ctx, MARKUP);
  const s = { key: null, out: null, timer: 0 };
  // once per text and target (the target's native change on blur must not rebuild the pieces under the pointer)
  const show = () => {
    const key = (ctx.S.enc ? ctx.S.enc.ids.join(',') : '') + '|' + $('lens-target').value.trim();
    if (key === s.shown && s.model === ctx.S.model) return;
    Object.assign(s, { shown: key, model: ctx.S.model });
    $('lens-note').textContent = 'Computing the lens…'; // painted before the computation (one call into the core)
    const run = async () => {
      if (!section.isConnected) return; // disposed meanwhile
      try {
        const out = await compute(ctx, s, $('lens-target').value.trim());
        if (section.isConnected && key === s.shown) draw(ctx, out);
      } catch (err) {
        $('lens-note').textContent = err.message + '.';
      }
    };
    if (ctx.root.ownerDocument.hidden) run();
    else requestAnimationFrame(() => (s.timer = setTimeout(run, 0)));
  };
  $('lens-box').addEventListener('toggle', () => $('lens-box').open && show());
  $('lens-target').addEventListener('change', show);
  wireCopy(ctx, $('lens-copy'), () => snippetOf(ctx));
  return {
    read: (target) => compute(ctx, s, target == null ? '' : target),
    update: () => {
      section.hidden = !!whyNoHead(ctx.S, 'the lens') && !!ctx.S.model;
      clearTimeout(s.timer);
      if ($('lens-box').open && !section.hidden && !ctx.generating) s.timer = setTimeout(show, 0);
    },
    snippet: () => snippetOf(ctx),
    dispose: () => {
      clearTimeout(s.timer);
      section.remove();
    },
  };
}

// The lens of the shown text for a target (a token as text, an id, or '' for each position's final answer),
// kept while the ids and target stay: {rows, positions, top: [row][pos] = {id, token, prob, top5}, target: [pos]
// (ids), targetProb: [row][pos], leads: [pos] (the first row whose top token is the final answer)}. → a promise.
async function compute(ctx, s, target) {
  const S = ctx.S,
    why = whyNoHead(S, 'the logit lens');
  if (why) throw new Error(why);
  if (!S.enc) throw new Error('the text gives no tokens');
  const fixed =
    target === ''
      ? -1
      : tokenId(ctx, target, ctx.$('lens-pieces'), (id) => {
          ctx.$('lens-target').value = ctx.tokenText(id).replace(/␣/g, ' ');
          ctx.$('lens-target').dispatchEvent(new Event('change'));
        });
  ctx.$('lens-pieces').textContent = '';
  const key = S.enc.ids.join(',') + '|' + fixed;
  if (s.key === key && s.of === S.model) return s.out;
  // a row of logits at a time ([T, V]): the whole lens is (L + 1)·T·V floats (docs/analysis.md)
  const ids = S.enc.ids,
    lens = await S.model.lensRows(ids),
    R = lens.rows,
    T = ids.length;
  const named = (t) => ({ id: t.id, token: S.vocab.tokenOf(t.id), prob: t.prob });
  const top = [],
    targetProb = [];
  let want, final;
  try {
    const last = await lens.row(R - 1),
      V = last.shape[1];
    const cells = (r) => Array.from({ length: T }, (_, p) => r.data.subarray(p * V, (p + 1) * V));
    final = cells(last).map((z) => topTokens(z, 1)[0].id);
    want = final.map((f) => (fixed >= 0 ? fixed : f));
    for (let row = 0; row < R; row++) {
      const zs = cells(row === R - 1 ? last : await lens.row(row));
      const fives = zs.map((z) => topTokens(z, 5));
      top.push(fives.map((five) => Object.assign(named(five[0]), { top5: five.map(named) })));
      targetProb.push(zs.map((z, p) => Math.exp(z[want[p]] - logSumExp(z))));
    }
  } finally {
    lens.dispose();
  }
  const leads = final.map((f, p) => top.findIndex((r) => r[p].id === f));
  if (ids !== S.enc.ids) throw new Error('the text changed while its lens was computed');
  Object.assign(s, { key, of: S.model });
  s.out = { rows: R, positions: T, top, target: want, targetProb, leads };
  return s.out;
}

function draw(ctx, out) {
  const S = ctx.S,
    table = ctx.$('lens');
  table.textContent = '';
  const head = table.appendChild(el('thead')).appendChild(el('tr'));
  head.appendChild(el('th', { scope: 'col' }, 'After'));
  S.enc.texts.forEach((t, p) => head.appendChild(el('th', { scope: 'col' }, p + ': ' + t)));
  const body = table.appendChild(el('tbody'));
  out.top.forEach((row, r) => {
    const tr = body.appendChild(el('tr'));
    tr.appendChild(el('th', { scope: 'row' }, r === 0 ? 'embeddings' : 'layer ' + (r - 1)));
    row.forEach((t, p) => {
      const title = t.top5.map((x) => ctx.tokenText(x.id) + ' ' + percent(x.prob)).join('\n');
      const td = tr.appendChild(el('td', { title, class: out.leads[p] === r ? 'mp-lead' : '' }));
      td.appendChild(el('span', null, (out.leads[p] === r ? '★ ' : '') + ctx.tokenText(t.id) + ' ' + percent(t.prob)));
      td.appendChild(el('small', null, ctx.tokenText(out.target[p]) + ': ' + percent(out.targetProb[r][p])));
      td.style.background = 'rgba(33,113,181,' + (0.4 * out.targetProb[r][p]).toFixed(3) + ')';
    });
  });
  ctx.$('lens-note').textContent =
    out.rows +
    ' rows × ' +
    out.positions +
    ' positions; the shade is the probability of ' +
    (ctx.$('lens-target').value.trim() ? '“' + ctx.tokenText(out.target[0]) + '”' : 'each position’s final answer') +
    '.';
}

function snippetOf(ctx) {
  const S = ctx.S;
  return lensSnippet({
    folder: S.source.folder || 'path/to/the/model/folder',
    dropped: S.source.dropped,
    ids: S.enc ? S.enc.ids : [],
    encoder: !S.info.causal,
    modelType: S.info.modelType,
  });
}
