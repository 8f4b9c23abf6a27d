// The colour theme: data-theme="light|dark" on a scope (the document's <html> unless told otherwise; the lab
// component's root), which the stylesheets and the widgets read.
import { setAttr } from '../widgets/dom.js';

let darkQuery = null;
// theme: 'auto' (the reader's system setting), 'light' or 'dark'.
export function applyTheme(theme, scope = document.documentElement) {
  if (theme === 'auto' && !darkQuery && window.matchMedia) darkQuery = window.matchMedia('(prefers-color-scheme: dark)');
  const dark = theme === 'dark' || (theme === 'auto' && !!darkQuery && darkQuery.matches);
  setAttr(scope, 'data-theme', dark ? 'dark' : 'light');
}
// What the theme button switches to: the other of the two shown now.
export const otherTheme = (scope = document.documentElement) => (scope.getAttribute('data-theme') === 'dark' ? 'light' : 'dark');
