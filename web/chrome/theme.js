// The document's colour theme: <html data-theme="light|dark">, which the stylesheets and the widgets read.
import { setAttr } from '../widgets/dom.js';

let darkQuery = null;
// theme: 'auto' (the reader's system setting), 'light' or 'dark'.
export function applyTheme(theme) {
  if (theme === 'auto' && !darkQuery && window.matchMedia) darkQuery = window.matchMedia('(prefers-color-scheme: dark)');
  const dark = theme === 'dark' || (theme === 'auto' && !!darkQuery && darkQuery.matches);
  setAttr(document.documentElement, 'data-theme', dark ? 'dark' : 'light');
}
// What the theme button switches to: the other of the two shown now.
export const otherTheme = () => (document.documentElement.getAttribute('data-theme') === 'dark' ? 'light' : 'dark');
