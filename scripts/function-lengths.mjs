// The longest functions of web/'s JavaScript, measured with TypeScript's parser (a dev dependency): every function,
// method, arrow function and class body counted in lines from its first to its last line (nested ones counted on
// their own as well). Usage: node scripts/function-lengths.mjs [folder=web] [--over N] [--top K]
// Prints "lines  file:line  name", longest first; exits 1 when --over N is given and a function is longer than N.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createRequire } from 'node:module';

const ts = createRequire(import.meta.url)('typescript');

function* jsFiles(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* jsFiles(path);
    else if (/\.m?js$/.test(name)) yield path;
  }
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
  const dir = args.find((a, i) => !a.startsWith('--') && !(i && args[i - 1].startsWith('--'))) || 'web';
  const over = flag('--over', Infinity),
    top = flag('--top', 15);
  const all = functionLengths(dir);
  for (const f of all.slice(0, top))
    console.log(String(f.lines).padStart(5) + '  ' + f.file + ':' + f.line + '  ' + f.name);
  const long = all.filter((f) => f.lines > over);
  if (long.length) {
    console.error(long.length + ' function(s) longer than ' + over + ' lines');
    process.exit(1);
  }
}
