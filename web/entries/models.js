// MHA Explorer — the model page's entry (dist/models.html → dist/models.js, a classic script bundled by web/build.mjs,
// so the page also works from file://): the model page (web/models/) filling <body>, its API as window.mhaExplorer.
import { createModelPage } from '../models/page.js';
import { pageQuery } from '../chrome/frame.js';

const bootNote = document.getElementById('boot-note');
if (bootNote) bootNote.remove(); // the script runs (the note says when it never does)
window.mhaExplorer = createModelPage(document.body, { query: pageQuery() }).api;
