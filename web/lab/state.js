// @ts-check
// MHA Explorer — the one state object of a training lab (TensorFlow Playground's state.ts in spirit): what its modules
// read and change, made once per createLab. The modules by concern take it as their first argument: training (the
// model, its steps and pace), draw (the chart, cards, predictions and closer look), controls (bound by name=), files
// (weights files, the PyTorch script), api (the scripting API). Two labs in one document share nothing.
import { LAB_PROPS, labProps, readLabQuery } from '../state/lab.js';
import { applyValues } from '../state/props.js';
import { Scope, freshPrefix } from '../chrome/scope.js';
import { withoutLandmarks } from '../chrome/landmarks.js';
import { FILES } from '../compute/source.js';
import MARKUP from './markup.html';

/** @typedef {import('../state/lab.js').TaskInfo} TaskInfo */
/**
 * @typedef {object} LabState
 * @property {HTMLElement} root @property {Record<string, any>} options @property {string} base the folder of the lab's files
 * @property {Scope} scope @property {(name: string) => any} $ @property {AbortController} lifetime @property {AbortSignal} signal
 * @property {TaskInfo[]} tasks the core's task table ([] until the worker sent it) @property {import('../state/props.js').Prop[]} props labProps(tasks)
 * @property {Record<string, any>} values @property {Record<string, boolean>} explicit @property {string[]} messages
 * @property {any} trainer @property {any} twin the one-head model beside it (its own worker), when compare is on
 * @property {any} defaults the task's model settings (the core's) @property {any} modelConfig the model built
 * @property {{step: number, loss: number, accuracy: number}[]} curve @property {{step: number, loss: number, accuracy: number}[]} twinCurve
 * @property {any} inspected {attention, roles, logits, targets, trace} of the probe @property {any} twinInspected
 * @property {boolean} busy a training request is under way @property {{full: number, now: number} | null} held held-out accuracies
 * @property {Record<string, boolean>} ablated @property {any[]} snapshots kept views of the heads for the replay
 * @property {number | null} replay the snapshot shown, or null for the live view
 * @property {number | null} scriptUntil the last step the PyTorch script reproduces (null: the whole run)
 * @property {{log: {started: number, ended: number, steps: number}[], value: number}} rate steps per second while playing
 * @property {number} msPerStep @property {{started: number, steps: number}} pace the steps trained since Play (a pace in steps per second)
 * @property {number | null} goal the step where the run pauses by itself @property {number[]} probe the tokens shown
 * @property {string | null} probeTask @property {string | null} loadedName @property {number} loadedAt
 * @property {{layer: number, head: number, query: number, key: number | null, shown?: number}} closer
 * @property {any} player @property {boolean} disposed @property {number} fileSeq @property {{n: number}} readSeq
 * @property {(e: Event) => void} [onAblate] a head card clicked (controls.js)
 */

// The markup in root with the instance's ids, and the link to the page (index.html next to lab.html, mha-explorer.html
// from the one-file lab).
/** @param {HTMLElement} root @param {Record<string, any>} options @param {string} base */
function mount(root, options, base) {
  const prefix = options.idPrefix !== undefined ? String(options.idPrefix) : freshPrefix(root, 'mhxlab');
  const scope = new Scope(root, options.ownsPage ? MARKUP : withoutLandmarks(MARKUP), prefix);
  if (options.styles) {
    const style = document.createElement('style');
    style.textContent = options.styles;
    root.insertBefore(style, root.firstChild);
    scope.nodes.push(style);
  }
  scope.all('a[href="index.html"]').forEach((a) => a.setAttribute('href', base + FILES.page));
  return scope;
}

// The query, then the options' properties over it (a refused one: a message, as the URL's). list: labProps(tasks).
/** @param {Record<string, any>} options @param {import('../state/props.js').Prop[]} list */
export function readSettings(options, list) {
  const state = readLabQuery(options.query, list);
  const over = Object.assign({}, options.values);
  if (options.embed !== undefined) over.embed = !!options.embed;
  if (options.theme !== undefined) over.theme = options.theme;
  const r = applyValues(list, over, (name) => 'createLab: unknown property ' + name + '.', state.values);
  state.messages.push(...r.messages);
  for (const k of Object.keys(r.values)) {
    state.values[k] = r.values[k];
    state.explicit[k] = true;
  }
  return state;
}

// The state of a lab mounted into root. Before the worker has sent the task table no task is known: this first
// reading sets the theme, the layout and the hidden sections; the settings are read again once the table is here.
/** @param {HTMLElement} root @param {Record<string, any>} options @returns {LabState} */
export function labState(root, options) {
  const base = options.base || '',
    scope = mount(root, options, base),
    lifetime = new AbortController();
  const initial = readSettings(options, LAB_PROPS);
  return {
    root,
    options,
    base,
    scope,
    $: (name) => scope.$(name),
    lifetime,
    signal: lifetime.signal,
    tasks: [],
    props: labProps([]),
    values: initial.values,
    explicit: initial.explicit,
    messages: [],
    trainer: null,
    twin: null,
    defaults: null,
    modelConfig: null,
    curve: [],
    twinCurve: [],
    inspected: null,
    twinInspected: null,
    busy: false,
    held: null,
    ablated: {},
    snapshots: [],
    replay: null,
    scriptUntil: null,
    rate: { log: [], value: 0 },
    msPerStep: 0,
    pace: { started: 0, steps: 0 },
    goal: null,
    probe: [],
    probeTask: null,
    loadedName: null,
    loadedAt: 0,
    closer: { layer: 0, head: 0, query: Infinity, key: null },
    player: null,
    disposed: false,
    fileSeq: 0,
    readSeq: { n: 0 },
  };
}
