// @ts-check
// MHA Explorer — the one state object of an explorer (TensorFlow Playground's state.ts in spirit): what its modules
// read and change, made once per createExplorer. The modules by concern take it as their first argument: settings
// (the values a forward uses), forward (the one record from the controls to the trace), draw (recompute, redraw),
// layout (the controls and sections showing the state), controls (the controls bound by name=), files (weights from
// a file), api (the scripting API). Nothing of an explorer lives in a module-level variable.
import { readPageQuery, pageProp } from '../state/page.js';
import { MAX_TOKENS } from '../compute/explorer-run.js';
import { Scope, freshPrefix } from '../chrome/scope.js';
import { withoutLandmarks } from '../chrome/landmarks.js';
import { el, themeColors } from '../widgets/dom.js';
import { TEMPLATE } from './template.js';
import { Forwards } from './forwards.js';
import { givenInput } from './input.js';

/**
 * @typedef {object} LoadedWeights weights loaded from a .safetensors file (not in share links: a link cannot carry a file)
 * @property {number} id @property {string} file @property {any} tensors the whole file @property {Record<string, string>} metadata
 * @property {number | null} heads the file's num_heads @property {string | null} saidHeads its raw value
 * @property {Record<string, any>} state the module's entries @property {number} dModel
 * @property {'module' | 'model'} kind @property {number} layer @property {number[]} layers
 * @property {string} [from] @property {any} [sources] @property {string} [how]
 */
/**
 * @typedef {object} Current what the panels draw: the settings, the forward record, the core's result and the cells
 * @property {Record<string, any>} eff the settings (settings.js) @property {import('./forward.js').Forward} forward
 * @property {any} res the result: {weights [B, H, Sq, Skv], output, x, B, H, S, D, trace, vmax, headNames?, origin?, note?, shown?}
 * @property {string[]} labels @property {any[]} cells the lesson panel's code cells @property {boolean} copyAll
 */
/**
 * @typedef {object} ExplorerState
 * @property {HTMLElement} root @property {Record<string, any>} options @property {string} base the folder of the page's files
 * @property {boolean} ownsDocument @property {Scope} scope @property {(name: string) => any} $
 * @property {AbortController} events its window and document listeners' @property {AbortSignal} signal
 * @property {{values: Record<string, any>, explicit: Record<string, boolean>, messages: string[]}} st the page's values
 * @property {string[]} messages what the page says above the views until the next change
 * @property {any} M the WebAssembly API (null until it loaded) @property {Forwards} forwards
 * @property {Current | null} current @property {LoadedWeights | null} loaded @property {number} weightsSeq
 * @property {string} weightsError @property {any} given the input this document was given (input.js), or null
 * @property {any} panels {heads, detail, trace, lesson} @property {boolean} disposed @property {number} renderId
 * @property {Promise<void>} pending the last recompute's promise @property {any} lastTiming {forwardMs, redrawMs, totalMs, setupMs}
 * @property {string | null} layoutKey @property {{n: number}} fileSeq @property {Set<any>} timers
 * @property {(fn: () => void, ms: number) => any} later @property {(t: any) => void} cancel
 * @property {() => Record<string, string>} colors @property {HTMLStyleElement | null} styleEl
 */

// The state of an explorer mounted into root: its markup in, its values read from options (query, then values).
/** @param {HTMLElement} root @param {Record<string, any>} options @returns {ExplorerState} */
export function explorerState(root, options) {
  const prefix = options.idPrefix !== undefined ? options.idPrefix : freshPrefix(root, 'mhx');
  const ownsDocument = !!options.ownsDocument,
    base = options.base || '';
  const styleEl = options.styles ? root.insertBefore(el('style', null, options.styles), root.firstChild) : null;
  const scope = new Scope(root, ownsDocument ? TEMPLATE : withoutLandmarks(TEMPLATE), prefix);
  const st = readPageQuery(options.query || '');
  const timers = new Set(),
    events = new AbortController();
  /** @type {ExplorerState} */
  const ex = {
    root,
    options,
    base,
    ownsDocument,
    scope,
    $: (name) => scope.$(name),
    events,
    signal: events.signal,
    st,
    messages: st.messages.slice(),
    M: null,
    forwards: new Forwards(base),
    current: null,
    loaded: null,
    weightsSeq: 0,
    weightsError: '',
    given: null,
    panels: null,
    disposed: false,
    renderId: 0,
    pending: Promise.resolve(),
    lastTiming: null,
    layoutKey: null,
    fileSeq: { n: 0 },
    timers,
    styleEl,
    colors: () => themeColors(root),
    later: (fn, ms) => {
      const t = setTimeout(() => {
        timers.delete(t);
        fn();
      }, ms);
      timers.add(t);
      return t;
    },
    cancel: (t) => {
      clearTimeout(t);
      timers.delete(t);
    },
  };
  ex.given = givenInput(options.input === undefined ? null : options.input, MAX_TOKENS, pageProp('dmodel').max);
  if (ex.given && ex.given.error) {
    ex.messages.push('The page could not use the input it was given: ' + ex.given.error + '.');
    ex.given = null;
  }
  return ex;
}
