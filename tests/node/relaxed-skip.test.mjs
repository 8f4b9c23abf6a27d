// A node without relaxed SIMD (Node 20 without --experimental-wasm-relaxed-simd) leaves dist/mha-relaxed.js out of
// the per-build tests: every file that does so says it with a skipped test (fixtures/reference.mjs's testedBuilds),
// never by running fewer tests in silence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { RELAXED_SKIP } from './fixtures/reference.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const FILES = readdirSync(HERE).filter((f) => f.endsWith('.test.mjs'));

test('every test file that runs its tests per build takes the builds from testedBuilds()', () => {
  for (const f of FILES) {
    const src = readFileSync(HERE + f, 'utf8');
    assert.doesNotMatch(
      src,
      /for\s*\(\s*const\s+\w+\s+of\s+BUILDS\b/,
      `tests/node/${f}: loop over testedBuilds() (fixtures/reference.mjs), not BUILDS, so that a node without ` +
        'relaxed SIMD reports the build it leaves out',
    );
  }
  assert.ok(
    FILES.filter((f) => /\btestedBuilds\(\)/.test(readFileSync(HERE + f, 'utf8'))).length >= 10,
    'the per-build files use testedBuilds()',
  );
});

test('a per-build file run without the relaxed flag reports the left-out build as one skipped test', () => {
  // trace.test.mjs: a per-build file that runs in half a second; node without the flag, as `node --test FILE` is
  const env = { ...process.env, NODE_OPTIONS: '' };
  delete env.NODE_TEST_CONTEXT; // (set by this runner: the child would report to it, not in TAP)
  const r = spawnSync(process.execPath, ['--test', '--test-reporter=tap', HERE + 'trace.test.mjs'], {
    encoding: 'utf8',
    env,
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const skipped = r.stdout.split('\n').filter((l) => /^ok \d+ - .*# SKIP/.test(l));
  assert.deepEqual(
    skipped.map((l) => l.replace(/^ok \d+ - /, '').replace(/ # SKIP.*$/, '')),
    [RELAXED_SKIP],
    'the one skipped test names dist/mha-relaxed.js and the flag',
  );
});
