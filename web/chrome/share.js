// Sharing a page's view: the address kept in step with its state, share links, and one embed snippet per host.
import { INLINE } from '../compute/source.js';
import { hostTheme, hostScript } from './embed-host.js';

// history.replaceState is slow in Chromium (1–5 ms with 512 words in the query, and rate-limited) and blocks the
// page: the address is written once a burst of changes settles (URL_SETTLE_MS after the last one), at once when the
// page is hidden or left, and only when the query changed.
const URL_SETTLE_MS = 300;
let lastURL = null,
  pendingURL = null,
  urlTimer = null,
  flushOnLeave = false;
function writeQuery() {
  clearTimeout(urlTimer);
  urlTimer = null;
  const u = pendingURL;
  pendingURL = null;
  if (u === null || u === lastURL) return;
  lastURL = u;
  try {
    window.history.replaceState(null, '', u);
  } catch (e) {
    /* sandboxed frames, srcdoc pages */
  }
}
export function replaceQuery(query) {
  pendingURL = window.location.pathname + (query ? '?' + query : '') + window.location.hash;
  if (!flushOnLeave) {
    flushOnLeave = true;
    window.addEventListener('pagehide', writeQuery);
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'hidden') writeQuery();
    });
  }
  clearTimeout(urlTimer);
  urlTimer = setTimeout(writeQuery, URL_SETTLE_MS);
}
// Forgets an address not written yet (a view that gave way to another in the same document: web/entries/course.js).
export function dropPendingQuery() {
  clearTimeout(urlTimer);
  urlTimer = null;
  pendingURL = null;
  lastURL = null;
}
// The address of this document without its query (over http), or, from file:// (a path nobody else can open),
// file: the page's or the lab's file name.
const here = (file) => (window.location.protocol === 'file:' ? file : window.location.href.split(/[?#]/)[0]);

// A share link: query (a query string) on this page.
export function shareLink(query, file) {
  const q = new URLSearchParams(query);
  q.delete('embed');
  return here(file) + (q.toString() ? '?' + q.toString() : '');
}

// One snippet per host, each an iframe of the focused embed with the script above (without it the iframe keeps
// its first height and follows the reader's system theme). host: 'myst' (Jupyter Book, Sphinx + myst-parser),
// 'notebook' (Jupyter), 'html' (any page), 'element' (<mha-explorer>, not offered by the one-file pages).
// o: {query (the view's query string), file (this page's file name), src (the page's address, when the explorer is
// mounted in another page), title, height (a first height in px)}.
const EMBED_HOSTS = ['myst', 'notebook', 'html', 'element'];
const EMBED_HOST_NAMES = {
  myst: 'MyST / Jupyter Book',
  notebook: 'Jupyter notebook',
  html: 'HTML page',
  element: 'HTML page (custom element)',
};
// The "Embed in" picker: every host, but the custom element, which needs mha-explorer-element.js next to the page
// (a one-file page has no such file); HTML page first chosen.
export function fillEmbedHosts(select) {
  for (const h of EMBED_HOSTS) {
    if (!(INLINE && h === 'element'))
      select.appendChild(new Option(EMBED_HOST_NAMES[h], h, h === 'html', h === 'html'));
  }
}
export function embedSnippet(host, o) {
  host = EMBED_HOSTS.includes(host) ? host : 'html';
  const src =
    o.src && !/^file:/.test(o.src)
      ? o.src
      : window.location.protocol !== 'file:'
        ? here(o.file)
        : 'https://YOUR-SITE/mha-explorer/' + o.file;
  const q = new URLSearchParams(o.query);
  q.delete('embed');
  q.delete('theme');
  const esc = (v) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  if (host === 'element') {
    const attrs = [];
    q.forEach((v, k) => attrs.push(k + '="' + esc(v) + '"'));
    return (
      '<script src="' +
      src.replace(/[^/]*$/, '') +
      'mha-explorer-element.js"></script>\n<mha-explorer ' +
      attrs.join(' ') +
      '></mha-explorer>\n'
    );
  }
  q.set('embed', '1');
  const html =
    '<iframe src="' +
    esc(src + '?' + q.toString()) +
    '" data-mha-explorer width="100%" height="' +
    o.height +
    '" style="border:0;width:100%" ' +
    'title="' +
    esc(o.title) +
    '"></iframe>\n<script>(' +
    String(hostScript).replace(/\s*\n\s*/g, ' ') +
    ')(' +
    String(hostTheme).replace(/\s*\n\s*/g, ' ') +
    ');</script>\n';
  if (host === 'myst') return '```{raw} html\n' + html + '```\n';
  if (host === 'notebook') return "from IPython.display import HTML\nHTML('''" + html + "''')\n";
  return html;
}
