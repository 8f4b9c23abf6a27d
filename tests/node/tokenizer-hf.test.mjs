// wasm/tokenizer.mjs (@huggingface/tokenizers) against Python `tokenizers` through transformers: ids, tokens and
// decode of every fixture tokenizer and MiniLM's on their texts and hard strings (build/models/tokenizers.json,
// written by tests/models/make_checkpoints.py: CTest fixture `models`), and the same through the esbuild bundle
// that dist/mha*.js carries (`MhaTokenizer`). Where the library and Python differ, EXPECTED_DIFFERENCES names the
// text and the reason (docs/models-tokenizers.md); anything else that differs fails, and so does an expected
// difference that stops differing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import vm from 'node:vm';
import { loadTokenizer } from '../../wasm/tokenizer.mjs';
import { bundleTokenizer } from '../../wasm/bundle-tokenizer.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const MODELS = process.env.MHA_MODEL_FIXTURES || `${ROOT}build/models`;
const dump = JSON.parse(readFileSync(`${MODELS}/tokenizers.json`, 'utf8'));

const BERT_CASES = Object.keys(dump).filter(
  (c) => c.startsWith('bert') || c.startsWith('distilbert') || c === 'minilm',
);
const EXPECTED_DIFFERENCES = [
  ...BERT_CASES.map((c) => ({
    case: c,
    text: '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟙𝟚𝟛 𠀀𠀁 👩‍👩‍👧 🇫🇷',
    reason:
      "BERT's normalizer spaces out CJK ideographs; the library tests UTF-16 code units, so the two " +
      'ideographs of CJK Extension B (outside the basic plane) stay one word: one [UNK] where Python has two',
  })),
  {
    case: 'minilm',
    text: 'Mixed: Δ δ ß ﬁ Ǆ İstanbul ΣΑΣ',
    reason:
      'lowercasing: JavaScript applies the final-sigma rule (ΣΑΣ → σας), Python tokenizers lowercases ' +
      'each character alone (σασ): ##ς instead of ##σ',
  },
];
// Unigram (XLM-R): the library names an unknown piece by its text ('\r', 'D'), Python by the unknown token ('<unk>');
// the ids agree. Such tokens are compared by id; the test fails if the difference stops showing.
const UNKNOWN_NAMED_BY_TEXT = { 'xlm-roberta': '<unk>' };
const expected = (c, text) => EXPECTED_DIFFERENCES.find((d) => d.case === c && d.text === text);

function tokenizerFiles(c) {
  const config = `${MODELS}/${c}/tokenizer_config.json`;
  return [
    readFileSync(`${MODELS}/${c}/tokenizer.json`, 'utf8'),
    existsSync(config) ? readFileSync(config, 'utf8') : null,
  ];
}

function compare(c, tok) {
  let compared = 0,
    renamed = 0;
  for (const row of dump[c]) {
    const encoded = tok.encode(row.text);
    const got = { ids: [...encoded.ids], tokens: [...encoded.tokens] }; // the bundle's arrays are of another realm
    const unk = UNKNOWN_NAMED_BY_TEXT[c];
    if (unk)
      got.tokens = got.tokens.map((t, i) => {
        if (row.tokens[i] !== unk || got.ids[i] !== row.ids[i] || t === unk) return t;
        renamed++;
        return unk;
      });
    const same =
      JSON.stringify(got.ids) === JSON.stringify(row.ids) && JSON.stringify(got.tokens) === JSON.stringify(row.tokens);
    const known = expected(c, row.text);
    if (known) {
      assert.ok(!same, `${c}: ${JSON.stringify(row.text)} is listed as a difference but now agrees with Python`);
    } else {
      assert.deepEqual(got.ids, row.ids, `${c}: ids of ${JSON.stringify(row.text)}`);
      assert.deepEqual(got.tokens, row.tokens, `${c}: tokens of ${JSON.stringify(row.text)}`);
    }
    assert.equal(tok.decode(row.ids), row.decoded, `${c}: decode of the ids of ${JSON.stringify(row.text)}`);
    compared++;
  }
  if (UNKNOWN_NAMED_BY_TEXT[c])
    assert.ok(renamed > 0, `${c}: no unknown piece named by its text any more: drop it from UNKNOWN_NAMED_BY_TEXT`);
  return compared;
}

test("every fixture tokenizer and MiniLM's give Python's ids, tokens and decode", () => {
  assert.ok(dump.minilm, 'MiniLM is among the fixtures');
  assert.ok(
    dump.minilm.some((row) => row.ids.length === 256),
    'MiniLM has a text of 256 tokens',
  );
  let total = 0;
  for (const c of Object.keys(dump)) total += compare(c, loadTokenizer(...tokenizerFiles(c)));
  assert.ok(total > 300, `${total} texts compared`);
});

test('special tokens are added as tokenizer(text) adds them', () => {
  const first = (c) => loadTokenizer(...tokenizerFiles(c)).encode('hello world');
  assert.equal(first('bert').tokens[0], '[CLS]');
  assert.equal(first('bert').tokens.at(-1), '[SEP]');
  assert.equal(first('llama').tokens[0], '<s>');
  assert.notEqual(first('gpt2').tokens[0], '<|endoftext|>');
  assert.notEqual(first('qwen2').tokens[0], '<|endoftext|>');
  assert.equal(first('minilm').tokens[0], '[CLS]');
});

test('bad files get a clear message', () => {
  assert.throws(() => loadTokenizer('{not json', null), /tokenizer\.json is not valid JSON/);
  assert.throws(() => loadTokenizer('{"version": "1.0"}', null), /tokenizer\.json has no "model"/);
  assert.throws(() => loadTokenizer(tokenizerFiles('bert')[0], '[1, 2'), /tokenizer_config\.json is not valid JSON/);
  assert.throws(() => loadTokenizer(42, null), /tokenizer\.json: expected the file's text/);
  const tok = loadTokenizer(...tokenizerFiles('bert'));
  assert.throws(() => tok.encode(12), /encode: expected a string/);
  assert.equal(tok.decode([]), '');
});

test('the esbuild bundle (MhaTokenizer, as dist/mha*.js carries it) agrees too', () => {
  const bundle = bundleTokenizer();
  assert.ok(bundle.length < 60000, `the bundle is ${bundle.length} bytes`);
  const context = { TextEncoder, TextDecoder };
  vm.runInNewContext(bundle, context);
  for (const c of ['gpt2', 'bert', 'llama', 'qwen2', 'minilm']) {
    assert.ok(compare(c, context.MhaTokenizer.loadTokenizer(...tokenizerFiles(c))) > 10);
  }
});
