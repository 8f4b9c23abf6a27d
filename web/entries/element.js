// <mha-explorer> — embed MHA Explorer on any page with one script tag (web/build.mjs bundles this entry into
// dist/mha-explorer-element.js):
//   <script src="https://YOUR-SITE/mha-explorer/mha-explorer-element.js"></script>
//   <mha-explorer preset="lesson003" heads="4"></mha-explorer>
// The element mounts the explorer (web/explorer/: createExplorer) in its shadow root, in the focused embed layout:
// the host's styles and the explorer's do not reach each other, and element.mhaExplorer is its script API. It loads
// the core files from the folder this script was loaded from, or the `base` attribute's folder (a bundled element has
// no script of its own); from a public CDN (jsDelivr, unpkg) too, since only scripts are loaded from there (the
// forward workers start from blob: URLs that import the core). It writes nothing into the host page's URL.
// The script also gives the host page's scripts window.MhaExplorer.createExplorer(element, options): an explorer in
// an element of theirs (light DOM; style.css comes with it, scoped to the explorer's root).
// Every URL parameter of the page is accepted as an attribute (text, dmodel, heads, causal, fill, dropout, train, seed,
// pos, preset, view, head, batch, scale, norm, theme, hide); `height` fixes the height (the explorer scrolls inside).
// Without a theme attribute the explorer takes the theme of the page around the element, and follows it when the host
// switches (a theme toggle's class or data-theme on <html> or <body>, or the system's setting).
// preset="train-…" mounts the training lab (web/lab/: createLab) the same way, its trainer-<build>.js from the same
// folder; the links between the page and the lab switch the element between them.
// model="checkpoints/minilm/" mounts the model page (web/models/: createModelPage) for that checkpoint folder, relative
// to the host page as models.html's model= is to it (on the page's own host; menu="…json" too: a menu of models), with
// text, layer, head and theme as attributes; a folder dropped on the element loads there. A changed model or text
// attribute loads or runs it in place; element.mhaExplorer is the model page's script API (ready, getWeights,
// getTokens, set, load, ablate, …).
// An <iframe> of the page stays where a host needs one: the `src` attribute (a page of the host's choice) and
// mode="iframe". Such an iframe sizes itself from the height the page
// posts; for page files on another origin (a CDN serves .html as text/plain, which an iframe shows as text) the
// element fetches the page (CDNs allow that) and, unless it came as text/html, renders its source as the iframe's
// srcdoc with <base href> at the folder and the query in <meta name="mha-explorer-query"> (chrome/frame.js's
// pageQuery), since a srcdoc page has no address of its own.
import { PAGE_PROPS, pageProp } from '../state/page.js';
import { LAB_PROPS, labProp } from '../state/lab.js';
import { names } from '../state/props.js';
import { hostTheme } from '../chrome/embed-host.js';
import { guardNewWindows } from '../chrome/sandbox.js';
import { createExplorer } from '../explorer/explorer.js';
import { createLab } from '../lab/controller.js';
import { createModelPage } from '../models/page.js';
import STYLE from '../style.css';
import LAB_STYLE from '../lab/lab.css';
import MODELS_STYLE from '../models/models.css';

// The page's URL parameters (state/page.js), then the training lab's (preset=train-… opens the lab).
const PARAMS = names(PAGE_PROPS, LAB_PROPS).filter((n) => n !== 'embed');
// The model page's parameters (web/models/context.js) that an element takes; model="…" opens the model page.
const MODEL_PARAMS = ['model', 'hub', 'menu', 'text', 'layer', 'head', 'theme'];
const HOST_STYLE =
  ':host{display:block;min-width:280px}iframe{display:block;width:100%;border:0;' +
  'border-radius:10px;box-shadow:0 0 0 1px rgba(0,0,0,.12)}iframe[hidden]{display:none}p.mhx-missing{font:14px/1.4 system-ui,sans-serif;color:#a33}' +
  '.mhx{border-radius:10px;box-shadow:0 0 0 1px rgba(0,0,0,.12)}';

