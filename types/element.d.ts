// TypeScript declarations of the custom element, dist/mha-explorer-element.js: `import 'mha-explorer/element'` (or a
// <script> tag) defines <mha-explorer>. It mounts the explorer (or the training lab, for preset="train-…") in its
// shadow root, as tall as its content; every URL parameter of the page is an attribute (preset, text, dmodel, heads,
// causal, …), `base` is the folder holding the page files (needed when the element is bundled), `src` a page URL and
// mode="iframe" show a page in an iframe instead, `height` a fixed height in pixels. model="models/minilm/" (a
// checkpoint folder relative to the host page) mounts the model page instead, with text, layer, head and theme.

/** <mha-explorer>: its attributes are the page's URL parameters, plus base, src, height and model. */
export interface MhaExplorerElement extends HTMLElement {}

declare global {
  interface HTMLElementTagNameMap {
    'mha-explorer': MhaExplorerElement;
  }
}
