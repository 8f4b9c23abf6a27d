// A colour theme: data-theme="light|dark" on the element whose styles follow it (an explorer's root; a page that has
// no component root, its <html>), which the stylesheets and the widgets read.
import { setAttr } from '../widgets/dom.js';

// Whether the reader's system asks for dark colours.
export function systemDark() {
  return !!(window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches);
}
// theme: 'auto' (the reader's system setting), 'light' or 'dark'.
export function applyTheme(theme, target = document.documentElement) {
  const dark = theme === 'dark' || (theme === 'auto' && systemDark());
  setAttr(target, 'data-theme', dark ? 'dark' : 'light');
}
// What the theme button switches to: the other of the two shown now.
export const otherTheme = (target = document.documentElement) =>
  target.getAttribute('data-theme') === 'dark' ? 'light' : 'dark';
