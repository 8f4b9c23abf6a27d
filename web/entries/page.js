// MHA Explorer — the hosted page's entry (web/build.mjs bundles it into dist/app.js, a classic script): one explorer
// that fills <body> with ids unprefixed (the page's anchors, links and tests name them), owns the document (its URL
// follows the state, it posts its height to a parent frame, a file dropped anywhere is loaded), and publishes its
// script API as window.mhaExplorer.
import { createExplorer } from '../explorer/explorer.js';
import { INPUT_ID } from '../explorer/input.js';
import { pageQuery, followPageLinksInElement, followHeight } from '../chrome/frame.js';
import { FILES } from '../compute/source.js';
import { guardNewWindows } from '../chrome/sandbox.js';

const query = pageQuery();
// The training lab has a page of its own: ?preset=train-… opens it with the same parameters (and the page does not boot).
if (/^train-/.test(new URLSearchParams(query).get('preset') || '')) {
  window.location.replace(FILES.lab + query);
} else {
  const bootNote = document.getElementById('boot-note');
  if (bootNote) bootNote.remove(); // the script runs (the note says when it never does; not in a one-file page)
  followPageLinksInElement();
  guardNewWindows(); // "Open full page ↗" in a frame that forbids pop-ups says so
  const input = document.getElementById(INPUT_ID);
  const explorer = createExplorer(document.body, {
    query,
    idPrefix: '',
    ownsDocument: true,
    input: input ? input.textContent : null,
  });
  followHeight();
  window.mhaExplorer = explorer.api;
}
