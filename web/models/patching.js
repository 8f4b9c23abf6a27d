// MHA Explorer, the model page — activation patching (model.patch, as TransformerLens's patching module): a clean and
// a corrupted text of the same token count, the metric logit[a] − logit[b] at the last position, and one clean
// activation put into the corrupted run at a time — each head's output over all positions, or the residual stream
// entering a layer, a layer's attention or MLP output, at each position — normalised (patched − corrupted) /
// (clean − corrupted), as a heatmap; one patched run per task, with progress and Cancel.
// createPatching(ctx) → {run(options), cancel(), read(), update(), dispose(), snippet()}.
import { addPanel, heatTable, tokenId, whyNot, wireCopy } from './analysis-ui.js';
import { patchSnippet } from './analysis-snippets.js';

export const IOI = [
  'When Mary and John went to the store, John gave a drink to',
  'When Mary and John went to the store, Mary gave a drink to',
];

const MARKUP = `<section class="panel" aria-labelledby="patch-title">
<h2 id="patch-title">Which activations carry the answer? (activation patching)</h2>
<details id="patch-box"><summary>Patch the clean run into the corrupted one</summary>
<p class="note">Run the corrupted text, put one activation of the clean run in its place, and see how much of the clean answer comes back: 1 is the clean run’s logit difference, 0 the corrupted run’s.</p>
<div class="field"><label for="patch-clean">Clean text</label><textarea id="patch-clean" rows="2" spellcheck="false"></textarea></div>
<div class="field"><label for="patch-corrupted">Corrupted text (the same number of tokens)</label><textarea id="patch-corrupted" rows="2" spellcheck="false"></textarea></div>
<div class="mp-row">
<div class="field"><label for="patch-a">Metric: logit of</label><input id="patch-a" type="text" spellcheck="false" autocomplete="off" value="Mary"></div>
<div class="field"><label for="patch-b">minus the logit of</label><input id="patch-b" type="text" spellcheck="false" autocomplete="off" value="John"></div>
<div class="field"><label for="patch-what">Patch</label><select id="patch-what"><option value="heads">each head’s output (all positions)</option><option value="resid">the residual stream entering each layer</option><option value="attn">each layer’s attention output</option><option value="mlp">each layer’s MLP output</option></select></div>
</div>
<p id="patch-pieces"></p>
<div class="mp-buttons"><button id="patch-run" class="btn small" type="button">Patch</button><button id="patch-cancel" class="btn small" type="button" disabled>Cancel</button><button id="patch-copy" class="btn small" type="button">Copy as Python</button></div>
<div id="patch-progress-box" class="mp-progress" hidden><label for="patch-progress" id="patch-progress-text">Patching…</label><progress id="patch-progress" max="1" value="0"></progress></div>
<p id="patch-note" class="note" aria-live="polite"></p>
<div class="mp-scroll" tabindex="0" role="region" aria-label="The patching map"><table id="patch" class="mp-heat"></table></div>
</details>
</section>`;

const WHAT = {
  heads: 'each head’s output over all positions',
  resid: 'the residual stream entering each layer, at each position',
  attn: 'each layer’s attention output, at each position',
  mlp: 'each layer’s MLP output, at each position',
};

export function createPatching(ctx) {
  const { $ } = ctx;
  const section = addPanel(ctx, MARKUP);
  const s = { abort: null, last: null };
  $('patch-clean').value = IOI[0];
  $('patch-corrupted').value = IOI[1];
  $('patch-run').addEventListener('click', () => {
    const o = { clean: $('patch-clean').value, corrupted: $('patch-corrupted').value };
    Object.assign(o, { tokens: [$('patch-a').value.trim(), $('patch-b').value.trim()], what: $('patch-what').value });
    run(ctx, s, o).catch((err) => ($('patch-note').textContent = err.message + '.'));
  });
  $('patch-cancel').addEventListener('click', () => s.abort && s.abort.abort());
  wireCopy(ctx, $('patch-copy'), () => snippetOf(ctx, s));
  return {
    run: (o) => run(ctx, s, o || {}),
    cancel: () => s.abort && s.abort.abort(),
    read: () => s.last && Object.assign({}, s.last, { data: Array.from(s.last.data) }),
    update: () => (section.hidden = !!whyNot(ctx.S, 'patching') && !!ctx.S.model),
    snippet: () => snippetOf(ctx, s),
    dispose: () => {
      if (s.abort) s.abort.abort();
      section.remove();
    },
  };
}

// A text (tokenized by the model) or ids → ids.
const idsOf = (ctx, x) => (Array.isArray(x) ? x.slice() : ctx.S.model.tokenize(String(x)).ids);

