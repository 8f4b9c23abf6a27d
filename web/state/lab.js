// @ts-check
// The training lab's property list (props.js's engine): its URL parameters, controls and their validation; meta:
// the key of a saved file's __metadata__ that records the property (wasm/state_dict_bindings.cpp's metadata_of);
// model: the core's model-config field it sets (its default then comes from the task's defaults); effect: what a
// change needs (props.js: rebuild, the default, builds a new model; redraw; url: read at the next step). No DOM, no
// state.
import * as props from './props.js';

/** @typedef {import('./props.js').Prop} Prop */
/** @typedef {{name: string, title: string, brief: string, readouts: string[], roles: string[], byContent: boolean, defaults: any, goalSteps: number}} TaskInfo */

// The lab's paces: a few steps per second (a student watches the roles form), or up to n steps per animation frame.
export const PACES = ['2/s', '5/s', '10/s', '20/s', 1, 2, 5, 10, 25];

// The task's values are the core's task table's names (wasm/bindings.cpp's protocol(), M.taskTable): labProps(tasks)
// gives the list with them; LAB_PROPS itself knows no task.
/** @type {Prop[]} */
export const LAB_PROPS = [
  { name: 'task', meta: 'task', type: 'enum', values: [], def: 'two-offsets' },
  { name: 'heads', meta: 'num_heads', type: 'enum', values: [1, 2, 4, 8], model: 'numHeads' },
  { name: 'layers', meta: 'layers', type: 'enum', values: [1, 2], model: 'layers' },
  { name: 'dmodel', meta: 'd_model', type: 'int', min: 1, max: 256, model: 'dModel' },
  { name: 'seqlen', meta: 'seq_len', type: 'int', min: 2, max: 64, model: 'seqLen' },
  { name: 'vocab', meta: 'vocab', type: 'int', min: 2, max: 128, model: 'vocab' },
  { name: 'batch', type: 'int', min: 1, max: 256, def: 32, effect: 'url' },
  { name: 'optimizer', type: 'enum', values: ['sgd', 'adam', 'adamw'], def: 'adam' },
  { name: 'lr', type: 'number', min: 1e-6, max: 10, def: 1e-2 },
  { name: 'seed', type: 'int', min: 0, max: 4294967295, def: 0 },
  { name: 'speed', type: 'enum', values: PACES, def: '10/s', effect: 'url' },
  { name: 'sort', type: 'bool', def: false, effect: 'redraw' },
  { name: 'compare', type: 'bool', def: false },
  { name: 'autoplay', type: 'bool', def: false, effect: 'url' },
  { name: 'embed', type: 'bool', def: false },
  {
    name: 'hide',
    type: 'list',
    values: ['header', 'controls', 'progress', 'heads', 'closer', 'pytorch', 'share'],
    def: [],
  },
  { name: 'theme', type: 'enum', values: ['auto', 'light', 'dark'], def: 'auto', effect: 'redraw' },
];
// The optimizers' names as torch.optim spells them (the core's protocol().optimizers: tests/node/protocol.test.mjs).
/** @type {Record<string, string>} */
export const OPTIMIZER_NAMES = { sgd: 'SGD', adam: 'Adam', adamw: 'AdamW' };
/** @param {string} name */
export const labProp = (name) => LAB_PROPS.find((p) => p.name === name);

// The lab's property list for a task table (the core's): the task's values are its names.
/** @param {TaskInfo[]} tasks @returns {Prop[]} */
export const labProps = (tasks) =>
  LAB_PROPS.map((p) => (p.name === 'task' ? { ...p, values: tasks.map((t) => t.name) } : p));
/** @param {TaskInfo[]} tasks @param {string} name @returns {TaskInfo | undefined} */
export const taskOf = (tasks, name) => tasks.find((t) => t.name === name);

// A pace: {perSecond} for '5/s', {perFrame} for 5.
/** @param {string | number} speed @returns {{perSecond?: number, perFrame?: number}} */
export function paceOf(speed) {
  return typeof speed === 'string' && /\/s$/.test(speed)
    ? { perSecond: parseFloat(speed) }
    : { perFrame: Number(speed) || 1 };
}
/** @param {string | number} speed */
export function paceLabel(speed) {
  const p = paceOf(speed);
  return p.perSecond
    ? p.perSecond + ' steps per second'
    : p.perFrame === 1
      ? '1 step per frame'
      : 'up to ' + p.perFrame + ' steps per frame';
}

// ?preset=train-<task>&… → {values, explicit (set by the URL), messages (what was refused, and why)}; list: labProps(tasks).
/** @param {string} search @param {Prop[]} list */
export function readLabQuery(search, list) {
  const state = props.fromQuery(list, search);
  const preset = new URLSearchParams(search).get('preset'),
    tasks = list.find((p) => p.name === 'task').values;
  if (preset) {
    const name = preset.replace(/^train-/, '');
    if (tasks.includes(name) && preset !== name) {
      if (!state.explicit.task) {
        state.values.task = name;
        state.explicit.task = true;
      }
    } else {
      state.messages.unshift(
        'Unknown preset "' +
          preset.slice(0, 40) +
          '": the presets here are ' +
          tasks.map((t) => 'train-' + t).join(', ') +
          '.',
      );
    }
  }
  return state;
}

// The share link's query: the preset, then what was set.
/** @param {Record<string, any>} values @param {Record<string, boolean>} explicit */
export function labQueryString(values, explicit) {
  const rest = props.toQuery(
    LAB_PROPS.filter((p) => p.name !== 'task'),
    values,
    explicit,
  );
  return 'preset=train-' + encodeURIComponent(values.task) + (rest ? '&' + rest : '');
}
