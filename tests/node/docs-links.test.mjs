// The docs and the comments name files that exist, and the README stays short. Every relative link of every Markdown
// file resolves to a file (and its #anchor to a heading there); every repository path a Markdown file names in
// backticks, and every one a code comment names, exists. A path counts when its first folder is one of the repository's
// (at the root, or beside or above the file that names it: web/README.md says `state/props.js`, a comment in web/lab/
// says lab/views.js), so `a/b`, `text/plain` or a URL are not paths; build outputs (dist/, build/, …) are not checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

// Folders that hold no sources: built, installed or written by the tests.
const SKIP_DIRS = new Set([
  '.git',
  'node_modules',
  'dist',
  'bench/results',
  'tests/browser/artifacts',
  'python/mha_explorer/static',
]);
// Any node_modules (bench/js has its own once scripts/bench has run).
const skipped = (rel) =>
  SKIP_DIRS.has(rel) ||
  /^build[^/]*$/.test(rel) ||
  rel.endsWith('/node_modules') ||
  rel.endsWith('__pycache__') ||
  rel.endsWith('.egg-info');
// Paths that name build outputs or a user's files rather than the repository's.
const GENERATED =
  /^(dist|build[^/]*|node_modules|bench\/results|python\/mha_explorer\/static|tests\/browser\/artifacts|\.venv)(\/|$)/;

function walk(dir = '', out = []) {
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = dir ? dir + '/' + e.name : e.name;
    if (e.isDirectory()) {
      if (!skipped(rel)) walk(rel, out);
    } else out.push(rel);
  }
  return out;
}
const FILES = walk();
const MARKDOWN = FILES.filter((f) => f.endsWith('.md'));
const CODE = FILES.filter((f) =>
  /\.(c|m)?js$|\.(d\.)?m?ts$|\.(cpp|hpp|h|py)$|(^|\/)CMakeLists\.txt$|^scripts\/[^./]+$|^\.ci\//.test(f),
);

const isDir = (p) => existsSync(p) && statSync(p).isDirectory();
// The folders a file's relative names are read from: its own, then each one above it up to the root.
function bases(file) {
  const out = [];
  for (let d = posix.dirname(file); ; d = posix.dirname(d)) {
    out.push(d === '.' ? '' : d);
    if (d === '.' || d === '/') return out;
  }
}

// A name with a wildcard (`tests/native/test_*.cpp`, `dist/trainer-<build>.js`) exists when a file matches it.
function matches(base, path) {
  if (!/[*<]/.test(path)) return existsSync(join(root, base, path));
  const parts = path.replace(/\/$/, '').split('/');
  let dirs = [join(root, base)];
  for (const part of parts) {
    const re = new RegExp(
      '^' +
        part
          .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
          .replace(/\*/g, '[^/]*')
          .replace(/<[^>]*>/g, '[^/]+') +
        '$',
    );
    dirs = dirs.flatMap((d) =>
      isDir(d)
        ? readdirSync(d)
            .filter((n) => re.test(n))
            .map((n) => join(d, n))
        : [],
    );
  }
  return dirs.length > 0;
}

// The repository paths in a piece of text: tokens with a slash whose first folder exists beside or above `file`.
// Returns the ones that do not exist.
function missingPaths(text, file) {
  const missing = [];
  for (let token of text.split(/[\s,;()[\]{}'"`=|]+/)) {
    token = token
      .replace(/^\.\//, '')
      .replace(/(:\d+)+$/, '')
      .replace(/[.:!?…]+$/, '')
      .replace(/#.*$/, '');
    if (!token.includes('/') || /^[a-z+]+:/i.test(token) || token.startsWith('/') || token.startsWith('@')) continue;
    const first = token.split('/')[0];
    if (!first || first === '..' || !/^[\w.-]+$/.test(first)) continue;
    const candidates = bases(file).filter((b) => isDir(join(root, b, first)));
    if (!candidates.length) continue;
    if (candidates.some((b) => GENERATED.test(posix.join(b, token)))) continue;
    if (!/^[\w./<>*@+-]+$/.test(token)) continue;
    if (!candidates.some((b) => matches(b, token))) missing.push(token);
  }
  return missing;
}

// GitHub's anchor of a heading: lower case, no punctuation or symbols, spaces as hyphens; repeats get -1, -2, …
function anchors(markdown) {
  const seen = new Map(),
    out = new Set();
  for (const line of withoutCode(markdown).split('\n')) {
    const h = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (h) {
      const text = h[1].replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
      const slug = text
        .toLowerCase()
        .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
        .replace(/ /g, '-');
      const n = seen.get(slug) || 0;
      seen.set(slug, n + 1);
      out.add(n ? `${slug}-${n}` : slug);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]);
  }
  return out;
}
// The text outside fenced code blocks (their lines kept empty, so line numbers hold).
const withoutCode = (md) =>
  md.replace(/^(```+|~~~+)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, (block) => block.replace(/[^\n]/g, ''));

const lineOf = (text, index) => text.slice(0, index).split('\n').length;

test('every relative link in the Markdown files resolves to a file, and its #anchor to a heading there', () => {
  assert.ok(
    MARKDOWN.includes('README.md') && MARKDOWN.some((f) => f.startsWith('docs/')),
    'the README and docs/ are read',
  );
  const problems = [];
  for (const md of MARKDOWN) {
    const text = withoutCode(readFileSync(join(root, md), 'utf8')).replace(/`[^`\n]*`/g, (s) => ' '.repeat(s.length));
    const links = [
      ...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g),
      ...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm),
    ];
    for (const m of links) {
      const target = m[1];
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto:, data:
      const [path, anchor] = target.split('#');
      const file = path ? posix.normalize(posix.join(posix.dirname(md), decodeURIComponent(path))) : md;
      const where = `${md}:${lineOf(text, m.index)}: ${target}`;
      if (file.startsWith('..') || !existsSync(join(root, file))) {
        problems.push(`${where} (no file ${file})`);
        continue;
      }
      if (anchor && file.endsWith('.md') && !anchors(readFileSync(join(root, file), 'utf8')).has(anchor)) {
        problems.push(`${where} (no heading #${anchor} in ${file})`);
      }
    }
  }
  assert.deepEqual(problems, [], 'broken links:\n' + problems.join('\n'));
});

