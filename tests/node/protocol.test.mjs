// Every fact written once: the core publishes its mask modes, optimizers, patch kinds and training tasks through protocol()
// (wasm/bindings.cpp), state/scales.js the colour scales; each copy elsewhere is checked against them here, and a
// failure names the file to change (DEVELOPERS.md's recipes say which files a new mode, optimizer, task or scale touches).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { SCALES, SCALE_NAMES } from '../../web/state/scales.js';
import { LAB_PROPS, OPTIMIZER_NAMES, PACES, paceOf, labProps } from '../../web/state/lab.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (path) => readFileSync(join(repo, path), 'utf8');
// The string literals of `type name = 'a' | 'b'` in a declaration file.
function literals(path, name) {
  const m = read(path).match(new RegExp('type ' + name + ' = ([^;]+);'));
  assert.ok(m, `${path} declares type ${name}`);
  return [...m[1].matchAll(/'([^']*)'/g)].map((x) => x[1]);
}
const sorted = (a) => [...a].sort();
// The backticked names in the row of a Markdown table whose first cell is `first` and whose second starts with
// `begins` (docs/page.md's `scale` row; its lab's `preset` row, the one whose values begin with train-).
function docRow(path, first, begins = '') {
  const row = read(path)
    .split('\n')
    .find((line) => line.startsWith('| `' + first + '` | ' + begins));
  assert.ok(row, `${path} has a row for ${first}`);
  return [...row.split('|')[2].matchAll(/`([^`]*)`/g)].map((x) => x[1]);
}
// The backticked names in the first cells of a Markdown table in a section of a doc (docs/training.md's tasks).
function docFirstCells(path, heading) {
  const section = read(path)
    .split(/^## /m)
    .find((s) => s.startsWith(heading + '\n'));
  assert.ok(section, `${path} has a section ${heading}`);
  return [...section.matchAll(/^\| `([^`|]+)` \|/gm)].map((x) => x[1]);
}

const core = {}; // Emscripten's module object: protocol() is the binding's own
const M = await createRequire(import.meta.url)(join(repo, 'dist', 'mha.js'))(core);
const protocol = core.protocol();

test("mask modes: the core's protocol() names them; the types and api.js's message follow", () => {
  assert.deepEqual(
    sorted(literals('types/index.d.ts', 'MaskMode')),
    sorted(protocol.maskModes),
    "types/index.d.ts: MaskMode must list every mask mode of wasm/bindings.cpp's kMaskModes",
  );
  assert.equal(
    protocol.maskModeMeanings.length,
    protocol.maskModes.length,
    'wasm/bindings.cpp: every mask mode says what its values mean',
  );
  const g = new M.Generator(0),
    x = g.randn([1, 2, 4]);
  assert.throws(
    () => M.scaledDotProductAttention(x, x, x, { maskMode: 'nope' }),
    (err) => {
      protocol.maskModes.forEach((m, i) =>
        assert.ok(err.message.includes(`'${m}' (${protocol.maskModeMeanings[i]})`), `${err.message} names ${m}`),
      );
      return true;
    },
  );
  g.delete();
  const docs = read('docs/js-api.md')
    .split('\n')
    .find((line) => line.includes('maskMode:'));
  for (const m of protocol.maskModes)
    assert.ok(docs && docs.includes(`'${m}'`), `docs/js-api.md: the maskMode row must name '${m}'`);
});

