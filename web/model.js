// MHA Explorer — model layer: everything that calls the WebAssembly API (createMhaModule).
// Runs unchanged on the page and inside the Web Worker (importScripts). Defines MHA.model.
(function (root) {
  'use strict';
  var MHA = (root.MHA = root.MHA || {});

  var MAX_TOKENS = 512;

  // ---- Tokenizer -------------------------------------------------------------------------
  // Documented rule (same as Python's re.findall(r"\w+(?:'\w+)*|[^\w\s]", text)):
  // a token is a run of letters/digits/underscores (with inner apostrophes, as in "didn't"),
  // or any single other non-space character (punctuation). Case is kept.
  var TOKEN_RE = /[\p{L}\p{M}\p{N}_]+(?:'[\p{L}\p{M}\p{N}_]+)*|[^\s\p{L}\p{M}\p{N}_]/gu;
  function tokenize(text) {
    return String(text || '').match(TOKEN_RE) || [];
  }

  // ---- Token embeddings ------------------------------------------------------------------
  // Each distinct token gets randn(d_model) from its own generator seeded with
  // fnv1a32(utf8(`${seed}:${token}`)) — deterministic per (token, seed), independent of position.
  function fnv1a32(str) {
    var bytes = typeof TextEncoder !== 'undefined' ? new TextEncoder().encode(str) : Buffer.from(str, 'utf8');
    var h = 0x811c9dc5;
    for (var i = 0; i < bytes.length; i++) {
      h ^= bytes[i];
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h >>> 0;
  }
  function tokenSeed(seed, token) { return fnv1a32(seed + ':' + token); }

  // Sinusoidal positions (Vaswani et al.): pe[p, 2i] = sin(p / 10000^(2i/D)), pe[p, 2i+1] = cos(...)
  // The table (float32 values, as added) is cached per D and grown to the longest S seen.
  var peCache = { D: 0, S: 0, pe: null };
  function peTable(S, D) {
    if (peCache.D !== D || peCache.S < S) {
      var n = Math.max(S, peCache.D === D ? peCache.S * 2 : 0, 16), pe = new Float32Array(n * D);
      for (var p = 0; p < n; p++) {
        for (var i = 0; i < D; i += 2) {
          var div = Math.exp(i * (-Math.log(10000) / D));
          pe[p * D + i] = Math.sin(p * div);
          if (i + 1 < D) pe[p * D + i + 1] = Math.cos(p * div);
        }
      }
      peCache = { D: D, S: n, pe: pe };
    }
    return peCache.pe;
  }
  function addSinusoidal(data, S, D) {
    var pe = peTable(S, D);
    for (var k = 0, n = S * D; k < n; k++) data[k] += pe[k];
  }

  var embedCache = { key: '', map: new Map() };
  function embedTokens(M, tokens, D, seed, pos) {
    var key = D + '/' + seed;
    if (embedCache.key !== key) embedCache = { key: key, map: new Map() };
    var S = tokens.length;
    var data = new Float32Array(S * D);
    var gen = null;
    try {
      for (var s = 0; s < S; s++) {
        var v = embedCache.map.get(tokens[s]);
        if (!v) {
          if (!gen) gen = new M.Generator(0);
          gen.manualSeed(tokenSeed(seed, tokens[s]));
          v = gen.randn([D]).data;
          if (embedCache.map.size < 4096) embedCache.map.set(tokens[s], v);
        }
        data.set(v, s * D);
      }
    } finally { if (gen) gen.delete(); }
    if (pos) addSinusoidal(data, S, D);
    return { shape: [1, S, D], data: data };
  }

  function divisors(n) {
    var out = [];
    for (var i = 1; i <= n; i++) if (n % i === 0) out.push(i);
    return out;
  }
  function headsMessage(D, H) {
    return 'd_model (' + D + ') must be divisible by num_heads (' + H + '); head counts that work: ' +
      divisors(D).join(', ');
  }

  function maskTensor(S, style) {
    // 'tril-keep': torch.tril(ones(S,S)), 1 = may attend (lessons 000/002, masked_fill(mask == 0))
    // 'triu-block': torch.triu(ones(S,S), diagonal=1), 1 = blocked (lesson 003, masked_fill(mask == 1))
    var d = new Float32Array(S * S);
    for (var i = 0; i < S; i++) for (var j = 0; j < S; j++) {
      d[i * S + j] = style === 'triu-block' ? (j > i ? 1 : 0) : (j <= i ? 1 : 0);
    }
    return { shape: [1, 1, S, S], data: d };
  }
  function fillValue(fill) { return fill === '-1e9' ? -1e9 : -Infinity; }

  // ---- The module run: one nn.Module-style forward, in the lesson's draw order ------------
  // spec: {dModel, numHeads, seed, bias, dropout, train, causal, maskStyle, fill,
  //        input: {type: 'text', tokens, pos} | {type: 'rand' | 'randn', batch, seqLen},
  //        order: 'input-first' | 'module-first'}
  var moduleCache = null;
  function freeCache() {
    if (moduleCache) { try { moduleCache.mha.delete(); moduleCache.gen.delete(); } catch (e) { /* gone */ } }
    moduleCache = null;
  }

  function runModule(M, spec) {
    var D = spec.dModel, H = spec.numHeads;
    if (D % H !== 0) throw new Error(headsMessage(D, H));
    var t0 = now();
    var stochastic = spec.train && spec.dropout > 0;
    var inp = spec.input;
    var x, mha, gen, cached = false;
    var key = [D, H, spec.seed, spec.bias !== false, spec.dropout].join('/');
    if (inp.type === 'text') {
      // torch.manual_seed(seed); mha = MultiHeadAttention(...); x = embeddings (own generators)
      if (!stochastic && moduleCache && moduleCache.key === key) {
        mha = moduleCache.mha; gen = moduleCache.gen; cached = true;
      } else {
        freeCache();
        gen = new M.Generator(spec.seed);
        mha = new M.MultiHeadAttention({ dModel: D, numHeads: H, bias: spec.bias !== false,
          dropout: spec.dropout, generator: gen });
        if (!stochastic) { moduleCache = { key: key, mha: mha, gen: gen }; cached = true; }
      }
      x = embedTokens(M, inp.tokens, D, spec.seed, inp.pos);
    } else {
      gen = new M.Generator(spec.seed);
      var shape = [inp.batch, inp.seqLen, D];
      var draw = function () { return inp.type === 'rand' ? gen.rand(shape) : gen.randn(shape); };
      if (spec.order === 'input-first') x = draw();
      mha = new M.MultiHeadAttention({ dModel: D, numHeads: H, bias: spec.bias !== false,
        dropout: spec.dropout, generator: gen });
      if (spec.order !== 'input-first') x = draw();
    }
    try {
      if (spec.train) mha.train(); else mha.eval();
      var S = x.shape[1];
      var options = {};
      if (spec.causal) {
        var style = spec.maskStyle || 'tril-keep';
        options.mask = maskTensor(S, style);
        options.maskMode = style === 'triu-block' ? 'block' : 'keep';
        options.fill = fillValue(spec.fill);
      }
      var t1 = now();
      var r = mha.forward(x, x, x, options);
      var t2 = now();
      return {
        weights: r.weights, output: r.output, trace: r.trace, x: x,
        B: x.shape[0], H: H, S: S, D: D, paramCount: mha.parameterCount(),
        implementation: M.implementation, ms: t2 - t1, totalMs: t2 - t0
      };
    } finally {
      if (!cached) { mha.delete(); gen.delete(); }
    }
  }

  function now() { return typeof performance !== 'undefined' ? performance.now() : Date.now(); }

  // Estimated multiply-adds of one forward: used to decide when to move work to a Worker.
  function cost(spec) {
    var inp = spec.input || {};
    var S = inp.type === 'text' ? inp.tokens.length : (inp.seqLen || 0);
    var B = inp.type === 'text' ? 1 : (inp.batch || 1);
    return B * (4 * S * spec.dModel * spec.dModel + 2 * S * S * spec.dModel);
  }

  // ---- Torch-style printing ----------------------------------------------------------------
  // Mirrors torch's _Formatter at precision 4: int mode when every value is whole, scientific
  // when max/min of the non-zero magnitudes exceeds 1000 (or min < 1e-4, max > 1e8), else fixed.
  // v.toFixed(4), faster: the scaled magnitude is rounded directly unless it lies within 1e-6 of a tie,
  // where the multiplication's rounding could matter (then toFixed decides).
  var PAD4 = ['0000', '000', '00', '0', ''];
  function fixed4(v) {
    var a = v < 0 ? -v : v;
    if (!(a < 1e9)) return v.toFixed(4);
    var y = a * 1e4, f = y - Math.floor(y);
    if (f > 0.499999 && f < 0.500001) return v.toFixed(4);
    var k = Math.round(y), ip = Math.floor(k / 1e4), fp = String(k - ip * 1e4);
    return (v < 0 ? '-' : '') + ip + '.' + PAD4[fp.length] + fp;
  }
  function torchFormatter(values) {
    var n = values.length, allInt = true, nfin = 0, mn = Infinity, mx = 0, i, v;
    for (i = 0; i < n; i++) {
      v = values[i];
      if (isFinite(v)) {
        if (v !== 0) { var a = Math.abs(v); nfin++; if (a < mn) mn = a; if (a > mx) mx = a; }
        if (Math.ceil(v) !== v) allInt = false;
      }
    }
    if (!nfin) mn = 0;
    var fmt;
    if (allInt) {
      fmt = mx > 1e8 ? sci : function (v) { return isFinite(v) ? v.toFixed(0) + '.' : nonFinite(v); };
    } else {
      var useSci = nfin && (mx / mn > 1000 || mx > 1e8 || mn < 1e-4);
      fmt = useSci ? sci : function (v) { return isFinite(v) ? fixed4(v) : nonFinite(v); };
    }
    var strs = new Array(n), width = 0;
    for (i = 0; i < n; i++) { var s = strs[i] = fmt(values[i]); if (s.length > width) width = s.length; }
    for (i = 0; i < n; i++) if (strs[i].length < width) strs[i] = ' '.repeat(width - strs[i].length) + strs[i];
    return strs;
    function nonFinite(v) { return isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf'; }
    function sci(v) {
      if (!isFinite(v)) return nonFinite(v);
      var s = v.toExponential(4).replace(/e([+-])(\d)$/, 'e$10$2');
      return s;
    }
  }
  function torchStr(t, opts) {
    opts = opts || {};
    var cells = torchFormatter(t.data);
    var shape = t.shape;
    var prefix = 'tensor(';
    var body;
    if (shape.length === 1) {
      body = '[' + cells.join(', ') + ']';
    } else if (shape.length === 2) {
      var rows = [];
      for (var r = 0; r < shape[0]; r++) rows.push('[' + cells.slice(r * shape[1], (r + 1) * shape[1]).join(', ') + ']');
      body = '[' + rows.join(',\n' + ' '.repeat(prefix.length + 1)) + ']';
    } else {
      body = '[…]';
    }
    return prefix + body + (opts.suffix || '') + ')';
  }
  function sizeStr(shape) { return 'torch.Size([' + shape.join(', ') + '])'; }
  // One formatter: toLocaleString builds a new Intl.NumberFormat on every call (~0.1 ms per render).
  var EN_US = typeof Intl !== 'undefined' ? new Intl.NumberFormat('en-US') : null;
  function commas(n) { return EN_US ? EN_US.format(Number(n)) : String(Number(n)); }

  // Slice [b, h] of a [B, H, S, S] tensor.
  function headMatrix(w, b, h) {
    var S = w.shape[2], H = w.shape[1];
    var off = (b * H + h) * S * S;
    return { shape: [S, S], data: w.data.subarray(off, off + S * S) };
  }

  MHA.model = {
    MAX_TOKENS: MAX_TOKENS, tokenize: tokenize, fnv1a32: fnv1a32, tokenSeed: tokenSeed,
    addSinusoidal: addSinusoidal, embedTokens: embedTokens, divisors: divisors, headsMessage: headsMessage,
    maskTensor: maskTensor, fillValue: fillValue, runModule: runModule, cost: cost, freeCache: freeCache,
    torchStr: torchStr, torchFormatter: torchFormatter, sizeStr: sizeStr, commas: commas, headMatrix: headMatrix,
    now: now
  };
})(typeof self !== 'undefined' ? self : this);
