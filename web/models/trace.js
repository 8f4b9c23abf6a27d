// MHA Explorer, the model page — the shape trace of one layer of a real checkpoint in the page's trace format: the core's
// steps (model.forward's trace: {op, shape, strides, contiguous, weights?, layer}) of that layer, each with its words
// ({stage, label, expr, description}: the trace table and the Mix → Split → Attend → Concat → Mix pipeline read them),
// named as transformers' modeling code names the modules of each family. No DOM.

// Each family's module names inside its layer (transformers' attribute paths), and whether its norms come after the
// sublayers (BERT, DistilBERT: post-LayerNorm) or before (GPT-2, Llama: pre-norm). A key for each of the core's
// families (config.cpp's kFamilyNames: tests/node/families.test.mjs).
const BERT = {
  layer: 'encoder.layer',
  norms: ['attention.output.LayerNorm', 'output.LayerNorm'],
  q: 'attention.self.query',
  k: 'attention.self.key',
  v: 'attention.self.value',
  out: 'attention.output.dense',
  mlp: 'output.dense(act(intermediate.dense(h)))',
  post: true,
  norm: 'LayerNorm',
};
const LLAMA = {
  layer: 'model.layers',
  norms: ['input_layernorm', 'post_attention_layernorm'],
  q: 'self_attn.q_proj',
  k: 'self_attn.k_proj',
  v: 'self_attn.v_proj',
  out: 'self_attn.o_proj',
  mlp: 'mlp',
  post: false,
  norm: 'RMSNorm',
};
export const FAMILIES = {
  gpt2: {
    layer: 'transformer.h',
    norms: ['ln_1', 'ln_2'],
    qkv: 'attn.c_attn',
    q: null,
    out: 'attn.c_proj',
    mlp: 'mlp',
    post: false,
    norm: 'LayerNorm',
  },
  bert: BERT,
  roberta: BERT, // RoBERTa, XLM-R: BERT's layer under the roberta. prefix
  distilbert: {
    layer: 'transformer.layer',
    norms: ['sa_layer_norm', 'output_layer_norm'],
    q: 'attention.q_lin',
    k: 'attention.k_lin',
    v: 'attention.v_lin',
    out: 'attention.out_lin',
    mlp: 'ffn',
    post: true,
    norm: 'LayerNorm',
  },
  llama: LLAMA,
  // Llama's layer, GemmaRMSNorm, GeGLU; Gemma 2's and 3's layers (a trace with post_norm steps) norm four times
  gemma: {
    ...LLAMA,
    norm: 'RMSNorm (1 + weight)',
    act: 'GELU (tanh) gate',
    sandwichNorms: ['input_layernorm', 'pre_feedforward_layernorm'],
    postNorms: ['post_attention_layernorm', 'post_feedforward_layernorm'],
  },
  gpt_neox: {
    layer: 'gpt_neox.layers',
    norms: ['input_layernorm', 'post_attention_layernorm'],
    qkv: 'attention.query_key_value',
    q: null,
    out: 'attention.dense',
    mlp: 'mlp',
    post: false,
    norm: 'LayerNorm',
    interleaved: true, // query_key_value's columns: q, k, v of head 0, then of head 1, …
  },
  gpt_neo: {
    layer: 'transformer.h',
    norms: ['ln_1', 'ln_2'],
    q: 'attn.attention.q_proj',
    k: 'attn.attention.k_proj',
    v: 'attn.attention.v_proj',
    out: 'attn.attention.out_proj',
    mlp: 'mlp',
    post: false,
    norm: 'LayerNorm',
    unscaled: true, // GPT-Neo's scores are q·k, not divided by √d
  },
  opt: {
    layer: 'model.decoder.layers',
    norms: ['self_attn_layer_norm', 'final_layer_norm'],
    q: 'self_attn.q_proj',
    k: 'self_attn.k_proj',
    v: 'self_attn.v_proj',
    out: 'self_attn.out_proj',
    mlp: 'fc2(relu(fc1(h)))',
    post: false, // do_layer_norm_before; layerTrace reads which from the trace
    norm: 'LayerNorm',
    act: 'ReLU',
    scaleQuery: true, // q_proj(h) * d^-0.5 before the product
  },
  phi: {
    layer: 'model.layers',
    norms: ['input_layernorm', 'input_layernorm'], // one LayerNorm read by the attention and the MLP
    q: 'self_attn.q_proj',
    k: 'self_attn.k_proj',
    v: 'self_attn.v_proj',
    out: 'self_attn.dense',
    mlp: 'mlp',
    post: false,
    norm: 'LayerNorm',
  },
  // a pre-norm encoder: no attn_norm in layer 0 (nn.Identity), Wqkv an nn.Linear giving q | k | v, GeGLU
  modernbert: {
    layer: 'model.layers',
    norms: ['attn_norm', 'mlp_norm'],
    qkv: 'attn.Wqkv',
    qkvLinear: true,
    q: null,
    out: 'attn.Wo',
    mlp: 'mlp',
    post: false,
    norm: 'LayerNorm',
    act: "the activation of Wi's first half times its second (GeGLU)",
  },
};
const STAGE = {
  norm: 0,
  qkv: 0,
  query: 0,
  key: 0,
  value: 0,
  query_heads: 1,
  key_heads: 1,
  value_heads: 1,
  query_norm: 1,
  key_norm: 1,
  rope_query: 1,
  rope_key: 1,
  repeat_kv_key: 1,
  repeat_kv_value: 1,
  scores: 2,
  softcap: 2,
  window: 2,
  softmax: 2,
  context: 2,
  merge: 3,
  output: 4,
  residual: 4,
  mlp: 4,
  post_norm: 4,
};

