// MHA Explorer — an explorer's share panel: the page's URL kept in step with the state (the hosted page only), its
// share link and its embed snippet (chrome/share.js makes them).
import { pageQueryString } from '../state/page.js';
import { FILES } from '../compute/source.js';
import { replaceQuery, shareLink, embedSnippet } from '../chrome/share.js';

export const updateURL = (st) => replaceQuery(pageQueryString(st));
// base: for an explorer mounted in another page, the folder of the page's files (null: this page is the explorer).
const pageAddress = (base) => new URL(base + FILES.page, document.baseURI).href;
export function shareURL(st, base) {
  if (base === null || base === undefined) return shareLink(pageQueryString(st), FILES.page);
  const q = new URLSearchParams(pageQueryString(st));
  q.delete('embed');
  return pageAddress(base) + (q.toString() ? '?' + q.toString() : '');
}
// The snippet for the explorer's current view (heads: its heads section), its first height from the heads it shows.
export function embedCode(st, host, heads, base) {
  return embedSnippet(host, {
    query: pageQueryString(st),
    file: FILES.page,
    title: 'MHA Explorer: multi-head attention',
    src: base === null || base === undefined ? null : pageAddress(base),
    height: Math.max(320, Math.ceil((heads ? heads.getBoundingClientRect().height : 600) + 90)),
  });
}
