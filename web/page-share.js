// MHA Explorer — sharing: the URL kept in step with the state, share links, one embed snippet per host,
// copying to the clipboard, and the height an embedding page needs.
import state from './state.js';
import { $ } from './page-dom.js';
import { FILES, INLINE } from './core-source.js';
import { hostTheme, hostScript } from './embed-host.js';

const S = state;
const root = window;

// history.replaceState is slow in Chromium (and rate-limited): called only when the query changed.
var lastURL = null;
export function updateURL(st) {
  var q = S.toQuery(st);
  var url = root.location.pathname + (q ? '?' + q : '') + root.location.hash;
  if (url === lastURL) return;
  lastURL = url;
  try { root.history.replaceState(null, '', url); } catch (e) { /* sandboxed frames */ }
}
// The address of this document without its query (over http), or, from file:// (a path nobody else can open),
// file: the page's or the lab's file name.
function here(file) { return root.location.protocol === 'file:' ? file : root.location.href.split(/[?#]/)[0]; }

// A share link: query (a query string) on this page.
export function shareLink(query, file) {
  var q = new URLSearchParams(query);
  q.delete('embed');
  return here(file) + (q.toString() ? '?' + q.toString() : '');
}
export function shareURL(st) { return shareLink(S.toQuery(st), FILES.page); }

// One snippet per host, each an iframe of the focused embed with the script above (without it the iframe keeps
// its first height and follows the reader's system theme). host: 'myst' (Jupyter Book, Sphinx + myst-parser),
// 'notebook' (Jupyter), 'html' (any page), 'element' (<mha-explorer>, not offered by the one-file pages).
// o: {query (the view's query string), file (this page's file name), title, height (a first height in px)}.
var EMBED_HOSTS = ['myst', 'notebook', 'html', 'element'];
var EMBED_HOST_NAMES = { myst: 'MyST / Jupyter Book', notebook: 'Jupyter notebook', html: 'HTML page', element: 'HTML page (custom element)' };
// The "Embed in" picker: every host, but the custom element, which needs mha-explorer-element.js next to the page
// (a one-file page has no such file); HTML page first chosen.
export function fillEmbedHosts(select) {
  EMBED_HOSTS.filter(function (h) { return !(INLINE && h === 'element'); })
    .forEach(function (h) { select.appendChild(new Option(EMBED_HOST_NAMES[h], h, h === 'html', h === 'html')); });
}
export function embedSnippet(host, o) {
  host = EMBED_HOSTS.indexOf(host) >= 0 ? host : 'html';
  var web = root.location.protocol !== 'file:';
  var src = (web ? here(o.file) : 'https://YOUR-SITE/mha-explorer/' + o.file);
  var q = new URLSearchParams(o.query); q.delete('embed'); q.delete('theme');
  var esc = function (v) { return v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;'); };
  if (host === 'element') {
    var attrs = [];
    q.forEach(function (v, k) { attrs.push(k + '="' + esc(v) + '"'); });
    return '<script src="' + src.replace(/[^/]*$/, '') + 'mha-explorer-element.js"></script>\n<mha-explorer ' + attrs.join(' ') + '></mha-explorer>\n';
  }
  q.set('embed', '1');
  var html = '<iframe src="' + esc(src + '?' + q.toString()) + '" data-mha-explorer width="100%" height="' + o.height + '" style="border:0;width:100%" ' +
    'title="' + esc(o.title) + '"></iframe>\n<script>(' + String(hostScript).replace(/\s*\n\s*/g, ' ') + ')(' + String(hostTheme).replace(/\s*\n\s*/g, ' ') + ');</script>\n';
  if (host === 'myst') return '```{raw} html\n' + html + '```\n';
  if (host === 'notebook') return 'from IPython.display import HTML\nHTML(\'\'\'' + html + '\'\'\')\n';
  return html;
}
// The page's snippet for its current view, its first height from the heads it shows.
export function embedCode(st, host) {
  var heads = document.querySelector('[data-section="heads"]');
  return embedSnippet(host, { query: S.toQuery(st), file: FILES.page, title: 'MHA Explorer: multi-head attention',
    height: Math.max(320, Math.ceil((heads ? heads.getBoundingClientRect().height : 600) + 90)) });
}
export function copyText(text, btn) {
  var out = $('share-out');
  out.value = text;
  var done = function (ok) {
    if (!btn) return;
    var old = btn.getAttribute('data-label') || btn.textContent;
    btn.setAttribute('data-label', old);
    btn.textContent = ok ? 'Copied ✓' : 'Select and copy below';
    setTimeout(function () { btn.textContent = old; }, 1500);
  };
  var fallback = function () {
    try { out.hidden = false; out.focus(); out.select(); done(document.execCommand('copy')); } catch (e) { done(false); }
  };
  if (navigator.clipboard && root.isSecureContext) {
    navigator.clipboard.writeText(text).then(function () { done(true); }, fallback);
  } else fallback();
}

// The embedding page learns our height (iframe auto-size); origin-agnostic, the payload is a number.
export function postHeight() {
  if (root.parent === root) return;
  var h = Math.ceil(document.body.getBoundingClientRect().height);
  try { root.parent.postMessage({ type: 'mha-explorer:height', height: h }, '*'); } catch (e) { /* ignore */ }
}
