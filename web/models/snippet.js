// MHA Explorer, the model page — "Copy as Python": a snippet that loads the same checkpoint folder with transformers
// (eager attention, output_attentions=True), runs the same text, and prints what the page shows: the tokens, the
// selected head's weights as the page's table prints them (4 decimals; rows: queries, columns: keys), and the top 5
// predicted tokens with their probabilities (4 significant digits), log-probabilities and logits for the full model
// and with the page's heads switched off (a forward pre-hook replacing each such head's slice of the output
// projection's input, as model.forward's headsOff does: zeros, its mean over the text's positions, or the slice of a
// run of the other text, as the page's ablation says).
// It runs as pasted (pip install torch transformers); the tests run it in their venv and compare its numbers.

// The output projection of every family transformers names, with the layer's index: GPT-2's attn.c_proj, BERT's
// attention.output.dense, DistilBERT's attention.out_lin, Llama's and Qwen2's self_attn.o_proj.
export const OUTPUT_PROJECTION = String.raw`(?:^|\.)(?:h|layer|layers)\.(\d+)\.(?:attn\.c_proj|attention\.output\.dense|attention\.out_lin|self_attn\.o_proj|attention\.dense|attn\.attention\.out_proj|self_attn\.out_proj|self_attn\.dense|attn\.Wo)$`;

// A Python string literal of any text (JSON's escapes are Python's).
const py = (s) => JSON.stringify(String(s));
const pairs = (heads) => '[' + heads.map(([l, h]) => '(' + l + ', ' + h + ')').join(', ') + ']';

// The comment beside `path = …`: a dropped folder's path is unknown to the page; an absolute one (mx.explore_model)
// is where it is; a relative one (model=) is relative to the page.
function whereComment(o) {
  if (hubId(o.folder)) return '  # the Hub model the page loaded, at the commit it loaded (revision=)';
  if (o.dropped) return '  # the folder you dropped on the page: write its path on your disk here';
  if (/^(\/|[A-Za-z]:[\\/])/.test(String(o.folder))) return '  # the folder the page loaded';
  return '  # the folder the page loaded (relative to the page: run this next to it)';
}

// hf:owner/name@commit (web/models/hub.js) → [owner/name, commit], else null.
const hubId = (folder) => /^hf:([^@]+)@(.+)$/.exec(String(folder || ''))?.slice(1) || null;
// from_pretrained's path and its revision argument ('' for a folder).
const pathOf = (folder) => {
  const hub = hubId(folder);
  return hub ? [hub[0], ', revision=' + py(hub[1])] : [folder, ''];
};

// o: {folder (the checkpoint's folder as from_pretrained finds it), dropped (true: the student's own folder, whose
// path on disk the page does not know), text, layer, head, headsOff ([[layer, head]]), ablation, resampleText,
// weighting ('norm': the page's norm view, said in a comment), info (model.info: causal, hasLmHead, heads, dModel, headDim?)}.
export function pythonSnippet(o) {
  const info = o.info,
    headDim = info.headDim || info.dModel / info.heads;
  const cls = !info.hasLmHead ? 'AutoModel' : info.causal ? 'AutoModelForCausalLM' : 'AutoModelForMaskedLM';
  const [where, [path, rev]] = [whereComment(o), pathOf(o.folder)];
  const lines = [
    '# MHA Explorer, the model page: layer ' +
      o.layer +
      ', head ' +
      o.head +
      ' for your text, computed by transformers',
    "# (pip install torch transformers). Prints the tokens, the head's weights as the page's table shows them",
    '# (rows: queries, columns: keys)' +
      (info.hasLmHead ? ' and the top 5 predictions with and without the heads switched off.' : '.'),
    ...(o.weighting === 'norm'
      ? ['# The page now weighs each weight by ‖v·W_O‖ of its key (its norm view): this prints the weights α alone.']
      : []),
    'import re',
    'import torch',
    'from transformers import ' + cls + ', AutoTokenizer',
    '',
    'path = ' + py(path) + where,
    'text = ' + py(o.text),
    'layer, head = ' + o.layer + ', ' + o.head,
    'heads_off = ' + pairs(o.headsOff || []) + '  # (layer, head) switched off on the page',
    ...(info.hasLmHead
      ? [
          'ablation = ' +
            py(o.ablation || 'zero') +
            '  # "zero", "mean" (over the positions) or "resample" (the output on other_text)',
          'other_text = ' + py(o.resampleText || '') + '  # resample only: as many tokens as text',
        ]
      : []),
    '',
    'tokenizer = AutoTokenizer.from_pretrained(path' + rev + ')',
    `model = ${cls}.from_pretrained(path${rev}, attn_implementation="eager", torch_dtype=torch.float32).eval()`,
    'ids = tokenizer(text, return_tensors="pt")["input_ids"]  # the ids alone, as the page runs them',
    'with torch.no_grad():',
    '    out = model(input_ids=ids, output_attentions=True)',
    'print(tokenizer.convert_ids_to_tokens(ids[0]))',
    'print(f"layer {layer}, head {head}:")',
    'for row in out.attentions[layer][0, head].tolist():',
    '    print(" ".join(f"{w:.4f}" for w in row))',
  ];
  if (info.hasLmHead) lines.push(...ablationLines(o, headDim));
  return lines.join('\n') + '\n';
}