// {clean, corrupted (texts or ids), tokens: [a, b] (texts or ids), what} → a promise of {shape, data, what, clean,
// corrupted, tokens} (data: the normalised metric, layer by layer); one patching at a time.
async function run(ctx, s, o) {
  const { S, $ } = ctx;
  await ctx.ready;
  const why = whyNot(S, 'patching');
  if (why) throw new Error(why);
  if (s.abort) throw new Error('a patching is running: Cancel it first');
  const what = o.what || 'heads';
  if (!WHAT[what])
    throw new Error('what must be one of ' + Object.keys(WHAT).join(', ') + ', got ' + JSON.stringify(what));
  const clean = idsOf(ctx, o.clean == null ? IOI[0] : o.clean),
    corrupted = idsOf(ctx, o.corrupted == null ? IOI[1] : o.corrupted);
  if (clean.length !== corrupted.length)
    throw new Error(
      'the clean text has ' +
        clean.length +
        ' tokens and the corrupted one ' +
        corrupted.length +
        ': patching needs the same count (change a word for one of as many tokens)',
    );
  const box = $('patch-pieces');
  box.textContent = '';
  const pick = (input) => (id) => ($(input).value = ctx.tokenText(id).replace(/␣/g, ' '));
  const tokens = (o.tokens || ['Mary', 'John']).map((t, i) => tokenId(ctx, t, box, pick(i ? 'patch-b' : 'patch-a')));
  s.abort = new AbortController();
  busy(ctx, true);
  try {
    const map = await S.model.patch({
      clean,
      corrupted,
      tokens,
      what,
      signal: s.abort.signal,
      onProgress: ({ done, total }) => progress(ctx, done, total),
    });
    s.last = { shape: map.shape.slice(), data: map.data, what, clean, corrupted, tokens };
    showInputs(ctx, o, s.last);
    draw(ctx, s.last);
    return Object.assign({}, s.last, { data: Array.from(map.data) });
  } finally {
    s.abort = null;
    busy(ctx, false);
  }
}

// The panel's inputs say what was patched (ids given through the API: their decoded text and tokens).
function showInputs(ctx, o, r) {
  const { $, S } = ctx,
    text = (ids) => ids.map((id) => S.vocab.decodedOf(id)).join('');
  if (Array.isArray(o.clean)) $('patch-clean').value = text(r.clean);
  if (Array.isArray(o.corrupted)) $('patch-corrupted').value = text(r.corrupted);
  (o.tokens || []).forEach((t, i) => {
    if (typeof t === 'number') $(i ? 'patch-b' : 'patch-a').value = S.vocab.decodedOf(t);
  });
  $('patch-what').value = r.what;
}

function busy(ctx, on) {
  const { $ } = ctx;
  $('patch-run').disabled = on;
  $('patch-cancel').disabled = !on;
  $('patch-progress-box').hidden = !on;
  if (on) $('patch-note').textContent = 'Patching…';
}

function progress(ctx, done, total) {
  ctx.$('patch-progress').value = done / total;
  ctx.$('patch-progress-text').textContent = 'Patching: ' + done + ' of ' + total + ' runs';
}

function draw(ctx, r) {
  const [L, C] = r.shape,
    texts = r.clean.map((id) => ctx.tokenText(id));
  const columns = Array.from({ length: C }, (_, j) => (r.what === 'heads' ? 'H' + j : j + ': ' + texts[j]));
  const rows = Array.from({ length: L }, (_, l) => ({
    label: 'layer ' + l,
    values: Array.from(r.data.subarray(l * C, (l + 1) * C)),
  }));
  heatTable(ctx.$('patch'), columns, rows, 3);
  const names = r.tokens.map((t) => '“' + ctx.tokenText(t) + '”');
  ctx.$('patch-note').textContent =
    'Patched ' +
    WHAT[r.what] +
    ' from the clean run into the corrupted one; the metric: logit ' +
    names[0] +
    ' − logit ' +
    names[1] +
    ' at the last position, as (patched − corrupted) / (clean − corrupted).';
}

function snippetOf(ctx, s) {
  const S = ctx.S,
    r = s.last || {
      clean: idsOf(ctx, ctx.$('patch-clean').value),
      corrupted: idsOf(ctx, ctx.$('patch-corrupted').value),
      tokens: [0, 0],
      what: ctx.$('patch-what').value,
    };
  if (!s.last)
    try {
      r.tokens = ['patch-a', 'patch-b'].map((id) => tokenId(ctx, ctx.$(id).value.trim()));
    } catch {
      // the tokens as typed are not single tokens: the snippet keeps 0, 0 and the student fills them in
    }
  return patchSnippet({ folder: S.source.folder || 'path/to/the/model/folder', dropped: S.source.dropped, ...r });
}
