// MHA Explorer — the explorer page's runs of the core: everything that calls the WebAssembly API (createMhaModule) for
// the explorer page: its tokenizer, embeddings, the lessons' module run (runModule) and torch-style printing. (The model
// page, real checkpoints, is web/models/.)
// Runs unchanged on the page and inside the Web Worker; named exports. An ES module, bundled by web/build.mjs (esbuild) into a
// classic script: file:// keeps working.

export const MAX_TOKENS = 512;

// ---- Tokenizer -------------------------------------------------------------------------
// One rule, written the same way in the Python snippets (web/lessons/tokenizer.py) and tested on every
// Unicode code point against it: the text is NFC-normalized; a token is a run of letters, marks, digits
// and "_" (inner apostrophes kept, as in "didn't"), or one punctuation mark or symbol (general categories
// P*, S*); everything else (spaces, control and format characters such as U+FEFF) separates tokens.
const TOKEN_RE = /[\p{L}\p{M}\p{N}_]+(?:'[\p{L}\p{M}\p{N}_]+)*|[\p{P}\p{S}]/gu;
export function normalize(text) {
  return String(text || '').normalize('NFC');
}
export function tokenize(text) {
  return normalize(text).match(TOKEN_RE) || [];
}
// Where each token ends in the normalized text (for cutting a long text at a token boundary).
export function tokenEnds(text) {
  let s = normalize(text),
    re = new RegExp(TOKEN_RE.source, 'gu'),
    ends = [],
    m;
  while ((m = re.exec(s))) ends.push(m.index + m[0].length);
  return { text: s, ends: ends };
}

// ---- Token embeddings ------------------------------------------------------------------
// Each distinct token gets randn(d_model) from its own generator seeded with
// fnv1a32(utf8(`${seed}:${token}`)) — deterministic per (token, seed), independent of position.
export function fnv1a32(str) {
  const bytes = new TextEncoder().encode(str);
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i];
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
export function tokenSeed(seed, token) {
  return fnv1a32(seed + ':' + token);
}

// Sinusoidal positions (Vaswani et al.): pe[p, 2i] = sin(p / 10000^(2i/D)), pe[p, 2i+1] = cos(...)
// The table (float32 values, as added) is cached per D and grown to the longest S seen.
let peCache = { D: 0, S: 0, pe: null };
function peTable(S, D) {
  if (peCache.D !== D || peCache.S < S) {
    const n = Math.max(S, peCache.D === D ? peCache.S * 2 : 0, 16),
      pe = new Float32Array(n * D);
    for (let p = 0; p < n; p++) {
      for (let i = 0; i < D; i += 2) {
        const div = Math.exp(i * (-Math.log(10000) / D));
        pe[p * D + i] = Math.sin(p * div);
        if (i + 1 < D) pe[p * D + i + 1] = Math.cos(p * div);
      }
    }
    peCache = { D: D, S: n, pe: pe };
  }
  return peCache.pe;
}
export function addSinusoidal(data, S, D) {
  const pe = peTable(S, D);
  for (let k = 0, n = S * D; k < n; k++) data[k] += pe[k];
}

let embedCache = { key: '', map: new Map() };
export function embedTokens(M, tokens, D, seed, pos) {
  const key = D + '/' + seed;
  if (embedCache.key !== key) embedCache = { key: key, map: new Map() };
  const S = tokens.length;
  const data = new Float32Array(S * D);
  let gen = null;
  try {
    for (let s = 0; s < S; s++) {
      let v = embedCache.map.get(tokens[s]);
      if (!v) {
        if (!gen) gen = new M.Generator(0);
        gen.manualSeed(tokenSeed(seed, tokens[s]));
        v = gen.randn([D]).data;
        if (embedCache.map.size < 4096) embedCache.map.set(tokens[s], v);
      }
      data.set(v, s * D);
    }
  } finally {
    if (gen) gen.delete();
  }
  if (pos) addSinusoidal(data, S, D);
  return { shape: [1, S, D], data: data };
}

export function divisors(n) {
  const out = [];
  for (let i = 1; i <= n; i++) if (n % i === 0) out.push(i);
  return out;
}
export function headsMessage(D, H) {
  return (
    'd_model (' + D + ') must be divisible by num_heads (' + H + '); head counts that work: ' + divisors(D).join(', ')
  );
}

export function maskTensor(S, style) {
  // 'tril-keep': torch.tril(ones(S,S)), 1 = may attend (lessons 000/002, masked_fill(mask == 0))
  // 'triu-block': torch.triu(ones(S,S), diagonal=1), 1 = blocked (lesson 003, masked_fill(mask == 1))
  const d = new Float32Array(S * S);
  for (let i = 0; i < S; i++)
    for (let j = 0; j < S; j++) {
      d[i * S + j] = style === 'triu-block' ? (j > i ? 1 : 0) : j <= i ? 1 : 0;
    }
  return { shape: [1, 1, S, S], data: d };
}
export function fillValue(fill) {
  return fill === '-1e9' ? -1e9 : -Infinity;
}

// ---- The module run: one nn.Module-style forward, in the lesson's draw order ------------
// spec: the explorer's forward record (explorer/forward.js's Forward): {dModel, numHeads, seed, bias, dropout, train,
//        mask: {style, fill} | null,
//        input: {type: 'text', tokens, pos} | {type: 'tensor', x: {shape: [1, T, D], data}} (a given x, explorer/input.js)
//               | {type: 'rand' | 'randn', batch, seqLen},
//        order: 'input-first' | 'module-first', weights?: {name: {shape, data}} (a state_dict loaded after
//        the init), weightsId?: the weights' identity, part of the module cache's key}
// The module cache: the last deterministic module built (its generator with it), kept for the next forward with the
// same key; one per explorer (each frees its own), and one for the callers that pass none (the forward worker).
export class ModuleCache {
  constructor() {
    this.entry = null;
  }
  get(key) {
    return this.entry && this.entry.key === key ? this.entry : null;
  }
  put(key, mha, gen) {
    this.entry = { key: key, mha: mha, gen: gen };
  }
  free() {
    if (this.entry) {
      try {
        this.entry.mha.delete();
        this.entry.gen.delete();
      } catch (e) {
        /* gone */
      }
    }
    this.entry = null;
  }
}
const defaultCache = new ModuleCache();
export function freeCache() {
  defaultCache.free();
}

// mha.load_state_dict(weights), after the module drew its initial weights (so the generator's stream, and the
// input drawn after it, are the snippet's); a file the core refuses frees the module before the error goes on.
function loadWeights(mha, gen, weights) {
  try {
    mha.loadStateDict(weights);
  } catch (err) {
    mha.delete();
    gen.delete();
    throw err;
  }
}

// torch.manual_seed(seed) has run (gen); mha = MultiHeadAttention(...), then mha.load_state_dict(spec.weights).
function newModule(M, spec, gen) {
  const mha = new M.MultiHeadAttention({
    dModel: spec.dModel,
    numHeads: spec.numHeads,
    bias: spec.bias !== false,
    dropout: spec.dropout,
    generator: gen,
  });
  if (spec.weights) loadWeights(mha, gen, spec.weights);
  return mha;
}

// The module for a text or tensor input, from the cache when the same one was made last (a stochastic module,
// dropout in training, is made anew each time and not kept): {mha, gen, cached}.
function moduleFor(M, spec, cache) {
  const stochastic = spec.train && spec.dropout > 0;
  const key = [spec.dModel, spec.numHeads, spec.seed, spec.bias !== false, spec.dropout, spec.weightsId || ''].join(
    '/',
  );
  const hit = stochastic ? null : cache.get(key);
  if (hit) return { mha: hit.mha, gen: hit.gen, cached: true };
  cache.free();
  const gen = new M.Generator(spec.seed);
  const mha = newModule(M, spec, gen);
  if (stochastic) return { mha: mha, gen: gen, cached: false };
  cache.put(key, mha, gen);
  return { mha: mha, gen: gen, cached: true };
}

// A random input (rand or randn [batch, seqLen, d_model]) drawn from the module's generator before or after the
// module draws its weights (spec.order, as the lesson's snippet does): {mha, gen, x}, never cached.
function moduleWithDrawnInput(M, spec) {
  const inp = spec.input,
    gen = new M.Generator(spec.seed);
  const shape = [inp.batch, inp.seqLen, spec.dModel];
  const draw = function () {
    return inp.type === 'rand' ? gen.rand(shape) : gen.randn(shape);
  };
  let x;
  if (spec.order === 'input-first') x = draw();
  const mha = newModule(M, spec, gen);
  if (spec.order !== 'input-first') x = draw();
  return { mha: mha, gen: gen, x: x };
}

// mha(x, x, x) in train or eval mode, timed: the forward's record (t0: when the run began).
function selfAttention(M, spec, mha, x, heads, t0) {
  if (spec.train) mha.train();
  else mha.eval();
  // Both lesson mask styles (tril keep-mask, triu block-mask) mask exactly the later keys: the core's
  // causal flag does the same without an S×S mask tensor. -inf and -1e9 give the same weights (a causal
  // row always keeps its diagonal, and exp(-1e9 - max) is 0 in float32).
  const options = spec.mask ? { causal: true, fill: fillValue(spec.mask.fill) } : {};
  if (heads) options.heads = heads;
  const t1 = now();
  const r = mha.forward(x, x, x, options);
  const t2 = now();
  return {
    weights: r.weights,
    output: r.output,
    trace: r.trace,
    x: x,
    B: x.shape[0],
    H: spec.numHeads,
    S: x.shape[1],
    D: spec.dModel,
    paramCount: mha.parameterCount(),
    implementation: M.implementation,
    ms: t2 - t1,
    totalMs: t2 - t0,
  };
}

// heads: [start, end) to compute only those heads' part (forward's options.heads; a worker pool's share).
// cache: a ModuleCache (the default one when absent).
export function runModule(M, spec, heads, cache) {
  cache = cache || defaultCache;
  const D = spec.dModel,
    H = spec.numHeads;
  if (D % H !== 0) throw new Error(headsMessage(D, H));
  const t0 = now();
  const inp = spec.input;
  let run;
  if (inp.type === 'text' || inp.type === 'tensor') {
    // torch.manual_seed(seed); mha = MultiHeadAttention(...); x = embeddings (own generators) or the given x
    run = moduleFor(M, spec, cache);
    run.x = inp.type === 'tensor' ? inp.x : embedTokens(M, inp.tokens, D, spec.seed, inp.pos);
  } else {
    run = moduleWithDrawnInput(M, spec);
  }
  try {
    return selfAttention(M, spec, run.mha, run.x, heads, t0);
  } finally {
    if (!run.cached) {
      run.mha.delete();
      run.gen.delete();
    }
  }
}

export function now() {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}

// Estimated multiply-adds of one forward: used to decide when to move work to a Worker.
export function cost(spec) {
  const inp = spec.input || {};
  const S = inp.type === 'text' ? inp.tokens.length : inp.type === 'tensor' ? inp.x.shape[1] : inp.seqLen || 0;
  const B = inp.type === 'text' || inp.type === 'tensor' ? 1 : inp.batch || 1;
  return B * (4 * S * spec.dModel * spec.dModel + 2 * S * S * spec.dModel);
}

// ---- Torch-style printing ----------------------------------------------------------------
// PyTorch 1.13's print(t) for a float32 tensor at the default print options (torch/_tensor_str.py:
// precision 4, threshold 1000, edgeitems 3, linewidth 80, sci_mode None), for 0-D, 1-D and 2-D tensors.
// Past `threshold` elements only the corners are printed (edgeitems per end of each dimension, '...'
// between), and the _Formatter sees only those corners. The formatter looks at the non-zero finite values:
// int mode when all are whole, scientific when max/min > 1000, max > 1e8 or (not int mode) min < 1e-4;
// its width is the longest of *their* strings (at least 1), so nan/inf/-0 may stick out unpadded.
const PRECISION = 4,
  THRESHOLD = 1000,
  EDGEITEMS = 3,
  LINEWIDTH = 80;
const PAD4 = ['0000', '000', '00', '0', ''];
const TWO53 = 9007199254740992;
function negative(v) {
  return v < 0 || (v === 0 && 1 / v < 0);
}
function nonFinite(v) {
  return v !== v ? 'nan' : v > 0 ? 'inf' : '-inf';
}
// Python's '{:.4f}'.format(v) for finite v: the exact decimal value rounded half to even (JS toFixed
// rounds exact ties away from zero). A float32 times 1e4 is exact in a double (24 + 10 bits), so for
// float32 values the rounding is done directly; other doubles go through toFixed with the tie fixed.
function fixed4(v) {
  let a = v < 0 ? -v : v,
    k;
  if (a < 1e9 && Math.fround(a) === a) {
    const y = a * 1e4;
    k = Math.floor(y);
    const f = y - k;
    if (f > 0.5 || (f === 0.5 && k % 2 === 1)) k++;
  } else {
    // an exact tie at the 4th decimal is an odd multiple of 1/32 (a = j / 32, a * 1e4 = j * 312.5),
    // where toFixed took the upper neighbour; Python takes the even one
    const s = a.toFixed(PRECISION),
      j = a * 32;
    if (!(j % 2 === 1 && j * 312.5 < TWO53)) return (negative(v) ? '-' : '') + s;
    k = Math.floor(j * 312.5);
    if (k % 2 === 1) k++;
  }
  const ip = Math.floor(k / 1e4),
    fp = String(k - ip * 1e4);
  return (negative(v) ? '-' : '') + ip + '.' + PAD4[fp.length] + fp;
}
// Python's '{:.4e}'.format(v) for finite v (exponent at least two digits, ties to even).
function sci4(v) {
  const sign = negative(v) ? '-' : '',
    a = v < 0 ? -v : v;
  if (a === 0) return sign + '0.0000e+00';
  let s = a.toExponential(PRECISION),
    ei = s.indexOf('e');
  let m = +(s.charAt(0) + s.substring(2, ei)),
    e = +s.substring(ei + 1);
  // toExponential rounds an exact tie up: then m is the upper neighbour, and when m is odd the even
  // one (m - 1) is Python's. A tie is a = (2m - 1) / 2 * 10^(e - 4) exactly.
  if (m % 2 === 1 && isTie(a, 2 * m - 1, e - PRECISION)) {
    m -= 1;
    const ms = String(m);
    s = ms.charAt(0) + '.' + ms.substring(1) + s.substring(ei);
    ei = s.indexOf('e');
  }
  const es = s.substring(ei + 2);
  return sign + s.substring(0, ei) + 'e' + s.charAt(ei + 1) + (es.length < 2 ? '0' + es : es);
}
// Is a exactly odd / 2 * 10^p (odd < 2e5)?
function isTie(a, odd, p) {
  if (p >= 0) {
    const J = 2 * a;
    if (J !== Math.floor(J)) return false;
    const P = odd * Math.pow(10, p); // exact below 2^53
    if (P < TWO53) return J === P;
    return typeof BigInt === 'function' && BigInt(J) === BigInt(odd) * BigInt(10) ** BigInt(p);
  }
  const q = -p; // a * 2^(q+1) * 5^q === odd
  if (q > 7) return false; // 5^8 > 2e5
  const j = a * Math.pow(2, q + 1);
  return j === Math.floor(j) && j * Math.pow(5, q) === odd;
}
// torch's _Formatter over `values` (the printed, i.e. possibly summarized, elements).
function makeFormatter(values) {
  let n = values.length,
    intMode = true,
    nz = 0,
    mn = Infinity,
    mx = 0,
    i,
    v,
    a;
  for (i = 0; i < n; i++) {
    v = values[i];
    if (v === 0 || v !== v || v === Infinity || v === -Infinity) continue;
    a = v < 0 ? -v : v;
    nz++;
    if (a < mn) mn = a;
    if (a > mx) mx = a;
    if (intMode && Math.ceil(v) !== v) intMode = false;
  }
  const sciMode = nz > 0 && (mx / mn > 1000 || mx > 1e8 || (!intMode && mn < 1e-4));
  const raw = sciMode
    ? function (v) {
        return v === v && v !== Infinity && v !== -Infinity ? sci4(v) : nonFinite(v);
      }
    : intMode
      ? function (v) {
          return v === v && v !== Infinity && v !== -Infinity
            ? (negative(v) ? '-' : '') + (v < 0 ? -v : v).toFixed(0) + '.'
            : nonFinite(v);
        }
      : function (v) {
          return v === v && v !== Infinity && v !== -Infinity ? fixed4(v) : nonFinite(v);
        };
  let width = 1;
  for (i = 0; i < n; i++) {
    v = values[i];
    if (v === 0 || v !== v || v === Infinity || v === -Infinity) continue;
    const len = raw(v).length;
    if (len > width) width = len;
  }
  return {
    width: width,
    format: function (v) {
      const s = raw(v);
      return s.length < width ? ' '.repeat(width - s.length) + s : s;
    },
  };
}
// Indices printed along a dimension of size n: all, or the first and last EDGEITEMS.
function shownIndices(n, summarize) {
  let idx = [],
    i;
  if (summarize && n > 2 * EDGEITEMS) {
    for (i = 0; i < EDGEITEMS; i++) idx.push(i);
    for (i = n - EDGEITEMS; i < n; i++) idx.push(i);
  } else {
    for (i = 0; i < n; i++) idx.push(i);
  }
  return idx;
}
// _vector_str: `cells` are the formatted elements, ' ...' already in place when summarized.
function vectorStr(cells, width, indent) {
  const perLine = Math.max(1, Math.floor((LINEWIDTH - indent) / (width + 2)));
  if (cells.length <= perLine) return '[' + cells.join(', ') + ']';
  const lines = [];
  for (let i = 0; i < cells.length; i += perLine) lines.push(cells.slice(i, i + perLine).join(', '));
  return '[' + lines.join(',\n' + ' '.repeat(indent + 1)) + ']';
}
// t = {shape: [] | [n] | [r, c], data: Float32Array}. opts.suffix: ', name=value' (e.g. ', grad_fn=<...>'),
// placed before the closing paren as torch's _add_suffixes does (on its own line past linewidth).
export function torchStr(t, opts) {
  opts = opts || {};
  const shape = t.shape,
    data = t.data,
    dim = shape.length;
  let prefix = 'tensor(',
    indent = prefix.length,
    body,
    suffixes = [];
  let numel = 1;
  for (let d = 0; d < dim; d++) numel *= shape[d];
  if (dim > 2) {
    body = '[…]';
  } else if (numel === 0) {
    body = '[]';
    if (dim !== 1) suffixes.push('size=(' + shape.join(', ') + ')');
  } else if (dim === 0) {
    body = makeFormatter([data[0]]).format(data[0]);
  } else {
    const summarize = numel > THRESHOLD;
    const R = dim === 2 ? shape[0] : 1,
      C = shape[dim - 1];
    const rows = dim === 2 ? shownIndices(R, summarize) : [0],
      cols = shownIndices(C, summarize);
    let nr = rows.length,
      nc = cols.length,
      r,
      c,
      vals = new Array(nr * nc);
    for (r = 0; r < nr; r++) for (c = 0; c < nc; c++) vals[r * nc + c] = data[rows[r] * C + cols[c]];
    const f = makeFormatter(vals),
      gap = nc < C;
    const rowStr = function (r, ind) {
      const cells = [];
      for (let c = 0; c < nc; c++) {
        if (gap && c === EDGEITEMS) cells.push(' ...');
        cells.push(f.format(vals[r * nc + c]));
      }
      return vectorStr(cells, f.width, ind);
    };
    if (dim === 1) {
      body = rowStr(0, indent);
    } else {
      const slices = [];
      for (r = 0; r < nr; r++) {
        if (nr < R && r === EDGEITEMS) slices.push('...');
        slices.push(rowStr(r, indent + 1));
      }
      body = '[' + slices.join(',\n' + ' '.repeat(indent + 1)) + ']';
    }
  }
  if (opts.suffix) suffixes.push(String(opts.suffix).replace(/^,\s*/, ''));
  return addSuffixes(prefix + body, suffixes, indent);
}
// _add_suffixes (force_newline false), including its line-length arithmetic.
function addSuffixes(s, suffixes, indent) {
  let out = s,
    last = s.length - s.lastIndexOf('\n') + 1;
  for (let i = 0; i < suffixes.length; i++) {
    const sx = suffixes[i];
    if (last + sx.length + 2 > LINEWIDTH) {
      out += ',\n' + ' '.repeat(indent) + sx;
      last = indent + sx.length;
    } else {
      out += ', ' + sx;
      last += sx.length + 2;
    }
  }
  return out + ')';
}
export function sizeStr(shape) {
  return 'torch.Size([' + shape.join(', ') + '])';
}
// One formatter: toLocaleString builds a new Intl.NumberFormat on every call (~0.1 ms per render).
const EN_US = typeof Intl !== 'undefined' ? new Intl.NumberFormat('en-US') : null;
export function commas(n) {
  return EN_US ? EN_US.format(Number(n)) : String(Number(n));
}

// Slice [b, h] of a [B, H, S, S] tensor.
// w: [B, H, S, S] weights, or the forward pool's kept as parts (compute/forward-pool.js's partedWeights).
export function headMatrix(w, b, h) {
  let S = w.shape[2],
    H = w.shape[1],
    data;
  if (w.parts) {
    const p = w.parts.find(function (q) {
      return h >= q.h0 && h < q.h1;
    });
    H = p.h1 - p.h0;
    h -= p.h0;
    data = p.data;
  } else data = w.data;
  const off = (b * H + h) * S * S;
  return { shape: [S, S], data: data.subarray(off, off + S * S) };
}
