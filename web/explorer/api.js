// @ts-check
// MHA Explorer — the scripting API (what the hosted page publishes as window.mhaExplorer, element.mhaExplorer on the
// element) and the benchmark hook. Every value a script sets goes through the page's property list (state/props.js's
// applyValues), as a link's does.
import { PAGE_PROPS, setValue } from '../state/page.js';
import { applyValues } from '../state/props.js';
import { now } from '../compute/explorer-run.js';
import { effective } from './settings.js';
import { recompute } from './draw.js';
import { dropWeights, loadBytes } from './files.js';
import { shareURL, embedCode } from './share.js';

/** @typedef {import('./state.js').ExplorerState} ExplorerState */

// values ({name: value}, a list as an array or a comma list) set as a script or a host gives them: a refused or
// unknown one throws (strict: api.set) or is said in the messages (a host's options), and none of them is set then.
/** @param {ExplorerState} ex @param {Record<string, any>} values @param {boolean} strict */
export function setValues(ex, values, strict) {
  const unknown = strict ? undefined : (name) => 'Unknown property ' + name + '.';
  const r = applyValues(PAGE_PROPS, values, unknown, ex.st.values);
  if (r.messages.length && strict) throw new Error(r.messages[0]);
  ex.messages.push(...r.messages);
  if (r.values.preset) dropWeights(ex); // a lesson's example uses the lesson's weights
  for (const k of Object.keys(r.values)) setValue(ex.st, k, r.values[k]);
}

// values as a host's attributes give them (<mha-explorer>): a refused one is said in the messages, as the same value
// in the query at mount is, and the explorer keeps its own; the others are set. A change: earlier messages go.
/** @param {ExplorerState} ex @param {Record<string, any>} values */
export function setFromHost(ex, values) {
  ex.messages = [];
  setValues(ex, values, false);
  return recompute(ex);
}

/** @param {number[]} v */
const median = (v) => {
  const s = v.slice().sort((a, b) => a - b),
    k = s.length >> 1;
  return s.length ? (s.length % 2 ? s[k] : (s[k - 1] + s[k]) / 2) : NaN;
};

// n full recompute+redraw cycles of the current state, one per frame (rAF + setTimeout(0) between cycles, as
// interactions come), each with the forward run (never a cached result). Per cycle: forwardMs (the forward, incl.
// embedding; a Worker round trip for large inputs), redrawMs (messages, canvases, DOM), totalMs (recompute from its start
// to the end of the redraw), layoutMs (style + layout of the result, forced right after: what the browser would do
// before the next paint). Medians.
/** @param {ExplorerState} ex @param {Promise<boolean>} ready @param {number} n */
function benchmarkRecompute(ex, ready, n) {
  n = Math.max(1, Math.floor(+n) || 20);
  const s = { forwardMs: [], redrawMs: [], totalMs: [], layoutMs: [], setupMs: [] };
  let i = 0;
  const frame = () =>
    new Promise((/** @type {(v?: any) => void} */ res) => {
      let done = false;
      const go = () => {
        if (!done) {
          done = true;
          ex.later(res, 0);
        }
      };
      if (window.requestAnimationFrame) window.requestAnimationFrame(go);
      ex.later(go, 100); // rAF does not run in hidden documents
    });
  const one = () => {
    if (i++ >= n) {
      return {
        forwardMs: median(s.forwardMs),
        redrawMs: median(s.redrawMs),
        totalMs: median(s.totalMs),
        layoutMs: median(s.layoutMs),
        setupMs: median(s.setupMs),
        runs: n,
        where: ex.forwards.lastCompute.where,
        implementation: ex.M && ex.M.implementation,
        samples: { forwardMs: s.forwardMs, redrawMs: s.redrawMs, totalMs: s.totalMs, layoutMs: s.layoutMs },
      };
    }
    return frame()
      .then(() => {
        ex.lastTiming = null;
        return recompute(ex);
      })
      .then(() => {
        const l0 = now();
        void ex.root.offsetHeight; // force style + layout of what the redraw changed
        const l1 = now(),
          t = ex.lastTiming;
        if (!t) throw new Error('benchmarkRecompute: render() did not complete (no core, no tokens, or an error)');
        s.setupMs.push(t.setupMs);
        s.forwardMs.push(t.forwardMs);
        s.redrawMs.push(t.redrawMs);
        s.totalMs.push(t.totalMs);
        s.layoutMs.push(l1 - l0);
        return one();
      });
  };
  return ready.then(one);
}

// The API of an explorer; ready: its promise of whether the core loaded.
/** @param {ExplorerState} ex @param {Promise<boolean>} ready */
export function explorerApi(ex, ready) {
  const mounted = ex.ownsDocument ? null : ex.base;
  const cur = () => ex.current;
  return {
    ready,
    getWeights() {
      const c = cur();
      return c ? { shape: c.res.weights.shape.slice(), data: new Float32Array(c.res.weights.data) } : null;
    },
    // bytes: a .safetensors file (Uint8Array or ArrayBuffer); resolves true when the page shows its heads, false when it
    // was refused (the page's message says why).
    loadWeights(bytes, name, layer) {
      return ready.then(() => {
        const ok = loadBytes(
          ex,
          bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes,
          name || 'weights.safetensors',
          layer || 0,
        );
        return ex.pending.then(() => ok);
      });
    },
    randomWeights() {
      dropWeights(ex);
      return recompute(ex);
    },
    getTrace() {
      const c = cur();
      return c && c.res.trace ? JSON.parse(JSON.stringify(c.res.trace)) : [];
    },
    getLabels() {
      const c = cur();
      return c ? c.labels.slice() : [];
    },
    getPrinted() {
      return ex.panels.lesson.printedTexts();
    },
    getSnippets() {
      return ex.panels.lesson.snippets(cur());
    },
    getState() {
      return effective(ex);
    },
    getCompute() {
      return Object.assign({}, ex.forwards.lastCompute, { implementation: ex.M && ex.M.implementation });
    },
    set(values) {
      setValues(ex, values, true);
      return recompute(ex);
    },
    // recompute and redraw (the public name is render)
    render() {
      return recompute(ex);
    },
    benchmarkRecompute(n) {
      return benchmarkRecompute(ex, ready, n);
    },
    // {forwardMs, redrawMs, totalMs, setupMs} of the last completed recompute (right after ready: the first one's).
    getTiming() {
      return ex.lastTiming && Object.assign({}, ex.lastTiming);
    },
    embedCode(host) {
      return embedCode(ex.st, host, ex.scope.all('[data-section="heads"]')[0], mounted);
    },
    shareURL() {
      return shareURL(ex.st, mounted);
    },
    get module() {
      return ex.M;
    },
  };
}