// The page's source by URL, fetched once per page for every element that shows it.
const sources = {};
function pageSource(url) {
  if (!sources[url]) {
    sources[url] = fetch(url, { credentials: 'omit' })
      .then((r) => {
        if (!r.ok) return null;
        return /^text\/html/i.test(r.headers.get('content-type') || '') ? null : r.text();
      })
      .catch(() => null); // not readable from here (no CORS): the iframe loads it itself
  }
  return sources[url];
}
function escapeAttr(v) {
  return v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
// The page's source with its folder and query: <base> first in <head>, so every relative URL resolves there.
function withBase(html, folder, query) {
  const tags =
    '<base href="' + escapeAttr(folder) + '"><meta name="mha-explorer-query" content="' + escapeAttr(query) + '">';
  const head = /<head[^>]*>/i.exec(html);
  return head
    ? html.slice(0, head.index + head[0].length) + tags + html.slice(head.index + head[0].length)
    : tags + html;
}
function sameOrigin(url) {
  const u = new URL(url, document.baseURI);
  return u.protocol === 'file:' || u.origin === window.location.origin;
}

// This script's folder: the core's and pages' files are beside it (document.currentScript is this script while the
// bundle, a classic script, runs).
const SCRIPT_BASE = (() => {
  const script = typeof document !== 'undefined' ? document.currentScript : null;
  return script && script.src ? script.src.replace(/[^/]*$/, '') : '';
})();
// HTMLElement where there is one; elsewhere (a server render that imports the bundle) a plain class, never defined.
const ElementBase = typeof HTMLElement === 'function' ? HTMLElement : class {};

class MhaExplorerElement extends ElementBase {
  static get observedAttributes() {
    return PARAMS.concat(['src', 'base', 'height', 'mode', 'model', 'hub', 'menu', 'layer']);
  }

  connectedCallback() {
    if (!this.shadowRoot) this.attachShadow({ mode: 'open' });
    this.live = true;
    this.followHost();
    this.update();
  }
  disconnectedCallback() {
    this.live = false;
    this.unfollowHost();
    this.unmount();
  }
  // The host page's theme, watched while the element is in it (no theme attribute: the explorer takes the host's).
  followHost() {
    const check = () => {
      if (!this.live || this.hasAttribute('theme') || hostTheme(this) === this.hostShown) return;
      if (this.explorer || this.lab || this.models)
        this.attributeChangedCallback('theme', 'host', null); // as a removed theme attribute
      else this.update(); // an iframe's page: its query names the theme
      this.hostShown = hostTheme(this);
    };
    // a toggle's colours may change over a short transition: looked at again once it is over
    const later = () => {
      check();
      clearTimeout(this.hostTimer);
      this.hostTimer = setTimeout(check, 400);
    };
    this.hostObserver = new MutationObserver(later);
    for (const n of [document.documentElement, document.body]) {
      if (n)
        this.hostObserver.observe(n, {
          attributes: true,
          attributeFilter: ['class', 'style', 'data-theme', 'data-mode'],
        });
    }
    this.hostMedia = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;
    if (this.hostMedia) this.hostMedia.addEventListener('change', later);
    this.hostLater = later;
  }
  unfollowHost() {
    if (this.hostObserver) this.hostObserver.disconnect();
    if (this.hostMedia) this.hostMedia.removeEventListener('change', this.hostLater);
    clearTimeout(this.hostTimer);
    this.hostObserver = this.hostMedia = this.hostLater = null;
  }
  attributeChangedCallback(name, old, value) {
    // (an element upgraded when the script defines it gets its attributes before connectedCallback)
    if (!this.live || old === value) return;
    // the model page: a new folder or text loads or runs in place, a theme is applied, a layer or head is selected (one
    // the model lacks is said in its messages, and the selection stays)
    if (this.models && (name === 'layer' || name === 'head')) {
      this.models.update({ [name]: value });
      return;
    }
    if (this.models && (name === 'text' || name === 'theme' || (name === 'model' && value))) {
      this.models.update({ [name]: value !== null ? value : name === 'theme' ? hostTheme(this) : '' });
      return;
    }
    // a page parameter of a mounted explorer: set on it (a removed attribute goes back to the default, a removed
    // theme to the host's; a value the page refuses is said in its messages, as at mount, and the explorer keeps its
    // own); a lab preset needs the lab's page
    const p = pageProp(name);
    if (this.explorer && p && !(name === 'preset' && /^train-/.test(value || ''))) {
      this.explorer.setFromHost({ [name]: value !== null ? value : name === 'theme' ? hostTheme(this) : p.def });
      return;
    }
    // a lab property of a mounted lab, the same way (another task is another preset: a new lab)
    const lp = labProp(name);
    if (this.lab && lp && name !== 'preset') {
      this.lab.setFromHost({ [name]: value !== null ? value : name === 'theme' ? hostTheme(this) : lp.def });
      return;
    }
    this.update();
  }
  // The explorer's script API (an iframe's page's, when it is on this origin), or null.
  get mhaExplorer() {
    if (this.explorer) return this.explorer.api;
    if (this.lab) return this.lab.api;
    if (this.models) return this.models.api;
    try {
      return this.frame && this.frame.contentWindow ? this.frame.contentWindow.mhaExplorer || null : null;
    } catch (e) {
      return null;
    }
  }
  // The folder of the page's files: base="…", else this script's.
  folder() {
    const base = this.getAttribute('base');
    return base ? new URL(base.replace(/\/?$/, '/'), document.baseURI).href : SCRIPT_BASE;
  }
  query() {
    const q = new URLSearchParams();
    q.set('embed', '1');
    for (const n of PARAMS) if (this.hasAttribute(n)) q.set(n, this.getAttribute(n));
    if (!q.has('theme')) q.set('theme', (this.hostShown = hostTheme(this)));
    return q;
  }
  update() {
    const q = this.query(),
      folder = this.folder(),
      src = this.getAttribute('src');
    // model="…" mounts the model page in place (its folder is the host page's: mode="iframe" does not apply)
    const models = !src && (this.hasAttribute('model') || this.hasAttribute('menu'));
    const framed = !!src || (this.getAttribute('mode') === 'iframe' && !models),
      lab = /^train-/.test(q.get('preset') || '');
    if (!src && !folder) {
      this.unmount();
      this.show(
        '<mha-explorer> does not know where the MHA Explorer page is: give it base="…", the URL of the folder ' +
          'holding the package\'s dist/ files (index.html, lab.html, mha.js, …), e.g. base="/mha-explorer/".',
      );
      return;
    }
    const key = framed
      ? 'frame|' + (src || folder) + '|' + q.toString()
      : models
        ? 'models|' + folder
        : lab
          ? 'lab|' + folder + '|' + q.get('preset')
          : 'mount|' + folder;
    if (key === this.key) {
      this.sizeBox();
      return;
    }
    this.unmount();
    this.key = key;
    if (framed) this.frameIt(src || folder + (lab ? 'lab.html' : 'index.html'), q);
    else if (models) this.mountModels(folder);
    else this.mount(folder, q, lab);
    this.sizeBox();
  }
  // The explorer, or the lab, in the shadow root.
  mount(folder, q, lab) {
    const style = document.createElement('style');
    style.textContent = HOST_STYLE;
    this.box = document.createElement('div');
    this.shadowRoot.append(style, this.box);
    // a link between the page and the lab (its page would open in place of the host's, or as text from a CDN)
    // shows the other one here
    if (lab)
      this.lab = createLab(this.box, {
        query: q.toString(),
        base: folder,
        styles: STYLE + '\n' + LAB_STYLE,
        onPage: (query) => this.open(query),
      });
    else
      this.explorer = createExplorer(this.box, {
        query: q.toString(),
        base: folder,
        styles: STYLE,
        onLab: (query) => this.open(query),
      });
  }
  // The model page in the shadow root: its folder relative to the host page, a drop on the element loads there.
  mountModels(folder) {
    const style = document.createElement('style');
    style.textContent = HOST_STYLE + '\n' + STYLE + '\n' + MODELS_STYLE;
    this.box = document.createElement('div');
    this.shadowRoot.append(style, this.box);
    const q = new URLSearchParams();
    for (const n of MODEL_PARAMS) if (this.hasAttribute(n)) q.set(n, this.getAttribute(n));
    if (!q.has('theme')) q.set('theme', (this.hostShown = hostTheme(this)));
    this.models = createModelPage(this.box, { query: q.toString(), base: folder, dropTarget: this.box });
  }
  // The page in an iframe (see the header).
  frameIt(page, q) {
    const style = document.createElement('style');
    style.textContent = HOST_STYLE;
    const frame = (this.frame = document.createElement('iframe'));
    frame.setAttribute('title', this.getAttribute('title') || 'MHA Explorer: multi-head attention');
    frame.setAttribute('loading', 'lazy');
    this.shadowRoot.append(style, frame);
    this.box = frame;
    this.onMessage = (e) => {
      if (e.source !== frame.contentWindow) return;
      const d = e.data;
      if (d && d.type === 'mha-explorer:height' && typeof d.height === 'number' && !this.hasAttribute('height')) {
        frame.style.height = Math.max(200, Math.min(20000, Math.round(d.height))) + 'px';
      }
      if (d && d.type === 'mha-explorer:open' && typeof d.query === 'string') this.open(d.query);
    };
    window.addEventListener('message', this.onMessage);
    const src = page + '?' + q.toString();
    if (sameOrigin(page)) {
      frame.setAttribute('src', src);
      return;
    }
    pageSource(new URL(page, document.baseURI).href).then((html) => {
      if (this.frame !== frame) return; // removed, or attributes changed meanwhile
      if (html === null) {
        frame.setAttribute('src', src);
        return;
      }
      frame.setAttribute('srcdoc', withBase(html, new URL('.', new URL(page, document.baseURI)).href, q.toString()));
    });
  }
  // height="…": a fixed height (the iframe's, or the explorer's box, which then scrolls); else an iframe starts at 720 px.
  sizeBox() {
    if (!this.box) return;
    const h = parseInt(this.getAttribute('height'), 10);
    if (this.frame) this.frame.style.height = (h > 0 ? h : 720) + 'px';
    else {
      this.box.style.height = h > 0 ? h + 'px' : '';
      this.box.style.overflow = h > 0 ? 'auto' : '';
    }
  }
  unmount() {
    if (this.explorer) this.explorer.dispose();
    if (this.lab) this.lab.dispose();
    if (this.models) this.models.dispose();
    if (this.onMessage) window.removeEventListener('message', this.onMessage);
    this.explorer = this.lab = this.models = this.frame = this.box = this.onMessage = null;
    this.key = null;
    if (this.shadowRoot) this.shadowRoot.textContent = '';
  }
  // A link of a srcdoc page (chrome/frame.js's followPageLinksInElement): the page's parameters become the attributes.
  open(query) {
    const q = new URLSearchParams(query);
    for (const n of PARAMS) {
      if (q.has(n)) this.setAttribute(n, q.get(n));
      else this.removeAttribute(n);
    }
  }
  // A message in place of the explorer.
  show(message) {
    const note = document.createElement('p');
    note.className = 'mhx-missing';
    note.textContent = message;
    this.shadowRoot.appendChild(note);
  }
}

function define() {
  window.customElements.define('mha-explorer', MhaExplorerElement);
  // For scripts of the host page: an explorer in any element of theirs, its files from this script's folder and
  // style.css inside it (options as createExplorer's, web/explorer/explorer.js).
  window.MhaExplorer = {
    createExplorer: (root, options) =>
      createExplorer(root, Object.assign({ base: SCRIPT_BASE, styles: STYLE }, options)),
  };
}

if (typeof window !== 'undefined' && window.customElements && !window.customElements.get('mha-explorer')) {
  define();
  guardNewWindows(); // the explorers' "Open full page ↗" in a host page that is itself a frame forbidding pop-ups
}
