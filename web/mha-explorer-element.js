// <mha-explorer> — embed MHA Explorer on any page with one script tag:
//   <script src="https://YOUR-SITE/mha-explorer/mha-explorer-element.js"></script>
//   <mha-explorer preset="lesson003" heads="4"></mha-explorer>
// Choice: the element renders an <iframe> of index.html?embed=1&<attributes> (lab.html for preset="train-…") from the
// folder this script was loaded from, the `base` attribute's folder (a bundled element has no script of its own), or
// the `src` attribute's page. The iframe isolates the page's styles and scripts from the host, works from file://
// too, and sizes itself from the height the page posts.
// Public CDNs (jsDelivr, unpkg) serve .html as text/plain, which an iframe shows as text: for page files on another
// origin the element fetches the page (CDNs allow that) and, unless it came as text/html, renders its source as the
// iframe's srcdoc with <base href> at the folder and the query in <meta name="mha-explorer-query"> (chrome/frame.js's
// pageQuery), since a srcdoc page has no address of its own.
// Every URL parameter of the page is accepted as an attribute (text, dmodel, heads, causal, fill,
// dropout, train, seed, pos, preset, view, head, batch, scale, norm, theme, hide); `height` fixes the height.
// Without a theme attribute the explorer takes the theme of the page around the element.
import { PAGE_PROPS } from './state/page.js';
import { LAB_PROPS } from './state/lab.js';
import { names } from './state/props.js';
import { hostTheme } from './embed-host.js';

(function () {
  if (typeof window === 'undefined' || !window.customElements || window.customElements.get('mha-explorer')) return;
  var script = document.currentScript;   // still this script: the bundle is a classic script
  var SCRIPT_BASE = script && script.src ? script.src.replace(/[^/]*$/, '') : '';
  // The page's URL parameters (state/page.js), then the training lab's (preset=train-… opens the lab).
  var PARAMS = names(PAGE_PROPS, LAB_PROPS).filter(function (n) { return n !== 'embed'; });

  function MhaExplorer() { return Reflect.construct(HTMLElement, [], MhaExplorer); }
  MhaExplorer.prototype = Object.create(HTMLElement.prototype);
  MhaExplorer.prototype.constructor = MhaExplorer;
  Object.setPrototypeOf(MhaExplorer, HTMLElement);
  Object.defineProperty(MhaExplorer, 'observedAttributes', { get: function () { return PARAMS.concat(['src', 'base', 'height']); } });

  MhaExplorer.prototype.connectedCallback = function () {
    if (!this._frame) {
      var root = this.shadowRoot || (this.attachShadow ? this.attachShadow({ mode: 'open' }) : this);   // again after a move
      var style = document.createElement('style');
      style.textContent = ':host{display:block;min-width:280px}iframe{display:block;width:100%;border:0;' +
        'border-radius:10px;box-shadow:0 0 0 1px rgba(0,0,0,.12)}iframe[hidden]{display:none}p{font:14px/1.4 system-ui,sans-serif;color:#a33}';
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
        if (d && d.type === 'mha-explorer:open' && typeof d.query === 'string') self._open(d.query);
      };
      window.addEventListener('message', this._onMessage);
    }
    this._update();
  };
  MhaExplorer.prototype.disconnectedCallback = function () {
    if (this._onMessage) window.removeEventListener('message', this._onMessage);
    this._frame = null;
    this._src = null;
    if (this.shadowRoot) this.shadowRoot.textContent = '';
  };
  MhaExplorer.prototype.attributeChangedCallback = function () { if (this._frame) this._update(); };
  // The page's source by URL, fetched once per page for every element that shows it.
  var sources = {};
  function pageSource(url) {
    if (!sources[url]) {
      sources[url] = fetch(url, { credentials: 'omit' }).then(function (r) {
        if (!r.ok) return null;
        return /^text\/html/i.test(r.headers.get('content-type') || '') ? null : r.text();
      }).catch(function () { return null; });   // not readable from here (no CORS): the iframe loads it itself
    }
    return sources[url];
  }
  function escapeAttr(v) { return v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;'); }
  // The page's source with its folder and query: <base> first in <head>, so every relative URL resolves there.
  function withBase(html, folder, query) {
    var tags = '<base href="' + escapeAttr(folder) + '"><meta name="mha-explorer-query" content="' + escapeAttr(query) + '">';
    var head = /<head[^>]*>/i.exec(html);
    return head ? html.slice(0, head.index + head[0].length) + tags + html.slice(head.index + head[0].length) : tags + html;
  }
  function sameOrigin(url) {
    var u = new URL(url, document.baseURI);
    return u.protocol === 'file:' || u.origin === window.location.origin;
  }

  MhaExplorer.prototype._update = function () {
    var q = new URLSearchParams();
    q.set('embed', '1');
    for (var i = 0; i < PARAMS.length; i++) {
      if (this.hasAttribute(PARAMS[i])) q.set(PARAMS[i], this.getAttribute(PARAMS[i]));
    }
    if (!q.has('theme')) q.set('theme', hostTheme(this));
    var h = parseInt(this.getAttribute('height'), 10);
    this._frame.style.height = (h > 0 ? h : 720) + 'px';
    var base = this.getAttribute('base');
    var folder = base ? new URL(base.replace(/\/?$/, '/'), document.baseURI).href : SCRIPT_BASE;
    var page = this.getAttribute('src');
    if (!page && !folder) {
      this._show('<mha-explorer> does not know where the MHA Explorer page is: give it base="…", the URL of the folder ' +
        'holding the package\'s dist/ files (index.html, lab.html, mha.js, …), e.g. base="/mha-explorer/".');
      return;
    }
    page = page || folder + (/^train-/.test(q.get('preset') || '') ? 'lab.html' : 'index.html');
    var src = page + '?' + q.toString();
    if (this._src === src) return;
    this._src = src;
    this._show(null);
    var frame = this._frame;
    if (sameOrigin(page)) { frame.removeAttribute('srcdoc'); frame.setAttribute('src', src); return; }
    pageSource(new URL(page, document.baseURI).href).then(function (html) {
      if (frame.isConnected === false || this._src !== src) return;   // removed, or attributes changed meanwhile
      if (html === null) { frame.removeAttribute('srcdoc'); frame.setAttribute('src', src); return; }
      frame.removeAttribute('src');
      frame.setAttribute('srcdoc', withBase(html, new URL('.', new URL(page, document.baseURI)).href, q.toString()));
    }.bind(this));
  };
  // A link of a srcdoc page (chrome/frame.js's followPageLinksInElement): the page's parameters become the attributes.
  MhaExplorer.prototype._open = function (query) {
    var q = new URLSearchParams(query);
    for (var i = 0; i < PARAMS.length; i++) {
      if (q.has(PARAMS[i])) this.setAttribute(PARAMS[i], q.get(PARAMS[i])); else this.removeAttribute(PARAMS[i]);
    }
  };
  // A message in place of the page (null: the page).
  MhaExplorer.prototype._show = function (message) {
    var root = this.shadowRoot || this;
    var note = root.querySelector('p');
    if (message && !note) { note = document.createElement('p'); root.appendChild(note); }
    if (note) { note.textContent = message || ''; note.hidden = !message; }
    this._frame.hidden = !!message;
  };
  window.customElements.define('mha-explorer', MhaExplorer);
})();
