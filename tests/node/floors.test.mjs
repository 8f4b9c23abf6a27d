// The core's floors: every C++ file of core/ and wasm/ belongs to one room, each room stands on one floor, and a file
// includes only its own room and the floors below it (read from the #include lines, as docs/core.md's floors say).
// A failure names the file and the line. FLOORS is the one table; docs/core.md's floors table shows it (checked).
// No build needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

// Lowest first. `headers`: the public headers of core/include/mha/ in the room; `folder`: its sources. Rooms on one
// floor do not include each other (the lessons and the blocks, the training and the models: two towers on the
// ground and the loading floor).
const FLOORS = [
  { floor: 0, room: 'kernels', folder: 'core/src/kernels', headers: ['kernels.hpp'] },
  {
    floor: 1,
    room: 'ground',
    folder: 'core/src/ground',
    headers: ['error.hpp', 'random.hpp', 'tensor.hpp', 'trace.hpp'],
  },
  {
    floor: 2,
    room: 'loading',
    folder: 'core/src/loading',
    headers: ['checkpoint.hpp', 'safetensors.hpp', 'weights.hpp'],
  },
  { floor: 3, room: 'lessons', folder: 'core/src/lessons', headers: ['attention.hpp', 'module.hpp', 'teaching.hpp'] },
  { floor: 3, room: 'blocks', folder: 'core/src/blocks', headers: [] },
  { floor: 4, room: 'training', folder: 'core/src/training', headers: ['train.hpp'] },
  { floor: 4, room: 'models', folder: 'core/src/models', headers: ['models.hpp'] },
  { floor: 5, room: 'analysis', folder: 'core/src/analysis', headers: ['analysis.hpp'] },
  { floor: 6, room: 'all', folder: null, headers: ['mha.hpp'] },
  { floor: 7, room: 'bindings', folder: 'wasm', headers: [] },
];
const SOURCE = /\.(cpp|hpp|h|cc)$/;
const PUBLIC = 'core/include/mha';
// Where a quoted include is looked for after the including file's own folder (mha_core's include directories).
const SEARCH = ['core/include', 'core/src'];

function filesUnder(dir) {
  const abs = join(repo, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs).flatMap((name) => {
    const path = `${dir}/${name}`;
    return statSync(join(repo, path)).isDirectory() ? filesUnder(path) : SOURCE.test(name) ? [path] : [];
  });
}

// The room of a file (repo-relative path), or undefined.
function roomOf(path) {
  if (path.startsWith(`${PUBLIC}/`)) return FLOORS.find((r) => r.headers.includes(path.slice(PUBLIC.length + 1)));
  return FLOORS.find((r) => r.folder && path.startsWith(`${r.folder}/`));
}

// The #include lines of a file's text outside comments: [{line, name, quoted}].
function includesIn(text) {
  const found = [];
  let inComment = false;
  text.split('\n').forEach((line, i) => {
    let code = line;
    if (inComment) {
      const end = code.indexOf('*/');
      if (end < 0) return;
      code = code.slice(end + 2);
      inComment = false;
    }
    const m = /^\s*#\s*include\s*([<"])([^>"]+)[>"]/.exec(code);
    if (m) found.push({ line: i + 1, name: m[2], quoted: m[1] === '"' });
    const open = code.replace(/\/\/.*$/, '').lastIndexOf('/*');
    if (open >= 0 && code.indexOf('*/', open) < 0) inComment = true;
  });
  return found;
}
const includesOf = (path) => includesIn(readFileSync(join(repo, path), 'utf8'));

// The repo-relative file an include names, or null; undefined for a library outside the core (<vector>, xtensor).
function resolveInclude(from, { name, quoted }) {
  if (!quoted && !name.startsWith('mha/')) return undefined;
  const dirs = quoted ? [dirname(from), ...SEARCH] : SEARCH;
  const hit = dirs.map((d) => `${d}/${name}`).find((p) => existsSync(join(repo, p)));
  return hit ? relative(repo, join(repo, hit)) : null;
}

// What is wrong with `file`'s include of `name` (line `line`) that resolved to `target`, or null.
function includeProblem(file, line, name, target) {
  const where = `${file}:${line}: #include "${name}"`;
  if (target === null) return `${where} names no file (its folder, ${SEARCH.join(', ')})`;
  const room = roomOf(file),
    to = roomOf(target);
  if (!to) return `${where} names ${target}, in no room`;
  if (to === room || to.floor < room.floor) return null;
  const way = to.floor === room.floor ? 'sideways' : 'up a floor';
  return `${where} runs ${way}: ${room.room} (floor ${room.floor}) → ${to.room} (floor ${to.floor})`;
}

