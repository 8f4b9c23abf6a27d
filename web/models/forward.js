// MHA Explorer, the model page — the forwards: the text's (tokens, every layer's attentions, the predicted position's
// logits, the role scores), the repeated random sequence's (duplicate and induction scores, once per model) and the
// one with heads switched off (the top 5 without them). They run where the model lives (model-host.js: its worker),
// so each is a promise: the page answers meanwhile, a change that lasts past a frame shows the busy sign with Cancel
// (busy.js), and the views keep the previous text's, marked, until the new one is drawn. ctx: context.js's.
import { repeatedSequence, specialFrame } from './roles.js';
import { predictionPosition, topTokens, normalizeHeads } from './ablate.js';
import { ablationOptions } from './ablation-mode.js';
import { drawAll, drawGrid, drawPredictions, drawSide, drawLook, drawView } from './panels.js';
import { computeEmbeddings, drawEmbedding } from './embedding.js';

const REPEAT = { length: 25, seed: 0 }; // the repeated random sequence of the duplicate and induction scores

// run() → a promise, called at most once at a time: a call while one runs makes one more run after it (the calls
// meanwhile share it), so a burst of keystrokes or clicks makes one forward of the latest state, not one each.
export function coalesce(run) {
  let running = null,
    again = null;
  const call = () => {
    if (!running) {
      running = Promise.resolve()
        .then(run)
        .finally(() => (running = null));
      return running;
    }
    if (!again) {
      const next = () => ((again = null), call());
      again = running.then(next, next);
    }
    return again;
  };
  return call;
}

// The text in S.text through the model, and every panel drawn. → a promise of whether it was shown (else a message
// says why, and the views shown are marked as the previous text's).
export function render(ctx) {
  if (!ctx.renderLatest) ctx.renderLatest = coalesce(() => renderNow(ctx));
  return ctx.renderLatest();
}

// Refused: the words said, and the views shown marked as the previous text's.
function refuse(ctx, words) {
  ctx.say('text', words);
  if (ctx.busy) ctx.busy.stale('the text in the box is not shown (' + words.replace(/\.$/, '').toLowerCase() + ').');
  return false;
}

// The tokens of S.text, checked → {enc} or {refused: words}.
function tokensOf(S) {
  let enc;
  try {
    enc = encode(S);
  } catch (err) {
    return { refused: 'The tokenizer could not read the text: ' + err.message };
  }
  if (!enc.ids.length) return { refused: 'The text gives no tokens: write something.' };
  if (enc.ids.length > S.info.maxPositions)
    return {
      refused:
        'The text has ' +
        enc.ids.length +
        ' tokens; this model reads at most ' +
        S.info.maxPositions +
        ' (its max_position_embeddings). Shorten it.',
    };
  return { enc };
}

async function renderNow(ctx) {
  const { S, say } = ctx;
  if (!S.model) return false;
  const m = S.model,
    i = S.info;
  if (ctx.cancelledText === S.text) return false; // cancelled: computed again once the text changes
  const { enc, refused } = tokensOf(S);
  if (refused) return refuse(ctx, refused);
  const pos = predictionPosition(enc.ids, { causal: i.causal, hasLmHead: i.hasLmHead, maskId: S.vocab.maskId });
  const busy = ctx.busy.start('Computing the attention of ' + enc.ids.length.toLocaleString('en-US') + ' tokens…');
  let out;
  try {
    out = await m.forward(enc.ids, { logitsAt: pos >= 0 ? [pos] : [] }, { roles: enc.tokens });
  } catch (err) {
    busy.end();
    if (m !== S.model) return false;
    if (!err.cancelled) return refuse(ctx, err.message);
    ctx.cancelledText = S.text;
    say('text', 'Cancelled: the text in the box was not computed (change it to compute it).');
    ctx.busy.stale('cancelled, so the text in the box is not shown.');
    return false;
  }
  if (m !== S.model) return (busy.end(), false); // another model came meanwhile
  await show(ctx, enc, out, pos);
  busy.end();
  return true;
}

// The text's forward in the state, and drawn.
async function show(ctx, enc, out, pos) {
  const { S, say } = ctx;
  say('text', '');
  const sameTokens = S.enc && S.enc.tokens.join('\u0001') === enc.tokens.join('\u0001');
  // enc.texts: the tokens as the page shows them (vocab.js: decoded, marked); enc.tokens stay the tokenizer's strings
  enc.texts = enc.ids.map((id) => ctx.tokenText(id));
  Object.assign(S, { enc, out, pos, fullLogits: pos >= 0 ? logitsRow(S, out, 0) : null });
  if (!sameTokens) {
    S.query = defaultQuery(enc.tokens);
    S.key = -1;
  }
  S.scores = Object.assign(out.scores || {}, S.repeat ? S.repeat.scores : {});
  S.full = S.fullLogits ? topTokens(S.fullLogits, 5) : [];
  S.ablated = [];
  S.offOut = null; // the attentions with the heads off: predictLater's forward
  S.offWrites = null;
  S.writes = null; // the norm view's: writes-view.js asks for them
  ctx.$('text-note').textContent =
    enc.ids.length +
    ' tokens' +
    (pos >= 0 && !S.info.causal ? '; the model predicts the first ' + S.vocab.maskToken : '') +
    '.';
  await computeEmbeddings(ctx);
  ctx.busy.fresh();
  drawAll(ctx);
  if (ctx.analysis) ctx.analysis.update();
  ctx.ablation = S.headsOff.length ? ablateLatest(ctx) : null;
}

