// A component mounted inside someone else's page is one region of it, not the page: its markup's <header> and <main>
// (the landmarks of its own page) become plain <div>s, and its root a region named by label, so that two explorers in
// one document do not give it two main landmarks. → undo(), which takes the root's attributes back (dispose).
export const withoutLandmarks = (html) => html.replace(/<(\/?)(?:main|header)\b/g, '<$1div');
export function asRegion(root, label) {
  root.setAttribute('role', 'region');
  root.setAttribute('aria-label', label);
  return () => {
    root.removeAttribute('role');
    root.removeAttribute('aria-label');
  };
}
