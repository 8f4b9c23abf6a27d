// MHA Explorer — an input the page is given with its document (mx.explore in a notebook writes it): the student's
// own x [1, T, d_model] in place of the page's embeddings, their tokens, and their module's weights for Load weights.
// It is one JSON block the page reads at start, so it works in a srcdoc frame, from a saved file and with no network:
//   <script type="application/json" id="mha-explorer-input">
//     {"x": {"shape": [1, T, D], "float32": base64 of the T·D little-endian float32 values},
//      "tokens": [T strings] (labels of x's positions; without x: the tokens the page embeds),
//      "weights": {"file": name, "safetensors": base64 of a .safetensors file, "how": what writes that file (the
//                  snippet's comment)}, "source": where the input comes from ("the notebook")}
//   </script>
// No DOM beyond reading that element (Node tests call readPageInput with the block's text).

import { bytesOf } from '../state/base64.js';

export const INPUT_ID = 'mha-explorer-input';

// The block's text → {x: {shape, data} | null, tokens: [..] | null, weights: {file, bytes} | null, source} or null
// (no block); throws an Error in a student's words when the block is not such an input.
// maxTokens, maxDModel: the page's limits.
export function readPageInput(text, maxTokens, maxDModel) {
  if (text === null || text === undefined) return null;
  let o;
  try {
    o = JSON.parse(text);
  } catch (e) {
    throw new Error("the page's input block is not JSON (" + e.message + ')', { cause: e });
  }
  const given = {
    x: null,
    tokens: null,
    weights: null,
    source: typeof o.source === 'string' ? o.source : 'your input',
  };
  if (o.tokens !== undefined && o.tokens !== null) {
    if (
      !Array.isArray(o.tokens) ||
      !o.tokens.length ||
      !o.tokens.every(function (t) {
        return typeof t === 'string';
      })
    ) {
      throw new Error('the given tokens must be a non-empty list of strings');
    }
    if (o.tokens.length > maxTokens)
      throw new Error('the given tokens are ' + o.tokens.length + '; the page draws at most ' + maxTokens);
    given.tokens = o.tokens.slice();
  }
  if (o.x) {
    const shape = o.x.shape;
    if (
      !Array.isArray(shape) ||
      shape.length !== 3 ||
      shape[0] !== 1 ||
      !shape.every(function (n) {
        return Number.isInteger(n) && n > 0;
      })
    ) {
      throw new Error(
        'the given x has shape ' + JSON.stringify(shape) + '; the page takes one sequence, [1, T, d_model]',
      );
    }
    if (shape[1] > maxTokens)
      throw new Error('the given x has ' + shape[1] + ' positions; the page draws at most ' + maxTokens);
    if (shape[2] > maxDModel)
      throw new Error('the given x has d_model ' + shape[2] + '; the page shows d_model from 1 to ' + maxDModel);
    const bytes = bytesOf(String(o.x.float32 || ''));
    if (bytes.length !== shape[1] * shape[2] * 4) {
      throw new Error(
        'the given x has ' +
          bytes.length +
          ' bytes of data for shape [' +
          shape.join(', ') +
          '] (' +
          shape[1] * shape[2] * 4 +
          ' expected)',
      );
    }
    const data = new Float32Array(shape[1] * shape[2]),
      view = new DataView(bytes.buffer);
    for (let i = 0; i < data.length; i++) data[i] = view.getFloat32(4 * i, true);
    if (!data.every(Number.isFinite)) throw new Error('the given x holds NaN or infinite values');
    if (given.tokens && given.tokens.length !== shape[1]) {
      throw new Error('the given tokens are ' + given.tokens.length + " for x's " + shape[1] + ' positions');
    }
    given.x = { shape: shape.slice(), data: data };
  }
  if (o.weights) {
    given.weights = {
      file: String(o.weights.file || 'weights.safetensors'),
      bytes: bytesOf(String(o.weights.safetensors || '')),
      how: typeof o.weights.how === 'string' ? o.weights.how : null,
    };
  }
  return given;
}

// The input of a block's text (null: none), or null; {error} when the block is unreadable.
export function givenInput(text, maxTokens, maxDModel) {
  try {
    return readPageInput(text, maxTokens, maxDModel);
  } catch (err) {
    return { error: err.message };
  }
}

// x's labels: the given tokens, or t0…t(T-1).
export function inputLabels(given) {
  if (given.tokens) return given.tokens.slice();
  const labels = [];
  for (let i = 0; i < given.x.shape[1]; i++) labels.push('t' + i);
  return labels;
}
