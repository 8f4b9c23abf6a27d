// @ts-check
// One property engine for the page's and the lab's property lists (state/page.js, state/lab.js): a property list
// drives the URL query, the validation of what a link, a control or a script gives (with a message a student
// understands), the defaults and the <mha-explorer> element's attributes (TensorFlow Playground style). No DOM.
//
// A property: {name, type, def, help?} and, by type,
//   int, number: min, max          bool          text: maxLength
//   enum: values (strings or numbers), aliases? ({raw: value})          list: values (a comma list of some of them)
// model: a property a lesson or a task sets (the page's lesson defaults, the lab's model config field); it is
// written to a link whenever it was set, even at its default.
// effect: what a new value needs (EFFECTS): 'rebuild' (the default: a new forward, a new model), 'redraw' (the same
// result drawn again), 'url' (only the address and what reads the value later: the lab's batch and speed).

/** @typedef {'rebuild' | 'redraw' | 'url'} Effect */
/**
 * @typedef {object} Prop
 * @property {string} name
 * @property {'int' | 'number' | 'bool' | 'enum' | 'list' | 'text'} type
 * @property {any} [def]
 * @property {string} [help]
 * @property {number} [min]
 * @property {number} [max]
 * @property {number} [maxLength]
 * @property {any[]} [values]
 * @property {Record<string, any>} [aliases]
 * @property {string | true} [model] a lesson's default (page), the core's config field (lab)
 * @property {boolean} [keep]
 * @property {string} [meta]
 * @property {Effect} [effect]
 */

/** @param {string} raw */
const shown = (raw) => (raw.length > 40 ? raw.slice(0, 40) + '…' : raw);
const defaultWords = (p) => {
  const d = p.def === undefined ? '' : serialize(p, p.def);
  return d === '' ? 'the default' : d;
};

// What a value of p is, in words: "a whole number from 0 to 4294967295", "one of 1, 2, 4, 8", …
export function describe(p) {
  switch (p.type) {
    case 'int':
      return 'a whole number from ' + p.min + ' to ' + p.max;
    case 'number':
      return 'a number from ' + p.min + ' to ' + p.max;
    case 'bool':
      return '0 or 1';
    case 'enum':
      return 'one of ' + p.values.filter((v) => v !== '').join(', ');
    case 'list':
      return 'a comma list of ' + p.values.join(', ');
    default:
      return 'text of at most ' + p.maxLength + ' characters';
  }
}

// Why raw is not a value of p, and what is used instead (instead: 'using 0', 'keeping 0.1').
export function refusal(p, raw, instead) {
  return (
    p.name +
    ' must be ' +
    describe(p) +
    '; ' +
    (instead || 'using ' + defaultWords(p)) +
    ' instead of "' +
    shown(String(raw)) +
    '".'
  );
}

function parseRaw(p, s) {
  switch (p.type) {
    case 'int': {
      if (!/^\s*\d{1,10}\s*$/.test(s)) return undefined;
      const n = parseInt(s, 10);
      return n >= p.min && n <= p.max ? n : undefined;
    }
    case 'number': {
      if (!/^\s*\d*\.?\d+(e-?\d+)?\s*$/i.test(s)) return undefined;
      const x = parseFloat(s);
      return x >= p.min && x <= p.max ? x : undefined;
    }
    case 'bool':
      if (/^(1|true|yes|on)$/i.test(s)) return true;
      return /^(0|false|no|off|)$/i.test(s) ? false : undefined;
    case 'enum': {
      const v = p.aliases && p.aliases[s] !== undefined ? p.aliases[s] : s;
      const i = p.values.findIndex((x) => String(x) === v);
      return i >= 0 ? p.values[i] : undefined;
    }
    case 'list': {
      const items = s
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      return items.every((t) => p.values.includes(t)) ? items : undefined;
    }
  }
  return undefined;
}

