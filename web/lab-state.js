// MHA Explorer — the training lab's state: one declarative property list feeds the URL, the controls,
// their validation and the <mha-explorer> element's attributes. No DOM here (Node tests import it).

export const TASKS = ['two-offsets', 'first-and-previous', 'reverse', 'induction'];
// Per task: its name, what it asks, the readouts' names and the first position each readout has a target.
export const TASK_TEXT = {
  'two-offsets': { title: 'Two offsets', hint: 'Predict the token one back and the token two back. Two heads split the work: one attends one token back, the other two back. One head cannot do both.', readouts: ['x[t−1]', 'x[t−2]'], from: [1, 2] },
  'first-and-previous': { title: 'First and previous', hint: 'Predict the first token and the previous one: one head learns a stripe on column 0, another a diagonal one token back.', readouts: ['x[0]', 'x[t−1]'], from: [0, 1] },
  'reverse': { title: 'Reverse', hint: 'Predict the sequence backwards, x[T−1−t]: the head learns the anti-diagonal (no causal mask here).', readouts: ['x[T−1−t]'], from: [0] },
  'induction': { title: 'Induction', hint: 'A random motif of 3–7 tokens repeats; predict the next token. Layer 0 learns "one token back", layer 1 an induction head (Olsson et al.).', readouts: ['next token'], from: [0] },
};
// model: the core's model-config field the property sets (its default then comes from the task's defaults);
// meta: the key of a saved file's __metadata__ that records it (wasm/bindings.cpp's metadata_of).
export const PROPS = [
  { name: 'task', meta: 'task', kind: 'enum', values: TASKS, def: 'two-offsets' },
  { name: 'heads', meta: 'num_heads', kind: 'enum', values: [1, 2, 4, 8], model: 'numHeads' },
  { name: 'layers', meta: 'layers', kind: 'enum', values: [1, 2], model: 'layers' },
  { name: 'dmodel', meta: 'd_model', kind: 'int', min: 1, max: 256, model: 'dModel' },
  { name: 'seqlen', meta: 'seq_len', kind: 'int', min: 2, max: 64, model: 'seqLen' },
  { name: 'vocab', meta: 'vocab', kind: 'int', min: 2, max: 128, model: 'vocab' },
  { name: 'batch', kind: 'int', min: 1, max: 256, def: 32 },
  { name: 'optimizer', kind: 'enum', values: ['sgd', 'adam', 'adamw'], def: 'adam' },
  { name: 'lr', kind: 'num', min: 1e-6, max: 10, def: 1e-2 },
  { name: 'seed', kind: 'int', min: 0, max: 4294967295, def: 0 },
  { name: 'speed', kind: 'enum', values: [1, 2, 5, 10, 25], def: 5 },
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
    if (TASKS.indexOf(task) >= 0 && preset !== task) { values.task = task; explicit.task = true; } else {
      messages.push('Unknown preset "' + preset.slice(0, 40) + '": the presets here are ' +
        TASKS.map(function (t) { return 'train-' + t; }).join(', ') + '.');
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

// The probe sequence the heads are shown on: 1 2 3 … (the motif 3 7 1 5 2 repeated for induction).
export function defaultProbe(cfg) {
  var out = [];
  if (cfg.task === 'induction') {
    var motif = [3, 7, 1, 5, 2].map(function (v) { return v % cfg.vocab; });
    for (var i = 0; i < cfg.seqLen; i++) out.push(motif[i % motif.length]);
  } else {
    for (var j = 0; j < cfg.seqLen; j++) out.push((j + 1) % cfg.vocab);
  }
  return out;
}

// The first position where readout r has a target (the task's -100 rule). Induction: once the motif starts
// repeating (its tokens are distinct, so the first repeat of x[0] ends it).
export function firstTarget(task, probe, r) {
  if (task !== 'induction') return TASK_TEXT[task].from[r];
  var p = probe.indexOf(probe[0], 1);
  return p < 0 ? probe.length : p - 1;
}
