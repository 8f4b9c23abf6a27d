// MHA Explorer — the lessons as presets. Each preset reproduces its notebook's example, shows the
// equivalent PyTorch code and the numbers the notebook prints, computed live. An ES module, bundled by web/build.mjs (esbuild) into a classic script: file:// keeps working.
import model from './model.js';
import widgets from './widgets.js';
import { PY_LOAD_FILE, pyLoadLines } from './weights.js';
  var m = model;

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

  // The page's tokenizer (model.js) and token embeddings, in Python: same tokens, same vectors.
  var PY_TOKENS = [
    '# MHA Explorer\'s tokenizer and token embeddings, exactly as the page computes them',
    'import unicodedata',
    '',
    'def tokenize(text):',
    '    # a token: a run of letters, marks, digits and "_" (inner apostrophes kept, as in "didn\'t"),',
    '    # or one punctuation mark or symbol; spaces, control and format characters separate tokens',
    '    text = unicodedata.normalize("NFC", text)',
    '    kind = lambda c: "w" if c == "_" or unicodedata.category(c)[0] in "LMN" else "p" if unicodedata.category(c)[0] in "PS" else " "',
    '    tokens, i, n = [], 0, len(text)',
    '    while i < n:',
    '        k, j = kind(text[i]), i + 1',
    '        if k == "w":',
    '            while j < n and (kind(text[j]) == "w" or (text[j] == "\'" and j + 1 < n and kind(text[j + 1]) == "w")):',
    '                j += 1',
    '        if k != " ":',
    '            tokens.append(text[i:j])',
    '        i = j',
    '    return tokens',
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

  // ---- The lessons' own definitions, as each lesson writes them (every cell below runs on its own:
  // a cell's "Copy code" copies these definitions with it) ------------------------------------------
  var PY_IMPORTS = 'import math\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n';

  // The constructor lessons 000, 002 and 004 write alike (four nn.Linear in the order W_q, W_k, W_v, W_o).
  var PY_MHA_INIT = [
    'class MultiHeadAttention(nn.Module):',
    '    def __init__(self, d_model, num_heads):',
    '        super().__init__()',
    '        assert d_model % num_heads == 0, "d_model must be divisible by num_heads"',
    '        self.d_model = d_model',
    '        self.num_heads = num_heads',
    '        self.d_k = d_model // num_heads',
    '        self.W_q = nn.Linear(d_model, d_model)',
    '        self.W_k = nn.Linear(d_model, d_model)',
    '        self.W_v = nn.Linear(d_model, d_model)',
    '        self.W_o = nn.Linear(d_model, d_model)'
  ].join('\n');

  var L000_DEFS = PY_IMPORTS + [
    '',
    'def scaled_dot_product_attention(Q, K, V, mask=None):',
    '    d_k = Q.size(-1)',
    '    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)',
    '    if mask is not None:',
    '        scores = scores.masked_fill(mask == 0, float(\'-inf\'))',
    '    attn = F.softmax(scores, dim=-1)',
    '    output = torch.matmul(attn, V)',
    '    return output, attn',
    '',
    PY_MHA_INIT,
    '',
    '    def forward(self, Q, K, V, mask=None):',
    '        batch_size = Q.size(0)',
    '        Q = self.W_q(Q).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)',
    '        K = self.W_k(K).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)',
    '        V = self.W_v(V).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)',
    '        attn_output, attn_weights = scaled_dot_product_attention(Q, K, V, mask)',
    '        attn_output = attn_output.transpose(1, 2).contiguous().view(batch_size, -1, self.d_model)',
    '        output = self.W_o(attn_output)',
    '        return output, attn_weights',
    ''
  ].join('\n');

  var L001_DEFS = PY_IMPORTS + [
    '',
    'class MultiHeadSelfAttention(nn.Module):',
    '    def __init__(self, embed_size, num_heads):',
    '        super(MultiHeadSelfAttention, self).__init__()',
    '        self.num_heads = num_heads',
    '        self.head_dim = embed_size // num_heads',
    '        assert (',
    '            self.head_dim * num_heads == embed_size',
    '        ), "Embedding size must be divisible by number of heads"',
    '        self.W_q = nn.Linear(embed_size, embed_size)',
    '        self.W_k = nn.Linear(embed_size, embed_size)',
    '        self.W_v = nn.Linear(embed_size, embed_size)',
    '        self.W_o = nn.Linear(embed_size, embed_size)',
    '',
    '    def forward(self, X):',
    '        batch_size, seq_length, embed_size = X.shape',
    '        Q = self.W_q(X)',
    '        K = self.W_k(X)',
    '        V = self.W_v(X)',
    '        Q = Q.view(batch_size, seq_length, self.num_heads, self.head_dim).transpose(1, 2)',
    '        K = K.view(batch_size, seq_length, self.num_heads, self.head_dim).transpose(1, 2)',
    '        V = V.view(batch_size, seq_length, self.num_heads, self.head_dim).transpose(1, 2)',
    '        attention_scores = torch.matmul(Q, K.transpose(-2, -1)) / (self.head_dim ** 0.5)',
    '        attention_weights = F.softmax(attention_scores, dim=-1)',
    '        output = torch.matmul(attention_weights, V)',
    '        output = output.transpose(1, 2).contiguous().view(batch_size, seq_length, embed_size)',
    '        return self.W_o(output)',
    ''
  ].join('\n');

  var L003_DEFS = PY_IMPORTS + [
    '',
    'class MultiHeadAttention(nn.Module):',
    '    def __init__(self, d_model, num_heads, dropout=0.1):',
    '        super().__init__()',
    '        assert d_model % num_heads == 0, "d_model must be divisible by num_heads"',
    '        self.d_model = d_model',
    '        self.num_heads = num_heads',
    '        self.d_k = d_model // num_heads',
    '        self.W_q = nn.Linear(d_model, d_model)',
    '        self.W_k = nn.Linear(d_model, d_model)',
    '        self.W_v = nn.Linear(d_model, d_model)',
    '        self.W_o = nn.Linear(d_model, d_model)',
    '        self.dropout = nn.Dropout(dropout)',
    '',
    '    def forward(self, x, mask=None):',
    '        batch_size, seq_len, _ = x.shape',
    '        Q = self.W_q(x)',
    '        K = self.W_k(x)',
    '        V = self.W_v(x)',
    '        Q = Q.view(batch_size, seq_len, self.num_heads, self.d_k).transpose(1, 2)',
    '        K = K.view(batch_size, seq_len, self.num_heads, self.d_k).transpose(1, 2)',
    '        V = V.view(batch_size, seq_len, self.num_heads, self.d_k).transpose(1, 2)',
    '        scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(self.d_k)',
    '        if mask is not None:',
    '            scores = scores.masked_fill(mask == 1, float(\'-inf\'))',
    '        attention_weights = F.softmax(scores, dim=-1)',
    '        attention_weights = self.dropout(attention_weights)',
    '        context = torch.matmul(attention_weights, V)',
    '        context = context.transpose(1, 2).contiguous().view(batch_size, seq_len, self.d_model)',
    '        output = self.W_o(context)',
    '        return output, attention_weights',
    ''
  ].join('\n');

  // Lessons 002 and 004: the pipeline helpers, the module (it returns the output only) and the loop version.
  var L002_DEFS = PY_IMPORTS + [
    '',
    'def split_heads(t, H):',
    '    B, S, D = t.shape',
    '    d_k = D // H',
    '    return t.view(B, S, H, d_k).transpose(1, 2)  # [B,H,S,d_k]',
    '',
    'def merge_heads(t):',
    '    B, H, S, d_k = t.shape',
    '    return t.transpose(1, 2).contiguous().view(B, S, H * d_k)  # [B,S,D]',
    '',
    'def scaled_dot_attn(qh, kh, vh):',
    '    scores = qh @ kh.transpose(-2, -1) / math.sqrt(qh.shape[-1])  # [B,H,S,S]',
    '    attn = torch.softmax(scores, dim=-1)',
    '    out = attn @ vh  # [B,H,S,d_k]',
    '    return out, attn',
    '',
    PY_MHA_INIT,
    '',
    '    def forward(self, q, k, v, mask=None):',
    '        batch_size = q.size(0)',
    '        Q = self.W_q(q).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)',
    '        K = self.W_k(k).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)',
    '        V = self.W_v(v).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)',
    '        scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(self.d_k)',
    '        if mask is not None:',
    '            scores = scores.masked_fill(mask == 0, -1e9)',
    '        attn_weights = torch.softmax(scores, dim=-1)',
    '        attn_output = torch.matmul(attn_weights, V)',
    '        attn_output = attn_output.transpose(1, 2).contiguous().view(batch_size, -1, self.d_model)',
    '        return self.W_o(attn_output)',
    '',
    'def mha_forward_loop(mha_module, x, mask=None):',
    '    B, S, D = x.shape',
    '    H = mha_module.num_heads',
    '    d_k = mha_module.d_k',
    '    Qs = mha_module.W_q(x).view(B, S, H, d_k)',
    '    Ks = mha_module.W_k(x).view(B, S, H, d_k)',
    '    Vs = mha_module.W_v(x).view(B, S, H, d_k)',
    '    heads = []',
    '    for h in range(H):',
    '        qh, kh, vh = Qs[:, :, h, :], Ks[:, :, h, :], Vs[:, :, h, :]  # [B,S,d_k]',
    '        scores = qh @ kh.transpose(-2, -1) / math.sqrt(d_k)  # [B,S,S]',
    '        if mask is not None:',
    '            scores = scores.masked_fill(mask == 0, -1e9)',
    '        heads.append(torch.softmax(scores, dim=-1) @ vh)  # [B,S,d_k]',
    '    return mha_module.W_o(torch.cat(heads, dim=-1))  # [B,S,D]',
    ''
  ].join('\n');

  // The shape table, computed step by step by PyTorch (the module of lessons 002/004; labels as the page's trace).
  function shapeTableCode(B, S, D, H, seed) {
    return [
      'torch.manual_seed(' + seed + ')',
      'B, S, D, H = ' + [B, S, D, H].join(', '),
      'd_k = D // H',
      'mha = MultiHeadAttention(d_model=D, num_heads=H)',
      'x = torch.randn(B, S, D)',
      'rows = [("Input x", x.shape)]',
      'Q = mha.W_q(x);                rows.append(("After W_q(x)", Q.shape))',
      'Q = Q.view(B, S, H, d_k);      rows.append((f"After .view({B}, {S}, {H}, {d_k})", Q.shape))',
      'Q = Q.transpose(1, 2);         rows.append(("After .transpose(1, 2)", Q.shape))',
      'K = mha.W_k(x).view(B, S, H, d_k).transpose(1, 2)',
      'V = mha.W_v(x).view(B, S, H, d_k).transpose(1, 2)',
      'out = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1) @ V',
      'rows.append(("Attention computation", out.shape))',
      'out = out.transpose(1, 2);     rows.append(("After .transpose(1, 2)", out.shape))',
      'out = out.contiguous().view(B, S, D);  rows.append((f"After .contiguous().view({B}, {S}, {D})", out.shape))',
      'y = mha.W_o(out);              rows.append(("After W_o(x)", y.shape))',
      'w = max(len("Operation"), *(len(label) for label, _ in rows))',
      'print(f"{\'Operation\':<{w}}  Shape")',
      'for label, shape in rows:',
      '    print(f"{label:<{w}}  {list(shape)}")'
    ].join('\n');
  }

  function pyStr(s) { return JSON.stringify(String(s)); }
  function fillPy(fill) { return fill === '-1e9' ? '-1e9' : 'float("-inf")'; }

  // cfg: {seed, D, H, dropout, train, causal, maskStyle, fill, input: {type, batch, seqLen} | {type:'text', text, pos},
  //       order, b, h, seedNote, weights: {file, layer} (loaded from a file) | null}
  function moduleExample(cfg) {
    var L = [];
    var S = cfg.input.type === 'text' ? 'len(tokens)' : cfg.input.type === 'tensor' ? 'x.size(1)' : cfg.input.seqLen;
    if (cfg.seedNote) L.push('# ' + cfg.seedNote + ': the page uses torch.manual_seed(' + cfg.seed + ').');
    L.push('torch.manual_seed(' + cfg.seed + ')');
    var mk = 'mha = MultiHeadAttention(' + cfg.D + ', ' + cfg.H +
      (cfg.dropout ? ', dropout=' + cfg.dropout : '') +
      (cfg.causal && cfg.fill === '-1e9' ? ', fill=-1e9' : '') +
      (cfg.causal && cfg.maskStyle === 'triu-block' ? ', block_ones=True' : '') + ')';
    var xin;
    if (cfg.input.type === 'text' || cfg.input.type === 'tensor') {
      if (cfg.input.listed) L.push('tokens = [' + cfg.input.tokens.map(pyStr).join(', ') + ']  # ' + cfg.input.listed);
      else if (cfg.input.type === 'text') {
        L.push('text = ' + pyStr(cfg.input.text));
        L.push('tokens = tokenize(text)' + (cfg.input.truncated ? '[:' + m.MAX_TOKENS + ']' : ''));
      }
      L.push(mk);
      if (cfg.weights) L.push.apply(L, pyLoadLines(cfg.weights));
      L.push(cfg.input.type === 'tensor' ? givenX(cfg.input.x)
        : 'x = embed(tokens, ' + cfg.seed + ', ' + cfg.D + ', positions=' + (cfg.input.pos ? 'True' : 'False') + ')');
    } else {
      xin = 'x = torch.' + cfg.input.type + '(' + cfg.input.batch + ', ' + cfg.input.seqLen + ', ' + cfg.D + ')';
      if (cfg.order === 'input-first') { L.push(xin); L.push(mk); } else { L.push(mk); L.push(xin); }
      if (cfg.weights) L.push.apply(L, pyLoadLines(cfg.weights));
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
  // A given x (page-input.js) as the snippet's x: its float32 values, little-endian, in base64.
  function givenX(x) {
    var bytes = new Uint8Array(x.data.length * 4), view = new DataView(bytes.buffer), text = '';
    for (var i = 0; i < x.data.length; i++) view.setFloat32(4 * i, x.data[i], true);
    for (var k = 0; k < bytes.length; k += 0x8000) text += String.fromCharCode.apply(null, bytes.subarray(k, k + 0x8000));
    return 'x = torch.frombuffer(bytearray(base64.b64decode(\n    "' + btoa(text) + '")),\n    dtype=torch.float32).reshape(' +
      x.shape.join(', ') + ')  # your x: its float32 values, little-endian';
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
  // What a cell's "Copy code" copies: its code, after the setup it needs (so it runs in a fresh notebook).
  function copyOf(cell) { return (cell.setup ? cell.setup + '\n' : '') + cell.code + '\n'; }
  // The lesson 002 page's "Copy as PyTorch": the setup once, then every cell; it prints every cell's output in turn.
  function copyAll(cells) {
    return cells.map(function (c) { return '# ---- ' + c.title + '\n' + c.code + '\n'; }).join('\n');
  }
  function copySnippet(cfg) {
    return PY_CLASS + '\n' + (cfg.weights ? PY_LOAD_FILE + '\n\n' : '') + (cfg.input.type === 'text' ? PY_TOKENS + '\n' : '') +
      (cfg.input.type === 'tensor' ? 'import base64\n\n' : '') +
      moduleExample(cfg) + '\n\n' + modulePrints(cfg) + '\n';
  }

  // ---- Module presets (000, 001, 003, 004): config + the lesson's own printed lines -------------
  var PRESETS = {
    lesson000: {
      title: function (v) { return 'Lesson 000 — Chapter 2.3: MultiHeadAttention(' + v.dmodel + ', ' + v.heads + ')'; },
      file: '000_ea70833c9da742fb.txt',
      blurb: function (v) {
        return 'torch.manual_seed(' + v.seed + '); x = torch.rand(1, 5, ' + v.dmodel + ') is drawn BEFORE the four nn.Linear ' +
          'layers, as in the notebook. Self-attention, no mask (masked_fill(mask == 0, -inf) when causal is on).';
      },
      defaults: { dmodel: 64, heads: 8, seed: 0, causal: false, fill: '-inf', dropout: 0, train: false },
      input: { type: 'rand', batch: 1, seqLen: 5 }, order: 'input-first', maskStyle: 'tril-keep',
      lessonCode: function (v) {
        return L000_DEFS + ['', 'torch.manual_seed(' + v.seed + ')',
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
      title: function (v) { return 'Lesson 001 — MultiHeadSelfAttention(embed_size=' + v.dmodel + ', num_heads=' + v.heads + ')'; },
      file: '001_03857b64a6c4b894.txt',
      seedNote: 'The article sets no seed',
      blurb: function (v) {
        return 'Self-attention on X = torch.rand(1, 4, ' + v.dmodel + '), drawn before the module. The article sets no seed: ' +
          'the page uses seed ' + v.seed + ' (change it below).';
      },
      defaults: { dmodel: 8, heads: 2, seed: 0, causal: false, fill: '-inf', dropout: 0, train: false },
      input: { type: 'rand', batch: 1, seqLen: 4 }, order: 'input-first', maskStyle: 'tril-keep',
      lessonCode: function (v) {
        return L001_DEFS + ['', 'torch.manual_seed(' + v.seed + ')  # not in the article: added for reproducibility',
          'X = torch.rand(1, 4, ' + v.dmodel + ')', '',
          'multi_head_attention = MultiHeadSelfAttention(embed_size=' + v.dmodel + ', num_heads=' + v.heads + ')', '',
          'output = multi_head_attention(X)', 'print("Multi-Head Attention Output Shape:", output.shape)'].join('\n');
      },
      lessonOutput: function (res) { return 'Multi-Head Attention Output Shape: ' + m.sizeStr(res.output.shape); }
    },
    lesson003: {
      title: function (v) {
        return 'Lesson 003 — MultiHeadAttention(' + v.dmodel + ', ' + v.heads + ', dropout=' + v.dropout + ')' +
          (v.causal ? ' with a causal triu mask' : '');
      },
      file: '003_e7dacf0824130998.txt',
      seedNote: 'The notebook sets no seed',
      blurb: function (v) {
        return 'The module is built first, then x = torch.randn(2, 8, ' + v.dmodel + '). mask = torch.triu(ones(8, 8), diagonal=1): ' +
          '1 is blocked (masked_fill(mask == 1, -inf)). The notebook leaves the module in train mode, so dropout(0.1) acts on the ' +
          'weights. No seed in the notebook: the page uses ' + v.seed + '.';
      },
      defaults: { dmodel: 64, heads: 4, seed: 0, causal: true, fill: '-inf', dropout: 0.1, train: true },
      input: { type: 'randn', batch: 2, seqLen: 8 }, order: 'module-first', maskStyle: 'triu-block',
      lessonCode: function (v) {
        return L003_DEFS + ['', 'torch.manual_seed(' + v.seed + ')  # not in the notebook: added for reproducibility',
          'd_model = ' + v.dmodel, 'num_heads = ' + v.heads, 'batch_size = 2', 'seq_len = 8', '',
          'mha = MultiHeadAttention(d_model, num_heads' + (v.dropout !== 0.1 ? ', dropout=' + v.dropout : '') + ')',
          'x = torch.randn(batch_size, seq_len, d_model)',
          'mask = torch.triu(torch.ones(seq_len, seq_len), diagonal=1)', '',
          'output, attn_weights = mha(x, mask=mask)', '',
          'print(f"Input shape: {x.shape}")', 'print(f"Output shape: {output.shape}")',
          'print(f"Attention weights shape: {attn_weights.shape}")',
          'print(f"  (batch, num_heads, seq_len, seq_len)")', 'print()',
          'total_params = sum(p.numel() for p in mha.parameters())',
          'print(f"Multi-Head Attention Parameters:")',
          'print(f"  W_q: {d_model} × {d_model} = {d_model * d_model}")',
          'print(f"  W_k: {d_model} × {d_model} = {d_model * d_model}")',
          'print(f"  W_v: {d_model} × {d_model} = {d_model * d_model}")',
          'print(f"  W_o: {d_model} × {d_model} = {d_model * d_model}")',
          'print(f"  + biases")', 'print(f"  Total: {total_params:,} parameters")'].join('\n');
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
      title: function (v) {
        return 'Lesson 004 — L04 (earlier version): the shape table at B=2, S=10, D=' + v.dmodel + ', H=' + v.heads;
      },
      file: '004_3770f4e89b29f000.txt',
      seedNote: 'The lesson draws no input here',
      blurb: function (v) {
        return 'The shape transformation table of the lesson, live: every row of the trace below is the real ' +
          'forward pass of MultiHeadAttention(' + v.dmodel + ', ' + v.heads + ') on x = torch.randn(2, 10, ' + v.dmodel +
          ') (seed ' + v.seed + ').';
      },
      defaults: { dmodel: 512, heads: 8, seed: 0, causal: false, fill: '-1e9', dropout: 0, train: false },
      input: { type: 'randn', batch: 2, seqLen: 10 }, order: 'module-first', maskStyle: 'tril-keep',
      lessonCode: function (v) { return L002_DEFS + '\n' + shapeTableCode(2, 10, v.dmodel, v.heads, v.seed); },
      lessonOutput: function (res) { return shapeTableText(res.trace); }
    }
  };

  function shapeTableText(trace) {
    var words = widgets.traceWords(trace);
    var rows = trace.map(function (t, i) { return [words[i].label, '[' + t.shape.join(', ') + ']']; });
    var w0 = Math.max.apply(null, rows.map(function (r) { return r[0].length; }).concat(['Operation'.length]));
    var pad = function (s, w) { return s + ' '.repeat(Math.max(0, w - s.length)); };
    return [pad('Operation', w0) + '  Shape'].concat(rows.map(function (r) { return pad(r[0], w0) + '  ' + r[1]; })).join('\n');
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
      cells.push({ id: 'setup', title: 'Setup: the lesson\'s imports, helpers, module and loop version', code: L002_DEFS,
        output: '', note: 'Prints nothing. Every "Copy code" below copies this setup with its cell, so each runs on its own.' });

      // Parameter scenarios
      var sc = M.parameterScenarios(512, 8);
      cells.push({ id: 'params', title: 'Parameter counts: full vs reduced vs actual',
        code: ['d_model = 512', 'h = 8', 'd_k = d_model // h', 'params_if_full = 3 * h * (d_model * d_model)',
          'params_reduced = 3 * h * (d_model * d_k)', 'params_actual = 3 * (d_model * d_model)',
          'print(f"d_model={d_model}, heads={h}, d_k={d_k}")', 'print("QKV parameters:")',
          'print(f"  if full dims:     {params_if_full:,}")', 'print(f"  if reduced dims:  {params_reduced:,}")',
          'print(f"  actual (1 big W): {params_actual:,}")', 'print(f"  reduced == actual? {params_reduced == params_actual}")'].join('\n'),
        output: ['d_model=512, heads=8, d_k=64', 'QKV parameters:', '  if full dims:     ' + m.commas(num(sc.full)),
          '  if reduced dims:  ' + m.commas(num(sc.reduced)), '  actual (1 big W): ' + m.commas(num(sc.actual)),
          '  reduced == actual? ' + (num(sc.reduced) === num(sc.actual) ? 'True' : 'False')].join('\n') });

      // Mix then split
      var mx = M.mixThenSplit({ seed: 1, dModel: 8, outputIndex: 3 });
      var x0 = tensor(mx.x0, [8]), W = tensor(mx.W, [8, 8]), q0 = tensor(mx.q0, [8]), col = tensor(mx.column, [8]);
      cells.push({ id: 'mix', title: 'Mix, then split: q0 = x0 @ W',
        code: ['torch.manual_seed(1)', 'D = 8', 'x0 = torch.randn(D)', 'W = torch.randn(D, D)', 'q0 = x0 @ W', 'output_idx = 3',
          'print(f"Input vector x0 (shape {x0.shape}):")', 'print(x0)', 'print()',
          'print(f"Mix matrix W (shape {W.shape}):")', 'print(W)', 'print()',
          'print(f"Output vector q0 = x0 @ W (shape {q0.shape}):")', 'print(q0)', 'print()',
          'print(f"--- Verifying q0[{output_idx}] uses ALL input dimensions ---")',
          'print(f"q0[{output_idx}] = {q0[output_idx].item():.4f}")', 'print()',
          'print(f"W[:, {output_idx}] (weights for output dimension {output_idx}):")', 'print(W[:, output_idx])', 'print()',
          'manual = (x0 * W[:, output_idx]).sum()',
          'print(f"Manual calculation: sum of (x0[i] * W[i,{output_idx}]) for ALL i from 0 to {D-1}")',
          'print(f"                  = {manual.item():.4f}")'].join('\n'),
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
        code: ['torch.manual_seed(1)',
          '_ = torch.randn(8), torch.randn(8, 8)  # the mix-then-split draws: the lesson continues that stream',
          'B, S, D, H = 2, 4, 8, 2', 'x = torch.randn(B, S, D)',
          'Wq = torch.randn(D, D)', 'Wk = torch.randn(D, D)', 'Wv = torch.randn(D, D)', 'Wo = torch.randn(D, D)',
          'q, k, v = x @ Wq, x @ Wk, x @ Wv', 'qh, kh, vh = split_heads(q, H), split_heads(k, H), split_heads(v, H)',
          'print(f"  After split: {qh.shape} = [B, H, S, d_k]")', 'out_h, attn = scaled_dot_attn(qh, kh, vh)',
          'print(f"  Attention weights: {attn.shape} = [B, H, S, S]")', 'print(f"  Head outputs: {out_h.shape} = [B, H, S, d_k]")',
          'print(f"  Example: Attention weights from batch 0, head 0:")', 'print(f"  {attn[0, 0]}")',
          'concat = merge_heads(out_h)', 'print(f"  After concat: {concat.shape} = [B, S, D]")',
          'y = concat @ Wo', 'print(f"  Final output: {y.shape} = [B, S, D]")'].join('\n'),
        output: ['  After split: ' + m.sizeStr(qh.shape) + ' = [B, H, S, d_k]',
          '  Attention weights: ' + m.sizeStr(att.weights.shape) + ' = [B, H, S, S]',
          '  Head outputs: ' + m.sizeStr(att.output.shape) + ' = [B, H, S, d_k]',
          '  Example: Attention weights from batch 0, head 0:',
          '  ' + m.torchStr(m.headMatrix(att.weights, 0, 0)),
          '  After concat: ' + m.sizeStr(concat.shape) + ' = [B, S, D]',
          '  Final output: ' + m.sizeStr(y.shape) + ' = [B, S, D]'].join('\n') });
      views.pipeline = { weights: att.weights, output: y, x: x, labels: null, B: 2, H: 2, S: 4, D: 8,
        trace: M.shapeTrace({ batch: 2, seqLen: 4, dModel: 8, numHeads: 2 }),
        origin: 'torch.randn(8, 8) matrices, no bias, continuing torch.manual_seed(1)',
        shown: { dmodel: 8, heads: 2, seed: 1, causal: false, fill: '-inf', dropout: 0, train: false },
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
        code: ['tokens = ["The", "cat", "sat", "on", "the", "mat", "because", "it", "was", "soft"]',
          'n_tokens = len(tokens)', 'print("Sentence:", " ".join(tokens))', 'print(f"Tokens: {n_tokens}")', '',
          '# hand-built logits, not learned: (query, key, logit) pairs; every other token 5.0 on itself',
          'heads = [("Semantic Expert", [("it", "mat", 8.0), ("soft", "mat", 6.0)]),',
          '         ("Syntactic Expert", [("sat", "cat", 8.0), ("cat", "sat", 6.0)])]',
          'for n, (name, pairs) in enumerate(heads, start=1):',
          '    logits = torch.zeros(n_tokens, n_tokens)',
          '    for query, key, value in pairs:',
          '        logits[tokens.index(query), tokens.index(key)] = value',
          '    for i in range(n_tokens):',
          '        if tokens[i] not in [query for query, _, _ in pairs]:',
          '            logits[i, i] = 5.0',
          '    weights = F.softmax(logits, dim=-1)',
          '    print()', '    print(f"HEAD {n}: {name}")', '    print()', '    print(f"Key patterns in Head {n}:")',
          '    for i, token in enumerate(tokens):',
          '        max_attn_idx = torch.argmax(weights[i]).item()',
          '        max_attn_val = weights[i, max_attn_idx].item()',
          '        if max_attn_val > 0.5:',
          '            print(f"  \'{token}\' → \'{tokens[max_attn_idx]}\' ({max_attn_val:.2f})")'].join('\n'),
        output: hsOut.join('\n') });
      views.heads = { weights: { shape: [1, heads.length, 10, 10], data: hw }, labels: tokens, B: 1,
        H: heads.length, S: 10, D: 0, headNames: heads.map(function (h) { return h.name; }), trace: [],
        note: 'Hand-built logits, not learned: head 1 semantic, head 2 syntactic (lesson 002, Part 3).' };

      // Shape table
      var tr = M.shapeTrace({ batch: 2, seqLen: 10, dModel: 512, numHeads: 8 });
      cells.push({ id: 'shapes', title: 'Shape transformation table (B=2, S=10, D=512, H=8)',
        code: shapeTableCode(2, 10, 512, 8, 0),
        output: shapeTableText(tr) });

      // contiguous()
      cells.push({ id: 'contiguous', title: 'Why contiguous() matters',
        code: ['x_demo = torch.randn(2, 3, 4)', 'x_t = x_demo.transpose(1, 2)  # changes strides, does not move data',
          'print("x_t.is_contiguous():", x_t.is_contiguous())', 'try:', '    _ = x_t.view(2, 12)',
          '    print("view() worked (unexpected in some layouts)")', 'except RuntimeError as e:',
          '    print("view() failed as expected:", e)', 'x_c = x_t.contiguous()',
          'print("x_c.is_contiguous():", x_c.is_contiguous())', 'print("x_c.view(2, 12).shape:", x_c.view(2, 12).shape)'].join('\n'),
        output: ['x_t.is_contiguous(): False', 'view() failed as expected: ' + M.viewError(),
          'x_c.is_contiguous(): True', 'x_c.view(2, 12).shape: torch.Size([2, 12])'].join('\n') });

      // Module test: manual_seed(0); MHA(32, 4) THEN x = randn(2, 5, 32)
      var g0 = new M.Generator(0); R.push(g0);
      var mt = new M.MultiHeadAttention({ dModel: 32, numHeads: 4, generator: g0 }); R.push(mt);
      var xin = g0.randn([2, 5, 32]);
      var fy = mt.forward(xin, xin, xin, {});
      var diff = meanAbsDiff(fy.output.data, xin.data);
      cells.push({ id: 'module', title: 'Testing the MultiHeadAttention module',
        code: ['torch.manual_seed(0)', 'mha = MultiHeadAttention(d_model=32, num_heads=4)', 'x_in = torch.randn(2, 5, 32)',
          'print(f"Input shape: {x_in.shape} = [Batch, Seq, D_model]")', 'y_out = mha(x_in, x_in, x_in)',
          'print(f"Output shape: {y_out.shape} = [Batch, Seq, D_model]")', 'diff = (y_out - x_in).abs().mean().item()',
          'print(f"✓ Output differs from input (mean abs diff: {diff:.4f})")',
          'total_params = sum(p.numel() for p in mha.parameters())', 'print(f"✓ Total parameters: {total_params:,}")'].join('\n'),
        output: ['Input shape: ' + m.sizeStr(xin.shape) + ' = [Batch, Seq, D_model]',
          'Output shape: ' + m.sizeStr(fy.output.shape) + ' = [Batch, Seq, D_model]',
          '✓ Output differs from input (mean abs diff: ' + diff.toFixed(4) + ')',
          '✓ Total parameters: ' + m.commas(mt.parameterCount())].join('\n') });
      views.module = { weights: fy.weights, output: fy.output, x: xin, B: 2, H: 4, S: 5, D: 32, trace: fy.trace,
        origin: 'nn.Linear\'s init after torch.manual_seed(0)',
        shown: { dmodel: 32, heads: 4, seed: 0, causal: false, fill: '-inf', dropout: 0, train: false },
        note: 'torch.manual_seed(0); MultiHeadAttention(32, 4) then x = torch.randn(2, 5, 32).' };

      // Loop vs vectorized: manual_seed(123); MHA(32, 4); x = randn(2, 6, 32)
      var g1 = new M.Generator(123); R.push(g1);
      var ml = new M.MultiHeadAttention({ dModel: 32, numHeads: 4, generator: g1 }); R.push(ml);
      var xl = g1.randn([2, 6, 32]);
      var lv = M.loopVsVectorized(ml, xl, {});
      var fl = ml.forward(xl, xl, xl, {});
      cells.push({ id: 'loop', title: 'Loop-based vs vectorized',
        code: ['torch.manual_seed(123)', 'mha = MultiHeadAttention(d_model=32, num_heads=4)', 'x_in = torch.randn(2, 6, 32)',
          'y_vec = mha(x_in, x_in, x_in)', 'y_loop = mha_forward_loop(mha, x_in)',
          'max_diff = (y_vec - y_loop).abs().max().item()', 'mean_diff = (y_vec - y_loop).abs().mean().item()',
          'print(f"Difference between implementations:")', 'print(f"  Max absolute diff: {max_diff:.10f}")',
          'print(f"  Mean absolute diff: {mean_diff:.10f}")',
          'print(f"  Results match: {torch.allclose(y_vec, y_loop, atol=1e-6)}")'].join('\n'),
        output: ['Difference between implementations:', '  Max absolute diff: ' + num(lv.maxAbsDiff).toFixed(10),
          '  Mean absolute diff: ' + num(lv.meanAbsDiff).toFixed(10),
          '  Results match: ' + (num(lv.maxAbsDiff) <= 1e-6 ? 'True' : 'False')].join('\n') });
      views.loop = { weights: fl.weights, output: fl.output, x: xl, B: 2, H: 4, S: 6, D: 32, trace: fl.trace,
        origin: 'nn.Linear\'s init after torch.manual_seed(123)',
        shown: { dmodel: 32, heads: 4, seed: 123, causal: false, fill: '-inf', dropout: 0, train: false },
        note: 'torch.manual_seed(123); MultiHeadAttention(32, 4); x = torch.randn(2, 6, 32).' };

      // Causal: the SAME generator continues (no reseed): MHA(32, 4); x = randn(2, 6, 32)
      var mc = new M.MultiHeadAttention({ dModel: 32, numHeads: 4, generator: g1 }); R.push(mc);
      var xc = g1.randn([2, 6, 32]);
      var mask = m.maskTensor(6, 'tril-keep');
      var ym = mc.forward(xc, xc, xc, { mask: mask, maskMode: 'keep', fill: -1e9 });
      var yu = mc.forward(xc, xc, xc, {});
      cells.push({ id: 'causal', title: 'Causal masking (continues the seed-123 stream)',
        code: ['torch.manual_seed(123)',
          '_ = MultiHeadAttention(d_model=32, num_heads=4), torch.randn(2, 6, 32)  # the loop example: the lesson continues its stream',
          'B, S, D = 2, 6, 32', 'mha = MultiHeadAttention(d_model=D, num_heads=4)', 'x_in = torch.randn(B, S, D)',
          'causal = torch.tril(torch.ones(S, S)).unsqueeze(0).unsqueeze(1)',
          'print(f"Causal mask shape: {causal.shape} (will broadcast to [B, H, S, S])")',
          'print(f"Causal mask (first 4x4 for visualization):")', 'print(causal[0, 0, :4, :4].int())',
          'y_masked = mha(x_in, x_in, x_in, mask=causal)  # masked_fill(mask == 0, -1e9)',
          'y_unmasked = mha(x_in, x_in, x_in, mask=None)', 'print()',
          'print(f"Masked output: {y_masked.shape}")', 'print(f"Unmasked output: {y_unmasked.shape}")', 'print()',
          'diff = (y_masked - y_unmasked).abs().mean().item()', 'print(f"Mean absolute difference: {diff:.4f}")'].join('\n'),
        output: ['Causal mask shape: torch.Size([1, 1, 6, 6]) (will broadcast to [B, H, S, S])',
          'Causal mask (first 4x4 for visualization):',
          'tensor([[1, 0, 0, 0],\n        [1, 1, 0, 0],\n        [1, 1, 1, 0],\n        [1, 1, 1, 1]], dtype=torch.int32)',
          '', 'Masked output: ' + m.sizeStr(ym.output.shape), 'Unmasked output: ' + m.sizeStr(yu.output.shape), '',
          'Mean absolute difference: ' + meanAbsDiff(ym.output.data, yu.output.data).toFixed(4)].join('\n') });
      views.causal = { weights: ym.weights, output: ym.output, x: xc, B: 2, H: 4, S: 6, D: 32, trace: ym.trace, causal: true,
        origin: 'nn.Linear\'s init, continuing the torch.manual_seed(123) stream',
        shown: { dmodel: 32, heads: 4, seed: 123, causal: true, fill: '-1e9', dropout: 0, train: false },
        note: 'Causal keep-mask torch.tril(ones(6, 6)), fill -1e9; the generator continues after the loop example.' };
    } finally {
      R.forEach(function (o) { try { o.delete(); } catch (e) { /* already freed */ } });
    }
    cells.forEach(function (c) { if (c.id !== 'setup') c.setup = L002_DEFS; });
    l002cache = { cells: cells, views: views };
    return l002cache;
  }
  function meanAbsDiff(a, b) {
    var s = 0;
    for (var i = 0; i < a.length; i++) s += Math.abs(a[i] - b[i]);
    return s / a.length;
  }

  // Every preset answers the controller the same way: title(eff), blurb(eff), file; a module preset gives
  // defaults, input, order, maskStyle, lessonCode and lessonOutput (the controller runs its forward); a fixed
  // preset (lesson 002) computes itself: compute(M, eff) → {res, labels, cells}, views (the examples that can
  // feed the heatmaps) and shown(M, eff) (the values the selected example uses, for the greyed controls).
  var L002 = {
    title: function () { return 'Lessons 002/004 — L04 "Committee of Experts": every printed cell'; },
    file: '002_ad8fa6190e00e90b.txt',
    blurb: function () {
      return 'Every example of the lesson, computed live: parameter counts, mix-then-split, the 4-step pipeline, ' +
        'head specialization, the shape table, contiguous(), the module test, loop vs vectorized and the causal mask. ' +
        'Pick which example feeds the heatmaps.';
    },
    views: [['heads', 'Head specialization'], ['pipeline', '4-step pipeline'], ['module', 'Module test'],
      ['loop', 'Loop vs vectorized'], ['causal', 'Causal mask']],
    fixed: true,
    view: function (M, eff) { var L = lesson002(M); return L.views[eff.view] || L.views.heads; },
    compute: function (M, eff) {
      var vr = L002.view(M, eff), labels = vr.labels || [];
      if (!vr.labels) for (var i = 0; i < vr.S; i++) labels.push('t' + i);
      return { res: vr, labels: labels, cells: lesson002(M).cells };
    },
    shown: function (M, eff) { return L002.view(M, eff).shown || null; }
  };
  PRESETS.lesson002 = L002;

  const presets = {
    PRESETS: PRESETS, lesson002: lesson002, copySnippet: copySnippet, moduleExample: moduleExample,
    copyOf: copyOf, copyAll: copyAll,
    moduleOutput: moduleOutput, shapeTableText: shapeTableText, PY_CLASS: PY_CLASS, PY_TOKENS: PY_TOKENS, meanAbsDiff: meanAbsDiff,
    list: [['', 'Your sentence'], ['lesson000', '000 · Chapter 2.3 (64, 8)'], ['lesson001', '001 · Self-attention (8, 2)'],
      ['lesson002', '002 · Committee of Experts'], ['lesson003', '003 · Dropout + triu mask (64, 4)'],
      ['lesson004', '004 · Shape table (512, 8)']]
  };
export default presets;
