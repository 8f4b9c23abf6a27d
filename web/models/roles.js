// MHA Explorer, the model page — what heads do: the head-role scores of the interpretability literature, one number
// per head (a Float64Array of L·H, index layer·H + head), from attentions {shape: [L, 1, H, T, T], data}.
//   previous, first, current, punctuation: on the student's text (every query but the first, whose row under a
//     causal mask has one key only); next, last: on the text, every query but the last (an encoder's: under a causal
//     mask no query sees a later token, and these score 0), as Clark et al. (2019), "What Does BERT Look At?";
//   duplicate, induction: on a repeated random sequence (repeatedSequence below: n random ids, then the same n
//     again, inside the tokenizer's special tokens), as Olsson et al. (2022) and Wang et al. (2022) measure them.
// Each score is a mean of attention weights, so it lies in [0, 1]; 1 is a head that does only that.
import { dimsOf, rowOffset } from './attentions.js';

// The roles, in the order the page lists them. on: the forward each is read from ('text' or 'repeat');
// how: the sentence the page shows under the score.
export const ROLES = [
  {
    name: 'previous',
    label: 'Previous token',
    on: 'text',
    how: 'The weight each token puts on the token just before it, averaged over every token but the first.',
  },
  {
    name: 'first',
    label: 'First token (sink)',
    on: 'text',
    how: 'The weight each token puts on the first token of the text (BOS or [CLS] when the tokenizer adds one), averaged over every token but the first: heads with nothing to do park their attention there (the “attention sink”).',
  },
  {
    name: 'current',
    label: 'Current token',
    on: 'text',
    how: 'The weight each token puts on itself, averaged over every token but the first.',
  },
  {
    name: 'next',
    label: 'Next token',
    on: 'text',
    how: 'The weight each token puts on the token just after it, averaged over every token but the last (an encoder’s role: under a causal mask no token sees the next one).',
  },
  {
    name: 'last',
    label: 'Last token ([SEP])',
    on: 'text',
    how: 'The weight each token puts on the last token of the text ([SEP] when the tokenizer adds one; Clark et al. 2019), averaged over every token but the last.',
  },
  {
    name: 'punctuation',
    label: 'Punctuation',
    on: 'text',
    how: 'The weight each token puts on the punctuation tokens of the text (tokens made only of punctuation marks, such as “.” and “,”; Clark et al. 2019), summed over them and averaged over every token but the first.',
  },
  {
    name: 'duplicate',
    label: 'Duplicate token',
    on: 'repeat',
    how: 'On a random sequence of tokens repeated twice: the weight each token of the second copy puts on the same token in the first copy, averaged over the second copy.',
  },
  {
    name: 'induction',
    label: 'Induction',
    on: 'repeat',
    how: 'On the same repeated random sequence: the weight each token of the second copy puts on the token that followed it in the first copy (… A B … A → B), averaged over the second copy.',
  },
];
export const ROLE_NAMES = ROLES.map((r) => r.name);

// The score below which no head is said to do a role: at 0.5 a head puts more weight on the role's key than on all
// the other keys together (a head spreading its weight evenly over T keys scores 1/T).
export const ROLE_MIN = 0.5;