// One raw string (a link's, a control's, a script's, a file's) as p's value: {ok, value, message?}. A text that
// is too long is cut, and said.
export function parse(p, raw, instead) {
  const s = String(raw);
  if (p.type === 'text') {
    if (s.length <= p.maxLength) return { ok: true, value: s };
    return {
      ok: true,
      value: s.slice(0, p.maxLength),
      message:
        'The text is ' +
        s.length.toLocaleString('en-US') +
        ' characters long; only the first ' +
        p.maxLength.toLocaleString('en-US') +
        ' are used.',
    };
  }
  const value = parseRaw(p, s);
  return value === undefined ? { ok: false, message: refusal(p, s, instead) } : { ok: true, value };
}

export function serialize(p, v) {
  if (p.type === 'bool') return v ? '1' : '0';
  if (p.type === 'list') return v.join(',');
  return String(v);
}

/** @param {Prop[]} props @returns {Record<string, any>} */
export function defaults(props) {
  /** @type {Record<string, any>} */
  const values = {};
  for (const p of props) values[p.name] = Array.isArray(p.def) ? p.def.slice() : p.def;
  return values;
}

// A query string → {values, explicit: {name: true} for what it set, messages: what was refused, and why}.
/** @param {Prop[]} props @param {string} search
 *  @returns {{values: Record<string, any>, explicit: Record<string, boolean>, messages: string[]}} */
export function fromQuery(props, search) {
  let params;
  try {
    params = new URLSearchParams(search || '');
  } catch (e) {
    params = new URLSearchParams('');
  }
  /** @type {Record<string, boolean>} */
  const explicit = {};
  /** @type {string[]} */
  const messages = [];
  const values = defaults(props);
  for (const p of props) {
    if (!params.has(p.name)) continue;
    const r = parse(p, params.get(p.name));
    if (r.message) messages.push(r.message);
    if (r.ok) {
      values[p.name] = r.value;
      explicit[p.name] = true;
    }
  }
  return { values, explicit, messages };
}

// The query of what was set (explicit), in the list's order; a value at its default is left out unless the
// property is a model one (a lesson's or task's own value would apply instead) or keep says so.
export function toQuery(props, values, explicit) {
  const q = new URLSearchParams();
  for (const p of props) {
    if (!explicit[p.name] || values[p.name] === undefined) continue;
    const v = serialize(p, values[p.name]);
    if (!p.model && !p.keep && p.def !== undefined && v === serialize(p, p.def)) continue;
    q.set(p.name, v);
  }
  return q.toString();
}

// What a changed property needs, from least to most: the effect of a set of changes is the largest of theirs.
export const EFFECTS = ['url', 'redraw', 'rebuild'];
export const effectOf = (p) => p.effect || 'rebuild';
/** @param {Prop[]} list @param {string[]} names @returns {Effect} */
export function effectOfAll(list, names) {
  let most = 0;
  for (const n of names) {
    const p = list.find((q) => q.name === n);
    most = Math.max(most, EFFECTS.indexOf(p ? effectOf(p) : 'rebuild'));
  }
  return /** @type {Effect} */ (EFFECTS[most]);
}

// Raw values ({name: value}: a script's, a host's options, an element's attributes; an array for a list) parsed
// through the list: {values: {name: value} of those that passed, messages: why the others did not}. unknown(name)
// words a name the list does not have; current (the values now) words a refusal as the controls do ("keeping 8"):
// a refused value leaves the current one, not the default.
/** @param {Prop[]} list @param {Record<string, unknown>} raw @param {(name: string) => string} [unknown]
 *  @param {Record<string, any>} [current]
 *  @returns {{values: Record<string, any>, messages: string[]}} */
export function applyValues(list, raw, unknown = (name) => 'unknown property ' + name, current = undefined) {
  /** @type {Record<string, any>} */
  const values = {};
  /** @type {string[]} */
  const messages = [];
  for (const name of Object.keys(raw || {})) {
    const p = list.find((q) => q.name === name),
      v = raw[name];
    if (!p) {
      messages.push(unknown(name));
      continue;
    }
    const instead = current && current[name] !== undefined ? 'keeping ' + serialize(p, current[name]) : undefined;
    const r = parse(p, Array.isArray(v) ? v.join(',') : v, instead);
    if (r.ok) values[name] = r.value;
    else messages.push(r.message);
  }
  return { values, messages };
}

// The element's attributes and the parameters a host may pass: the names of one or more lists, each once.
export const names = (...lists) => [...new Set(lists.flat().map((p) => p.name))];
