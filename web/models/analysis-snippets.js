// MHA Explorer, the model page — Copy as Python for issue 41's panels: each snippet loads the same folder and prints
// the numbers its panel shows, one line each ("lens 3 5 id prob", "head 1 2 value", "patch 0 4 value", "new id …"):
// generation with transformers' generate (the page's draws are its draws under torch.manual_seed), the lens,
// attribution and patching with TransformerLens 4.3 (TransformerBridge.boot_transformers and
// enable_compatibility_mode, in float64: the numbers the page's float32 computes, docs/analysis.md).
// They run as pasted (pip install torch transformers transformer-lens); tests/browser/models-heads.test.mjs runs them.

const py = (s) => JSON.stringify(String(s));
const list = (ids) => '[' + ids.join(', ') + ']';

function where(o) {
  if (o.dropped) return '  # the folder you dropped on the page: write its path on your disk here';
  return /^(\/|[A-Za-z]:[\\/])/.test(String(o.folder))
    ? '  # the folder the page loaded'
    : '  # the folder the page loaded (relative to the page: run this next to it)';
}

// The lines every TransformerLens snippet starts with: the folder, the bridge, the text's ids as the page ran them.
function bridgeHead(o, what, extra = []) {
  return [
    '# MHA Explorer, the model page: ' + what + ', computed by TransformerLens',
    '# (pip install torch transformers transformer-lens), in float64.',
    'import torch',
    'from transformer_lens.model_bridge import TransformerBridge',
    ...extra,
    '',
    'path = ' + py(o.folder) + where(o),
    'bridge = TransformerBridge.boot_transformers(path, device="cpu", dtype=torch.float64)',
    'bridge.enable_compatibility_mode()  # LayerNorm folded, writing weights and unembedding centred',
  ];
}

// o: {folder, dropped, text, ids (the page's prompt ids), options (model.generate's), eos (or -1)}
export function generateSnippet(o) {
  const x = o.options || {},
    sample = ['temperature', 'topK', 'topP', 'seed'].some((k) => x[k] !== undefined);
  const eos = o.eos >= 0 ? o.eos : 'None';
  const settings = sample
    ? 'do_sample=True, temperature=' +
      (x.temperature ?? 1) +
      ', top_k=' +
      (x.topK ?? 50) +
      ', top_p=' +
      (x.topP ?? 1) +
      ','
    : 'do_sample=False,';
  return [
    '# MHA Explorer, the model page: the tokens it wrote, by transformers (pip install torch transformers).',
    'import torch',
    'from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig',
    '',
    'path = ' + py(o.folder) + where(o),
    'text = ' + py(o.text),
    'tokenizer = AutoTokenizer.from_pretrained(path)',
    'model = AutoModelForCausalLM.from_pretrained(path, torch_dtype=torch.float32).eval()',
    'ids = torch.tensor([' + list(o.ids) + '])  # the text as the page ran it',
    'config = GenerationConfig(' + settings + ' max_new_tokens=' + (x.maxNewTokens ?? 20) + ',',
    '                          eos_token_id=' + eos + ', pad_token_id=' + eos + ')',
    sample ? 'torch.manual_seed(' + (x.seed ?? 0) + ')' : '',
    'new = model.generate(ids, generation_config=config)[0, ids.shape[1]:].tolist()',
    'print("new", " ".join(map(str, new)))',
    'print(tokenizer.convert_ids_to_tokens(new))',
  ]
    .filter((l, i, a) => l || a[i - 1] !== '')
    .join('\n')
    .concat('\n');
}

// The MLM head of an encoder's snippet, as transformers names its modules.
const MLM_HEADS = {
  bert: 'head = model.cls  # transform (dense, activation, LayerNorm), then the decoder',
  distilbert:
    'head = lambda h: model.vocab_projector(model.vocab_layer_norm(model.activation(model.vocab_transform(h))))',
  roberta: 'head = model.lm_head  # dense, exact GELU, layer_norm, then the decoder',
  'xlm-roberta': 'head = model.lm_head  # dense, exact GELU, layer_norm, then the decoder',
  modernbert: 'head = lambda h: model.decoder(model.head(h))  # dense, activation, norm, then the decoder',
};
// A pre-norm encoder's final norm, which its lens applies to every hidden state but the last (transformers gives that
// one normed already).
const FINAL_NORMS = { modernbert: 'model.model.final_norm' };

// The lines that print each row's top token as the TransformerLens snippet prints them.
const LENS_PRINT = [
  'for row, layer in enumerate(probs):',
  '    p, i = layer.max(-1)',
  '    for pos in range(len(p)):',
  '        print("lens", row, pos, i[pos].item(), f"{p[pos].item():.6f}", repr(tokenizer.convert_ids_to_tokens(i[pos].item())))',
];

