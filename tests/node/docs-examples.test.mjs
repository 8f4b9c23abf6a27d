// The docs' JS examples run as written: docs/js-api.md's prints the lessons' numbers, docs/training.md's trains heads
// into their roles and prints a PyTorch script that gives PyTorch's same curve.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DRAWS_PATH, torchEnv } from './fixtures/reference.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const jsBlocks = (file) =>
  [...readFileSync(join(root, file), 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

test("docs/js-api.md's example prints lesson 002's numbers", () => {
  const [block] = jsBlocks('docs/js-api.md');
  assert.ok(block, 'docs/js-api.md has a ```js example');
  const dir = mkdtempSync(join(tmpdir(), 'mha-docs-'));
  symlinkSync(join(root, 'dist'), join(dir, 'dist'));
  writeFileSync(join(dir, 'example.js'), block);
  const out = execFileSync(process.execPath, ['example.js'], { cwd: dir, encoding: 'utf8' });
  assert.match(out, /Output shape: \[ 2, 5, 32 \] weights: \[ 2, 4, 5, 5 \]/);
  assert.match(out, /Total parameters: 4,224/);
  assert.match(out, /q0 = x0 @ W: 0\.0465 0\.4481 0\.3035 1\.1985 1\.6100 -0\.9023 -2\.0339 -1\.0991/);
  assert.match(out, /transpose\s+\[2,4,5,8\] \(not contiguous\)/);
  assert.match(out, /mean abs diff: \d\.\d{4}/);
  assert.match(out, /Final output: \[ 2, 4, 8 \]/);
  // Each printed row of weights sums to 1.
  const rows = out.split('\n').filter((l) => /^  -?\d\.\d{4}( -?\d\.\d{4}){3}$/.test(l));
  assert.equal(rows.length, 4);
  for (const r of rows)
    assert.ok(
      Math.abs(
        r
          .trim()
          .split(' ')
          .map(Number)
          .reduce((a, b) => a + b) - 1,
      ) < 2e-4,
    );
});

test("docs/training.md's example runs, its heads specialize, and the script it prints gives PyTorch's same curve", () => {
  const block = jsBlocks('docs/training.md').find((b) => b.includes('TinyAttentionModel'));
  assert.ok(block, 'docs/training.md has a training example');
  const dir = mkdtempSync(join(tmpdir(), 'mha-docs-'));
  symlinkSync(join(root, 'dist'), join(dir, 'dist'));
  writeFileSync(join(dir, 'train.js'), block);
  const out = execFileSync(process.execPath, ['train.js'], { cwd: dir, encoding: 'utf8' });
  const ours = out.match(/^step \d+ loss \S+ accuracy \S+$/gm);
  assert.deepEqual(
    ours.map((l) => l.split(' ')[1]),
    ['50', '100', '150'],
  );
  assert.match(ours[2], /accuracy 1\.0000$/);
  assert.match(out, /layer 0 head \d: 1 token back 0\.9\d/);
  assert.match(out, /layer 0 head \d: 2 tokens back 0\.9\d/);
  // The printed script, pasted into Python as it is, prints the same lines at those steps.
  const script = out.slice(out.indexOf('# MHA Explorer'));
  writeFileSync(join(dir, 'train.py'), script);
  const py = execFileSync('/usr/bin/python3', ['train.py'], { cwd: dir, encoding: 'utf8', env: torchEnv(DRAWS_PATH) });
  const theirs = py.trim().split('\n');
  assert.equal(theirs.length, 150);
  // Both print 4 decimals of float32 results past matrix products: one unit apart at most where a value
  // sits on a rounding boundary; accuracy within the training test's 4 tokens (of 13 × 32 counted).
  const numbers = (line) =>
    line
      .split(' ')
      .filter((_, i) => i % 2 === 1)
      .map(Number);
  for (const line of ours) {
    const [step, loss, accuracy] = numbers(line);
    const [theirStep, theirLoss, theirAccuracy] = numbers(theirs[step - 1]);
    const message = `PyTorch printed ${theirs[step - 1]}, the page ${line}`;
    assert.equal(theirStep, step, message);
    assert.ok(Math.abs(loss - theirLoss) <= 1e-4 + 1e-9, message);
    assert.ok(Math.abs(accuracy - theirAccuracy) <= 4 / (13 * 32) + 5e-5, message);
  }
});
