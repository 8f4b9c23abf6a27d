// MHA Explorer, the model page — the sentence embedding panel of a sentence-transformers folder: the text's and a
// second text's embeddings (sentence.js: the pooling and normalisation its modules.json names), their cosine
// similarity with the full model and with the heads off, and how far each embedding moved. ctx: context.js's.
import { el } from '../widgets/dom.js';
import { describeHeads } from './ablate.js';
import { sentenceEmbedding, cosine } from './sentence.js';

// The embeddings of S.text (from the text's forward, S.out) and S.other, with and without S.headsOff, into S.embed
// ({a, b, cosine, ablated: {a, b, cosine, movedA, movedB} | null} or {message}); null without a sentence model.
// → a promise, once S.embed is set (the latest call's: an earlier one still computing leaves S.embed alone).
export async function computeEmbeddings(ctx) {
  const S = ctx.S,
    turn = (ctx.embedTurn = (ctx.embedTurn || 0) + 1);
  S.embed = null;
  if (!S.sentence || !S.out || !S.enc) return;
  const m = S.model,
    emb = async (ids, headsOff) =>
      sentenceEmbedding((await m.forward(ids, { headsOff, attentions: false })).hidden, S.sentence);
  let ids;
  try {
    ids = m.tokenize(S.other).ids;
  } catch (err) {
    S.embed = { message: 'The tokenizer could not read the second text: ' + err.message };
    return;
  }
  if (!ids.length) S.embed = { message: 'The second text gives no tokens: write something to compare with.' };
  else if (ids.length > S.info.maxPositions)
    S.embed = {
      message: 'The second text has ' + ids.length + ' tokens; this model reads ' + S.info.maxPositions + '.',
    };
  if (S.embed) return;
  const off = S.headsOff;
  let embed;
  try {
    // the order keeps the core's cache of each text's forward: the text with heads off resumes from the text's own
    const a = sentenceEmbedding(S.out.hidden, S.sentence),
      a2 = off.length ? await emb(S.enc.ids, off) : null,
      b = await emb(ids, []),
      b2 = off.length ? await emb(ids, off) : null;
    embed = { a, b, cosine: cosine(a, b), otherTokens: ids.length, ablated: null };
    if (off.length)
      embed.ablated = { a: a2, b: b2, cosine: cosine(a2, b2), movedA: cosine(a, a2), movedB: cosine(b, b2) };
  } catch (err) {
    embed = { message: err.message };
  }
  if (turn === ctx.embedTurn) S.embed = embed;
}

const six = (x) => (x < 0 ? '−' : '') + Math.abs(x).toFixed(6);
const signed = (x) => (x >= 0 ? '+' : '−') + Math.abs(x).toFixed(6);

// The panel: shown for a sentence-transformers model only.
export function drawEmbedding(ctx) {
  const { S, $ } = ctx,
    panel = $('sentence-panel');
  panel.hidden = !S.sentence;
  if (!S.sentence) return;
  $('other').value !== S.other && ($('other').value = S.other);
  const e = S.embed,
    tb = $('sentence').querySelector('tbody');
  tb.textContent = '';
  $('sentence-how').textContent =
    'The sentence embedding as sentence-transformers computes it: ' +
    S.sentence.words +
    ', ' +
    (e && e.a ? e.a.length : S.sentence.dim || '') +
    ' numbers per text. Two texts compare by the cosine of their embeddings (1: the same direction).';
  if (!e || e.message) {
    $('sentence-note').textContent = e ? e.message : '';
    return;
  }
  const row = (cells) => {
    const tr = tb.appendChild(el('tr'));
    cells.forEach((c, i) => tr.appendChild(el(i ? 'td' : 'th', i ? { class: 'p' } : { scope: 'row' }, c)));
  };
  row(['Full model', six(e.cosine), '1', '1']);
  if (e.ablated) {
    const x = e.ablated;
    row(['Heads off', six(x.cosine) + ' (' + signed(x.cosine - e.cosine) + ')', six(x.movedA), six(x.movedB)]);
  }
  $('sentence-note').textContent =
    'Heads off: ' +
    describeHeads(S.headsOff, S.info.layers, S.info.heads) +
    '.' +
    (e.ablated ? '' : ' Switch heads off to see how the similarity and each embedding change.');
}

// The script API's view of S.embed: plain arrays.
export function embeddingOut(S) {
  const e = S.embed;
  if (!S.sentence) return null;
  const out = { pooling: S.sentence.pooling.slice(), normalize: S.sentence.normalize, other: S.other };
  if (!e || e.message) return Object.assign(out, { message: e ? e.message : 'no text is shown' });
  Object.assign(out, { a: Array.from(e.a), b: Array.from(e.b), cosine: e.cosine, ablated: null });
  if (e.ablated) out.ablated = Object.assign({}, e.ablated, { a: Array.from(e.ablated.a), b: Array.from(e.ablated.b) });
  return out;
}
