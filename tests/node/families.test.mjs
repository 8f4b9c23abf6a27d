// The model families, written once in the core (core/include/mha/models.hpp's Family, core/src/models/config.cpp's
// kFamilyNames and kModelTypes), and every file outside the core that must know each of them: a new family fails
// here naming each file to touch (DEVELOPERS.md's recipe "A model family"), as protocol.test.mjs does for mask modes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { FAMILIES, layerTrace } from '../../web/models/trace.js';
import { OUTPUT_PROJECTION } from '../../web/models/snippet.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (path) => readFileSync(join(repo, path), 'utf8');
const sorted = (a) => [...a].sort();
const quoted = (text) => [...text.matchAll(/"([^"]*)"/g)].map((x) => x[1]);

// The core's tables, read from its source (the static_asserts there keep them the enum's size).
const ENUM = read('core/include/mha/models.hpp').match(/enum class Family[^{]*\{([^}]*)\}/);
const NAMES = read('core/src/models/config.cpp').match(/kFamilyNames\{([^}]*)\}/);
const TYPES = read('core/src/models/config.cpp').match(/kModelTypes\{\{([^;]*)\}\};/);
const FAMILY_NAMES = NAMES ? quoted(NAMES[1]) : [];
// model_type → family name, from kModelTypes' {"qwen2", Family::Llama} rows and the enum's order
const ENUM_MEMBERS = ENUM ? ENUM[1].split(',').map((s) => s.trim()) : [];
const MODEL_TYPES = TYPES
  ? [...TYPES[1].matchAll(/\{"([^"]+)",\s*Family::(\w+)\}/g)].map((m) => ({
      type: m[1],
      family: FAMILY_NAMES[ENUM_MEMBERS.indexOf(m[2])],
    }))
  : [];

test("the core's family table: an enum member before COUNT for each name in kFamilyNames, each model_type's family", () => {
  assert.ok(
    ENUM && NAMES && TYPES,
    'models.hpp declares enum class Family; config.cpp has kFamilyNames and kModelTypes',
  );
  assert.equal(ENUM_MEMBERS.at(-1), 'COUNT');
  assert.equal(FAMILY_NAMES.length, ENUM_MEMBERS.length - 1, "config.cpp's kFamilyNames: one name per Family");
  assert.ok(FAMILY_NAMES.length >= 4);
  for (const t of MODEL_TYPES) assert.ok(t.family, `config.cpp's kModelTypes: ${t.type} names a Family`);
  assert.deepEqual(
    sorted(new Set(MODEL_TYPES.map((t) => t.family))),
    sorted(FAMILY_NAMES),
    'every family is some model_type',
  );
});

