// MHA Explorer, the model page — what the page reads from tokenizer.json and tokenizer_config.json itself: each id's
// token string as the tokenizer names it (convert_ids_to_tokens: GPT-2's Ġ, BERT's ##), the special tokens' ids
// (left out of the repeated random sequence) and the mask token (where a masked language model predicts).
// The tokenizing itself is model.tokenize's (the core's tokenizer module). Each token as text: token-text.js.
import { vocabularyKind, tokenText } from './token-text.js';

// texts: {tokenizer, tokenizerConfig} (tokenizer_config.json's text or null) → {tokenOf(id), special: [ids], maskId,
// maskToken, textOf(id) (what the page shows: decoded, marked), decodedOf(id) (the token's text), findToken(text)}.
export function readVocabulary(texts) {
  let tok;
  try {
    tok = JSON.parse(texts.tokenizer);
  } catch (e) {
    throw new Error('tokenizer.json is not JSON (' + e.message + ').', { cause: e });
  }
  const names = [];
  const vocab = tok && tok.model && tok.model.vocab;
  if (Array.isArray(vocab))
    vocab.forEach((entry, id) => {
      names[id] = Array.isArray(entry) ? String(entry[0]) : String(entry);
    }); // Unigram: [token, score]
  else if (vocab && typeof vocab === 'object') for (const [t, id] of Object.entries(vocab)) names[id] = t;
  const special = [];
  for (const a of tok.added_tokens || []) {
    names[a.id] = a.content;
    if (a.special) special.push(a.id);
  }
  let config = {};
  if (texts.tokenizerConfig) {
    try {
      config = JSON.parse(texts.tokenizerConfig) || {};
    } catch (e) {
      throw new Error('tokenizer_config.json is not JSON (' + e.message + ').', { cause: e });
    }
  }
  const content = (t) => (t && typeof t === 'object' ? t.content : t);
  const maskToken = content(config.mask_token) || ['[MASK]', '<mask>'].find((m) => names.includes(m)) || null;
  const maskId = maskToken != null && names.includes(maskToken) ? names.indexOf(maskToken) : -1;
  const tokenOf = (id) => (names[id] !== undefined ? names[id] : '#' + id);
  const kind = vocabularyKind(tok),
    isSpecial = new Set(special),
    made = new Map();
  const text = (id) => {
    if (!made.has(id)) made.set(id, tokenText(tokenOf(id), kind, isSpecial.has(id)));
    return made.get(id);
  };
  return {
    tokenOf,
    textOf: (id) => text(id).shown,
    decodedOf: (id) => text(id).text,
    findToken: finder(names, (id) => text(id).text),
    kind: kind.kind,
    special: special.sort((a, b) => a - b),
    maskId,
    maskToken,
  };
}

// A word the student types ("road") → the id of the one token that is it: a word's token with a leading space (" road",
// as it comes after another word; punctuation's without), else the token itself, as stored or decoded, else its lower case (an uncased
// vocabulary); -1 when none is. The map from text to id is built at the first call.
function finder(names, decoded) {
  let byText = null;
  return (typed) => {
    const t = String(typed).trim();
    if (!t) return -1;
    if (!byText) {
      byText = new Map();
      names.forEach((n, id) => {
        for (const k of ['raw:' + n, 'text:' + decoded(id)]) if (!byText.has(k)) byText.set(k, id);
      });
    }
    const spaced = /^[\p{L}\p{N}]/u.test(t) ? ['text: ' + t] : []; // a word; punctuation comes without a space
    for (const k of [...spaced, 'raw:' + t, 'text:' + t, 'text: ' + t, 'raw:' + t.toLowerCase()])
      if (byText.has(k)) return byText.get(k);
    return -1;
  };
}
