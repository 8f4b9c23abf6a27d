// MHA Explorer — the training lab's state: one declarative property list feeds the URL, the controls,
// their validation and the <mha-explorer> element's attributes. No DOM here (Node tests import it).

// The training tasks: the core's task table (wasm/bindings.cpp's protocol(), M.taskTable: name, title, brief,
// readouts, roles, defaults), which the lab receives from its worker and installs with useTasks before it reads
// the URL. Until then the list is empty and no task is valid.
export var TASKS = [];
export function useTasks(table) {
  TASKS = table.slice();
  prop('task').values = TASKS.map(function (t) { return t.name; });
}
export function task(name) { return TASKS.find(function (t) { return t.name === name; }); }
// model: the core's model-config field the property sets (its default then comes from the task's defaults);
// meta: the key of a saved file's __metadata__ that records it (wasm/bindings.cpp's metadata_of).
export const PROPS = [
  { name: 'task', meta: 'task', kind: 'enum', values: [], def: 'two-offsets' },
  { name: 'heads', meta: 'num_heads', kind: 'enum', values: [1, 2, 4, 8], model: 'numHeads' },
  { name: 'layers', meta: 'layers', kind: 'enum', values: [1, 2], model: 'layers' },
  { name: 'dmodel', meta: 'd_model', kind: 'int', min: 1, max: 256, model: 'dModel' },
  { name: 'seqlen', meta: 'seq_len', kind: 'int', min: 2, max: 64, model: 'seqLen' },
  { name: 'vocab', meta: 'vocab', kind: 'int', min: 2, max: 128, model: 'vocab' },
  { name: 'batch', kind: 'int', min: 1, max: 256, def: 32 },
  { name: 'optimizer', kind: 'enum', values: ['sgd', 'adam', 'adamw'], def: 'adam' },
  { name: 'lr', kind: 'num', min: 1e-6, max: 10, def: 1e-2 },
  { name: 'seed', kind: 'int', min: 0, max: 4294967295, def: 0 },
  { name: 'speed', kind: 'enum', values: [1, 2, 5, 10, 25], def: 1 },
  { name: 'compare', kind: 'bool', def: false },
  { name: 'autoplay', kind: 'bool', def: false },
  { name: 'embed', kind: 'bool', def: false },
  { name: 'hide', kind: 'list', values: ['header', 'controls', 'progress', 'heads', 'closer', 'pytorch', 'share'], def: [] },
  { name: 'theme', kind: 'enum', values: ['auto', 'light', 'dark'], def: 'auto' },
];
export const OPTIMIZER_NAMES = { sgd: 'SGD', adam: 'Adam', adamw: 'AdamW' };

export function prop(name) { return PROPS.find(function (p) { return p.name === name; }); }

// A raw URL or control value as the property's value, or undefined when it is not one.
export function parse(p, raw) {
  raw = String(raw);
  if (p.kind === 'list') {
    var items = raw.split(',').filter(Boolean);
    return items.every(function (i) { return p.values.indexOf(i) >= 0; }) ? items : undefined;
  }
  if (p.kind === 'bool') return raw === '1' || raw === 'true' ? true : raw === '0' || raw === 'false' ? false : undefined;
  if (p.kind === 'enum') return p.values.find(function (x) { return String(x) === raw; });
  var n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < p.min || n > p.max || (p.kind === 'int' && !Number.isInteger(n))) return undefined;
  return n;
}
export function describe(p) {
  return p.kind === 'list' ? 'a comma list of ' + p.values.join(', ') : p.kind === 'enum' ? 'one of ' + p.values.join(', ') :
    p.kind === 'bool' ? '0 or 1' : (p.kind === 'int' ? 'a whole number' : 'a number') + ' from ' + p.min + ' to ' + p.max;
}

// ?preset=train-<task>&… → {values, explicit (set by the URL), messages (what was refused, and why)}.
export function fromQuery(search) {
  var q = new URLSearchParams(search), values = {}, explicit = {}, messages = [];
  PROPS.forEach(function (p) { values[p.name] = Array.isArray(p.def) ? p.def.slice() : p.def; });
  var preset = q.get('preset');
  if (preset) {
    var task = preset.replace(/^train-/, '');
    if (prop('task').values.indexOf(task) >= 0 && preset !== task) { values.task = task; explicit.task = true; } else {
      messages.push('Unknown preset "' + preset.slice(0, 40) + '": the presets here are ' +
        prop('task').values.map(function (t) { return 'train-' + t; }).join(', ') + '.');
    }
  }
  PROPS.forEach(function (p) {
    if (!q.has(p.name)) return;
    var v = parse(p, q.get(p.name));
    if (v === undefined) messages.push(p.name + ' must be ' + describe(p) + '; using the default.');
    else { values[p.name] = v; explicit[p.name] = true; }
  });
  return { values: values, explicit: explicit, messages: messages };
}

// The share link's query: the preset, then what was set explicitly (model fields only when set).
export function toQuery(values, explicit) {
  var q = new URLSearchParams();
  q.set('preset', 'train-' + values.task);
  PROPS.forEach(function (p) {
    if (p.name === 'task' || values[p.name] === undefined) return;
    if (!explicit[p.name] && (p.def !== undefined || p.model)) return;
    q.set(p.name, p.kind === 'bool' ? (values[p.name] ? '1' : '0') : p.kind === 'list' ? values[p.name].join(',') : String(values[p.name]));
  });
  return '?' + q.toString();
}
