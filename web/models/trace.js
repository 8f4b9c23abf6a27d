// MHA Explorer, the model page — the shape trace of one layer of a real checkpoint in the page's trace format: the core's
// steps (model.forward's trace: {op, shape, strides, contiguous, weights?, layer}) of that layer, each with its words
// ({stage, label, expr, description}: the trace table and the Mix → Split → Attend → Concat → Mix pipeline read them),
// named as transformers' modeling code names the modules of each family. No DOM.

// Each family's module names inside its layer (transformers' attribute paths), and whether its norms come after the
// sublayers (BERT, DistilBERT: post-LayerNorm) or before (GPT-2, Llama: pre-norm).
const FAMILIES = {
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
  bert: {
    layer: 'encoder.layer',
    norms: ['attention.output.LayerNorm', 'output.LayerNorm'],
    q: 'attention.self.query',
    k: 'attention.self.key',
    v: 'attention.self.value',
    out: 'attention.output.dense',
    mlp: 'output.dense(act(intermediate.dense(h)))',
    post: true,
    norm: 'LayerNorm',
  },
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
  llama: {
    layer: 'model.layers',
    norms: ['input_layernorm', 'post_attention_layernorm'],
    q: 'self_attn.q_proj',
    k: 'self_attn.k_proj',
    v: 'self_attn.v_proj',
    out: 'self_attn.o_proj',
    mlp: 'mlp',
    post: false,
    norm: 'RMSNorm',
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
  rope_query: 1,
  rope_key: 1,
  repeat_kv_key: 1,
  repeat_kv_value: 1,
  scores: 2,
  softmax: 2,
  context: 2,
  merge: 3,
  output: 4,
  residual: 4,
  mlp: 4,
};

// The steps of `layer` in model.forward's trace of T tokens, each with its words. info: model.info.
export function layerTrace(trace, layer, info, T) {
  const f = FAMILIES[info.family] || FAMILIES.gpt2,
    L = f.layer + '[' + layer + ']';
  const H = info.heads,
    KV = info.kvHeads || H,
    d = info.headDim || info.dModel / H,
    D = info.dModel;
  let norms = 0,
    residuals = 0;
  return trace
    .filter((s) => s.layer === layer)
    .map((s) => {
      const proj = (which, name) =>
        info.family === 'gpt2'
          ? {
              label: which + ": a third of c_attn's output",
              expr: name + ' = qkv.split(' + D + ', dim=2)[' + 'qkv'.indexOf(name) + ']',
              description: 'A view of the ' + which + ' columns (its rows stride over all 3·' + D + '): no copy',
            }
          : {
              label: which + ' projection',
              expr: name + ' = ' + L + '.' + f[name] + '(x)',
              description: "A linear map of every token's " + D + ' features',
            };
      const heads = (name, n) => ({
        label: 'Split into ' + n + ' heads',
        expr: name + '.view(1, ' + T + ', ' + n + ', ' + d + ').transpose(1, 2)',
        description: n + ' heads of ' + d + ' features each (a view: strides change, no copy)',
      });
      const words = {
        norm: () => {
          const name = f.norms[norms++ % 2];
          return f.post
            ? {
                label: f.norm + ' after the ' + (norms === 1 ? 'attention' : 'MLP'),
                expr: 'h = ' + L + '.' + name + '(h)',
                description: 'Post-norm: the residual sum normalized (' + f.norm + ' over the ' + D + ' features)',
              }
            : {
                label: f.norm + ' before the ' + (norms === 1 ? 'attention' : 'MLP'),
                expr: 'x = ' + L + '.' + name + '(h)',
                description: "Pre-norm: each token's " + D + ' features normalized before the sublayer reads them',
              };
        },
        qkv: () => ({
          label: 'q, k, v in one projection',
          expr: 'qkv = ' + L + '.' + f.qkv + '(x)',
          description: 'One Conv1D (weights stored [in, out]) gives the queries, keys and values side by side',
        }),
        query: () => proj('Query', 'q'),
        key: () => proj('Key', 'k'),
        value: () => proj('Value', 'v'),
        query_heads: () => heads('q', H),
        key_heads: () => heads('k', KV),
        value_heads: () => heads('v', KV),
        rope_query: () => ({
          label: 'RoPE on the queries',
          expr: 'q = q * cos + rotate_half(q) * sin',
          description:
            'Rotary position embedding: each pair of features (its two halves) turned by an angle that grows with the position',
        }),
        rope_key: () => ({
          label: 'RoPE on the keys',
          expr: 'k = k * cos + rotate_half(k) * sin',
          description: 'The same rotation for the keys: q·k then depends on their distance',
        }),
        repeat_kv_key: () => ({
          label: 'repeat_kv: keys',
          expr: 'k = repeat_kv(k, ' + H / KV + ')',
          description: 'Grouped-query attention: each of the ' + KV + ' key heads serves ' + H / KV + ' query heads',
        }),
        repeat_kv_value: () => ({
          label: 'repeat_kv: values',
          expr: 'v = repeat_kv(v, ' + H / KV + ')',
          description: 'The values shared the same way',
        }),
        scores: () => ({
          label: 'Scores',
          expr:
            (info.family === 'distilbert'
              ? '(q / math.sqrt(' + d + ')) @ k.transpose(2, 3)'
              : 'q @ k.transpose(-1, -2) / math.sqrt(' + d + ')') + (info.causal ? ' + causal mask' : ''),
          description:
            'Every query against every key, scaled by 1/√' +
            d +
            (info.causal ? '; later keys masked (torch.finfo(float32).min)' : ''),
        }),
        softmax: () => ({
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
        merge: () => ({
          label: 'Merge the heads',
          expr: 'out.transpose(1, 2).reshape(1, ' + T + ', ' + H * d + ')',
          description: 'The heads side by side again: a head switched off is zeros here',
        }),
        output: () => ({
          label: 'Output projection',
          expr: 'out = ' + L + '.' + f.out + '(out)',
          description: 'Mixes what the heads found into the ' + D + ' features',
        }),
        residual: () => ({
          label: 'Residual add',
          expr: 'h = h + ' + (residuals++ % 2 ? 'mlp_out' : 'out'),
          description: "The sublayer's output added to its input",
        }),
        mlp: () => ({
          label: 'MLP',
          expr: 'mlp_out = ' + L + '.' + f.mlp + '(' + (f.post ? 'h' : 'x') + ')',
          description: 'Each token on its own: up, ' + (info.family === 'llama' ? 'SiLU gate' : 'GELU') + ', down',
        }),
      }[s.op];
      const w = words ? words() : { label: s.op, expr: '', description: '' };
      return Object.assign({}, s, { words: Object.assign({ stage: STAGE[s.op] !== undefined ? STAGE[s.op] : 4 }, w) });
    });
}
