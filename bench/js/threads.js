'use strict';
// The threaded core in Chromium (issue 43's speed lines): GPT-2 small's shape (random weights, F32, written here
// under build/bench-models/gpt2-small-threads/) at 128 and 1024 tokens, every head's attentions and the last
// position's logits, on dist/mha.js (one thread) and dist/mha-threads.js on 1 and 2 threads, in a page served cross-origin
// isolated by scripts/serve.mjs. Prints a markdown table (stdout) with the machine's load average around each row.
//   node bench/js/threads.js [--quick] [--runs N]      (--quick: 2 layers, 64 and 256 tokens)
const fs = require('fs');
const os = require('os');
const path = require('path');
const { median } = require('./lib/timing.js');

const ROOT = path.resolve(__dirname, '..', '..');
const args = process.argv.slice(2);
const QUICK = args.includes('--quick');
const RUNS = Number(args[args.indexOf('--runs') + 1]) || (QUICK ? 2 : 3);
const SHAPE = { layers: QUICK ? 2 : 12, d: 768, heads: 12, vocab: 50257, positions: 1024 };
const TOKENS = QUICK ? [64, 256] : [128, 1024];
const log = (...a) => process.stderr.write(a.join(' ') + '\n');

// GPT-2's tensors for SHAPE, as transformers names them (Conv1D weights [in, out]).
function tensors({ layers, d, vocab, positions }) {
  const t = [
    ['wte.weight', [vocab, d]],
    ['wpe.weight', [positions, d]],
  ];
  for (let i = 0; i < layers; i++) {
    const p = `h.${i}.`;
    t.push([p + 'ln_1.weight', [d]], [p + 'ln_1.bias', [d]], [p + 'attn.c_attn.weight', [d, 3 * d]]);
    t.push([p + 'attn.c_attn.bias', [3 * d]], [p + 'attn.c_proj.weight', [d, d]], [p + 'attn.c_proj.bias', [d]]);
    t.push([p + 'ln_2.weight', [d]], [p + 'ln_2.bias', [d]], [p + 'mlp.c_fc.weight', [d, 4 * d]]);
    t.push([p + 'mlp.c_fc.bias', [4 * d]], [p + 'mlp.c_proj.weight', [4 * d, d]], [p + 'mlp.c_proj.bias', [d]]);
  }
  t.push(['ln_f.weight', [d]], ['ln_f.bias', [d]]);
  return t;
}

// config.json and model.safetensors of random weights (N(0, 0.02)-sized uniform draws, norms at 1), made once.
function checkpoint() {
  const dir = path.join(ROOT, 'build', 'bench-models', QUICK ? 'gpt2-threads-quick' : 'gpt2-small-threads');
  if (fs.existsSync(path.join(dir, 'model.safetensors'))) return dir;
  fs.mkdirSync(dir, { recursive: true });
  const { layers, d, heads, vocab, positions } = SHAPE;
  const config = { model_type: 'gpt2', architectures: ['GPT2LMHeadModel'], n_embd: d, n_head: heads, n_layer: layers };
  Object.assign(config, { n_positions: positions, vocab_size: vocab, layer_norm_epsilon: 1e-5 });
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ ...config, activation_function: 'gelu_new' }));
  const list = tensors(SHAPE);
  const header = {};
  let offset = 0;
  for (const [name, shape] of list) {
    const bytes = 4 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const fd = fs.openSync(path.join(dir, 'model.safetensors'), 'w');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(text.length));
  fs.writeSync(fd, len);
  fs.writeSync(fd, text);
  let s = 12345;
  for (const [name, shape] of list) {
    const a = new Float32Array(shape.reduce((x, y) => x * y, 1));
    const norm = /ln_.\.weight|ln_f\.weight/.test(name);
    for (let i = 0; i < a.length; i++) {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      a[i] = norm ? 1 : ((s / 4294967296) * 2 - 1) * 0.035;
    }
    fs.writeSync(fd, Buffer.from(a.buffer));
  }
  fs.closeSync(fd);
  return dir;
}