// The steps of `layer` in model.forward's trace of T tokens, each with its words. info: model.info.
export function layerTrace(trace, layer, info, T) {
  const f = FAMILIES[info.family],
    H = info.heads;
  if (!f)
    throw new Error(
      'web/models/trace.js has no module names for the family ' + JSON.stringify(info.family) + ': add it to FAMILIES',
    );
  // what the words read: the family, the layer's path, the sizes, and the norms and residuals met so far
  const c = {
    f,
    info,
    T,
    L: f.layer + '[' + layer + ']',
    H,
    KV: info.kvHeads || H,
    d: info.headDim || info.dModel / H,
    D: info.dModel,
    rot: info.rotaryDim || 0,
    window: (info.windows || [])[layer] || 0,
    norms: 0,
    postNorms: 0,
    residuals: 0,
  };
  const steps = trace.filter((s) => s.layer === layer);
  c.sandwich = steps.some((s) => s.op === 'post_norm'); // Gemma 2 and 3
  c.parallel = steps.filter((s) => s.op === 'residual').length === 1; // GPT-NeoX's use_parallel_residual
  // post-norm (BERT, DistilBERT, OPT's do_layer_norm_before false): the layer ends with a norm; a pre-norm layer
  // that starts without one (ModernBERT's layer 0) has its MLP's norm only
  c.post = steps.length > 0 && steps[steps.length - 1].op === 'norm';
  if (!c.post && steps.length > 0 && steps[0].op !== 'norm') c.norms = 1;
  return steps.map((s) => {
    const words = WORDS[s.op];
    const w = words ? words(c, s) : { label: s.op, expr: '', description: '' };
    return Object.assign({}, s, { words: Object.assign({ stage: STAGE[s.op] !== undefined ? STAGE[s.op] : 4 }, w) });
  });
}

// A query, key or value projection: a third of a fused projection (GPT-2's c_attn, ModernBERT's Wqkv), or the
// family's own linear map.
function projection(c, which, name) {
  return c.f.qkv && !c.f.interleaved
    ? {
        label: which + ': a third of ' + c.f.qkv.split('.').pop() + "'s output",
        expr: name + ' = qkv.split(' + c.D + ', dim=2)[' + 'qkv'.indexOf(name) + ']',
        description: 'A view of the ' + which + ' columns (its rows stride over all 3·' + c.D + '): no copy',
      }
    : {
        label: which + ' projection',
        expr: name + ' = ' + c.L + '.' + c.f[name] + '(x)',
        description: "A linear map of every token's " + c.D + ' features',
      };
}
function splitHeads(c, name, n) {
  if (c.f.interleaved)
    return {
      label: 'Split into ' + n + ' heads',
      expr: `${name} = qkv.view(1, ${c.T}, ${n}, 3·${c.d}).transpose(1, 2).chunk(3, dim=-1)[${'qkv'.indexOf(name)}]`,
      description: "Each head's own " + c.d + ' of its 3·' + c.d + ' columns (a view: strides change, no copy)',
    };
  return {
    label: 'Split into ' + n + ' heads',
    expr: name + '.view(1, ' + c.T + ', ' + n + ', ' + c.d + ').transpose(1, 2)',
    description: n + ' heads of ' + c.d + ' features each (a view: strides change, no copy)',
  };
}
function norm(c) {
  const name = (c.sandwich ? c.f.sandwichNorms : c.f.norms)[c.norms++ % 2],
    f = c.f,
    where = c.norms === 1 ? 'attention' : 'MLP';
  return c.post
    ? {
        label: f.norm + ' after the ' + where,
        expr: 'h = ' + c.L + '.' + name + '(h)',
        description: 'Post-norm: the residual sum normalized (' + f.norm + ' over the ' + c.D + ' features)',
      }
    : {
        label: f.norm + ' before the ' + where,
        expr: 'x = ' + c.L + '.' + name + '(h)',
        description: "Pre-norm: each token's " + c.D + ' features normalized before the sublayer reads them',
      };
}

