// MHA Explorer — small DOM setters for the page's views: each writes only when the value changes, so a
// redraw invalidates no style or layout it does not have to.
export const $ = function (id) { return document.getElementById(id); };
// The query the page was opened with: its URL's, or the one <mha-explorer> put in <meta name="mha-explorer-query"> when
// it rendered the page from its source (srcdoc: a CDN serves .html as text/plain), which has no address of its own.
export function pageQuery() {
  var meta = document.querySelector('meta[name="mha-explorer-query"]');
  return meta ? '?' + meta.getAttribute('content') : window.location.search;
}
// In such a srcdoc page a link to index.html or lab.html would open the CDN's text/plain copy: the element shows that
// page instead (it takes the link's query as its attributes).
export function followPageLinksInElement() {
  if (window.location.protocol !== 'about:' || window.parent === window) return;
  document.addEventListener('click', function (e) {
    var a = e.target.closest ? e.target.closest('a[href]') : null;
    var m = a && /^(?:index|lab)\.html(?:\?(.*))?$/.exec(a.getAttribute('href'));
    if (!m) return;
    e.preventDefault();
    window.parent.postMessage({ type: 'mha-explorer:open', query: m[1] || '' }, '*');
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
