// Host pages of the three places an instructor embeds MHA Explorer, built from snippets the test
// passes in, so a browser test can open each in Chromium and measure the embed:
//   sphinx   — a Sphinx project (Debian's python3-sphinx + python3-myst-parser) with one MyST page;
//   notebook — a Jupyter notebook exported by jupyter-nbconvert --to html, its code cells' outputs
//              computed by IPython itself (the last expression's rich repr, display() calls, prints);
//   plain    — a plain HTML page.
// Everything runs offline with /usr/bin/python3. In every snippet `{DIST}` is replaced by the path
// from that host file's folder to dist/ (relative, so one snippet works at every depth); an http
// URL or an absolute file:// URL is passed through untouched.
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';

import { DIST } from './helpers.mjs';

const run = promisify(execFile);
const PYTHON = process.env.MHA_PYTHON || '/usr/bin/python3';
const NBCONVERT = process.env.MHA_NBCONVERT || '/usr/bin/jupyter-nbconvert';
// No kernel, no network, no user config: the same result on every machine.
const ENV = {
  ...process.env,
  PYTHONDONTWRITEBYTECODE: '1',
  JUPYTER_PLATFORM_DIRS: '1',
  PYDEVD_DISABLE_FILE_VALIDATION: '1',
};

const relDist = (file, distDir) => {
  const r = relative(dirname(file), distDir).split(sep).join('/');
  return r === '' ? '.' : r;
};
const fill = (text, file, distDir) => String(text).replaceAll('{DIST}', relDist(file, distDir));

// The Sphinx project: alabaster ships with Debian's sphinx (python3-alabaster) and needs no network.
const CONF_PY = `# Built by tests/browser/hosts.mjs
project = 'MHA Explorer host'
extensions = ['myst_parser']
source_suffix = {'.md': 'markdown'}
root_doc = 'index'
html_theme = 'alabaster'
html_static_path = []
exclude_patterns = ['_build']
`;

// Runs the cells in one IPython InteractiveShell (one namespace, as a kernel would) and writes an
// nbformat-4 notebook whose outputs are what IPython produces: stream for prints, display_data for
// display(...), execute_result for a last expression (DisplayFormatter: text/plain, text/html, ...).
const MAKE_NOTEBOOK_PY = String.raw`# Built by tests/browser/hosts.mjs
import ast, io, json, sys
from contextlib import redirect_stdout, redirect_stderr
from IPython.core.interactiveshell import InteractiveShell
from IPython.core.displaypub import DisplayPublisher

spec = json.load(sys.stdin)
shell = InteractiveShell.instance()
outputs = []

class Publisher(DisplayPublisher):
    def publish(self, data, metadata=None, source=None, *, transient=None, update=False):
        outputs.append({'output_type': 'display_data', 'data': data, 'metadata': metadata or {}})
    def clear_output(self, wait=False):
        outputs.clear()

shell.display_pub = Publisher(shell=shell)
ns = shell.user_ns
cells = []
for n, source in enumerate(spec['cells'], 1):
    outputs = []
    tree = ast.parse(source, '<cell %d>' % n)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        exec(compile(tree, '<cell %d>' % n, 'exec'), ns)
        value = eval(compile(ast.Expression(last.value), '<cell %d>' % n, 'eval'), ns) if last else None
    cell_outputs = []
    for name, text in (('stdout', out.getvalue()), ('stderr', err.getvalue())):
        if text:
            cell_outputs.append({'output_type': 'stream', 'name': name, 'text': text})
    cell_outputs += outputs
    if value is not None:
        data, md = shell.display_formatter.format(value)
        cell_outputs.append({'output_type': 'execute_result', 'execution_count': n, 'data': data, 'metadata': md})
    cells.append({'id': 'cell-%d' % n, 'cell_type': 'code', 'execution_count': n, 'metadata': {}, 'source': source, 'outputs': cell_outputs})

if spec.get('title'):
    cells.insert(0, {'id': 'title', 'cell_type': 'markdown', 'metadata': {}, 'source': '# ' + spec['title']})
nb = {'nbformat': 4, 'nbformat_minor': 5, 'cells': cells,
      'metadata': {'kernelspec': {'name': 'python3', 'display_name': 'Python 3', 'language': 'python'},
                   'language_info': {'name': 'python'}}}
import nbformat
nbformat.validate(nbformat.from_dict(nb))
with open(spec['path'], 'w', encoding='utf-8') as f:
    json.dump(nb, f, indent=1)
`;

