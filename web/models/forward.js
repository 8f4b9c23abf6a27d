// MHA Explorer, the model page — the forwards: the text's (tokens, every layer's attentions, the predicted position's
// logits, the role scores), the repeated random sequence's (duplicate and induction scores, once per model) and the
// one with heads switched off (the top 5 without them). ctx: context.js's.
import { textRoleScores, repeatRoleScores, repeatedSequence, specialFrame } from './roles.js';
import { predictionPosition, topTokens, normalizeHeads } from './ablate.js';
import { drawAll, drawGrid, drawPredictions, drawSide, drawLook, drawView } from './panels.js';
import { computeEmbeddings, drawEmbedding } from './embedding.js';

const REPEAT = { length: 25, seed: 0 }; // the repeated random sequence of the duplicate and induction scores

// The text in S.text through the model, and every panel drawn. → whether it was shown (else a message says why).
export function render(ctx) {
  const { S, say } = ctx;
  if (!S.model) return false;
  const m = S.model,
    i = S.info;
  let enc;
  try {
    enc = encode(S);
  } catch (err) {
    say('text', 'The tokenizer could not read the text: ' + err.message);
    return false;
  }
  if (!enc.ids.length) {
    say('text', 'The text gives no tokens: write something.');
    return false;
  }
  if (enc.ids.length > i.maxPositions) {
    say(
      'text',
      'The text has ' +
        enc.ids.length +
        ' tokens; this model reads at most ' +
        i.maxPositions +
        ' (its max_position_embeddings). Shorten it.',
    );
    return false;
  }
  const pos = predictionPosition(enc.ids, { causal: i.causal, hasLmHead: i.hasLmHead, maskId: S.vocab.maskId });
  let out;
  try {
    out = m.forward(enc.ids, { logitsAt: pos >= 0 ? [pos] : [] });
  } catch (err) {
    say('text', err.message);
    return false;
  }
  say('text', '');
  const sameTokens = S.enc && S.enc.tokens.join('\u0001') === enc.tokens.join('\u0001');
  // enc.texts: the tokens as the page shows them (vocab.js: decoded, marked); enc.tokens stay the tokenizer's strings
  enc.texts = enc.ids.map((id) => ctx.tokenText(id));
  Object.assign(S, { enc, out, pos, fullLogits: pos >= 0 ? logitsRow(S, out, 0) : null });
  if (!sameTokens) {
    S.query = defaultQuery(enc.tokens);
    S.key = -1;
  }
  S.scores = Object.assign(textRoleScores(out.attentions, enc.tokens), S.repeat ? S.repeat.scores : {});
  S.full = S.fullLogits ? topTokens(S.fullLogits, 5) : [];
  S.ablated = [];
  S.offOut = null; // the attentions with the heads off: predictLater's forward
  ctx.$('text-note').textContent =
    enc.ids.length +
    ' tokens' +
    (pos >= 0 && !i.causal ? '; the model predicts the first ' + S.vocab.maskToken : '') +
    '.';
  computeEmbeddings(ctx);
  drawAll(ctx);
  if (ctx.analysis) ctx.analysis.update();
  ctx.ablation = S.headsOff.length ? predictLater(ctx) : null;
  return true;
}

// The text's tokens: a generation's ids as the model wrote them while the text is the one it wrote (S.fixed,
// generation.js: its decoded text may tokenize otherwise), else the tokenizer's.
function encode(S) {
  if (S.fixed && S.fixed.text === S.text) return { ids: S.fixed.ids.slice(), tokens: S.fixed.ids.map(S.vocab.tokenOf) };
  S.fixed = null;
  return S.model.tokenize(S.text);
}

// The forward without the heads off after the text's frame is painted: the grid comes first (the full model's
// attention until then), then its attention and the top 5 without them.
// → a promise resolved once they are shown, or a later render took over (ctx.ablation: what api.set's ready and a
// keystroke's wait for).
function predictLater(ctx) {
  const turn = (ctx.ablationTurn = (ctx.ablationTurn || 0) + 1);
  const hidden = ctx.root.ownerDocument.hidden; // no frames in a hidden page: at once
  return new Promise((resolve) => {
    const run = () => {
      if (turn === ctx.ablationTurn && ctx.S.model && ctx.S.enc) {
        predictAblated(ctx);
        drawPredictions(ctx);
        drawAttention(ctx);
      }
      resolve();
    };
    if (hidden) setTimeout(run, 0);
    else requestAnimationFrame(() => setTimeout(run, 0));
  });
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
// The forward with S.headsOff: its attentions (S.offOut: every layer above the lowest head off changes) and, for a
// model with a head, its logits and top 5.
function predictAblated(ctx) {
  const S = ctx.S;
  S.ablated = [];
  S.ablatedLogits = null;
  S.offOut = null;
  if (!S.headsOff.length) return;
  try {
    const at = S.fullLogits ? [S.pos] : [],
      out = S.model.forward(S.enc.ids, { headsOff: S.headsOff, logitsAt: at });
    S.offOut = out.attentions;
    if (!S.fullLogits) return;
    S.ablatedLogits = logitsRow(S, out, 0);
    S.ablated = topTokens(S.ablatedLogits, 5);
  } catch (err) {
    ctx.say('text', err.message);
  }
}
// Switches off exactly `heads` ([[layer, head]]) and shows the top 5 without them.
export function setHeadsOff(ctx, heads) {
  const S = ctx.S;
  if (!S.model) return;
  S.headsOff = normalizeHeads(heads, S.info.layers, S.info.heads);
  ctx.ablationTurn = (ctx.ablationTurn || 0) + 1; // a render's pending top 5 without heads: this one replaces it
  predictAblated(ctx);
  computeEmbeddings(ctx);
  drawAttention(ctx);
  drawPredictions(ctx);
  drawEmbedding(ctx);
  drawSide(ctx);
}

// What shows attention (the grid, "where a token looks", the enlarged head) redrawn from the full or ablated model's.
export function drawAttention(ctx) {
  if (!ctx.S.out) return;
  if (ctx.ablatedView) ctx.ablatedView.update();
  drawGrid(ctx);
  drawLook(ctx);
  drawView(ctx);
}

// The duplicate and induction scores: one forward of the repeated random sequence per model.
export function computeRepeat(ctx) {
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
    const out = m.forward(layout.ids, { logitsAt: [] });
    S.repeat = { layout, scores: repeatRoleScores(out.attentions, layout), attentions: out.attentions };
  } catch (err) {
    S.repeat = null;
    ctx.say('repeat', 'The duplicate and induction scores could not be computed: ' + err.message);
  }
}
