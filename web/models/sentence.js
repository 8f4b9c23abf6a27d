// @ts-check
// MHA Explorer, the model page — the sentence embedding of a sentence-transformers folder (no DOM, tested in Node and
// against PyTorch): modules.json names the modules (Transformer, Pooling, Normalize), the Pooling module's
// config.json its modes; the embedding is the last hidden states pooled (and normalised) as sentence-transformers'
// Pooling and Normalize modules compute them, and two texts compare by the cosine of their embeddings.

// Pooling modes in the order sentence-transformers concatenates them (its Pooling module's forward).
const MODES = [
  ['pooling_mode_cls_token', 'cls', 'the first token ([CLS])'],
  ['pooling_mode_max_tokens', 'max', 'the largest value of each dimension over the tokens'],
  ['pooling_mode_mean_tokens', 'mean', 'the mean over the tokens'],
  ['pooling_mode_mean_sqrt_len_tokens', 'mean_sqrt_len', 'the sum over the tokens divided by √T'],
  ['pooling_mode_weightedmean_tokens', 'weightedmean', null],
  ['pooling_mode_lasttoken', 'lasttoken', 'the last token'],
];

/**
 * modules.json's text and a reader of the folder's other files → {pooling: [mode], normalize, dim, words} (what
 * the page computes), or {refused: why} when a module is one the page does not compute (a Dense layer, a weighted
 * mean), or null when the text is null (not a sentence-transformers folder).
 * @param {string | null} modulesText
 * @param {(path: string) => Promise<string | null>} readPath the text of a file of the folder by its path, or null
 */
export async function readSentenceConfig(modulesText, readPath) {
  if (modulesText == null) return null;
  let modules;
  try {
    modules = JSON.parse(modulesText);
  } catch (e) {
    return { refused: 'modules.json is not JSON (' + /** @type {Error} */ (e).message + ')' };
  }
  if (!Array.isArray(modules))
    return { refused: 'modules.json is not the list of modules sentence-transformers writes' };
  const kinds = modules.map((m) =>
    String((m && m.type) || '')
      .split('.')
      .pop(),
  );
  const other = kinds.find((k) => !['Transformer', 'Pooling', 'Normalize'].includes(k));
  if (other) return { refused: 'its modules.json has a ' + other + ' module, which the page does not compute' };
  const at = kinds.indexOf('Pooling');
  if (at < 0 || kinds[0] !== 'Transformer')
    return { refused: 'its modules.json has no Pooling module after the Transformer' };
  const path = String(modules[at].path || '').replace(/\/$/, '');
  const text = await readPath((path ? path + '/' : '') + 'config.json');
  if (text == null) return { refused: (path ? path + '/' : '') + 'config.json (the pooling) is missing' };
  let pool;
  try {
    pool = JSON.parse(text);
  } catch (e) {
    return { refused: path + '/config.json is not JSON (' + /** @type {Error} */ (e).message + ')' };
  }
  return poolingFrom(pool, kinds.indexOf('Normalize') > at);
}

// The Pooling module's config.json (and whether a Normalize module follows it) → the sentence config or {refused}.
function poolingFrom(pool, normalize) {
  if (pool.pooling_mode && !MODES.some((m) => m[1] === pool.pooling_mode))
    return { refused: 'its pooling mode ' + pool.pooling_mode + ' is not one the page computes' };
  const on = MODES.filter((m) => pool[m[0]] === true || pool.pooling_mode === m[1]);
  if (!on.length) return { refused: 'its Pooling config.json names no pooling mode' };
  const none = on.find((m) => !m[2]);
  if (none) return { refused: 'its pooling mode ' + none[1] + ' is not one the page computes' };
  if (pool.include_prompt === false) return { refused: 'its Pooling leaves out a prompt, which the page does not' };
  const words =
    on.map((m) => m[2]).join(', then ') +
    ' of the last hidden states' +
    (normalize ? ', normalised to length 1' : '') +
    ' (modules.json)';
  return {
    pooling: on.map((m) => m[1]),
    normalize,
    dim: Number(pool.word_embedding_dimension) || null,
    words,
  };
}

/**
 * The sentence embedding of one text (float64): hidden is the model's last hidden states {shape: [1, T, D], data}.
 * @param {{shape: number[], data: ArrayLike<number>}} hidden
 * @param {{pooling: string[], normalize: boolean}} config
 * @returns {Float64Array}
 */
export function sentenceEmbedding(hidden, config) {
  const [, T, D] = hidden.shape,
    h = hidden.data;
  const parts = config.pooling.map((mode) => pool(h, T, D, mode));
  const e = new Float64Array(parts.length * D);
  parts.forEach((p, i) => e.set(p, i * D));
  if (!config.normalize) return e;
  const n = Math.max(norm(e), 1e-12); // torch.nn.functional.normalize's eps
  return e.map((x) => x / n);
}

function pool(h, T, D, mode) {
  const out = new Float64Array(D);
  if (mode === 'cls' || mode === 'lasttoken') {
    const t = mode === 'cls' ? 0 : T - 1;
    for (let d = 0; d < D; d++) out[d] = h[t * D + d];
    return out;
  }
  if (mode === 'max') out.fill(-Infinity);
  for (let t = 0; t < T; t++)
    for (let d = 0; d < D; d++) out[d] = mode === 'max' ? Math.max(out[d], h[t * D + d]) : out[d] + h[t * D + d];
  if (mode === 'max') return out;
  const by = mode === 'mean' ? T : Math.sqrt(T);
  return out.map((x) => x / by);
}

/** @param {ArrayLike<number>} v */
export const norm = (v) => {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  return Math.sqrt(s);
};

/**
 * The cosine similarity of two vectors (as torch.nn.functional.cosine_similarity, eps 1e-8).
 * @param {ArrayLike<number>} a @param {ArrayLike<number>} b
 */
export function cosine(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s / Math.max(norm(a) * norm(b), 1e-8);
}