// Whether a token (the tokenizer's string) is punctuation: once its word marks (byte-level BPE's Ġ, SentencePiece's
// ▁, WordPiece's ##) are taken off, one or more characters all of Unicode's punctuation categories (P*).
export const isPunctuation = (token) => /^\p{P}+$/u.test(String(token).replace(/^(Ġ|▁|##)/, ''));

// The mean over queries q of the weight on key target(q) (skipped when target(q) is outside 0..T-1; a list of keys:
// their weights summed), for every head.
function meanOf(attn, queries, target) {
  const d = dimsOf(attn),
    out = new Float64Array(d.L * d.H);
  for (let l = 0; l < d.L; l++) {
    for (let h = 0; h < d.H; h++) {
      let sum = 0,
        n = 0;
      for (const q of queries) {
        const k = target(q),
          at = rowOffset(d, l, h, q);
        if (Array.isArray(k)) for (const j of k) sum += attn.data[at + j];
        else if (k < 0 || k >= d.T) continue;
        else sum += attn.data[at + k];
        n++;
      }
      out[l * d.H + h] = n ? sum / n : NaN;
    }
  }
  return out;
}
const range = (from, to) => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);

// {previous, first, current, next, last, punctuation} on the text's attentions (NaN for a text of one token);
// tokens: the tokenizer's strings (punctuation's keys; without them it is left out).
export function textRoleScores(attn, tokens) {
  const { T } = dimsOf(attn),
    queries = range(1, T),
    early = range(0, T - 1);
  const out = {
    previous: meanOf(attn, queries, (q) => q - 1),
    first: meanOf(attn, queries, () => 0),
    current: meanOf(attn, queries, (q) => q),
    next: meanOf(attn, early, (q) => q + 1),
    last: meanOf(attn, early, () => T - 1),
  };
  if (tokens) {
    const marks = range(0, T).filter((k) => isPunctuation(tokens[k]));
    out.punctuation = meanOf(attn, queries, () => marks);
  }
  return out;
}

// {duplicate, induction} on the repeated sequence's attentions; layout: repeatedSequence's {start, length}.
export function repeatRoleScores(attn, layout) {
  const { start, length } = layout,
    second = range(start + length, start + 2 * length);
  return {
    duplicate: meanOf(attn, second, (q) => q - length),
    induction: meanOf(attn, second, (q) => q - length + 1),
  };
}

// A deterministic generator of 32-bit words (mulberry32), so a seed gives the same sequence in every browser.
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

// The repeated random sequence: `length` distinct ids drawn from 0..vocab-1 minus `exclude` (the special tokens),
// then the same ids again, between the tokenizer's special tokens `prefix` and `suffix` (what tokenizer(text)
// adds around a text: BOS, or [CLS] … [SEP]). length is cut to what the vocabulary and maxPositions allow.
// → {ids, start (the first copy's position), length}.
export function repeatedSequence({
  vocab,
  length,
  seed = 0,
  prefix = [],
  suffix = [],
  exclude = [],
  maxPositions = Infinity,
}) {
  const banned = new Set(exclude.concat(prefix, suffix));
  const pool = [];
  for (let id = 0; id < vocab; id++) if (!banned.has(id)) pool.push(id);
  const n = Math.max(0, Math.min(length, pool.length, Math.floor((maxPositions - prefix.length - suffix.length) / 2)));
  if (n < 2)
    throw new Error("the model's vocabulary or positions leave room for no repeated sequence (" + n + ' tokens)');
  const next = mulberry32(seed);
  for (let i = 0; i < n; i++) {
    // the first n of a Fisher–Yates shuffle
    const j = i + (next() % (pool.length - i));
    const t = pool[i];
    pool[i] = pool[j];
    pool[j] = t;
  }
  const copy = pool.slice(0, n);
  return { ids: prefix.concat(copy, copy, suffix), start: prefix.length, length: n };
}

// What the tokenizer adds around a text: encode(text) → ids (special tokens added as tokenizer(text) adds them).
// The frame of the empty text split where a one-word text's ids part from it: {prefix, suffix}.
export function specialFrame(encode) {
  const empty = encode(''),
    word = encode('a');
  let p = 0;
  while (p < empty.length && p < word.length && empty[p] === word[p]) p++;
  return { prefix: empty.slice(0, p), suffix: empty.slice(p) };
}

// The heads of L·H scores in the order of a role: highest score first (NaN last), ties by layer then head.
// → [{layer, head, score}].
export function rankHeads(scores, H) {
  const rows = Array.from(scores, (score, i) => ({ layer: Math.floor(i / H), head: i % H, score }));
  const key = (v) => (Number.isNaN(v) ? -Infinity : v);
  return rows.sort((a, b) => key(b.score) - key(a.score) || a.layer - b.layer || a.head - b.head);
}
