// The shape of the code: every function in web/ stays short (scripts/function-lengths.mjs measures them with
// TypeScript's parser), no benchmark script (bench/) and no module of the JS API (the JS files in wasm/'s api folder,
// whichever are there) is longer than 400 lines, and the files that opt in with // @ts-check type-check (tsconfig.json:
// tsc --noEmit, its JSDoc types; a failure names the file and line).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { fileLengths, functionLengths } from '../../scripts/function-lengths.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAX_LINES = 80;
const MAX_FILE_LINES = 400;

test(`no function in web/ is longer than ${MAX_LINES} lines`, () => {
  const long = functionLengths(join(repo, 'web')).filter((f) => f.lines > MAX_LINES);
  assert.deepEqual(
    long.map((f) => `${relative(repo, resolve(f.file))}:${f.line} ${f.name} (${f.lines} lines)`),
    [],
    'web/: split these into functions by concern (a component: one state object and one part per file, as web/views/attention*.js)',
  );
});

test(`no benchmark script and no JS API module is longer than ${MAX_FILE_LINES} lines`, () => {
  const bench = fileLengths(join(repo, 'bench'));
  assert.ok(
    bench.some((f) => /run\.js$/.test(f.file)),
    'bench/js/run.js is among the scripts measured',
  );
  const api = fileLengths(join(repo, 'wasm', 'api'), /\.m?js$/);
  const long = [...bench, ...api].filter((f) => f.lines > MAX_FILE_LINES);
  assert.deepEqual(
    long.map((f) => `${relative(repo, resolve(f.file))} (${f.lines} lines)`),
    [],
    'split these by concern, shared helpers beside them (bench/js/lib/, as run.js and models.js are)',
  );
});

test('the // @ts-check files type-check (tsc -p tsconfig.json)', () => {
  const tsc = spawnSync(
    process.execPath,
    [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(repo, 'tsconfig.json')],
    { cwd: repo, encoding: 'utf8' },
  );
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
});