function violations() {
  const out = [];
  for (const file of ['core', 'wasm'].flatMap(filesUnder)) {
    if (!roomOf(file)) {
      out.push(`${file}: in no room (FLOORS in tests/node/floors.test.mjs, docs/core.md's floors)`);
      continue;
    }
    for (const inc of includesOf(file)) {
      const target = resolveInclude(file, inc);
      const problem = target === undefined ? null : includeProblem(file, inc.line, inc.name, target);
      if (problem) out.push(problem);
    }
  }
  return out;
}

test('the rule: its own room and the floors below; up a floor, sideways and no file are named with file:line', () => {
  const problem = (file, name, target) => includeProblem(file, 7, name, target);
  assert.equal(problem('core/src/models/gpt2.cpp', 'models/network.hpp', 'core/src/models/network.hpp'), null);
  assert.equal(problem('core/src/blocks/rope.cpp', 'mha/weights.hpp', 'core/include/mha/weights.hpp'), null);
  assert.equal(problem('wasm/bindings.cpp', 'mha/mha.hpp', 'core/include/mha/mha.hpp'), null);
  assert.equal(
    problem('core/src/ground/tensor.cpp', 'mha/train.hpp', 'core/include/mha/train.hpp'),
    'core/src/ground/tensor.cpp:7: #include "mha/train.hpp" runs up a floor: ground (floor 1) → training (floor 4)',
  );
  assert.match(
    problem('core/src/blocks/blocks.hpp', 'mha/attention.hpp', 'core/include/mha/attention.hpp'),
    /^core\/src\/blocks\/blocks\.hpp:7: .* runs sideways: blocks \(floor 3\) → lessons \(floor 3\)$/,
  );
  assert.match(
    problem('core/src/models/model.cpp', 'nothing.hpp', null),
    /^core\/src\/models\/model\.cpp:7: .* names no file/,
  );
  const text =
    '#include "a.hpp"\n//   #include "b.hpp"\nint x; /* #include "c.hpp"\n#include "d.hpp" */\n  #  include <mha/e.hpp>\n';
  assert.deepEqual(
    includesIn(text).map((i) => `${i.line} ${i.name}`),
    ['1 a.hpp', '5 mha/e.hpp'],
    'includes in comments are not read',
  );
});

test('no #include in core/ or wasm/ runs up a floor (or sideways into another room of its floor)', () => {
  assert.deepEqual(violations(), [], 'move the code down a floor, or the include up (docs/core.md: the floors)');
});

test('every public header and every folder of core/src/ is in one room: core/src/ has no loose file', () => {
  const headers = readdirSync(join(repo, PUBLIC)).filter((n) => SOURCE.test(n));
  const homeless = headers.filter((h) => FLOORS.filter((r) => r.headers.includes(h)).length !== 1);
  assert.deepEqual(homeless, [], `${PUBLIC}/: each header in exactly one room of FLOORS`);
  const src = readdirSync(join(repo, 'core/src')).map((n) => `core/src/${n}`);
  assert.deepEqual(
    src.filter((p) => !FLOORS.some((r) => r.folder === p)),
    [],
    'core/src/: every file in a room folder, every folder a room of FLOORS',
  );
  const missing = FLOORS.filter((r) => r.folder && !existsSync(join(repo, r.folder))).map((r) => r.folder);
  assert.deepEqual(missing, [], 'FLOORS names folders that do not exist');
});

// docs/core.md's "## The floors" table: | floor | room | headers | sources | what |.
function docsTable() {
  const doc = readFileSync(join(repo, 'docs/core.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## The floors'));
  const rows = section.split('\n').filter((l) => /^\|\s*\d+\s*\|/.test(l));
  return rows.map((row) => {
    const [floor, room, headers, sources] = row
      .split('|')
      .slice(1)
      .map((c) => c.trim());
    const ticked = (cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    return {
      floor: Number(floor),
      room: ticked(room)[0] ?? room,
      folder: ticked(sources)[0]?.replace(/\/$/, '') ?? null,
      headers: ticked(headers).sort(),
    };
  });
}

test("docs/core.md's floors table is FLOORS (floor, room, headers, folder, in order)", () => {
  const want = FLOORS.map(({ floor, room, folder, headers }) => ({
    floor,
    room,
    folder,
    headers: [...headers].sort(),
  }));
  assert.deepEqual(docsTable(), want, 'docs/core.md: the floors table must show tests/node/floors.test.mjs FLOORS');
});
