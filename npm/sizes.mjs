#!/usr/bin/env node
// The sizes the docs state, measured: the npm package (`npm pack --dry-run --json`: size and unpackedSize, in MB of
// 10^6 bytes as npm prints them) and the one-file page (dist/mha-explorer.html). In README.md and docs/*.md a size is
// written between markers, and only there:
//   <!-- size:npm -->2.0 MB packed, 5.8 MB unpacked<!-- /size:npm -->    <!-- size:one-file -->1.1 MB<!-- /size:one-file -->
//   node npm/sizes.mjs          checks every marked size against the measurement (exit 1 if one is off)
//   node npm/sizes.mjs --write  writes the measurement into every marker
// tests/npm/package.test.mjs checks the docs with the tarball it packs (checkDocs).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MB = (bytes) => (bytes / 1e6).toFixed(1) + ' MB';
const MARKED = /<!-- size:([\w-]+) -->(.*?)<!-- \/size:\1 -->/g;
// A size written outside the markers (a hand-written line the build would not keep true).
const UNMARKED = /\d+(\.\d+)? ?MB (packed|unpacked)/;

// The texts the markers hold, from a pack report ({size, unpackedSize}) and dist/.
export function sizeTexts(pack) {
  const oneFile = join(root, 'dist', 'mha-explorer.html');
  return {
    npm: `${MB(pack.size)} packed, ${MB(pack.unpackedSize)} unpacked`,
    'one-file': existsSync(oneFile) ? MB(statSync(oneFile).size) : null,
  };
}
export function docFiles() {
  const docs = join(root, 'docs');
  return [
    join(root, 'README.md'),
    ...(existsSync(docs)
      ? readdirSync(docs)
          .filter((f) => f.endsWith('.md'))
          .map((f) => join(docs, f))
      : []),
  ];
}
// Every disagreement of the docs with texts: ["file: size:npm says …, measured …", "file: a size outside the markers: …"].
export function checkDocs(texts, files = docFiles()) {
  const wrong = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(MARKED)) {
      if (!(m[1] in texts)) wrong.push(`${file}: unknown size marker size:${m[1]}`);
      else if (texts[m[1]] !== null && m[2] !== texts[m[1]])
        wrong.push(`${file}: size:${m[1]} says "${m[2]}", measured "${texts[m[1]]}"`);
    }
    const outside = UNMARKED.exec(text.replace(MARKED, ''));
    if (outside)
      wrong.push(`${file}: a size outside the markers: "${outside[0]}" (write it as <!-- size:… -->…<!-- /size:… -->)`);
  }
  return wrong;
}
function writeDocs(texts) {
  for (const file of docFiles()) {
    const text = readFileSync(file, 'utf8');
    const next = text.replace(MARKED, (all, name) =>
      texts[name] ? `<!-- size:${name} -->${texts[name]}<!-- /size:${name} -->` : all,
    );
    if (next !== text) {
      writeFileSync(file, next);
      console.log(`npm/sizes.mjs: wrote ${file}`);
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const pack = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--loglevel=error'], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    }),
  )[0];
  const texts = sizeTexts(pack);
  console.log(`npm/sizes.mjs: npm package ${texts.npm}; one-file page ${texts['one-file']}`);
  if (process.argv.includes('--write')) writeDocs(texts);
  const wrong = checkDocs(texts);
  for (const w of wrong) console.error(w);
  process.exit(wrong.length ? 1 : 0);
}
