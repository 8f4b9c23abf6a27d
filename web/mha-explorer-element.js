// <mha-explorer> — embed MHA Explorer on any page with one script tag:
//   <script src="https://YOUR-SITE/mha-explorer/mha-explorer-element.js"></script>
//   <mha-explorer preset="lesson003" heads="4"></mha-explorer>
// Choice: the element renders an <iframe> of index.html?embed=1&<attributes> from the folder this
// script was loaded from (or the `src` attribute). The iframe isolates the page's styles and scripts
// from the host, works from file:// too, and sizes itself from the height the page posts.
// Every URL parameter of the page is accepted as an attribute (text, dmodel, heads, causal, fill,
// dropout, train, seed, pos, preset, view, head, batch, scale, norm, theme, hide); `height` fixes the height.
// Without a theme attribute the explorer takes the theme of the page around the element.
import state from './state.js';
import { PROPS as LAB_PROPS } from './lab-state.js';
import { hostTheme } from './embed-host.js';

(function () {
  if (typeof window === 'undefined' || !window.customElements || window.customElements.get('mha-explorer')) return;
  var script = document.currentScript;   // still this script: the bundle is a classic script
  var BASE = script && script.src ? script.src.replace(/[^/]*$/, '') : '';
  // The page's URL parameters (its one property list, state.js), then the training lab's (preset=train-… opens the lab).
  var PARAMS = state.PROPS.concat(LAB_PROPS).map(function (p) { return p.name; })
    .filter(function (n, i, all) { return n !== 'embed' && all.indexOf(n) === i; });

  function MhaExplorer() { return Reflect.construct(HTMLElement, [], MhaExplorer); }
  MhaExplorer.prototype = Object.create(HTMLElement.prototype);
  MhaExplorer.prototype.constructor = MhaExplorer;
  Object.setPrototypeOf(MhaExplorer, HTMLElement);
  Object.defineProperty(MhaExplorer, 'observedAttributes', { get: function () { return PARAMS.concat(['src', 'height']); } });

  MhaExplorer.prototype.connectedCallback = function () {
    if (!this._frame) {
      var root = this.attachShadow ? this.attachShadow({ mode: 'open' }) : this;
      var style = document.createElement('style');
      style.textContent = ':host{display:block;min-width:280px}iframe{display:block;width:100%;border:0;' +
        'border-radius:10px;box-shadow:0 0 0 1px rgba(0,0,0,.12)}';
      this._frame = document.createElement('iframe');
      this._frame.setAttribute('title', this.getAttribute('title') || 'MHA Explorer: multi-head attention');
      this._frame.setAttribute('loading', 'lazy');
      root.appendChild(style);
      root.appendChild(this._frame);
      var self = this;
      this._onMessage = function (e) {
        if (!self._frame || e.source !== self._frame.contentWindow) return;
        var d = e.data;
        if (d && d.type === 'mha-explorer:height' && typeof d.height === 'number' && !self.hasAttribute('height')) {
          self._frame.style.height = Math.max(200, Math.min(20000, Math.round(d.height))) + 'px';
        }
      };
      window.addEventListener('message', this._onMessage);
    }
    this._update();
  };
  MhaExplorer.prototype.disconnectedCallback = function () {
    if (this._onMessage) window.removeEventListener('message', this._onMessage);
    this._frame = null;
    if (this.shadowRoot) this.shadowRoot.textContent = '';
  };
  MhaExplorer.prototype.attributeChangedCallback = function () { if (this._frame) this._update(); };
  MhaExplorer.prototype._update = function () {
    var q = new URLSearchParams();
    q.set('embed', '1');
    for (var i = 0; i < PARAMS.length; i++) {
      if (this.hasAttribute(PARAMS[i])) q.set(PARAMS[i], this.getAttribute(PARAMS[i]));
    }
    if (!q.has('theme')) q.set('theme', hostTheme(this));
    var src = (this.getAttribute('src') || BASE + 'index.html') + '?' + q.toString();
    if (this._frame.getAttribute('src') !== src) this._frame.setAttribute('src', src);
    var h = parseInt(this.getAttribute('height'), 10);
    this._frame.style.height = (h > 0 ? h : 720) + 'px';
  };
  window.customElements.define('mha-explorer', MhaExplorer);
})();