test('every repository path the Markdown files name in backticks exists', () => {
  const problems = [];
  for (const md of MARKDOWN) {
    const text = withoutCode(readFileSync(join(root, md), 'utf8'));
    for (const m of text.matchAll(/`([^`\n]+)`/g)) {
      for (const p of missingPaths(m[1], md)) problems.push(`${md}:${lineOf(text, m.index)}: ${p}`);
    }
  }
  assert.deepEqual(problems, [], 'paths that do not exist:\n' + problems.join('\n'));
});

// Comments: `//` and `/* */` (JS, C++), `#` (Python, shell, CMake) and Python's docstrings, read line by line. Text
// after `//` inside a string is read too; a URL or a string's words are not paths by the rule above.
function comments(file, text) {
  const out = [];
  const hash = /\.py$|CMakeLists\.txt$|^scripts\/|^\.ci\//.test(file);
  let inBlock = false,
    inDoc = false;
  text.split('\n').forEach((line, i) => {
    if (hash) {
      const quotes = (line.match(/"""/g) || []).length;
      if (inDoc || quotes) out.push([i + 1, line]);
      if (quotes % 2 === 1) inDoc = !inDoc;
      else if (!inDoc) {
        const at = line.indexOf('#');
        if (at >= 0) out.push([i + 1, line.slice(at + 1)]);
      }
      return;
    }
    let rest = line;
    if (inBlock) {
      const end = rest.indexOf('*/');
      out.push([i + 1, end < 0 ? rest : rest.slice(0, end)]);
      if (end < 0) return;
      inBlock = false;
      rest = rest.slice(end + 2);
    }
    const block = rest.indexOf('/*'),
      lineComment = rest.search(/(^|[^:])\/\//);
    if (lineComment >= 0 && (block < 0 || lineComment < block))
      out.push([i + 1, rest.slice(lineComment).replace(/^[^/]?\/\//, '')]);
    else if (block >= 0) {
      const end = rest.indexOf('*/', block + 2);
      out.push([i + 1, end < 0 ? rest.slice(block + 2) : rest.slice(block + 2, end)]);
      inBlock = end < 0;
    }
  });
  return out;
}

test('every repository path a code comment names exists', () => {
  const problems = [];
  for (const file of CODE) {
    for (const [line, text] of comments(file, readFileSync(join(root, file), 'utf8'))) {
      for (const p of missingPaths(text, file)) problems.push(`${file}:${line}: ${p}`);
    }
  }
  assert.ok(
    CODE.includes('wasm/api/index.js') &&
      CODE.includes('core/src/lessons/attention.cpp') &&
      CODE.includes('scripts/test'),
    'the code is read',
  );
  assert.deepEqual(problems, [], 'paths that do not exist:\n' + problems.join('\n'));
});

test('the checker finds what it must: a renamed file, a missing anchor; and passes over what is no path', () => {
  assert.deepEqual(missingPaths('see `web/compute/explorer-run.js` and tests/torch/make_fixtures.py', 'README.md'), []);
  assert.deepEqual(missingPaths('web/compute/modell.js, tests/torch/make_fixture.py', 'README.md'), [
    'web/compute/modell.js',
    'tests/torch/make_fixture.py',
  ]);
  assert.deepEqual(missingPaths('state/props.js and lab/chart.js', 'web/lab/controller.js'), []);
  assert.deepEqual(missingPaths('state/prop.js', 'web/README.md'), ['state/prop.js']);
  assert.deepEqual(missingPaths('tests/native/test_*.cpp, web/lessons/lesson*.js', 'DEVELOPERS.md'), []);
  assert.deepEqual(
    missingPaths(
      'input/output, text/plain, [B, H, S, S], https://example.org/web/x.js, 1/(1 − p), dist/app.js',
      'README.md',
    ),
    [],
  );
  assert.ok(
    anchors('# The page\n## Host it\n```\n# not a heading\n```\n## `mx.explore`, `mx.lab`\n## Host it').has(
      'host-it-1',
    ),
  );
  assert.ok(
    anchors('## The page and the lab in a cell: `mx.explore`, `mx.lab`').has(
      'the-page-and-the-lab-in-a-cell-mxexplore-mxlab',
    ),
  );
  assert.ok(!anchors('# Title\n```\n# not a heading\n```').has('not-a-heading'));
  assert.equal(relative(root, join(root, 'README.md')), 'README.md');
});

test('the README fits on three screens (about 150 lines), its picture first; the rest is in docs/', () => {
  const lines = readFileSync(join(root, 'README.md'), 'utf8').split('\n');
  assert.ok(lines.length <= 150, `README.md has ${lines.length} lines: move a topic to docs/ and link it`);
  const picture = lines.findIndex((line) => /^!\[[^\]]+\]\([^)]+\.png\)/.test(line));
  assert.ok(picture >= 0 && picture < 10, 'README.md shows its screenshot within its first ten lines');
});
