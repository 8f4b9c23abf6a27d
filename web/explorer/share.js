// MHA Explorer — an explorer's share panel: the page's URL kept in step with the state (the hosted page only), its
// share link and its embed snippet (chrome/share.js makes them).
import { pageQueryString } from '../state/page.js';
import { FILES } from '../core-source.js';
import { replaceQuery, shareLink, embedSnippet } from '../chrome/share.js';

export const updateURL = (st) => replaceQuery(pageQueryString(st));
export const shareURL = (st) => shareLink(pageQueryString(st), FILES.page);
// The snippet for the explorer's current view (heads: its heads section), its first height from the heads it shows.
export function embedCode(st, host, heads) {
  return embedSnippet(host, { query: pageQueryString(st), file: FILES.page, title: 'MHA Explorer: multi-head attention',
    height: Math.max(320, Math.ceil((heads ? heads.getBoundingClientRect().height : 600) + 90)) });
}