// Rotary embeddings on part of each head (GPT-NeoX's rotary_pct).
const partial = (c) => c.rot > 0 && c.rot < c.d;
// Gemma 3 and ModernBERT: a rope base for their sliding (local) layers and one for their full layers (Gemma 3's
// divided by a linear factor).
function ropeBase(c) {
  const local = c.info.ropeLocalTheta,
    factor = c.info.ropeFactor || 1,
    kind = c.info.causal ? 'sliding' : 'local';
  if (!local) return '';
  const fmt = (x) => x.toLocaleString('en-US');
  return c.window
    ? '; a ' + kind + ' layer: base θ = ' + fmt(local) + ' (the full layers: ' + fmt(c.info.ropeTheta) + ')'
    : '; a full layer: base θ = ' +
        fmt(c.info.ropeTheta) +
        (factor !== 1 ? ', the angles divided by ' + factor + ' (linear scaling)' : '') +
        ' (the ' +
        kind +
        ' layers: ' +
        fmt(local) +
        ')';
}

// Each step's words by its op: (c: layerTrace's context, s: the step) → {label, expr, description}.
const WORDS = {
  norm,
  qkv: (c) => ({
    label: 'q, k, v in one projection',
    expr: 'qkv = ' + c.L + '.' + c.f.qkv + '(x)',
    description: c.f.interleaved
      ? 'One Linear gives each head its query, key and value side by side, head after head'
      : c.f.qkvLinear
        ? 'One Linear (weights [3·' + c.D + ', ' + c.D + ']) gives the queries, keys and values side by side'
        : 'One Conv1D (weights stored [in, out]) gives the queries, keys and values side by side',
  }),
  query: (c) => projection(c, 'Query', 'q'),
  key: (c) => projection(c, 'Key', 'k'),
  value: (c) => projection(c, 'Value', 'v'),
  query_heads: (c) => splitHeads(c, 'q', c.H),
  key_heads: (c) => splitHeads(c, 'k', c.KV),
  value_heads: (c) => splitHeads(c, 'v', c.KV),
  query_norm: (c) => ({
    label: c.f.norm + ' of each query head',
    expr: 'q = ' + c.L + '.self_attn.q_norm(q)',
    description: "Each head's " + c.d + ' query features normalized (one weight of ' + c.d + ' for every head)',
  }),
  key_norm: (c) => ({
    label: 'RMSNorm of each key head',
    expr: 'k = ' + c.L + '.self_attn.k_norm(k)',
    description: 'The same for the keys, before RoPE turns them',
  }),
  rope_query: (c) => ({
    label: 'RoPE on the queries',
    expr: partial(c)
      ? 'q = cat(rope(q[..., :' + c.rot + ']), q[..., ' + c.rot + ':])'
      : 'q = q * cos + rotate_half(q) * sin',
    description:
      'Rotary position embedding: each pair of features (its two halves) turned by an angle that grows with the position' +
      (partial(c)
        ? '; partial rotary: only the first ' + c.rot + ' of the ' + c.d + ' features turn, the rest pass'
        : '') +
      ropeBase(c),
  }),
  rope_key: () => ({
    label: 'RoPE on the keys',
    expr: 'k = k * cos + rotate_half(k) * sin',
    description: 'The same rotation for the keys: q·k then depends on their distance',
  }),
  repeat_kv_key: (c) => ({
    label: 'repeat_kv: keys',
    expr: 'k = repeat_kv(k, ' + c.H / c.KV + ')',
    description: 'Grouped-query attention: each of the ' + c.KV + ' key heads serves ' + c.H / c.KV + ' query heads',
  }),
  repeat_kv_value: (c) => ({
    label: 'repeat_kv: values',
    expr: 'v = repeat_kv(v, ' + c.H / c.KV + ')',
    description: 'The values shared the same way',
  }),
  scores: (c) => {
    const scalar = c.info.queryPreAttnScalar; // Gemma 2: scaled by query_pre_attn_scalar^-0.5, not head_dim's
    return {
      label: 'Scores',
      expr:
        (c.info.family === 'distilbert' || c.f.scaleQuery
          ? '(q / math.sqrt(' + c.d + ')) @ k.transpose(2, 3)'
          : scalar
            ? 'q @ k.transpose(2, 3) * ' + scalar + '**-0.5'
            : 'q @ k.transpose(-1, -2)' + (c.f.unscaled ? '' : ' / math.sqrt(' + c.d + ')')) +
        (c.info.causal && !c.info.attnSoftcap ? ' + causal mask' : ''),
      description:
        'Every query against every key, ' +
        (c.f.unscaled
          ? 'not scaled (GPT-Neo leaves out the 1/√' + c.d + ')'
          : scalar
            ? 'scaled by 1/√' + scalar + ' (query_pre_attn_scalar, not the ' + c.d + ' features of a head)'
            : 'scaled by 1/√' + c.d) +
        (c.info.causal ? '; later keys masked (torch.finfo(float32).min)' : ''),
    };
  },
  softcap: (c) => ({
    label: 'Soft cap at ' + c.info.attnSoftcap,
    expr: 'scores = torch.tanh(scores / ' + c.info.attnSoftcap + ') * ' + c.info.attnSoftcap + ' + causal mask',
    description:
      'attn_logit_softcapping: every score squeezed into (-' +
      c.info.attnSoftcap +
      ', ' +
      c.info.attnSoftcap +
      '), nearly unchanged while small, before the mask',
  }),
  window: (c) =>
    c.info.causal
      ? {
          label: 'Local attention: a window of ' + c.window + ' keys',
          expr: 'scores = torch.where(i - j < ' + c.window + ', scores, torch.finfo(float32).min)',
          description:
            'A local layer: each query sees only itself and the ' +
            (c.window - 1) +
            ' tokens before it; keys further back are masked as the later ones are',
        }
      : {
          label: 'Local attention: ' + (c.window - 1) + ' keys on either side',
          expr: 'scores = torch.where(abs(i - j) <= ' + (c.window - 1) + ', scores, torch.finfo(float32).min)',
          description:
            'A local layer (local_attention ' +
            2 * (c.window - 1) +
            '): each query sees itself and the ' +
            (c.window - 1) +
            ' tokens before and after it; keys further away are masked',
        },
  softmax: (c, s) => ({
    label: 'Softmax: the attention weights',
    expr: 'weights = softmax(scores, dim=-1)',
    description:
      'Each row sums to 1: these are the weights the heatmaps show, [' + (s.weights || s.shape).join(', ') + ']',
  }),
  context: () => ({
    label: 'Weighted values',
    expr: 'out = weights @ v',
    description: 'Each head mixes the values by its weights',
  }),
  merge: (c) => ({
    label: 'Merge the heads',
    expr: 'out.transpose(1, 2).reshape(1, ' + c.T + ', ' + c.H * c.d + ')',
    description: 'The heads side by side again: a head switched off is zeros here',
  }),
  output: (c) => ({
    label: 'Output projection',
    expr: 'out = ' + c.L + '.' + c.f.out + '(out)',
    description: 'Mixes what the heads found into the ' + c.D + ' features',
  }),
  residual: (c) =>
    c.parallel
      ? {
          label: 'Parallel residual',
          expr: 'h = h + out + mlp_out',
          description: 'The attention and the MLP both read the same h; their outputs are added to it together',
        }
      : {
          label: 'Residual add',
          expr: 'h = h + ' + (c.residuals++ % 2 ? 'mlp_out' : 'out'),
          description: "The sublayer's output added to its input",
        },
  post_norm: (c) => {
    const where = c.postNorms === 0 ? 'attention' : 'MLP',
      out = c.postNorms === 0 ? 'out' : 'mlp_out';
    return {
      label: c.f.norm + ' of the ' + where + "'s output",
      expr: out + ' = ' + c.L + '.' + c.f.postNorms[c.postNorms++ % 2] + '(' + out + ')',
      description: 'Gemma 2 and 3 normalize what the sublayer adds before the residual add (a norm on both sides)',
    };
  },
  mlp: (c) => ({
    label: 'MLP',
    expr: 'mlp_out = ' + c.L + '.' + c.f.mlp + '(' + (c.post ? 'h' : 'x') + ')',
    description:
      'Each token on its own: up, ' + (c.f.act || (c.info.family === 'llama' ? 'SiLU gate' : 'GELU')) + ', down',
  }),
};