const PAGE = '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>threads</title>';

// One row: a fresh page loads `build`, starts `threads`, loads the checkpoint, and times RUNS forwards of T tokens.
async function row(browser, origin, build, threads, T) {
  const page = await (await browser.newContext()).newPage();
  await page.goto(origin + '/threads-bench.html');
  const load = os.loadavg()[0];
  const r = await page.evaluate(
    async ([build, threads, T, runs]) => {
      await new Promise((ok, no) => {
        const s = document.createElement('script');
        s.src = '/dist/' + build;
        s.onload = ok;
        s.onerror = no;
        document.head.appendChild(s);
      });
      const M = await createMhaModule({ threads }); // eslint-disable-line no-undef
      const files = ['config.json', 'model.safetensors'].map((name) => ({ name, url: '/model/' + name }));
      const model = await M.loadModel(files);
      const ids = Array.from({ length: T }, (_, i) => (i * 7919 + 11) % 50257);
      const times = [];
      let out;
      for (let i = 0; i <= runs; i++) {
        const t0 = performance.now();
        out = model.forward(ids, { logitsAt: [T - 1] });
        if (i > 0) times.push(performance.now() - t0); // the first run warms up
      }
      const bits = new Uint32Array(out.attentions.data.buffer);
      let h = 2166136261;
      for (let i = 0; i < bits.length; i += 97) h = Math.imul(h ^ bits[i], 16777619) >>> 0;
      return { times, threads: M.threads, isolated: crossOriginIsolated, hash: h };
    },
    [build, threads, T, RUNS],
  );
  await page.context().close();
  return { build, T, ...r, ms: median(r.times), load: [load, os.loadavg()[0]] };
}

async function main() {
  const dir = checkpoint();
  const { serve } = await import(path.join(ROOT, 'scripts', 'serve.mjs'));
  const { CHROMIUM } = await import(path.join(ROOT, 'scripts', 'chromium.mjs'));
  const { chromium } = require('playwright-core');
  const site = fs.mkdtempSync(path.join(os.tmpdir(), 'mha-threads-bench-'));
  fs.symlinkSync(path.join(ROOT, 'dist'), path.join(site, 'dist'));
  fs.symlinkSync(dir, path.join(site, 'model'));
  const srv = await serve(site, { isolated: true, extra: { '/threads-bench.html': PAGE } });
  const browser = await chromium.launch(CHROMIUM);
  const rows = [];
  try {
    for (const T of TOKENS)
      for (const [build, threads] of [
        ['mha.js', 1],
        ['mha-threads.js', 1],
        ['mha-threads.js', 2],
      ]) {
        const r = await row(browser, srv.origin, build, threads, T);
        log(`${build} ${threads} thread(s), ${T} tokens: ${r.ms.toFixed(0)} ms (${r.times.map((t) => t.toFixed(0))})`);
        rows.push(r);
      }
  } finally {
    await browser.close();
    await srv.close();
    fs.rmSync(site, { recursive: true, force: true });
  }
  console.log(
    `GPT-2 small shape (${SHAPE.layers} layers), every head's attentions + the last logits, Chromium, ` +
      `${os.cpus().length} cores; median of ${RUNS} after one warm-up`,
  );
  console.log(
    '\n| tokens | build | threads | ms | vs mha.js | same bits | load (1 min) |\n| --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const r of rows) {
    const base = rows.find((x) => x.T === r.T && x.build === 'mha.js');
    const same = r.hash === base.hash ? 'yes' : 'NO';
    console.log(
      `| ${r.T} | ${r.build} | ${r.threads} | ${r.ms.toFixed(0)} | ${(base.ms / r.ms).toFixed(2)}× | ${same} | ` +
        `${r.load.map((l) => l.toFixed(1)).join(' → ')} |`,
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
