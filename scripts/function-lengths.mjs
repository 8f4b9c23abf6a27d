// The longest functions of web/'s JavaScript, measured with TypeScript's parser (a dev dependency): every function,
// method, arrow function and class body counted in lines from its first to its last line (nested ones counted on
// their own as well). Usage: node scripts/function-lengths.mjs [folder=web] [--over N] [--top K] [--files]
// Prints "lines  file:line  name", longest first; exits 1 when --over N is given and a function is longer than N.
// --files: the longest source files instead (fileLengths: every script of the folder, node_modules left out).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createRequire } from 'node:module';

const ts = createRequire(import.meta.url)('typescript');

// The files under dir whose names match `pattern` (node_modules left out; nothing when dir does not exist).
function* sourceFiles(dir, pattern = /\.m?js$/) {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'node_modules') yield* sourceFiles(path, pattern);
    } else if (pattern.test(name)) yield path;
  }
}
const jsFiles = (dir) => sourceFiles(dir);

// The scripts and sources under dir (JS, Python, shell, C++), node_modules left out: [{lines, file}], longest first.
export const SCRIPTS = /\.(m?js|cjs|py|sh|cpp|hpp)$/;
export function fileLengths(dir, pattern = SCRIPTS) {
  return [...sourceFiles(dir, pattern)]
    .map((file) => ({
      lines: readFileSync(file, 'utf8').replace(/\n$/, '').split('\n').length,
      file: relative(process.cwd(), file),
    }))
    .sort((a, b) => b.lines - a.lines);
}

// [{lines, file, line, name}] of every function in the JS files under dir.
export function functionLengths(dir) {
  const out = [];
  for (const file of jsFiles(dir)) {
    const source = ts.createSourceFile(
      file,
      readFileSync(file, 'utf8'),
      ts.ScriptTarget.Latest,
      true,
      ts.ScriptKind.JS,
    );
    const lineOf = (pos) => source.getLineAndCharacterOfPosition(pos).line + 1;
    const visit = (node) => {
      if (ts.isFunctionLike(node) && node.body) {
        const start = lineOf(node.getStart(source)),
          end = lineOf(node.end);
        const name = node.name
          ? node.name.getText(source)
          : node.parent && ts.isVariableDeclaration(node.parent)
            ? node.parent.name.getText(source)
            : node.parent && ts.isPropertyAssignment(node.parent)
              ? node.parent.name.getText(source)
              : '(anonymous)';
        out.push({ lines: end - start + 1, file: relative(process.cwd(), file), line: start, name });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out.sort((a, b) => b.lines - a.lines);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2),
    flag = (f, d) => (args.includes(f) ? Number(args[args.indexOf(f) + 1]) : d);
  const dir = args.find((a, i) => !a.startsWith('--') && !['--over', '--top'].includes(args[i - 1])) || 'web';
  const over = flag('--over', Infinity),
    top = flag('--top', 15);
  const files = args.includes('--files');
  const all = files ? fileLengths(dir) : functionLengths(dir);
  for (const f of all.slice(0, top))
    console.log(String(f.lines).padStart(5) + '  ' + f.file + (files ? '' : ':' + f.line + '  ' + f.name));
  const long = all.filter((f) => f.lines > over);
  if (long.length) {
    console.error(long.length + (files ? ' file(s)' : ' function(s)') + ' longer than ' + over + ' lines');
    process.exit(1);
  }
}
