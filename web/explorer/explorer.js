// @ts-check
// MHA Explorer — the explorer as a component: createExplorer(root, options) mounts one into root and returns its
// handle. Its state is one object (state.js); its jobs are modules by concern, each taking that object: settings (the
// values a forward uses), forward (the one record from the controls to the trace), draw (recompute, redraw), layout,
// controls (bound by name= through the property list), files (weights from a file), api (the scripting API), share,
// and one panel per section (heads, detail, trace, lesson), reading weights through read.js. Every instance finds its
// elements through its own scope (chrome/scope.js: ids with the instance's prefix) and registers its window and
// document listeners with its own AbortSignal, so that explorers share a document without touching each other.
import { setValue } from '../state/page.js';
import { FILES } from '../compute/source.js';
import { applyTheme } from '../chrome/theme.js';
import { asRegion } from '../chrome/landmarks.js';
import { setAttr } from '../widgets/dom.js';
import { explorerState } from './state.js';
import { applyFitText, effective, presetOf, validate } from './settings.js';
import { forwardOf } from './forward.js';
import { recompute, pickHead, setStatus, showMessages } from './draw.js';
import { applyLayout } from './layout.js';
import { bindAll } from './controls.js';
import { loadBytes } from './files.js';
import { explorerApi, setFromHost, setValues } from './api.js';
import { HeadsPanel } from './heads.js';
import { DetailPanel } from './detail.js';
import { TracePanel } from './trace.js';
import { LessonPanel } from './lesson.js';

/** @typedef {import('./state.js').ExplorerState} ExplorerState */

// The core loaded, then the first forward (warmed up where it will run) or the given weights file.
/** @param {ExplorerState} ex @param {(ok: boolean) => void} done */
function start(ex, done) {
  ex.forwards
    .load()
    .then((M) => {
      if (ex.disposed) return undefined;
      ex.M = M;
      const given = ex.given;
      if (given && given.weights) {
        // loaded as a file is; its snippet says how the notebook writes the file
        loadBytes(ex, given.weights.bytes, given.weights.file, 0, given.weights.how);
        return ex.pending;
      }
      const eff = effective(ex),
        pr = presetOf(eff);
      validate(eff, []);
      return (pr && pr.compute ? Promise.resolve() : ex.forwards.warmUp(forwardOf(ex, eff, []).forward)).then(() =>
        recompute(ex),
      );
    })
    .then(
      () => done(!ex.disposed),
      (err) => {
        if (ex.disposed) return;
        showMessages(ex, [String((err && err.message) || err)]);
        setStatus(ex, 'The WebAssembly core did not load.');
        done(false);
      },
    );
}

// Everything this explorer added to the document goes: its listeners, timers, workers, the core objects it holds, its
// elements and the classes and attributes of its root. The shared core stays for the other explorers.
/** @param {ExplorerState} ex @param {(() => void) | null} unRegion */
function dispose(ex, unRegion) {
  if (ex.disposed) return;
  ex.disposed = true;
  ex.renderId++; // a recompute under way draws nothing
  ex.events.abort();
  ex.timers.forEach(clearTimeout);
  ex.timers.clear();
  Object.values(ex.panels).forEach((p) => p.dispose());
  ex.forwards.dispose();
  ex.scope.remove();
  if (ex.styleEl) ex.styleEl.remove();
  ex.root.classList.remove('mhx', 'embed', 'no-controls', 'dropping');
  ex.root.removeAttribute('data-theme');
  if (unRegion) unRegion();
  ex.current = null;
  ex.loaded = null;
}

// root: the element the explorer fills (its markup goes before what root holds; dispose() removes it again).
// options: {query (a page query string, '?…' or not), values ({name: value}, as api.set takes them, over the query),
//   embed (the focused embed layout), theme ('auto' follows the reader's system; the <mha-explorer> element passes
//   the host page's), idPrefix (the ids' prefix: '' for the hosted page; a fresh mhxN- when absent),
//   styles (a stylesheet's text, style.css's as <mha-explorer> imports it, put into root as a <style>: for a shadow
//   root or a page that does not link style.css),
//   ownsDocument (the hosted page: its URL follows the state (history.replaceState), it posts its height to a
//   parent frame, a file dropped anywhere is loaded; false for any other mount), base (the folder of the page's files),
//   input (the text of an input block, input.js), onLab(query) (a link to the training lab was followed: the host shows
//   the lab for that query instead of the browser leaving the page, as <mha-explorer> does)}.
// → {ready (a promise of whether the core loaded), api, update(values) (api.set: a refused value throws),
//   setFromHost(values) (a refused value is said in the page's messages, as in a query), dispose()}.
/** @param {HTMLElement} root @param {Record<string, any>} [options] */
export function createExplorer(root, options = {}) {
  const ex = explorerState(root, options);
  root.classList.add('mhx');
  const unRegion = ex.ownsDocument ? null : asRegion(root, 'MHA Explorer');
  setAttr(ex.$('open-lab'), 'href', ex.base + FILES.lab + '?preset=train-two-offsets');
  if (ex.st.explicit.text) applyFitText(ex);
  /** @type {(ok: boolean) => void} */
  let resolveReady = () => {};
  const ready = new Promise((r) => {
    resolveReady = r;
  });
  const api = explorerApi(ex, ready);
  ex.panels = {
    heads: new HeadsPanel(
      ex.scope,
      () => ex.current,
      (h) => pickHead(ex, h),
      ex.base + FILES.lab,
    ),
    detail: new DetailPanel(ex.scope, () => ex.current, ex.colors),
    trace: new TracePanel(ex.scope),
    lesson: new LessonPanel(ex.scope),
  };
  setValues(ex, options.values || {}, false); // the starting values: the query's, then options.values over them
  if (options.embed) setValue(ex.st, 'embed', true);
  if (options.theme) setValue(ex.st, 'theme', options.theme);
  bindAll(ex, api);
  applyTheme(ex.st.values.theme, root);
  applyLayout(ex, effective(ex));
  start(ex, resolveReady);
  return {
    ready,
    api,
    update: api.set,
    setFromHost: (values) => setFromHost(ex, values),
    dispose() {
      dispose(ex, unRegion);
      resolveReady(false);
    },
  };
}
