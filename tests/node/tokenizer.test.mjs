// One tokenization rule on the page and in its Python snippets: web/compute/explorer-run.js's tokenize() and the
// tokenize() of the snippets (web/lessons/tokenizer.py) give the same tokens for every assigned
// Unicode code point (each between two letters) and for mixed-script sentences, run in real Python.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tokenize } from '../../web/compute/explorer-run.js';

// The file the page bundles as text (Node cannot import a .py module: the test reads it).
const PY_TOKENS = readFileSync(new URL('../../web/lessons/tokenizer.py', import.meta.url), 'utf8');

const SENTENCES = [
  'नमस्ते दुनिया',
  "didn't won't rock'n'roll 'quoted'",
  'café cafe\u0301 naïve e\u0301t\u00e9',
  'wo\uFEFFrd zero\u200Bwidth',
  '東京タワー、こんにちは。',
  'مرحبا بالعالم',
  'Ｆｕｌｌｗｉｄｔｈ １２３',
  '🙂 👍🏽 ❤️ 👨‍👩‍👧',
  'x_1 = a+b*c; // done!',
  '١٢٣ ½ Ⅻ ²',
  'tab\there\nnewline\r\nend',
  'Ελληνικά Русский 한국어',
  '\u0000\u0007control\u0085chars',
];

test('the page and the Python snippet tokenize every code point and sentence alike', { timeout: 300000 }, () => {
  const texts = [...SENTENCES];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const c = String.fromCodePoint(cp);
    if (/\p{Cn}/u.test(c) || /\p{Co}/u.test(c)) continue; // unassigned or private use
    texts.push('x' + c + 'y');
  }
  const python =
    PY_TOKENS +
    '\n' +
    [
      'import json, sys, unicodedata',
      'texts = json.load(sys.stdin)',
      // a code point unassigned in this Python's Unicode version cannot be compared: reported, not tokenized
      'out = [None if any(unicodedata.category(c) == "Cn" for c in t) else tokenize(t) for t in texts]',
      'json.dump({"unicode": unicodedata.unidata_version, "tokens": out}, sys.stdout)',
    ].join('\n');
  let py;
  try {
    py = JSON.parse(
      execFileSync('/usr/bin/python3', ['-c', python], { input: JSON.stringify(texts), maxBuffer: 1 << 28 }),
    );
  } catch (e) {
    assert.fail('/usr/bin/python3 is needed (scripts/test installs it): ' + e.message);
  }
  const diffs = [];
  let compared = 0;
  texts.forEach((t, i) => {
    if (py.tokens[i] === null) return;
    compared++;
    const js = tokenize(t);
    if (JSON.stringify(js) !== JSON.stringify(py.tokens[i]))
      diffs.push(`${JSON.stringify(t)}: page ${JSON.stringify(js)}, Python ${JSON.stringify(py.tokens[i])}`);
  });
  assert.ok(compared > 140000, `compared ${compared} texts (Python's Unicode ${py.unicode})`);
  assert.deepEqual(diffs.slice(0, 20), [], `${diffs.length} texts tokenize differently`);
  // the examples
  assert.deepEqual([...tokenize('नमस्ते दुनिया')], ['नमस्ते', 'दुनिया']);
  assert.deepEqual([...tokenize('cafe\u0301')], ['caf\u00e9']);
  assert.deepEqual([...tokenize('wo\uFEFFrd')], ['wo', 'rd']);
});
