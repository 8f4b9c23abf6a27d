// A page in a frame (an embed, or the <mha-explorer> element): the query it was opened with, its links to the other
// page, and the height the embedding page needs.

// The query the page was opened with: its URL's, or the one <mha-explorer> put in <meta name="mha-explorer-query"> when
// it rendered the page from its source (srcdoc: a CDN serves .html as text/plain), which has no address of its own.
export function pageQuery() {
  const meta = document.querySelector('meta[name="mha-explorer-query"]');
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
  document.addEventListener('click', (e) => {
    const a = e.target.closest ? e.target.closest('a[href]') : null;
    const m = a && !e.defaultPrevented && OTHER_PAGE.exec(a.getAttribute('href')); // (a one-file page switched itself)
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

// The embedding page learns our height (iframe auto-size); origin-agnostic, the payload is a number.
export function postHeight() {
  if (window.parent === window) return;
  const height = Math.ceil(document.body.getBoundingClientRect().height);
  try {
    window.parent.postMessage({ type: 'mha-explorer:height', height }, '*');
  } catch (e) {
    /* a closed or foreign parent */
  }
}
// In a frame: the height posted whenever the page's body changes size.
export function followHeight() {
  if (window.parent !== window && typeof ResizeObserver === 'function')
    new ResizeObserver(postHeight).observe(document.body);
}

// A component mounted in a host page: a click on one of its links to page (the other page's address: base + file)
// calls onFollow(query) instead of leaving the host (whose element then shows that page), until signal aborts.
export function followLinksTo(root, page, onFollow, signal) {
  root.addEventListener(
    'click',
    (e) => {
      const a = e.target.closest ? e.target.closest('a[href]') : null,
        href = a ? a.getAttribute('href') : '';
      if (!a || href.indexOf(page) !== 0) return;
      e.preventDefault();
      onFollow(href.slice(page.length).replace(/^\?/, ''));
    },
    { signal },
  );
}
