// MHA Explorer — the one-file pages' entry (dist/mha-explorer.html, mha-explorer-lab.html: web/build.mjs inlines it
// with both stylesheets and the core builds): the page (createExplorer) and the training lab (createLab) in one
// document, filling <body> in turn with their ids unprefixed. A link between them ("Train heads ↗", "Random heads ↗")
// names this very file (compute/source.js's FILES: its own name, whatever a course platform calls it), so it switches
// in the document: no request, no other file that may not be there. The query says which one shows
// (preset=train-… is the lab); without a query, the one the file was written for (MHA_INLINE.start).
import { createExplorer } from '../explorer/explorer.js';
import { createLab } from '../lab/controller.js';
import { INPUT_ID } from '../explorer/input.js';
import { pageQuery, followPageLinksInElement, followHeight } from '../chrome/frame.js';
import { dropPendingQuery } from '../chrome/share.js';
import { guardNewWindows } from '../chrome/sandbox.js';
import { FILES, START } from '../compute/source.js';

const TITLES = { page: document.title, lab: 'MHA Explorer — training lab: watch attention heads learn their roles' };
const inputBlock = document.getElementById(INPUT_ID);
const input = inputBlock ? inputBlock.textContent : null; // the lab replaces <body>: read once
// <html>'s and <body>'s attributes as the file has them: each view leaves its theme and classes, the next starts clean.
const attributesOf = (n) => Array.from(n.attributes).map((a) => [a.name, a.value]);
const pristine = [
  [document.documentElement, attributesOf(document.documentElement)],
  [document.body, attributesOf(document.body)],
];
function restoreAttributes() {
  for (const [node, attrs] of pristine) {
    for (const a of Array.from(node.attributes)) node.removeAttribute(a.name);
    // and the caches widgets/dom.js keeps on them (setAttr's last value of an attribute, themeColors' colours)
    for (const key of Object.keys(node)) if (key[0] === '_') delete node[key];
    for (const [name, value] of attrs) node.setAttribute(name, value);
  }
}

// The view a query shows: the lab for preset=train-…, else the page; an empty query, the file's own (START).
const viewOf = (query, empty = START) =>
  !query.replace(/^\?/, '') ? empty : /^train-/.test(new URLSearchParams(query).get('preset') || '') ? 'lab' : 'page';

let shown = null; // {view, dispose}
function show(query, view = viewOf(query)) {
  if (shown) {
    shown.dispose();
    dropPendingQuery();
    restoreAttributes();
    document.body.textContent = '';
  }
  const mounted =
    view === 'lab'
      ? createLab(document.body, { query, ownsPage: true, idPrefix: '' })
      : createExplorer(document.body, { query, idPrefix: '', ownsDocument: true, input });
  // the model page is no part of this file (it has its own one-file twin): no link to a models.html beside it
  for (const a of document.querySelectorAll('a.models-link')) a.remove();
  shown = { view, dispose: mounted.dispose };
  document.title = TITLES[view];
  window.mhaExplorer = mounted.api;
}

// A link to this file, opened in place (no target, no modifier key): the other view, its query in the address.
// A notebook output that carries one view only (<meta name="mha-explorer-alone">, python/mha_explorer) keeps its hint.
function followOwnLinks() {
  if (document.querySelector('meta[name="mha-explorer-alone"]')) return;
  document.addEventListener(
    'click',
    (e) => {
      const a = e.target.closest ? e.target.closest('a[href]') : null;
      if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || a.target)
        return;
      const m = /^([^?#]*)(\?[^#]*)?$/.exec(a.getAttribute('href'));
      if (!m || (m[1] !== FILES.page && m[1] !== FILES.lab)) return;
      e.preventDefault();
      const query = m[2] || '';
      if (viewOf(query, 'page') === shown.view) return; // a link to the view shown
      try {
        window.history.pushState(null, '', window.location.pathname + query);
      } catch (err) {
        /* srcdoc, sandboxed frames */
      }
      show(query, viewOf(query, 'page'));
      window.scrollTo(0, 0);
    },
    true,
  ); // before chrome/frame.js's handler of srcdoc pages
  window.addEventListener('popstate', () => {
    if (viewOf(window.location.search) !== shown.view) show(window.location.search);
  });
}

followPageLinksInElement();
followOwnLinks();
guardNewWindows(); // "Open full page ↗" in a frame that forbids pop-ups says so
show(pageQuery());
followHeight();
