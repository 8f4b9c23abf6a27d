// The page's own PyTorch: "Copy as PyTorch" for a module run (the class, the tokenizer, the run and its prints), the
// text those prints give (computed from the page's result), and what a lesson cell's "Copy code" copies.
import { MAX_TOKENS, commas, headMatrix, sizeStr, torchStr } from '../compute/explorer-run.js';
import { PY_LOAD_FILE, pyLoadLines } from '../compute/weights.js';
import { cells } from './python.js';
import pageModule from './page_module.py';
import tokenizer from './tokenizer.py';

export const PY_CLASS = cells(pageModule).class + '\n';
export const PY_TOKENS = cells(tokenizer).tokenizer + '\n';

const pyStr = (s) => JSON.stringify(String(s));

// cfg: the explorer's forward record (explorer/forward.js's Forward): {seed, dModel, numHeads, dropout, train,
//       mask: {style, fill} | null, input: {type, batch, seqLen} | {type:'text', text, pos}, order, b, h, seedNote,
//       file: {file, layer} (weights loaded from a file) | null}
export function moduleExample(cfg) {
  const lines = [];
  const S = cfg.input.type === 'text' ? 'len(tokens)' : cfg.input.type === 'tensor' ? 'x.size(1)' : cfg.input.seqLen;
  if (cfg.seedNote) lines.push('# ' + cfg.seedNote + ': the page uses torch.manual_seed(' + cfg.seed + ').');
  lines.push('torch.manual_seed(' + cfg.seed + ')');
  const mask = cfg.mask;
  const build =
    'mha = MultiHeadAttention(' +
    cfg.dModel +
    ', ' +
    cfg.numHeads +
    (cfg.dropout ? ', dropout=' + cfg.dropout : '') +
    (mask && mask.fill === '-1e9' ? ', fill=-1e9' : '') +
    (mask && mask.style === 'triu-block' ? ', block_ones=True' : '') +
    ')';
  const loading = cfg.file ? pyLoadLines(cfg.file) : [];
  if (cfg.input.type === 'text' || cfg.input.type === 'tensor') {
    if (cfg.input.listed) {
      lines.push('tokens = [' + cfg.input.tokens.map(pyStr).join(', ') + ']  # ' + cfg.input.listed);
    } else if (cfg.input.type === 'text') {
      lines.push('text = ' + pyStr(cfg.input.text));
      lines.push('tokens = tokenize(text)' + (cfg.input.truncated ? '[:' + MAX_TOKENS + ']' : ''));
    }
    lines.push(build, ...loading);
    lines.push(
      cfg.input.type === 'tensor'
        ? givenX(cfg.input.x)
        : 'x = embed(tokens, ' +
            cfg.seed +
            ', ' +
            cfg.dModel +
            ', positions=' +
            (cfg.input.pos ? 'True' : 'False') +
            ')',
    );
  } else {
    const input =
      'x = torch.' + cfg.input.type + '(' + cfg.input.batch + ', ' + cfg.input.seqLen + ', ' + cfg.dModel + ')';
    lines.push(...(cfg.order === 'input-first' ? [input, build] : [build, input]), ...loading);
  }
  lines.push(cfg.train ? 'mha.train()  # dropout active' : 'mha.eval()');
  if (mask) {
    lines.push(
      mask.style === 'triu-block'
        ? 'mask = torch.triu(torch.ones(' + S + ', ' + S + '), diagonal=1)  # 1 = blocked'
        : 'mask = torch.tril(torch.ones(' + S + ', ' + S + '))  # 1 = may attend',
    );
    lines.push('output, attn = mha(x, x, x, mask)');
  } else {
    lines.push('output, attn = mha(x, x, x)');
  }
  return lines.join('\n');
}

// A given x (explorer/input.js) as the snippet's x: its float32 values, little-endian, in base64.
function givenX(x) {
  const bytes = new Uint8Array(x.data.length * 4),
    view = new DataView(bytes.buffer);
  let text = '';
  for (let i = 0; i < x.data.length; i++) view.setFloat32(4 * i, x.data[i], true);
  for (let k = 0; k < bytes.length; k += 0x8000) text += String.fromCharCode.apply(null, bytes.subarray(k, k + 0x8000));
  return (
    'x = torch.frombuffer(bytearray(base64.b64decode(\n    "' +
    btoa(text) +
    '")),\n    dtype=torch.float32).reshape(' +
    x.shape.join(', ') +
    ')  # your x: its float32 values, little-endian'
  );
}

function modulePrints(cfg) {
  return [
    'print("Output shape:", output.shape)',
    'print("Attention shape:", attn.shape)',
    'print("Parameters:", f"{sum(p.numel() for p in mha.parameters()):,}")',
    'torch.set_printoptions(precision=4)',
    'print(f"x[0, 0, :3] = {x[0, 0, :3]}")',
    'print(f"attn[' + cfg.b + ', ' + cfg.h + '] =")',
    'print(attn[' + cfg.b + ', ' + cfg.h + '].detach())',
  ].join('\n');
}

// What modulePrints prints, from the page's result res.
export function moduleOutput(res, cfg) {
  const x3 = { shape: [Math.min(3, res.D)], data: res.x.data.subarray(0, Math.min(3, res.D)) };
  return [
    'Output shape: ' + sizeStr(res.output.shape),
    'Attention shape: ' + sizeStr(res.weights.shape),
    'Parameters: ' + commas(res.paramCount),
    'x[0, 0, :3] = ' + torchStr(x3),
    'attn[' + cfg.b + ', ' + cfg.h + '] =',
    torchStr(headMatrix(res.weights, cfg.b, cfg.h)),
  ].join('\n');
}

// The page's "Copy as PyTorch" for a module run: it runs in a fresh notebook and prints what the page prints.
export function copySnippet(cfg) {
  return (
    PY_CLASS +
    '\n' +
    (cfg.file ? PY_LOAD_FILE + '\n\n' : '') +
    (cfg.input.type === 'text' ? PY_TOKENS + '\n' : '') +
    (cfg.input.type === 'tensor' ? 'import base64\n\n' : '') +
    moduleExample(cfg) +
    '\n\n' +
    modulePrints(cfg) +
    '\n'
  );
}
// What a cell's "Copy code" copies: its code, after the setup it needs (so it runs in a fresh notebook).
export const copyOf = (cell) => (cell.setup ? cell.setup + '\n' : '') + cell.code + '\n';
// A fixed lesson's "Copy as PyTorch" (lesson 002): the setup once, then every cell; it prints every cell's output in turn.
export const copyAll = (lessonCells) => lessonCells.map((c) => '# ---- ' + c.title + '\n' + c.code + '\n').join('\n');
