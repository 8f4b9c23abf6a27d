// A GPT-2 small checkpoint of random float32 weights with the tensors and shapes of openai-community/gpt2's
// model.safetensors (548 MB, the attention's causal-mask buffers h.N.attn.bias included), written in seconds by Node
// (no Python, never from a hub) for the load benchmarks that time bytes, not numbers: bench/js/hub-load.mjs.
//   randomGpt2(dir) → {dir, bytes}; made once (dir/done.json).
import fs from 'node:fs';
import path from 'node:path';

const CONFIG = {
  architectures: ['GPT2LMHeadModel'],
  model_type: 'gpt2',
  activation_function: 'gelu_new',
  n_embd: 768,
  n_head: 12,
  n_layer: 12,
  n_positions: 1024,
  n_ctx: 1024,
  vocab_size: 50257,
  layer_norm_epsilon: 1e-5,
  bos_token_id: 50256,
  eos_token_id: 50256,
  tie_word_embeddings: true,
};

function tensors(c) {
  const d = c.n_embd,
    out = [
      ['wte.weight', [c.vocab_size, d]],
      ['wpe.weight', [c.n_positions, d]],
    ];
  for (let i = 0; i < c.n_layer; i++) {
    const h = `h.${i}.`;
    out.push([h + 'attn.bias', [1, 1, c.n_positions, c.n_positions]]);
    out.push([h + 'attn.c_attn.weight', [d, 3 * d]], [h + 'attn.c_attn.bias', [3 * d]]);
    out.push([h + 'attn.c_proj.weight', [d, d]], [h + 'attn.c_proj.bias', [d]]);
    out.push([h + 'ln_1.weight', [d]], [h + 'ln_1.bias', [d]], [h + 'ln_2.weight', [d]], [h + 'ln_2.bias', [d]]);
    out.push([h + 'mlp.c_fc.weight', [d, 4 * d]], [h + 'mlp.c_fc.bias', [4 * d]]);
    out.push([h + 'mlp.c_proj.weight', [4 * d, d]], [h + 'mlp.c_proj.bias', [d]]);
  }
  out.push(['ln_f.weight', [d]], ['ln_f.bias', [d]]);
  return out;
}

export function randomGpt2(dir) {
  const done = path.join(dir, 'done.json');
  if (fs.existsSync(done)) return JSON.parse(fs.readFileSync(done, 'utf8'));
  fs.mkdirSync(dir, { recursive: true });
  const list = tensors(CONFIG);
  const header = { __metadata__: { format: 'pt' } };
  let at = 0;
  for (const [name, shape] of list) {
    const n = shape.reduce((a, b) => a * b, 1) * 4;
    header[name] = { dtype: 'F32', shape, data_offsets: [at, at + n] };
    at += n;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const file = path.join(dir, 'model.safetensors');
  const fd = fs.openSync(file, 'w');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  fs.writeSync(fd, len);
  fs.writeSync(fd, json);
  const block = new Float32Array(1 << 20);
  let seed = 12345;
  for (let left = at / 4; left > 0; left -= block.length) {
    for (let i = 0; i < block.length; i++) {
      seed = (seed * 1664525 + 1013904223) >>> 0;
      block[i] = (seed / 2 ** 32 - 0.5) * 0.04; // |w| < 0.02, as GPT-2's initialiser
    }
    const n = Math.min(left, block.length);
    fs.writeSync(fd, new Uint8Array(block.buffer, 0, n * 4));
  }
  fs.closeSync(fd);
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(CONFIG, null, 2));
  const meta = { dir, bytes: fs.statSync(file).size };
  fs.writeFileSync(done, JSON.stringify(meta));
  return meta;
}