test("types/index.d.ts: ModelInfo's family lists the core's families", () => {
  const m = read('types/index.d.ts').match(/\bfamily: ((?:'[^']*'\s*\|?\s*)+);/);
  assert.ok(m, "types/index.d.ts declares ModelInfo's family as a union of names");
  assert.deepEqual(
    sorted([...m[1].matchAll(/'([^']*)'/g)].map((x) => x[1])),
    sorted(FAMILY_NAMES),
    "types/index.d.ts: family must list every name of core/src/models/config.cpp's kFamilyNames",
  );
});

test('web/models/trace.js: module names for each family, and an unknown family refused by name', () => {
  assert.deepEqual(
    sorted(Object.keys(FAMILIES)),
    sorted(FAMILY_NAMES),
    "web/models/trace.js: FAMILIES must have the module names of every family of config.cpp's kFamilyNames",
  );
  assert.throws(
    () => layerTrace([], 0, { family: 'gptneox', heads: 2, dModel: 8 }, 3),
    /trace\.js has no module names for the family "gptneox"/,
  );
});

test("web/models/snippet.js: Copy as Python's head-ablation hook finds each family's output projection", () => {
  const re = new RegExp(OUTPUT_PROJECTION);
  for (const family of FAMILY_NAMES) {
    const f = FAMILIES[family];
    assert.ok(f, `web/models/trace.js: FAMILIES.${family}`);
    const path = f.layer + '.3.' + f.out; // as model.named_modules() names it (the base model's prefix too)
    const m = re.exec(path);
    assert.ok(m && m[1] === '3', `web/models/snippet.js: OUTPUT_PROJECTION must match ${family}'s ${path}`);
  }
});

test('docs/models.md: the families table has a row for each model_type', () => {
  const rows = read('docs/models.md')
    .split(/^## /m)
    .find((s) => s.startsWith('Families and options\n'));
  assert.ok(rows, 'docs/models.md has the section Families and options');
  const documented = [...rows.matchAll(/^\| (?!family \|)[^|]+ \| ([^|]+) \|/gm)].flatMap((m) =>
    [...m[1].matchAll(/`([^`]+)`/g)].map((x) => x[1]),
  );
  assert.deepEqual(
    sorted(documented),
    sorted(MODEL_TYPES.map((t) => t.type)),
    "docs/models.md: the families table's model_type column must list every model_type of config.cpp's kModelTypes",
  );
});

test('tests/models/make_checkpoints.py: out_projection names every model_type and refuses the others', () => {
  const src = read('tests/models/make_checkpoints.py');
  const body = src.match(/\ndef out_projection\([^]*?\n(?=\S)/);
  assert.ok(body, 'make_checkpoints.py defines out_projection');
  const named = [...body[0].matchAll(/"([a-z0-9_-]+)"/g)].map((x) => x[1]);
  for (const t of MODEL_TYPES)
    assert.ok(
      named.includes(t.type),
      `tests/models/make_checkpoints.py: out_projection must name model_type ${t.type}`,
    );
  assert.match(body[0], /raise ValueError/, "an unknown model_type is refused, not given Llama's module");
});

test("web/models/trace.js: ModernBERT's layer 0 without attn_norm, a local layer's window on either side", () => {
  const ops = ['qkv', 'query', 'key', 'value', 'query_heads', 'key_heads', 'value_heads', 'rope_query', 'rope_key'];
  const layer = (l, first) =>
    [
      ...first,
      ...ops,
      'scores',
      'window',
      'softmax',
      'context',
      'merge',
      'output',
      'residual',
      'norm',
      'mlp',
      'residual',
    ]
      .filter((op) => l === 1 || op !== 'window')
      .map((op) => ({ op, shape: [1, 5, 8], layer: l }));
  const trace = [...layer(0, []), ...layer(1, ['norm'])];
  const info = {
    family: 'modernbert',
    heads: 2,
    dModel: 8,
    headDim: 4,
    rotaryDim: 4,
    causal: false,
    windows: [0, 3],
    ropeTheta: 160000,
    ropeLocalTheta: 10000,
  };
  const words = (l, op) =>
    layerTrace(trace, l, info, 5)
      .filter((s) => s.op === op)
      .map((s) => s.words);
  assert.deepEqual(
    words(0, 'norm').map((w) => w.expr),
    ['x = model.layers[0].mlp_norm(h)'],
    'layer 0: the MLP norm only, pre-norm',
  );
  assert.deepEqual(
    words(1, 'norm').map((w) => w.expr),
    ['x = model.layers[1].attn_norm(h)', 'x = model.layers[1].mlp_norm(h)'],
  );
  assert.match(words(1, 'window')[0].expr, /abs\(i - j\) <= 2/);
  assert.match(words(1, 'window')[0].description, /local_attention 4\b.*2 tokens before and after/);
  assert.match(words(1, 'rope_query')[0].description, /a local layer: base θ = 10,000/);
  assert.match(words(0, 'rope_query')[0].description, /a full layer: base θ = 160,000/);
  assert.match(words(0, 'query')[0].label, /a third of Wqkv's output/);
  assert.match(words(0, 'qkv')[0].description, /One Linear \(weights \[3·8, 8\]\)/);
});
