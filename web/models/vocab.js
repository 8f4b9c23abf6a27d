// MHA Explorer, the model page — what the page reads from tokenizer.json and tokenizer_config.json itself: each id's
// token string as the tokenizer names it (convert_ids_to_tokens: GPT-2's Ġ, BERT's ##), the special tokens' ids
// (left out of the repeated random sequence) and the mask token (where a masked language model predicts).
// The tokenizing itself is model.tokenize's (the core's tokenizer module).

// texts: {tokenizer, tokenizerConfig} (tokenizer_config.json's text or null) → {tokenOf(id), special: [ids], maskId,
// maskToken}.
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
  return {
    tokenOf: (id) => (names[id] !== undefined ? names[id] : '#' + id),
    special: special.sort((a, b) => a - b),
    maskId,
    maskToken,
  };
}
