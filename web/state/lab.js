// The training lab's property list (props.js's engine): its URL parameters, controls and their validation; meta:
// the key of a saved file's __metadata__ that records the property (wasm/bindings.cpp's metadata_of); model: the
// core's model-config field it sets (its default then comes from the task's defaults). No DOM.
import * as props from './props.js';

// The training tasks: the core's task table (wasm/bindings.cpp's protocol(), M.taskTable: name, title, brief,
// readouts, roles, defaults), which the lab receives from its worker and installs with useTasks before it reads
// the URL. Until then the list is empty and no task is valid.
export let TASKS = [];
export function useTasks(table) {
  TASKS = table.slice();
  labProp('task').values = TASKS.map((t) => t.name);
}
export const task = (name) => TASKS.find((t) => t.name === name);

export const LAB_PROPS = [
  { name: 'task', meta: 'task', type: 'enum', values: [], def: 'two-offsets' },
  { name: 'heads', meta: 'num_heads', type: 'enum', values: [1, 2, 4, 8], model: 'numHeads' },
  { name: 'layers', meta: 'layers', type: 'enum', values: [1, 2], model: 'layers' },
  { name: 'dmodel', meta: 'd_model', type: 'int', min: 1, max: 256, model: 'dModel' },
  { name: 'seqlen', meta: 'seq_len', type: 'int', min: 2, max: 64, model: 'seqLen' },
  { name: 'vocab', meta: 'vocab', type: 'int', min: 2, max: 128, model: 'vocab' },
  { name: 'batch', type: 'int', min: 1, max: 256, def: 32 },
  { name: 'optimizer', type: 'enum', values: ['sgd', 'adam', 'adamw'], def: 'adam' },
  { name: 'lr', type: 'number', min: 1e-6, max: 10, def: 1e-2 },
  { name: 'seed', type: 'int', min: 0, max: 4294967295, def: 0 },
  { name: 'speed', type: 'enum', values: [1, 2, 5, 10, 25], def: 1 },
  { name: 'compare', type: 'bool', def: false },
  { name: 'autoplay', type: 'bool', def: false },
  { name: 'embed', type: 'bool', def: false },
  { name: 'hide', type: 'list', values: ['header', 'controls', 'progress', 'heads', 'closer', 'pytorch', 'share'], def: [] },
  { name: 'theme', type: 'enum', values: ['auto', 'light', 'dark'], def: 'auto' },
];
export const OPTIMIZER_NAMES = { sgd: 'SGD', adam: 'Adam', adamw: 'AdamW' };
export const labProp = (name) => LAB_PROPS.find((p) => p.name === name);

// ?preset=train-<task>&… → {values, explicit (set by the URL), messages (what was refused, and why)}.
export function readLabQuery(search) {
  const state = props.fromQuery(LAB_PROPS, search);
  const preset = new URLSearchParams(search).get('preset');
  if (preset) {
    const name = preset.replace(/^train-/, '');
    if (labProp('task').values.includes(name) && preset !== name) {
      if (!state.explicit.task) { state.values.task = name; state.explicit.task = true; }
    } else {
      state.messages.unshift('Unknown preset "' + preset.slice(0, 40) + '": the presets here are ' +
        labProp('task').values.map((t) => 'train-' + t).join(', ') + '.');
    }
  }
  return state;
}

// The share link's query: the preset, then what was set.
export function labQueryString(values, explicit) {
  const rest = props.toQuery(LAB_PROPS.filter((p) => p.name !== 'task'), values, explicit);
  return 'preset=train-' + encodeURIComponent(values.task) + (rest ? '&' + rest : '');
}
