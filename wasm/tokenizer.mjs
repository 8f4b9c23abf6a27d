// The model's own tokenizer in JS: tokenizer.json (+ tokenizer_config.json) read by @huggingface/tokenizers
// (npm, Apache-2.0, no dependencies; the library transformers.js uses), never a hand-written tokenizer.
//
//   const tok = loadTokenizer(tokenizerJsonText, tokenizerConfigJsonText);   // the second may be null
//   tok.encode('The chicken didn\'t cross the road')  // {ids, tokens}: special tokens added as Python's
//                                                      // tokenizer(text) adds them ([CLS]/[SEP], BOS...)
//   tok.decode(ids)                                    // as tokenizer.decode(ids) (special tokens kept)
//
// wasm/CMakeLists.txt bundles this module with esbuild into an IIFE defining `MhaTokenizer`, placed before
// api.js in dist/mha*.js; the page can import it as a module. Where the library and Python `tokenizers` differ,
// tests/node/tokenizer-hf.test.mjs names the sentence and docs/models-tokenizers.md says why.
import { Tokenizer } from '@huggingface/tokenizers';

function parseJson(text, file) {
  if (typeof text !== 'string') throw new TypeError(`${file}: expected the file's text, got ${typeof text}`);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${error.message})`, { cause: error });
  }
}

export function loadTokenizer(tokenizerJsonText, tokenizerConfigJsonText = null) {
  const json = parseJson(tokenizerJsonText, 'tokenizer.json');
  if (json === null || typeof json !== 'object' || typeof json.model !== 'object' || json.model === null) {
    throw new Error('tokenizer.json has no "model": is it a Hugging Face tokenizer.json?');
  }
  const config = tokenizerConfigJsonText == null ? {} : parseJson(tokenizerConfigJsonText, 'tokenizer_config.json');
  if (config === null || typeof config !== 'object') throw new Error('tokenizer_config.json is not a JSON object');
  // transformers (4.45 on) decodes without clean_up_tokenization_spaces unless the config asks; the library's
  // default is true ("didn ' t" would come back as "didn't").
  const settings = { clean_up_tokenization_spaces: false, ...config };
  let tokenizer;
  try {
    tokenizer = new Tokenizer(json, settings);
  } catch (error) {
    throw new Error(`tokenizer.json could not be read: ${error.message}`, { cause: error });
  }
  return {
    encode(text) {
      if (typeof text !== 'string') throw new TypeError(`encode: expected a string, got ${typeof text}`);
      const { ids, tokens } = tokenizer.encode(text);
      return { ids, tokens };
    },
    decode(ids) {
      if (!Array.isArray(ids) && !ArrayBuffer.isView(ids))
        throw new TypeError('decode: expected an array of token ids');
      return ids.length === 0 ? '' : tokenizer.decode(Array.from(ids, Number)); // the library refuses []
    },
  };
}
