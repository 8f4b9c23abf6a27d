// MHA Explorer — sharing: the URL kept in step with the state, share links, one embed snippet per host,
// copying to the clipboard, and the height an embedding page needs.
import state from './state.js';
import { $ } from './page-dom.js';
import { FILES } from './core-source.js';

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
function pageBase() {
  var href = root.location.href.split(/[?#]/)[0];
  return href.replace(/[^/]*$/, '');
}
export function shareURL(st, embed) {
  var q = new URLSearchParams(S.toQuery(st));
  if (embed) { q.set('embed', '1'); } else { q.delete('embed'); }
  var base = root.location.protocol === 'file:' ? FILES.page : root.location.href.split(/[?#]/)[0];
  return base + (q.toString() ? '?' + q.toString() : '');
}
// One snippet per host, each an iframe of the focused embed that takes the height the page posts
// (a few lines of script; without it the iframe keeps its first height). host: 'myst' (Jupyter Book,
// Sphinx + myst-parser), 'notebook' (Jupyter), 'html' (any page), 'element' (<mha-explorer>).
var EMBED_HOSTS = ['myst', 'notebook', 'html', 'element'];
export function embedCode(st, host) {
  host = EMBED_HOSTS.indexOf(host) >= 0 ? host : 'html';
  var web = root.location.protocol !== 'file:';
  var base = web ? pageBase() : 'https://YOUR-SITE/mha-explorer/';
  var q = new URLSearchParams(S.toQuery(st)); q.delete('embed'); q.set('embed', '1');
  var src = base + FILES.page + '?' + q.toString();
  var esc = function (v) { return v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;'); };
  if (host === 'element') {
    var attrs = [];
    new URLSearchParams(S.toQuery(st)).forEach(function (v, k) { if (k !== 'embed') attrs.push(k + '="' + esc(v) + '"'); });
    return '<script src="' + base + 'mha-explorer-element.js"></script>\n<mha-explorer ' + attrs.join(' ') + '></mha-explorer>\n';
  }
  var heads = document.querySelector('[data-section="heads"]');
  var h = Math.max(320, Math.ceil((heads ? heads.getBoundingClientRect().height : 600) + 90));
  var html = '<iframe src="' + esc(src) + '" data-mha-explorer width="100%" height="' + h + '" style="border:0;width:100%" ' +
    'title="MHA Explorer: multi-head attention"></iframe>\n' +
    '<script>addEventListener("message", function (e) { var d = e.data; if (!d || d.type !== "mha-explorer:height") return; ' +
    'document.querySelectorAll("iframe[data-mha-explorer]").forEach(function (f) { ' +
    'if (f.contentWindow === e.source) f.style.height = Math.min(20000, Math.ceil(d.height)) + "px"; }); });</script>\n';
  if (host === 'myst') return '```{raw} html\n' + html + '```\n';
  if (host === 'notebook') return 'from IPython.display import HTML\nHTML(\'\'\'' + html + '\'\'\')\n';
  return html;
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
