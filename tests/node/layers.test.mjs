// web/'s folders import only what is below them (web/README.md's files, DEVELOPERS.md's layout): the attention view
// (web/views/) is mounted alone (dist/mha-explorer-view.js, the notebook package) and stands on widgets/ and state/
// only, never on what a page has around its views (chrome/: document.body, the frame, the URL); widgets/ draw and
// know no page; state/ and lessons/ hold data and import no drawing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');
// folder → the folders its modules may import from (its own included)
const MAY_IMPORT = {
  views: ['views', 'widgets', 'state'],
  widgets: ['widgets', 'state', 'lessons'],
  state: ['state', 'lessons'],
  lessons: ['lessons', 'state', 'compute'],
};

// The web/ folders a module imports from (relative imports: './x.js' is its own folder).
function importedFolders(folder, file) {
  const src = readFileSync(join(WEB, folder, file), 'utf8');
  return [...src.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'(\.\.?\/[^']+)'/gm)].map((m) =>
    m[1].startsWith('./') ? folder : m[1].split('/')[1],
  );
}

for (const [folder, allowed] of Object.entries(MAY_IMPORT))
  test(`web/${folder}/ imports only from ${allowed.join(', ')}`, () => {
    const files = readdirSync(join(WEB, folder)).filter((f) => f.endsWith('.js'));
    assert.ok(files.length > 0);
    for (const f of files)
      for (const from of importedFolders(folder, f))
        assert.ok(allowed.includes(from), `web/${folder}/${f} imports from web/${from}/, above its floor`);
  });
