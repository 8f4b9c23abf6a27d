// MHA Explorer, the model page — which head made the model say it (direct logit attribution, model.attribute: each
// head's output through the final norm's scale onto a token's unembedding, or the difference of two, as
// TransformerLens's stack_head_results(apply_ln=True) with its default weight processing): a layers × heads table on a
// diverging scale, the MLPs' row, the embeddings' and biases' terms, and their sum beside the model's logit.
// createAttribution(ctx) → {read({position, tokens}), update(), dispose(), snippet()}.
import { el } from '../widgets/dom.js';
import { topTokens } from './ablate.js';
import { addPanel, heatTable, tokenId, whyNot, wireCopy } from './analysis-ui.js';
import { attributionSnippet } from './analysis-snippets.js';

const MARKUP = `<section class="panel" aria-labelledby="dla-title">
<h2 id="dla-title">Which head pushes the answer? (direct logit attribution)</h2>
<details id="dla-box"><summary>Show each head’s direct effect on a logit</summary>
<p class="note">What each head writes into the residual stream, through the final norm’s scale at that position, onto the token’s unembedding (or the difference of two tokens’): blue pushes the logit up, red down. With one token the terms add up to its logit minus the mean logit (TransformerLens centres the unembedding); with two, to the logit difference itself.</p>
<div class="mp-row">
<div class="field"><label for="dla-pos">At position</label><select id="dla-pos"></select></div>
<div class="field"><label for="dla-a">Token</label><input id="dla-a" type="text" spellcheck="false" autocomplete="off" placeholder="the model’s top token"></div>
<div class="field"><label for="dla-b">minus token (optional)</label><input id="dla-b" type="text" spellcheck="false" autocomplete="off"></div>
</div>
<p id="dla-pieces"></p>
<p id="dla-note" class="note" aria-live="polite"></p>
<div class="mp-scroll" tabindex="0" role="region" aria-label="Each head’s direct effect"><table id="dla" class="mp-heat"></table></div>
<button id="dla-copy" class="btn small" type="button">Copy as Python</button>
</details>
</section>`;

export function createAttribution(ctx) {
  const { $ } = ctx;
  const section = addPanel(ctx, MARKUP);
  const s = { timer: 0, last: null };
  // once per text and inputs (an input's native change on blur must not rebuild the pieces under the pointer)
  const show = () => {
    const key = (ctx.S.enc ? ctx.S.enc.ids.join(',') : '') + '|' + JSON.stringify(readInputs(ctx));
    if (key === s.shown && s.model === ctx.S.model) return;
    Object.assign(s, { shown: key, model: ctx.S.model });
    compute(ctx, readInputs(ctx)).then(
      (r) => key === s.shown && section.isConnected && draw(ctx, (s.last = r)),
      (err) => ($('dla-note').textContent = err.message + '.'),
    );
  };
  // the snippet of the attribution shown (computed first when none is): a string, or a promise of it
  const snippet = () =>
    s.last ? snippetOf(ctx, s.last) : compute(ctx, readInputs(ctx)).then((r) => snippetOf(ctx, (s.last = r)));
  $('dla-box').addEventListener('toggle', () => $('dla-box').open && show());
  for (const id of ['dla-pos', 'dla-a', 'dla-b']) $(id).addEventListener('change', show);
  wireCopy(ctx, $('dla-copy'), snippet);
  return {
    read: (o) => compute(ctx, o || {}).then((r) => (s.last = r)), // the panel's snippet follows it
    update: () => {
      section.hidden = !!whyNot(ctx.S, 'the attribution') && !!ctx.S.model;
      if (ctx.S.enc) positions(ctx);
      clearTimeout(s.timer);
      if ($('dla-box').open && !section.hidden && !ctx.generating) s.timer = setTimeout(show, 0);
    },
    snippet,
    dispose: () => {
      clearTimeout(s.timer);
      section.remove();
    },
  };
}

// The position picker: every token (the last by default, kept while it exists).
function positions(ctx) {
  const sel = ctx.$('dla-pos'),
    T = ctx.S.enc.ids.length,
    was = sel.value === '' || +sel.value === +sel.dataset.count - 1 ? T - 1 : Math.min(+sel.value, T - 1);
  sel.textContent = '';
  ctx.S.enc.texts.forEach((t, p) => sel.appendChild(el('option', { value: String(p) }, p + ': ' + t)));
  sel.value = String(was);
  sel.dataset.count = String(T);
}

function readInputs(ctx) {
  const { $ } = ctx,
    a = $('dla-a').value.trim(),
    b = $('dla-b').value.trim();
  const tokens = a ? [a] : [];
  if (b) tokens.push(b);
  return { position: $('dla-pos').value === '' ? undefined : +$('dla-pos').value, tokens };
}

// {position (default: the last), tokens: [a] or [a, b] as text or ids (none: the model's top token there)} →
// model.attribute's {heads, mlps, embed, biases, sum, logit, centred} with the position and token ids (a promise).
async function compute(ctx, o) {
  const S = ctx.S,
    why = whyNot(S, 'the attribution');
  if (why) throw new Error(why);
  if (!S.enc) throw new Error('the text gives no tokens');
  const T = S.enc.ids.length,
    position = o.position == null ? T - 1 : o.position;
  const pick = (input) => (id) => {
    ctx.$(input).value = ctx.tokenText(id).replace(/␣/g, ' ');
    ctx.$(input).dispatchEvent(new Event('change'));
  };
  const box = ctx.$('dla-pieces');
  box.textContent = '';
  let tokens = (o.tokens || []).map((t, i) => tokenId(ctx, t, box, pick(i ? 'dla-b' : 'dla-a')));
  if (!tokens.length) {
    const out = await S.model.forward(S.enc.ids, { logitsAt: [position], attentions: false });
    tokens = [topTokens(out.logits.data || out.logits, 1)[0].id];
  }
  const r = await S.model.attribute(S.enc.ids, { position, tokens });
  return Object.assign(r, { position, tokens, names: tokens.map((t) => S.vocab.tokenOf(t)) });
}

function draw(ctx, r) {
  const S = ctx.S,
    H = S.info.heads;
  const rows = r.heads.map((values, l) => ({ label: 'layer ' + l, values }));
  heatTable(
    ctx.$('dla'),
    Array.from({ length: H }, (_, h) => 'H' + h).concat('MLP'),
    rows.map((row, l) => ({ label: row.label, values: row.values.concat(r.mlps[l]) })),
  );
  const what = r.tokens.map((t) => '“' + ctx.tokenText(t) + '”').join(' − ');
  const f = (x) => x.toFixed(4).replace('-', '−');
  ctx.$('dla-note').textContent =
    'At position ' +
    r.position +
    ', on the logit of ' +
    what +
    (r.tokens.length > 1 ? ' (a difference)' : '') +
    ': embeddings ' +
    f(r.embed) +
    ', biases ' +
    f(r.biases) +
    '; every term adds up to ' +
    f(r.sum) +
    (r.tokens.length > 1
      ? '; the model’s logit difference is ' + f(r.logit) + '.'
      : '; the model’s logit is ' + f(r.logit) + ', and minus the mean logit ' + f(r.centred) + '.');
}

function snippetOf(ctx, r) {
  const S = ctx.S;
  return attributionSnippet({
    folder: S.source.folder || 'path/to/the/model/folder',
    dropped: S.source.dropped,
    ids: S.enc.ids,
    position: r.position,
    tokens: r.tokens,
  });
}
