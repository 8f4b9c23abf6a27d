// MHA Explorer — the lessons as presets. Each preset reproduces its notebook's example, shows the
// equivalent PyTorch code and the numbers the notebook prints, computed live. Defines MHA.presets.
(function (root) {
  'use strict';
  var MHA = (root.MHA = root.MHA || {});
  var m = MHA.model;

  // The class used by every "Copy as PyTorch" snippet: lessons 000/003 merged (returns weights,
  // optional dropout on the weights, keep-mask (mask == 0 filled) or block-mask (mask == 1 filled)).
  var PY_CLASS = [
    'import math, re',
    'import torch',
    'import torch.nn as nn',
    'import torch.nn.functional as F',
    '',
    'class MultiHeadAttention(nn.Module):',
    '    def __init__(self, d_model, num_heads, dropout=0.0, fill=float("-inf"), block_ones=False):',
    '        super().__init__()',
    '        assert d_model % num_heads == 0, "d_model must be divisible by num_heads"',
    '        self.d_model, self.num_heads, self.d_k = d_model, num_heads, d_model // num_heads',
    '        self.fill, self.block_ones = fill, block_ones',
    '        self.W_q = nn.Linear(d_model, d_model)',
    '        self.W_k = nn.Linear(d_model, d_model)',
    '        self.W_v = nn.Linear(d_model, d_model)',
    '        self.W_o = nn.Linear(d_model, d_model)',
    '        self.dropout = nn.Dropout(dropout)',
    '',
    '    def forward(self, Q, K, V, mask=None):',
    '        B = Q.size(0)',
    '        Q = self.W_q(Q).view(B, -1, self.num_heads, self.d_k).transpose(1, 2)',
    '        K = self.W_k(K).view(B, -1, self.num_heads, self.d_k).transpose(1, 2)',
    '        V = self.W_v(V).view(B, -1, self.num_heads, self.d_k).transpose(1, 2)',
    '        scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(self.d_k)',
    '        if mask is not None:',
    '            scores = scores.masked_fill(mask == (1 if self.block_ones else 0), self.fill)',
    '        attn = self.dropout(F.softmax(scores, dim=-1))',
    '        out = torch.matmul(attn, V).transpose(1, 2).contiguous().view(B, -1, self.d_model)',
    '        return self.W_o(out), attn',
    ''
  ].join('\n');

  var PY_TOKENS = [
    '# MHA Explorer tokenizer and embeddings (documented in web/README.md)',
    'def tokenize(text):',
    '    return re.findall(r"\\w+(?:\'\\w+)*|[^\\w\\s]", text)',
    '',
    'def fnv1a32(s):',
    '    h = 0x811C9DC5',
    '    for b in s.encode("utf-8"):',
    '        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF',
    '    return h',
    '',
    'def embed(tokens, seed, d_model, positions=True):',
    '    rows = [torch.randn(d_model, generator=torch.Generator().manual_seed(fnv1a32(f"{seed}:{t}")))',
    '            for t in tokens]',
    '    x = torch.stack(rows).unsqueeze(0)  # [1, S, D]',
    '    if positions:',
    '        S = len(tokens)',
    '        pos = torch.arange(S, dtype=torch.float64).unsqueeze(1)',
    '        div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(10000.0) / d_model))',
    '        pe = torch.zeros(S, d_model, dtype=torch.float64)',
    '        pe[:, 0::2] = torch.sin(pos * div)',
    '        pe[:, 1::2] = torch.cos(pos * div)[:, : d_model // 2]',
    '        x = x + pe.float()',
    '    return x',
    ''
  ].join('\n');

  function pyStr(s) { return JSON.stringify(String(s)); }
  function fillPy(fill) { return fill === '-1e9' ? '-1e9' : 'float("-inf")'; }

  // cfg: {seed, D, H, dropout, train, causal, maskStyle, fill, input: {type, batch, seqLen} | {type:'text', text, pos},
  //       order, b, h, seedNote}
  function moduleExample(cfg) {
    var L = [];
    var S = cfg.input.type === 'text' ? 'len(tokens)' : cfg.input.seqLen;
    if (cfg.seedNote) L.push('# ' + cfg.seedNote);
    L.push('torch.manual_seed(' + cfg.seed + ')');
    var mk = 'mha = MultiHeadAttention(' + cfg.D + ', ' + cfg.H +
      (cfg.dropout ? ', dropout=' + cfg.dropout : '') +
      (cfg.causal && cfg.fill === '-1e9' ? ', fill=-1e9' : '') +
      (cfg.causal && cfg.maskStyle === 'triu-block' ? ', block_ones=True' : '') + ')';
    var xin;
    if (cfg.input.type === 'text') {
      L.push('text = ' + pyStr(cfg.input.text));
      L.push('tokens = tokenize(text)' + (cfg.input.truncated ? '[:' + m.MAX_TOKENS + ']' : ''));
      L.push(mk);
      xin = 'x = embed(tokens, ' + cfg.seed + ', ' + cfg.D + ', positions=' + (cfg.input.pos ? 'True' : 'False') + ')';
      L.push(xin);
    } else {
      xin = 'x = torch.' + cfg.input.type + '(' + cfg.input.batch + ', ' + cfg.input.seqLen + ', ' + cfg.D + ')';
      if (cfg.order === 'input-first') { L.push(xin); L.push(mk); } else { L.push(mk); L.push(xin); }
    }
    L.push(cfg.train ? 'mha.train()  # dropout active' : 'mha.eval()');
    if (cfg.causal) {
      L.push(cfg.maskStyle === 'triu-block'
        ? 'mask = torch.triu(torch.ones(' + S + ', ' + S + '), diagonal=1)  # 1 = blocked'
        : 'mask = torch.tril(torch.ones(' + S + ', ' + S + '))  # 1 = may attend');
      L.push('output, attn = mha(x, x, x, mask)');
    } else {
      L.push('output, attn = mha(x, x, x)');
    }
    return L.join('\n');
  }
  function modulePrints(cfg) {
    return [
      'print("Output shape:", output.shape)',
      'print("Attention shape:", attn.shape)',
      'print("Parameters:", f"{sum(p.numel() for p in mha.parameters()):,}")',
      'torch.set_printoptions(precision=4)',
      'print(f"x[0, 0, :3] = {x[0, 0, :3]}")',
      'print(f"attn[' + cfg.b + ', ' + cfg.h + '] =")',
      'print(attn[' + cfg.b + ', ' + cfg.h + '].detach())'
    ].join('\n');
  }
  function moduleOutput(res, cfg) {
    var x3 = { shape: [Math.min(3, res.D)], data: res.x.data.subarray(0, Math.min(3, res.D)) };
    return [
      'Output shape: ' + m.sizeStr(res.output.shape),
      'Attention shape: ' + m.sizeStr(res.weights.shape),
      'Parameters: ' + m.commas(res.paramCount),
      'x[0, 0, :3] = ' + m.torchStr(x3),
      'attn[' + cfg.b + ', ' + cfg.h + '] =',
      m.torchStr(m.headMatrix(res.weights, cfg.b, cfg.h))
    ].join('\n');
  }
  function copySnippet(cfg) {
    return PY_CLASS + '\n' + (cfg.input.type === 'text' ? PY_TOKENS + '\n' : '') +
      moduleExample(cfg) + '\n\n' + modulePrints(cfg) + '\n';
  }

  // ---- Module presets (000, 001, 003, 004): config + the lesson's own printed lines -------------
  var PRESETS = {
    lesson000: {
      title: 'Lesson 000 — Chapter 2.3: MultiHeadAttention(64, 8)',
      file: '000_ea70833c9da742fb.txt',
      blurb: 'torch.manual_seed(0); x = torch.rand(1, 5, 64) is drawn BEFORE the four nn.Linear layers, ' +
        'as in the notebook. Self-attention, no mask (masked_fill(mask == 0, -inf) when causal is on).',
      defaults: { dmodel: 64, heads: 8, seed: 0, causal: false, fill: '-inf', dropout: 0, train: false },
      input: { type: 'rand', batch: 1, seqLen: 5 }, order: 'input-first', maskStyle: 'tril-keep',
      lessonCode: function (v) {
        return ['torch.manual_seed(' + v.seed + ')',
          'batch_size, seq_len, d_model, num_heads = 1, 5, ' + v.dmodel + ', ' + v.heads,
          '', 'x = torch.rand(batch_size, seq_len, d_model)',
          'mha = MultiHeadAttention(d_model, num_heads)', '', 'output, attn = mha(x, x, x)', '',
          "print('Output shape:', output.shape)", "print('Attention shape:', attn.shape)"].join('\n');
      },
      lessonOutput: function (res) {
        return 'Output shape: ' + m.sizeStr(res.output.shape) + '\nAttention shape: ' + m.sizeStr(res.weights.shape);
      }
    },
    lesson001: {
      title: 'Lesson 001 — MultiHeadSelfAttention(embed_size=8, num_heads=2)',
      file: '001_03857b64a6c4b894.txt',
      seedNote: 'The article sets no seed; MHA Explorer uses torch.manual_seed(0).',
      blurb: 'Self-attention on X = torch.rand(1, 4, 8), drawn before the module. The article sets no seed: ' +
        'the page uses seed 0 (change it below).',
      defaults: { dmodel: 8, heads: 2, seed: 0, causal: false, fill: '-inf', dropout: 0, train: false },
      input: { type: 'rand', batch: 1, seqLen: 4 }, order: 'input-first', maskStyle: 'tril-keep',
      lessonCode: function (v) {
        return ['torch.manual_seed(' + v.seed + ')  # not in the article: added for reproducibility',
          'X = torch.rand(1, 4, ' + v.dmodel + ')', '',
          'multi_head_attention = MultiHeadSelfAttention(embed_size=' + v.dmodel + ', num_heads=' + v.heads + ')', '',
          'output = multi_head_attention(X)', 'print("Multi-Head Attention Output Shape:", output.shape)'].join('\n');
      },
      lessonOutput: function (res) { return 'Multi-Head Attention Output Shape: ' + m.sizeStr(res.output.shape); }
    },
    lesson003: {
      title: 'Lesson 003 — MultiHeadAttention(64, 4, dropout=0.1) with a causal triu mask',
      file: '003_e7dacf0824130998.txt',
      seedNote: 'The notebook sets no seed; MHA Explorer uses torch.manual_seed(0).',
      blurb: 'The module is built first, then x = torch.randn(2, 8, 64). mask = torch.triu(ones(8, 8), diagonal=1): ' +
        '1 is blocked (masked_fill(mask == 1, -inf)). The module is in train mode, so dropout(0.1) acts on the ' +
        'weights, as in the notebook. No seed in the notebook: the page uses 0.',
      defaults: { dmodel: 64, heads: 4, seed: 0, causal: true, fill: '-inf', dropout: 0.1, train: true },
      input: { type: 'randn', batch: 2, seqLen: 8 }, order: 'module-first', maskStyle: 'triu-block',
      lessonCode: function (v) {
        return ['torch.manual_seed(' + v.seed + ')  # not in the notebook: added for reproducibility',
          'd_model = ' + v.dmodel, 'num_heads = ' + v.heads, 'batch_size = 2', 'seq_len = 8', '',
          'mha = MultiHeadAttention(d_model, num_heads' + (v.dropout !== 0.1 ? ', dropout=' + v.dropout : '') + ')',
          'x = torch.randn(batch_size, seq_len, d_model)',
          'mask = torch.triu(torch.ones(seq_len, seq_len), diagonal=1)', '',
          'output, attn_weights = mha(x, mask=mask)', '',
          'print(f"Input shape: {x.shape}")', 'print(f"Output shape: {output.shape}")',
          'print(f"Attention weights shape: {attn_weights.shape}")',
          'print(f"  (batch, num_heads, seq_len, seq_len)")', '',
          'total_params = sum(p.numel() for p in mha.parameters())',
          'print(f"Multi-Head Attention Parameters:")',
          'print(f"  W_q: {d_model} × {d_model} = {d_model * d_model}")',
          '# … W_k, W_v, W_o alike', 'print(f"  + biases")', 'print(f"  Total: {total_params:,} parameters")'].join('\n');
      },
      lessonOutput: function (res) {
        var D = res.D, dd = D * D;
        return ['Input shape: ' + m.sizeStr(res.x.shape), 'Output shape: ' + m.sizeStr(res.output.shape),
          'Attention weights shape: ' + m.sizeStr(res.weights.shape), '  (batch, num_heads, seq_len, seq_len)', '',
          'Multi-Head Attention Parameters:', '  W_q: ' + D + ' × ' + D + ' = ' + dd, '  W_k: ' + D + ' × ' + D + ' = ' + dd,
          '  W_v: ' + D + ' × ' + D + ' = ' + dd, '  W_o: ' + D + ' × ' + D + ' = ' + dd, '  + biases',
          '  Total: ' + m.commas(res.paramCount) + ' parameters'].join('\n');
      }
    },
    lesson004: {
      title: 'Lesson 004 — L04 (earlier version): the shape table at B=2, S=10, D=512, H=8',
      file: '004_3770f4e89b29f000.txt',
      seedNote: 'The lesson draws no input here; MHA Explorer uses torch.manual_seed(0) and randn(2, 10, 512).',
      blurb: 'The shape transformation table of the lesson, live: every row of the trace below is the real ' +
        'forward pass of MultiHeadAttention(512, 8) on x = torch.randn(2, 10, 512) (seed 0).',
      defaults: { dmodel: 512, heads: 8, seed: 0, causal: false, fill: '-1e9', dropout: 0, train: false },
      input: { type: 'randn', batch: 2, seqLen: 10 }, order: 'module-first', maskStyle: 'tril-keep',
      lessonCode: function (v) {
        return ['torch.manual_seed(' + v.seed + ')', 'mha = MultiHeadAttention(d_model=' + v.dmodel + ', num_heads=' + v.heads + ')',
          'x = torch.randn(2, 10, ' + v.dmodel + ')', 'y = mha(x, x, x)', '# shapes traced step by step (table below)'].join('\n');
      },
      lessonOutput: function (res) { return shapeTableText(res.trace); }
    }
  };

  function shapeTableText(trace) {
    var rows = trace.map(function (t) { return [t.label, '[' + t.shape.join(', ') + ']', t.expr || '']; });
    var w0 = Math.max.apply(null, rows.map(function (r) { return r[0].length; }).concat(['Operation'.length]));
    var w1 = Math.max.apply(null, rows.map(function (r) { return r[1].length; }).concat(['Shape'.length]));
    var pad = function (s, w) { return s + ' '.repeat(Math.max(0, w - s.length)); };
    return [pad('Operation', w0) + '  ' + pad('Shape', w1)].concat(rows.map(function (r) {
      return pad(r[0], w0) + '  ' + pad(r[1], w1);
    })).join('\n');
  }

  // ---- Lesson 002: fixed cells computed live from the API ------------------------------------
  function num(v) { return typeof v === 'number' ? v : (v && v.data ? v.data[0] : Number(v)); }
  function tensor(v, shape) { return v && v.data ? v : { shape: shape, data: Float32Array.from(v) }; }

  var l002cache = null;
  function lesson002(M) {
    if (l002cache) return l002cache;
    var cells = [], views = {};
    var R = [];  // objects to delete
    try {
      // Parameter scenarios
      var sc = M.parameterScenarios(512, 8);
      cells.push({ id: 'params', title: 'Parameter counts: full vs reduced vs actual',
        code: 'd_model, h = 512, 8\nd_k = d_model // h\nparams_if_full = 3 * h * (d_model * d_model)\n' +
          'params_reduced = 3 * h * (d_model * d_k)\nparams_actual = 3 * (d_model * d_model)',
        output: ['d_model=512, heads=8, d_k=64', 'QKV parameters:', '  if full dims:     ' + m.commas(num(sc.full)),
          '  if reduced dims:  ' + m.commas(num(sc.reduced)), '  actual (1 big W): ' + m.commas(num(sc.actual)),
          '  reduced == actual? ' + (num(sc.reduced) === num(sc.actual) ? 'True' : 'False')].join('\n') });

      // Mix then split
      var mx = M.mixThenSplit({ seed: 1, dModel: 8, outputIndex: 3 });
      var x0 = tensor(mx.x0, [8]), W = tensor(mx.W, [8, 8]), q0 = tensor(mx.q0, [8]), col = tensor(mx.column, [8]);
      cells.push({ id: 'mix', title: 'Mix, then split: q0 = x0 @ W',
        code: 'torch.manual_seed(1)\nD = 8\nx0 = torch.randn(D)\nW = torch.randn(D, D)\nq0 = x0 @ W\n' +
          'output_idx = 3\nmanual = (x0 * W[:, output_idx]).sum()',
        output: ['Input vector x0 (shape ' + m.sizeStr(x0.shape) + '):', m.torchStr(x0), '',
          'Mix matrix W (shape ' + m.sizeStr(W.shape) + '):', m.torchStr(W), '',
          'Output vector q0 = x0 @ W (shape ' + m.sizeStr(q0.shape) + '):', m.torchStr(q0), '',
          '--- Verifying q0[3] uses ALL input dimensions ---', 'q0[3] = ' + num(mx.q0AtIndex).toFixed(4), '',
          'W[:, 3] (weights for output dimension 3):', m.torchStr(col), '',
          'Manual calculation: sum of (x0[i] * W[i,3]) for ALL i from 0 to 7',
          '                  = ' + num(mx.manual).toFixed(4)].join('\n') });

      // The 4-step pipeline: continues the manual_seed(1) stream (randn(8), randn(8, 8) already drawn)
      var g = new M.Generator(1); R.push(g);
      g.randn([8]); g.randn([8, 8]);
      var x = g.randn([2, 4, 8]);
      var Wq = g.randn([8, 8]), Wk = g.randn([8, 8]), Wv = g.randn([8, 8]), Wo = g.randn([8, 8]);
      var q = M.matmul(x, Wq), k = M.matmul(x, Wk), v = M.matmul(x, Wv);
      var qh = M.splitHeads(q, 2), kh = M.splitHeads(k, 2), vh = M.splitHeads(v, 2);
      var att = M.scaledDotProductAttention(qh, kh, vh, {});
      var concat = M.mergeHeads(att.output);
      var y = M.matmul(concat, Wo);
      cells.push({ id: 'pipeline', title: 'The 4-step pipeline (B=2, S=4, D=8, H=2)',
        code: '# continues after torch.manual_seed(1); randn(8); randn(8, 8)\nB, S, D, H = 2, 4, 8, 2\n' +
          'x = torch.randn(B, S, D)\nWq, Wk, Wv, Wo = (torch.randn(D, D) for _ in range(4))\n' +
          'qh, kh, vh = split_heads(x @ Wq, H), split_heads(x @ Wk, H), split_heads(x @ Wv, H)\n' +
          'out_h, attn = scaled_dot_attn(qh, kh, vh)\ny = merge_heads(out_h) @ Wo\nprint(attn[0, 0])',
        output: ['  After split: ' + m.sizeStr(qh.shape) + ' = [B, H, S, d_k]',
          '  Attention weights: ' + m.sizeStr(att.weights.shape) + ' = [B, H, S, S]',
          '  Head outputs: ' + m.sizeStr(att.output.shape) + ' = [B, H, S, d_k]',
          '  Example: Attention weights from batch 0, head 0:',
          '  ' + m.torchStr(m.headMatrix(att.weights, 0, 0)).replace(/\n/g, '\n  '),
          '  After concat: ' + m.sizeStr(concat.shape) + ' = [B, S, D]',
          '  Final output: ' + m.sizeStr(y.shape) + ' = [B, S, D]'].join('\n') });
      views.pipeline = { weights: att.weights, output: y, x: x, labels: null, B: 2, H: 2, S: 4, D: 8,
        trace: M.shapeTrace({ batch: 2, seqLen: 4, dModel: 8, numHeads: 2 }),
        note: 'Plain x @ W matmuls, no bias (lesson 002, Part 2).' };

      // Head specialization
      var tokens = ['The', 'cat', 'sat', 'on', 'the', 'mat', 'because', 'it', 'was', 'soft'];
      var heads = M.headSpecialization(tokens);   // per head: {name, patterns: [{from, to, weight}], weights}
      var hsOut = ['Sentence: ' + tokens.join(' '), 'Tokens: ' + tokens.length];
      var hw = new Float32Array(heads.length * 100);
      heads.forEach(function (h, i) {
        hsOut.push('', 'HEAD ' + (i + 1) + ': ' + (h.name || ''), '', 'Key patterns in Head ' + (i + 1) + ':');
        h.patterns.forEach(function (p) {
          hsOut.push("  '" + tokens[p.from] + "' → '" + tokens[p.to] + "' (" + num(p.weight).toFixed(2) + ')');
        });
        hw.set(tensor(h.weights, [10, 10]).data, i * 100);
      });
      cells.push({ id: 'heads', title: 'Hand-built head specialization',
        code: 'tokens = ["The", "cat", "sat", "on", "the", "mat", "because", "it", "was", "soft"]\n' +
          'head1_logits[tokens.index("it"), tokens.index("mat")] = 8.0   # semantic\n' +
          'head1_logits[tokens.index("soft"), tokens.index("mat")] = 6.0\n' +
          'head2_logits[tokens.index("sat"), tokens.index("cat")] = 8.0  # syntactic\n' +
          'head2_logits[tokens.index("cat"), tokens.index("sat")] = 6.0\n# others: 5.0 on the diagonal; softmax(dim=-1)',
        output: hsOut.join('\n') });
      views.heads = { weights: { shape: [1, heads.length, 10, 10], data: hw }, labels: tokens, B: 1,
        H: heads.length, S: 10, D: 0, headNames: heads.map(function (h) { return h.name; }),
        trace: M.shapeTrace({ batch: 1, seqLen: 10, dModel: 8, numHeads: heads.length }),
        note: 'Hand-built logits, not learned: head 1 semantic, head 2 syntactic (lesson 002, Part 3).' };

      // Shape table
      var tr = M.shapeTrace({ batch: 2, seqLen: 10, dModel: 512, numHeads: 8 });
      cells.push({ id: 'shapes', title: 'Shape transformation table (B=2, S=10, D=512, H=8)',
        code: 'B, S, D, H = 2, 10, 512, 8\nx_big = torch.randn(B, S, D)\nq = x_big @ torch.randn(D, D)\n' +
          'q_view = q.view(B, S, H, D // H)\nq_reordered = q_view.transpose(1, 2)',
        output: shapeTableText(tr) });

      // contiguous()
      cells.push({ id: 'contiguous', title: 'Why contiguous() matters',
        code: 'x_demo = torch.randn(2, 3, 4)\nx_t = x_demo.transpose(1, 2)\nx_t.view(2, 12)  # RuntimeError\n' +
          'x_t.contiguous().view(2, 12)',
        output: ['x_t.is_contiguous(): False', 'view() failed as expected: ' + M.viewError(),
          'x_c.is_contiguous(): True', 'x_c.view(2, 12).shape: torch.Size([2, 12])'].join('\n') });

      // Module test: manual_seed(0); MHA(32, 4) THEN x = randn(2, 5, 32)
      var g0 = new M.Generator(0); R.push(g0);
      var mt = new M.MultiHeadAttention({ dModel: 32, numHeads: 4, generator: g0 }); R.push(mt);
      var xin = g0.randn([2, 5, 32]);
      var fy = mt.forward(xin, xin, xin, {});
      var diff = meanAbsDiff(fy.output.data, xin.data);
      cells.push({ id: 'module', title: 'Testing the MultiHeadAttention module',
        code: 'torch.manual_seed(0)\nmha = MultiHeadAttention(d_model=32, num_heads=4)\nx_in = torch.randn(2, 5, 32)\n' +
          'y_out = mha(x_in, x_in, x_in)\ndiff = (y_out - x_in).abs().mean().item()\n' +
          'total_params = sum(p.numel() for p in mha.parameters())',
        output: ['Input shape: ' + m.sizeStr(xin.shape) + ' = [Batch, Seq, D_model]',
          'Output shape: ' + m.sizeStr(fy.output.shape) + ' = [Batch, Seq, D_model]',
          '✓ Output differs from input (mean abs diff: ' + diff.toFixed(4) + ')',
          '✓ Total parameters: ' + m.commas(mt.parameterCount())].join('\n') });
      views.module = { weights: fy.weights, output: fy.output, x: xin, B: 2, H: 4, S: 5, D: 32, trace: fy.trace,
        note: 'torch.manual_seed(0); MultiHeadAttention(32, 4) then x = torch.randn(2, 5, 32).' };

      // Loop vs vectorized: manual_seed(123); MHA(32, 4); x = randn(2, 6, 32)
      var g1 = new M.Generator(123); R.push(g1);
      var ml = new M.MultiHeadAttention({ dModel: 32, numHeads: 4, generator: g1 }); R.push(ml);
      var xl = g1.randn([2, 6, 32]);
      var lv = M.loopVsVectorized(ml, xl, {});
      var fl = ml.forward(xl, xl, xl, {});
      cells.push({ id: 'loop', title: 'Loop-based vs vectorized',
        code: 'torch.manual_seed(123)\nmha = MultiHeadAttention(d_model=32, num_heads=4)\nx_in = torch.randn(2, 6, 32)\n' +
          'y_vec = mha(x_in, x_in, x_in)\ny_loop = mha_forward_loop(mha, x_in)',
        output: ['Difference between implementations:', '  Max absolute diff: ' + num(lv.maxAbsDiff).toFixed(10),
          '  Mean absolute diff: ' + num(lv.meanAbsDiff).toFixed(10),
          '  Results match: ' + (num(lv.maxAbsDiff) <= 1e-6 ? 'True' : 'False')].join('\n') });
      views.loop = { weights: fl.weights, output: fl.output, x: xl, B: 2, H: 4, S: 6, D: 32, trace: fl.trace,
        note: 'torch.manual_seed(123); MultiHeadAttention(32, 4); x = torch.randn(2, 6, 32).' };

      // Causal: the SAME generator continues (no reseed): MHA(32, 4); x = randn(2, 6, 32)
      var mc = new M.MultiHeadAttention({ dModel: 32, numHeads: 4, generator: g1 }); R.push(mc);
      var xc = g1.randn([2, 6, 32]);
      var mask = m.maskTensor(6, 'tril-keep');
      var ym = mc.forward(xc, xc, xc, { mask: mask, maskMode: 'keep', fill: -1e9 });
      var yu = mc.forward(xc, xc, xc, {});
      cells.push({ id: 'causal', title: 'Causal masking (continues the seed-123 stream)',
        code: 'mha = MultiHeadAttention(d_model=32, num_heads=4)\nx_in = torch.randn(2, 6, 32)\n' +
          'causal = torch.tril(torch.ones(6, 6)).unsqueeze(0).unsqueeze(1)\n' +
          'y_masked = mha(x_in, x_in, x_in, mask=causal)  # masked_fill(mask == 0, -1e9)\n' +
          'y_unmasked = mha(x_in, x_in, x_in, mask=None)\ndiff = (y_masked - y_unmasked).abs().mean().item()',
        output: ['Causal mask shape: torch.Size([1, 1, 6, 6]) (will broadcast to [B, H, S, S])',
          'Causal mask (first 4x4 for visualization):',
          'tensor([[1, 0, 0, 0],\n        [1, 1, 0, 0],\n        [1, 1, 1, 0],\n        [1, 1, 1, 1]], dtype=torch.int32)',
          '', 'Masked output: ' + m.sizeStr(ym.output.shape), 'Unmasked output: ' + m.sizeStr(yu.output.shape), '',
          'Mean absolute difference: ' + meanAbsDiff(ym.output.data, yu.output.data).toFixed(4)].join('\n') });
      views.causal = { weights: ym.weights, output: ym.output, x: xc, B: 2, H: 4, S: 6, D: 32, trace: ym.trace,
        note: 'Causal keep-mask torch.tril(ones(6, 6)), fill -1e9; the generator continues after the loop example.' };
    } finally {
      R.forEach(function (o) { try { o.delete(); } catch (e) { /* already freed */ } });
    }
    l002cache = { cells: cells, views: views };
    return l002cache;
  }
  function meanAbsDiff(a, b) {
    var s = 0;
    for (var i = 0; i < a.length; i++) s += Math.abs(a[i] - b[i]);
    return s / a.length;
  }

  var L002 = {
    title: 'Lessons 002/004 — L04 "Committee of Experts": every printed cell',
    file: '002_ad8fa6190e00e90b.txt',
    blurb: 'Every example of the lesson, computed live: parameter counts, mix-then-split, the 4-step pipeline, ' +
      'head specialization, the shape table, contiguous(), the module test, loop vs vectorized and the causal mask. ' +
      'Pick which example feeds the heatmaps.',
    views: [['heads', 'Head specialization'], ['pipeline', '4-step pipeline'], ['module', 'Module test'],
      ['loop', 'Loop vs vectorized'], ['causal', 'Causal mask']],
    fixed: true
  };

  MHA.presets = {
    PRESETS: PRESETS, L002: L002, lesson002: lesson002, copySnippet: copySnippet, moduleExample: moduleExample,
    moduleOutput: moduleOutput, shapeTableText: shapeTableText, PY_CLASS: PY_CLASS, meanAbsDiff: meanAbsDiff,
    list: [['', 'Your sentence'], ['lesson000', '000 · Chapter 2.3 (64, 8)'], ['lesson001', '001 · Self-attention (8, 2)'],
      ['lesson002', '002 · Committee of Experts'], ['lesson003', '003 · Dropout + triu mask (64, 4)'],
      ['lesson004', '004 · Shape table (512, 8)']]
  };
})(typeof self !== 'undefined' ? self : this);