// The snippet's second half (a model with a head on top): the heads switched off as the page's ablation says, and
// the top 5 predictions with and without them.
function ablationLines(o, headDim) {
  const info = o.info;
  return [
    '',
    "# A head switched off: its slice of the output projection's input (every head's output, merged) replaced",
    "# before the projection: by zeros, by its mean over the text's positions, or by the other text's.",
    'HEAD_DIM = ' + headDim,
    'PROJECTION = re.compile(r"' + OUTPUT_PROJECTION + '")',
    'projections = [(int(m.group(1)), module) for name, module in model.named_modules()',
    '               if (m := PROJECTION.search(name))]',
    '',
    "def inputs_of(run_ids):  # each layer's output projection input on run_ids, the full model's",
    '    seen = {}',
    '    hooks = [module.register_forward_pre_hook(lambda mod, args, l=l: seen.__setitem__(l, args[0].clone()))',
    '             for l, module in projections]',
    '    with torch.no_grad():',
    '        model(input_ids=run_ids)',
    '    for h in hooks:',
    '        h.remove()',
    '    return seen',
    '',
    'def replace_heads(heads, source):',
    '    def hook(module, args):',
    '        x = args[0].clone()',
    '        for h in heads:',
    '            s = slice(h * HEAD_DIM, (h + 1) * HEAD_DIM)',
    '            x[..., s] = 0 if source is None else source[..., s]',
    '        return (x,) + args[1:]',
    '    return hook',
    '',
    'def top5(off):',
    '    source = {}',
    '    if off and ablation == "mean":',
    '        source = {l: z.mean(dim=1, keepdim=True).expand_as(z) for l, z in inputs_of(ids).items()}',
    '    if off and ablation == "resample":',
    '        source = inputs_of(tokenizer(other_text, return_tensors="pt")["input_ids"])',
    '    hooks = []',
    '    for l, module in projections:',
    '        heads = [h for (layer_, h) in off if layer_ == l]',
    '        if heads:',
    '            hooks.append(module.register_forward_pre_hook(replace_heads(heads, source.get(l))))',
    '    with torch.no_grad():',
    '        logits = model(input_ids=ids).logits[0, position]',
    '    for h in hooks:',
    '        h.remove()',
    '    logp = torch.log_softmax(logits.double(), -1)',
    '    probs = logp.exp()',
    '    best = sorted(range(len(logits)), key=lambda i: (-logits[i].item(), i))[:5]',
    '    for i in best:',
    '        tok = tokenizer.convert_ids_to_tokens(i)',
    '        print(f"{i:>7} {100 * probs[i].item():.4g}%  log p {logp[i].item():.4f}  logit {logits[i].item():.3f}  {tok!r}")',
    '',
    info.causal
      ? 'position = -1  # the next token after the text'
      : 'position = ids[0].tolist().index(tokenizer.mask_token_id)  # the first ' + (o.maskToken || '[MASK]'),
    'print("top 5, full model:")',
    'top5([])',
    'if heads_off:',
    '    print(f"top 5, heads {heads_off} switched off ({ablation}):")',
    '    top5(heads_off)',
  ];
}

// The numbers a snippet printed: {tokens (Python's list as printed), weights ([[...]] rows), full, ablated
// ([{id, percent}])}, for the tests and for a student's comparison.
export function parsePrinted(stdout) {
  const lines = stdout.split('\n');
  const out = { tokensLine: lines[0], weights: [], full: [], ablated: [] };
  let part = null;
  for (const line of lines.slice(1)) {
    if (/^layer \d+, head \d+:$/.test(line)) {
      part = 'weights';
      continue;
    }
    if (line === 'top 5, full model:') {
      part = 'full';
      continue;
    }
    if (/^top 5, heads .* switched off( \(\w+\))?:$/.test(line)) {
      part = 'ablated';
      continue;
    }
    if (!line.trim()) continue;
    if (part === 'weights') out.weights.push(line.trim().split(/\s+/).map(Number));
    else if (part) {
      const m = line.match(/^\s*(\d+)\s+([\d.]+(?:e[-+]\d+)?)%/);
      if (m) out[part].push({ id: +m[1], percent: +m[2] });
    }
  }
  return out;
}
