// A page in a frame (an embed, or the <mha-explorer> element): the query it was opened with, its links to the other
// page, and the height the embedding page needs.

// The query the page was opened with: its URL's, or the one <mha-explorer> put in <meta name="mha-explorer-query"> when
// it rendered the page from its source (srcdoc: a CDN serves .html as text/plain), which has no address of its own.
export function pageQuery() {
  const meta = document.querySelector('meta[name="mha-explorer-query"]');
  return meta ? '?' + meta.getAttribute('content') : window.location.search;
}

// In such a srcdoc page a link to index.html or lab.html would open the CDN's text/plain copy: the element shows that
// page instead (it takes the link's query as its attributes).
export function followPageLinksInElement() {
  if (window.location.protocol !== 'about:' || window.parent === window) return;
  document.addEventListener('click', (e) => {
    const a = e.target.closest ? e.target.closest('a[href]') : null;
    const m = a && /^(?:index|lab)\.html(?:\?(.*))?$/.exec(a.getAttribute('href'));
    if (!m) return;
    e.preventDefault();
    window.parent.postMessage({ type: 'mha-explorer:open', query: m[1] || '' }, '*');
  });
}

// The embedding page learns our height (iframe auto-size); origin-agnostic, the payload is a number.
export function postHeight() {
  if (window.parent === window) return;
  const height = Math.ceil(document.body.getBoundingClientRect().height);
  try { window.parent.postMessage({ type: 'mha-explorer:height', height }, '*'); } catch (e) { /* a closed or foreign parent */ }
}
// In a frame: the height posted whenever the page's body changes size.
export function followHeight() {
  if (window.parent !== window && typeof ResizeObserver === 'function') new ResizeObserver(postHeight).observe(document.body);
}