// The text's tokens: a generation's ids as the model wrote them while the text is the one it wrote (S.fixed,
// generation.js: its decoded text may tokenize otherwise), else the tokenizer's.
function encode(S) {
  if (S.fixed && S.fixed.text === S.text) return { ids: S.fixed.ids.slice(), tokens: S.fixed.ids.map(S.vocab.tokenOf) };
  S.fixed = null;
  return S.model.tokenize(S.text);
}

// One position's logits (V floats) from a forward's output.
function logitsRow(S, out, p) {
  const l = out.logits,
    data = l && (l.data || l),
    V = S.info.vocab;
  return data && data.length >= (p + 1) * V ? data.subarray(p * V, (p + 1) * V) : null;
}
// "it" when the text has it (lesson 004's question), else the last token.
function defaultQuery(tokens) {
  const it = tokens.findIndex((t) => /^(Ġ|▁|##)?it$/i.test(t));
  return it >= 0 ? it : tokens.length - 1;
}

// The forward with S.headsOff of the text shown, coalesced (→ a promise once its results are drawn): its logits and
// top 5 for a model with a head, and its attentions (S.offOut: every layer above the lowest head off changes) only
// while the grid shows them; without attentions the core resumes from its activations cache (the layers below the
// lowest head off are not computed again).
function ablateLatest(ctx) {
  if (!ctx.ablateRun) ctx.ablateRun = coalesce(() => predictAblated(ctx));
  return ctx.ablateRun();
}
async function predictAblated(ctx) {
  const S = ctx.S,
    m = S.model,
    enc = S.enc,
    heads = S.headsOff;
  if (!m || !enc) return;
  if (!heads.length) {
    Object.assign(S, { ablated: [], ablatedLogits: null, offOut: null });
    return drawAblated(ctx);
  }
  const attentions = S.attnMode !== 'full',
    how = ablationOptions(S, enc),
    mode = S.ablation + '|' + S.resampleText;
  ctx.say('ablation', how.refused || '');
  S.ablationRefused = how.refused || '';
  if (how.refused) {
    Object.assign(S, { ablated: [], ablatedLogits: null, offOut: null, offWrites: null });
    return drawAblated(ctx);
  }
  const writes = attentions && S.weighting === 'norm';
  const busy = ctx.busy.start('Computing with the heads off…');
  let out = null;
  try {
    const logitsAt = S.fullLogits ? [S.pos] : [];
    out = await m.forward(enc.ids, { headsOff: heads, ...how, logitsAt, attentions, writes });
  } catch (err) {
    ctx.say('text', err.cancelled ? 'Cancelled: the forward with the heads off did not finish.' : err.message);
  }
  busy.end();
  // superseded: the next run draws
  if (m !== S.model || enc !== S.enc || heads !== S.headsOff || mode !== S.ablation + '|' + S.resampleText) return;
  S.offOut = out && attentions ? out.attentions : null;
  S.offWrites = out && writes ? out.writes : null;
  S.ablatedLogits = out && S.fullLogits ? logitsRow(S, out, 0) : null;
  S.ablated = S.ablatedLogits ? topTokens(S.ablatedLogits, 5) : [];
  drawAblated(ctx);
}
function drawAblated(ctx) {
  drawAttention(ctx);
  drawPredictions(ctx);
}

// Switches off exactly `heads` ([[layer, head]]) and shows the top 5 without them. → a promise once shown.
export function setHeadsOff(ctx, heads) {
  const S = ctx.S;
  if (!S.model) return Promise.resolve();
  S.headsOff = normalizeHeads(heads, S.info.layers, S.info.heads);
  S.ablated = [];
  S.offOut = null;
  S.offWrites = null;
  drawSide(ctx);
  if (S.out) drawGrid(ctx); // the cards marked off at once
  const embedded = computeEmbeddings(ctx).then(() => drawEmbedding(ctx));
  ctx.ablation = Promise.all([ablateLatest(ctx), embedded]);
  return ctx.ablation;
}

// What shows attention (the grid, "where a token looks", the enlarged head) redrawn from the full or ablated model's;
// the ablated attentions computed first when the grid is to show them and they are not there.
export function drawAttention(ctx) {
  const S = ctx.S;
  if (!S.out) return;
  if (S.headsOff.length && S.attnMode !== 'full' && !S.offOut && S.enc && !ctx.ablating) {
    ctx.ablating = true;
    ablateLatest(ctx).finally(() => (ctx.ablating = false));
  }
  if (ctx.ablatedView) ctx.ablatedView.update();
  if (ctx.writesView) ctx.writesView.update();
  if (ctx.ablationMode) ctx.ablationMode.update();
  drawGrid(ctx);
  drawLook(ctx);
  drawView(ctx);
}

// The duplicate and induction scores: one forward of the repeated random sequence per model. → a promise.
export async function computeRepeat(ctx) {
  const S = ctx.S;
  ctx.say('repeat', '');
  try {
    const m = S.model,
      frame = specialFrame((t) => m.tokenize(t).ids);
    const layout = repeatedSequence({
      vocab: S.info.vocab,
      length: REPEAT.length,
      seed: REPEAT.seed,
      prefix: frame.prefix,
      suffix: frame.suffix,
      exclude: S.vocab.special,
      maxPositions: S.info.maxPositions,
    });
    const out = await m.forward(layout.ids, { logitsAt: [] }, { repeat: layout });
    S.repeat = { layout, scores: out.scores, attentions: out.attentions };
  } catch (err) {
    S.repeat = null;
    ctx.say('repeat', 'The duplicate and induction scores could not be computed: ' + err.message);
  }
}
