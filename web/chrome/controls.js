// @ts-check
// The controls of a property list (state/props.js), bound by their name= attributes: the page's and the lab's
// markup name each control after its property, so one loop reads a changed control through the property engine
// (a typed value that is refused keeps the value in use, and says so) and one loop shows the values in them.
import { parse, serialize } from '../state/props.js';

/** @typedef {import('../state/props.js').Prop} Prop */
/** @typedef {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} Control */

// The controls under root named after a property of list (others, such as the lab's probe, are left alone).
/** @param {ParentNode} root @param {Prop[]} list @returns {Control[]} */
export function controlsOf(root, list) {
  return /** @type {Control[]} */ (Array.from(root.querySelectorAll('[name]'))).filter((e) =>
    list.some((p) => p.name === e.getAttribute('name')),
  );
}

/** @param {Control} e */
const isCheckbox = (e) => e instanceof HTMLInputElement && e.type === 'checkbox';
// A control a student types into (a refusal of its value is said; a choice from a list is never refused).
/** @param {Control} e */
export const typedControl = (e) =>
  e instanceof HTMLTextAreaElement || (e instanceof HTMLInputElement && e.type !== 'checkbox');

// onValue(name, result, control): a control changed; result is parse()'s {ok, value, message} with 'keeping <the
// value in use>' as the refusal's way out. list: the property list, or a function giving it when a control changes
// (the lab's task values come with the core's task table). current(name): the value in use. skip: names bound elsewhere.
/**
 * @param {Control[]} controls @param {Prop[] | (() => Prop[])} list
 * @param {(name: string, result: {ok: boolean, value?: any, message?: string}, control: Control) => void} onValue
 * @param {(name: string) => any} current @param {AbortSignal} [signal] @param {string[]} [skip]
 */
export function bindControls(controls, list, onValue, current, signal, skip = []) {
  const listNow = typeof list === 'function' ? list : () => list;
  for (const e of controls) {
    const name = e.getAttribute('name') || '';
    if (skip.includes(name)) continue;
    e.addEventListener(
      'change',
      () => {
        const p = listNow().find((q) => q.name === name);
        if (!p) return;
        const raw = isCheckbox(e) ? (/** @type {HTMLInputElement} */ (e).checked ? '1' : '0') : e.value;
        onValue(name, parse(p, raw, 'keeping ' + serialize(p, current(name))), e);
      },
      signal ? { signal } : undefined,
    );
  }
}

// values shown in the controls, each written only when it differs (no needless style or layout work).
/** @param {Control[]} controls @param {Prop[]} list @param {Record<string, any>} values @param {string[]} [skip] */
export function showValues(controls, list, values, skip = []) {
  for (const e of controls) {
    const name = e.getAttribute('name') || '',
      p = list.find((q) => q.name === name);
    if (!p || skip.includes(name) || values[name] === undefined) continue;
    if (isCheckbox(e)) {
      const box = /** @type {HTMLInputElement} */ (e);
      if (box.checked !== !!values[name]) box.checked = !!values[name];
    } else {
      const text = p.type === 'bool' ? (values[name] ? '1' : '0') : serialize(p, values[name]);
      if (e.value !== text) e.value = text;
    }
  }
}

// A select's options, filled once: choices (a property's values) with their labels.
/** @param {HTMLSelectElement} select @param {any[]} choices @param {(v: any) => string} [label] */
export function fillSelect(select, choices, label) {
  if (select.options.length) return;
  for (const v of choices) select.appendChild(new Option(label ? label(v) : String(v), String(v)));
}