test('mask modes: the JS reference test and the PyTorch fixtures cover every mode', () => {
  const masks = read('tests/node/masks.test.mjs'),
    listed = masks.match(/^const MASK_MODES = (\[[^\]]*\]);/m);
  assert.ok(listed, 'tests/node/masks.test.mjs has MASK_MODES');
  assert.deepEqual(
    sorted(JSON.parse(listed[1].replace(/'/g, '"'))),
    sorted(protocol.maskModes),
    'tests/node/masks.test.mjs: MASK_MODES must list every mask mode, and makeMask and scoreFor give each its mask and rule',
  );
  const fixtures = read('tests/torch/make_fixtures.py').match(/^MODES = (\[[^\]]*\])/m);
  assert.ok(fixtures, 'tests/torch/make_fixtures.py has MODES');
  for (const m of protocol.maskModes) {
    assert.ok(
      JSON.parse(fixtures[1]).includes(m),
      `tests/torch/make_fixtures.py: MODES, mha_forward and error_bounds need mask mode '${m}' (PyTorch's rule)`,
    );
  }
});

test("optimizers: the core's protocol() names them; the API, the types and the lab's property list follow", () => {
  assert.deepEqual([...M.optimizers], protocol.optimizers);
  for (const kind of protocol.optimizers)
    assert.equal(typeof M[kind], 'function', `M.${kind} (wasm/api/training.js) is a class`);
  assert.deepEqual(
    sorted(literals('types/index.d.ts', 'OptimizerName')),
    sorted([...protocol.optimizers, ...protocol.optimizers.map((k) => k.toLowerCase())]),
    'types/index.d.ts: OptimizerName lists every optimizer of the core, in both spellings',
  );
  const lab = LAB_PROPS.find((p) => p.name === 'optimizer');
  assert.deepEqual(
    lab.values,
    protocol.optimizers.map((k) => k.toLowerCase()),
    "web/state/lab.js: the optimizer property's values",
  );
  assert.deepEqual(Object.values(OPTIMIZER_NAMES), protocol.optimizers, 'web/state/lab.js: OPTIMIZER_NAMES');
});

test("patch kinds: the core's protocol() names them; the API and the types follow", () => {
  assert.deepEqual([...M.patchKinds], protocol.patchKinds, 'wasm/api/index.js: M.patchKinds');
  assert.deepEqual(
    sorted(literals('types/index.d.ts', 'PatchKind')),
    sorted(protocol.patchKinds),
    'types/index.d.ts: PatchKind lists every kind of core/include/mha/analysis.hpp (kPatchKinds)',
  );
  const analysis = read('wasm/api/analysis.js');
  for (const kind of protocol.patchKinds)
    assert.ok(
      !analysis.replace(/\/\*.*?\*\//g, '').includes(`'${kind}'`),
      `wasm/api/analysis.js writes '${kind}' again: take it from PATCH_KINDS`,
    );
});

test("thumbnail pools: the core's protocol() names them; the API and the types follow", () => {
  assert.deepEqual([...M.pools], protocol.pools, 'wasm/api/index.js: M.pools');
  assert.deepEqual(
    sorted(literals('types/index.d.ts', 'Pool')),
    sorted(protocol.pools),
    'types/index.d.ts: Pool lists every pool of core/include/mha/models.hpp (kPools)',
  );
  const models = read('wasm/api/models.js').replace(/\/\/.*$/gm, '');
  for (const pool of protocol.pools)
    assert.ok(!models.includes(`'${pool}'`), `wasm/api/models.js writes '${pool}' again: take it from POOLS`);
});

test("tasks: the core's task table; the types and the lab's property list follow", () => {
  assert.deepEqual(
    protocol.tasks.map((t) => t.name),
    M.tasks,
  );
  assert.deepEqual(
    sorted(literals('types/index.d.ts', 'Task')),
    sorted(M.tasks),
    'types/index.d.ts: Task lists every task of core/src/training/tasks.cpp',
  );
  assert.deepEqual(
    labProps(M.taskTable).find((p) => p.name === 'task').values,
    M.tasks,
    'web/state/lab.js: labProps takes the task names',
  );
  assert.deepEqual(
    docFirstCells('docs/training.md', 'The tasks'),
    M.tasks,
    "docs/training.md: the task table has one row per task of core/src/training/tasks.cpp, in the table's order",
  );
  assert.deepEqual(
    sorted(docRow('docs/page.md', 'preset', '`train-')),
    sorted(M.tasks.map((t) => 'train-' + t)),
    "docs/page.md: the lab's preset row lists train-<task> for every task",
  );
  for (const t of M.taskTable) assert.equal(typeof t.byContent, 'boolean', `${t.name}: byContent`);
  assert.deepEqual(
    M.taskTable.filter((t) => t.byContent).map((t) => t.name),
    ['induction', 'next-larger'],
    'the tasks whose heads attend by content',
  );
  assert.deepEqual(
    LAB_PROPS.find((p) => p.name === 'task').values,
    [],
    'LAB_PROPS itself knows no task (no module-level table)',
  );
});

test("colour scales: web/state/scales.js; the view's types and the Python package's PNG follow", () => {
  assert.deepEqual(
    sorted(literals('types/view.d.mts', 'ScaleName')),
    sorted(SCALE_NAMES),
    'types/view.d.mts: ScaleName must list every scale of web/state/scales.js',
  );
  for (const s of SCALES)
    assert.ok(s.anchors.length >= 2 && s.anchors.every((c) => /^#[0-9a-f]{6}$/.test(c)), `${s.name}: anchors`);
  assert.doesNotMatch(
    read('python/mha_explorer/_png.py'),
    /#[0-9a-f]{6}/i,
    'python/mha_explorer/_png.py: read the colours from static/scales.json (web/build.mjs writes it), not a copy',
  );
  assert.deepEqual(
    sorted(docRow('docs/page.md', 'scale')),
    sorted(SCALE_NAMES),
    "docs/page.md: the scale row's values are the scales of web/state/scales.js",
  );
  const view = read('docs/attention-view.md');
  for (const name of SCALE_NAMES)
    assert.ok(view.includes(`'${name}'`), `docs/attention-view.md: the view's scale option names '${name}'`);
});

test("the lab's paces: a few steps per second, then steps per frame; the default one a student can follow", () => {
  const speed = LAB_PROPS.find((p) => p.name === 'speed');
  assert.deepEqual(speed.values, PACES);
  assert.ok(
    PACES.filter((v) => paceOf(v).perSecond && paceOf(v).perSecond <= 5).length >= 2,
    'slow paces: a few steps per second',
  );
  assert.ok(
    paceOf(speed.def).perSecond && paceOf(speed.def).perSecond <= 20,
    `the default pace ${speed.def} shows the roles forming over seconds`,
  );
  for (const old of [1, 2, 5, 10, 25])
    assert.ok(PACES.includes(old), `links with speed=${old} (steps per frame) still work`);
});

test('the message to upload the whole dist/ folder is written once (web/compute/source.js)', () => {
  const hits = ['web/explorer/forwards.js', 'web/compute/trainer.js', 'web/compute/source.js'].filter((f) =>
    /Upload the whole dist/.test(read(f)),
  );
  assert.deepEqual(hits, ['web/compute/source.js']);
});