// The default (lab) template without its two CDN scripts (require.js, MathJax): offline they only
// fail, and the page looks the same without them. Everything else (CSS, the output markup) is lab's.
const OFFLINE_TEMPLATE = `{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
`;

async function timed(fn) {
  const t0 = performance.now();
  const r = await fn();
  return { ...r, ms: Math.round(performance.now() - t0) };
}

async function buildSphinx(dir, myst, { distDir, title }) {
  const out = join(dir, '_build', 'html');
  const file = join(out, 'index.html');
  writeFileSync(join(dir, 'conf.py'), CONF_PY);
  const body = fill(myst, file, distDir);
  writeFileSync(join(dir, 'index.md'), /^\s*# /.test(body) ? body : `# ${title}\n\n${body}\n`);
  const { stderr } = await run(PYTHON, ['-m', 'sphinx', '-b', 'html', '-q', '-E', '-n', dir, out], {
    env: ENV,
    timeout: 120000,
  });
  return { file, warnings: stderr.split('\n').filter(Boolean) };
}

async function buildNotebook(dir, notebookCells, { distDir, title }) {
  const file = join(dir, 'notebook.html');
  const ipynb = join(dir, 'notebook.ipynb');
  const script = join(dir, 'make_notebook.py');
  writeFileSync(script, MAKE_NOTEBOOK_PY);
  writeFileSync(join(dir, 'offline.html.j2'), OFFLINE_TEMPLATE);
  const cells = notebookCells.map((c) => fill(c, file, distDir));
  await new Promise((ok, fail) => {
    const child = execFile(PYTHON, [script], { env: ENV, cwd: dir, timeout: 60000 }, (err, _out, stderr) =>
      err ? fail(new Error(`make_notebook.py failed: ${stderr || err.message}`)) : ok(),
    );
    child.stdin.end(JSON.stringify({ path: ipynb, cells, title }));
  });
  const { stderr } = await run(
    NBCONVERT,
    [
      '--to',
      'html',
      '--template-file',
      join(dir, 'offline.html.j2'),
      '--output-dir',
      dir,
      '--output',
      'notebook',
      ipynb,
    ],
    { env: ENV, cwd: dir, timeout: 120000 },
  );
  return { file, warnings: stderr.split('\n').filter((l) => l && !/\[NbConvertApp\] (Converting|Writing)/.test(l)) };
}

async function buildPlain(dir, html, { distDir, title }) {
  const file = join(dir, 'index.html');
  writeFileSync(
    file,
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">' +
      `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head>\n<body>\n` +
      `<h1>${title}</h1>\n${fill(html, file, distDir)}\n</body></html>\n`,
  );
  return { file, warnings: [] };
}

// Builds the hosts given (any of myst, notebookCells, html) into outDir (emptied first) and returns
// { sphinx, notebook, plain } (the HTML files, or null for a host not asked for), plus per host
// { ms, warnings } in `builds`. The three builds run in parallel.
export async function buildHosts({ outDir, myst, notebookCells, html, distDir = DIST, title = 'MHA Explorer host' }) {
  outDir = resolve(outDir);
  distDir = resolve(distDir);
  rmSync(outDir, { recursive: true, force: true });
  const jobs = {};
  const opts = { distDir, title };
  const dir = (name) => {
    const d = join(outDir, name);
    mkdirSync(d, { recursive: true });
    return d;
  };
  if (myst != null) jobs.sphinx = timed(() => buildSphinx(dir('sphinx'), myst, opts));
  if (notebookCells != null) jobs.notebook = timed(() => buildNotebook(dir('notebook'), notebookCells, opts));
  if (html != null) jobs.plain = timed(() => buildPlain(dir('plain'), html, opts));
  const names = Object.keys(jobs);
  const done = await Promise.all(names.map((n) => jobs[n]));
  const result = { sphinx: null, notebook: null, plain: null, builds: {} };
  names.forEach((n, i) => {
    result[n] = done[i].file;
    result.builds[n] = { ms: done[i].ms, warnings: done[i].warnings };
  });
  return result;
}
