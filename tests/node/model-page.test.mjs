// The model page's pure modules (web/models/) against transformers itself, on the oracle's tiny checkpoints
// (tests/models/make_checkpoints.py: build/models/, or made here when absent) run by the models' oracle (scripts/venv-models:
// transformers 5.x on torch 2.13) in eager attention: the role scores, where a token looks, the top 5 with and
// without heads, all computed here from transformers' own float32 attentions and logits, equal its Python reference
// (tests/node/fixtures/model_page.py); the "Copy as Python" snippet runs as pasted and prints the page's numbers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
} from '../../web/models/ablate.js';
import { pythonSnippet, parsePrinted } from '../../web/models/snippet.js';

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
    });
    // the repeated sequence is what the tokenizer would frame: its specials where tokenizer(text) puts them
    assert.deepEqual(rep.ids.slice(0, rep.start), ref.ids.slice(0, rep.start));
    assert.deepEqual(rep.ids.slice(rep.start + 2 * rep.length), ref.ids.slice(ref.ids.length - frame.suffix.length));

    const attn = f32(ref.attentions),
      repAttn = f32(ref.repeat_attentions),
      H = attn.shape[2];
    const text = textRoleScores(attn),
      repeat = repeatRoleScores(repAttn, rep);
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

    const maskId = ref.tokens.includes('[MASK]') ? ref.ids[ref.tokens.indexOf('[MASK]')] : undefined;
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
      info: { causal: ref.causal, hasLmHead: info.has_head, heads: H, dModel: info.d_model },
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

test('role descriptions: one sentence per role, names unique', () => {
  assert.deepEqual(ROLE_NAMES, ['previous', 'first', 'current', 'duplicate', 'induction']);
  for (const r of ROLES) assert.match(r.how, /^[A-Z][^]*\.$/);
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
