// Tokenizing: a checkpoint's tokenizer.json (+ tokenizer_config.json) for Model.tokenize.
/* global MhaTokenizer */
import { fail } from './checks.js';
import { readText } from './files.js';

// The largest token id tokenizer.json can produce (its vocabulary and added tokens), or -1.
function tokenizerMaxId(json) {
  let max = -1;
  const vocab = json && json.model && json.model.vocab;
  if (Array.isArray(vocab))
    max = vocab.length - 1; // Unigram: [[piece, score], ...]
  else if (vocab && typeof vocab === 'object')
    for (const id of Object.values(vocab)) if (typeof id === 'number' && id > max) max = id;
  for (const t of json && Array.isArray(json.added_tokens) ? json.added_tokens : [])
    if (typeof t.id === 'number' && t.id > max) max = t.id;
  return max;
}

// tokenizer.json (with tokenizer_config.json when given) through the tokenizer module (wasm/tokenizer.mjs,
// bundled as MhaTokenizer before this file), checked against the model's embedding; null without it.
async function loadTokenizer(byName, info, io) {
  const file = byName.get('tokenizer.json');
  if (!file) return null;
  const text = await readText(file, io);
  let json;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return fail(`tokenizer.json is not valid JSON (${e.message})`);
  }
  const maxId = tokenizerMaxId(json);
  if (maxId >= info.vocab) {
    fail(
      `tokenizer.json's vocabulary does not match the model: it has token ids up to ${maxId}, but the embedding has ` +
        `${info.vocab} rows (config.json's vocab_size); is the tokenizer from another model?`,
    );
  }
  const config = byName.get('tokenizer_config.json');
  return MhaTokenizer.loadTokenizer(text, config ? await readText(config, io) : null);
}

export { loadTokenizer };
