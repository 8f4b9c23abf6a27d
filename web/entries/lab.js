// MHA Explorer — the lab page's entry (dist/lab.html → dist/lab.js, a classic script bundled by web/build.mjs, so the
// page also works from file://): the lab component (web/lab/) filling <body>, owning the page (its URL, file drops
// anywhere, its height in a frame, the theme on <html>), with the ids the tests and links know (no prefix), and its API
// as window.mhaExplorer.
import { createLab } from '../lab/controller.js';
import { pageQuery, followPageLinksInElement, followHeight } from '../chrome/frame.js';
import { guardNewWindows } from '../chrome/sandbox.js';

const bootNote = document.getElementById('boot-note');
if (bootNote) bootNote.remove(); // the script runs (the note says when it never does; not in a one-file page)
followPageLinksInElement();
guardNewWindows();
const lab = createLab(document.body, { query: pageQuery(), ownsPage: true, idPrefix: '' });
followHeight();
window.mhaExplorer = lab.api;