// o: {folder, dropped, ids, modelType}: an encoder's lens (TransformerLens has none), by transformers: its MLM head on
// each hidden state (post-norm layers: each output is normed already, there is no final norm to apply; pre-norm
// ModernBERT: through final_norm first).
function encoderLensSnippet(o) {
  const norm = FINAL_NORMS[o.modelType];
  const probs = norm
    ? [
        '    norms = [' + norm + '] * (len(hidden) - 1) + [torch.nn.Identity()]  # the last is normed already',
        '    probs = torch.stack([head(n(h[0])) for n, h in zip(norms, hidden)]).softmax(-1)  # [layers + 1, positions, vocabulary]',
      ]
    : ['    probs = torch.stack([head(h[0]) for h in hidden]).softmax(-1)  # [layers + 1, positions, vocabulary]'];
  return (
    [
      '# MHA Explorer, the model page: the logit lens of an encoder, by transformers (pip install torch transformers):',
      '# the MLM head on the embeddings and on each layer’s output, in float64.',
      'import torch',
      'from transformers import AutoModelForMaskedLM, AutoTokenizer',
      '',
      'path = ' + py(o.folder) + where(o),
      'tokenizer = AutoTokenizer.from_pretrained(path)',
      'model = AutoModelForMaskedLM.from_pretrained(path, dtype=torch.float64, attn_implementation="eager").eval()',
      MLM_HEADS[o.modelType],
      'ids = torch.tensor([' + list(o.ids) + '])  # the text as the page ran it',
      'with torch.no_grad():',
      '    hidden = model(input_ids=ids, output_hidden_states=True).hidden_states  # the embeddings, then each layer',
      ...probs,
      ...LENS_PRINT,
    ].join('\n') + '\n'
  );
}

// o: {folder, dropped, ids, encoder, modelType}: each row's (embeddings, then after each block) top token and its
// probability.
export function lensSnippet(o) {
  if (o.encoder) return encoderLensSnippet(o);
  return (
    [
      ...bridgeHead(o, 'the logit lens'),
      'ids = torch.tensor([' + list(o.ids) + '])  # the text as the page ran it',
      'with torch.no_grad():',
      '    _, cache = bridge.run_with_cache(ids)',
      '    resid = cache.accumulated_resid(apply_ln=True)[:, 0]  # [layers + 1, positions, d_model]',
      '    probs = (resid @ bridge.W_U + bridge.b_U).softmax(-1)',
      'tokenizer = bridge.tokenizer',
      ...LENS_PRINT,
    ].join('\n') + '\n'
  );
}

// o: {folder, dropped, ids, position, tokens: [a] or [a, b]}: each head's and MLP's direct effect, and the logit.
export function attributionSnippet(o) {
  const [a, b] = o.tokens;
  const d = b === undefined ? 'W_U[:, ' + a + ']' : 'W_U[:, ' + a + '] - W_U[:, ' + b + ']';
  return (
    [
      ...bridgeHead(o, 'each head’s direct effect on a logit'),
      'ids = torch.tensor([' + list(o.ids) + '])  # the text as the page ran it',
      'pos = ' + o.position,
      'W_U = bridge.W_U',
      'direction = ' + d + (b === undefined ? '  # centred over the vocabulary (center_unembed)' : ''),
      'with torch.no_grad():',
      '    logits, cache = bridge.run_with_cache(ids)',
      '    heads = cache.stack_head_results(layer=-1, pos_slice=pos, apply_ln=True)[:, 0] @ direction',
      '    mlps = cache.decompose_resid(apply_ln=True, pos_slice=pos, mode="mlp", incl_embeds=False)[:, 0] @ direction',
      'H = bridge.cfg.n_heads',
      'for i, v in enumerate(heads.tolist()):',
      '    print("head", i // H, i % H, f"{v:.6f}")',
      'for l, v in enumerate(mlps.tolist()):',
      '    print("mlp", l, f"{v:.6f}")',
      'print("logit", f"{(logits[0, pos, ' +
        a +
        ']' +
        (b === undefined ? '' : ' - logits[0, pos, ' + b + ']') +
        ').item():.6f}")  # the model’s ' +
        (b === undefined ? 'logit minus its mean over the vocabulary' : 'logit difference'),
    ].join('\n') + '\n'
  );
}

const PATCH_FN = {
  heads: 'get_act_patch_attn_head_out_all_pos',
  resid: 'get_act_patch_resid_pre',
  attn: 'get_act_patch_attn_out',
  mlp: 'get_act_patch_mlp_out',
};

// o: {folder, dropped, clean, corrupted (ids), tokens: [a, b], what}: the normalised metric per layer × head/position.
export function patchSnippet(o) {
  const [a, b] = o.tokens;
  return (
    [
      ...bridgeHead(o, 'activation patching (' + o.what + ')', ['from transformer_lens import patching']),
      'clean = torch.tensor([' + list(o.clean) + '])',
      'corrupted = torch.tensor([' + list(o.corrupted) + '])',
      'a, b = ' + a + ', ' + b + '  # the metric: logit[a] - logit[b] at the last position',
      'metric = lambda logits: logits[0, -1, a] - logits[0, -1, b]',
      'with torch.no_grad():',
      '    _, cache = bridge.run_with_cache(clean)',
      '    k, c = metric(bridge(clean)).item(), metric(bridge(corrupted)).item()',
      '    m = patching.' + PATCH_FN[o.what] + '(bridge, corrupted, cache, metric).double()',
      'print("clean", f"{k:.6f}", "corrupted", f"{c:.6f}")',
      'for l, row in enumerate(((m - c) / (k - c)).tolist()):  # 0: as corrupted, 1: as clean',
      '    for j, v in enumerate(row):',
      '        print("patch", l, j, f"{v:.6f}")',
    ].join('\n') + '\n'
  );
}
