// MHA Explorer — small DOM setters for the page's views: each writes only when the value changes, so a
// redraw invalidates no style or layout it does not have to.
export const $ = function (id) { return document.getElementById(id); };
// The query the page was opened with: its URL's, or the one <mha-explorer> put in <meta name="mha-explorer-query"> when
// it rendered the page from its source (srcdoc: a CDN serves .html as text/plain), which has no address of its own.
export function pageQuery() {
  var meta = document.querySelector('meta[name="mha-explorer-query"]');
  return meta ? '?' + meta.getAttribute('content') : window.location.search;
}
// In such a srcdoc page a link to the other page (index.html / lab.html, or the one-file pages' names) would open
// the CDN's text/plain copy, or nothing: the element shows that page instead (it takes the link's query as its
// attributes). A notebook output (python/mha_explorer/_explore.py) carries one page only and says so with
// <meta name="mha-explorer-alone" content="how to get the other page">: there the link shows that hint instead.
const OTHER_PAGE = /^(?:index|lab|mha-explorer|mha-explorer-lab)\.html(?:\?(.*))?$/;
export function followPageLinksInElement() {
  if (window.location.protocol !== 'about:' || window.parent === window) return;
  const alone = document.querySelector('meta[name="mha-explorer-alone"]');
  document.addEventListener('click', function (e) {
    const a = e.target.closest ? e.target.closest('a[href]') : null;
    const m = a && OTHER_PAGE.exec(a.getAttribute('href'));
    if (!m) return;
    e.preventDefault();
    if (!alone) {
      window.parent.postMessage({ type: 'mha-explorer:open', query: m[1] || '' }, '*');
    } else if (!(a.nextElementSibling && a.nextElementSibling.classList.contains('alone-hint'))) {
      const hint = document.createElement('span');
      hint.className = 'alone-hint';
      hint.setAttribute('role', 'status');
      hint.textContent = ' ' + alone.getAttribute('content');
      a.after(hint);
    }
  });
}
export function setText(e, t) { if (typeof e === 'string') e = $(e); if (e.textContent !== t) e.textContent = t; }
export function setProp(e, k, v) { if (e[k] !== v) e[k] = v; }
export function setOptions(sel, values) {
  var key = values.join(',');
  if (sel._key === key && sel.options.length === values.length) return;
  sel._key = key; sel.textContent = '';
  values.forEach(function (v) { sel.appendChild(new Option(String(v), String(v))); });
}
export function range(n) { var a = []; for (var i = 0; i < n; i++) a.push(i); return a; }

// A file dropped anywhere on the page goes to onFile(file); other drags (text into a field) are left alone.
export function wireFileDrop(onFile) {
  var hasFiles = function (e) { return !!e.dataTransfer && Array.prototype.indexOf.call(e.dataTransfer.types || [], 'Files') >= 0; };
  document.addEventListener('dragover', function (e) {
    if (!hasFiles(e)) return;
    e.preventDefault(); document.body.classList.add('dropping');
  });
  document.addEventListener('dragleave', function (e) { if (!e.relatedTarget) document.body.classList.remove('dropping'); });
  document.addEventListener('drop', function (e) {
    document.body.classList.remove('dropping');
    if (!e.dataTransfer || !e.dataTransfer.files.length) return;
    e.preventDefault();
    onFile(e.dataTransfer.files[0]);
  });
}

// The cell step an arrow key asks for in a heatmap (widgets/dom.js; the lab imports it from here).
export { arrowStep } from './widgets/dom.js';
