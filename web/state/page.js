// @ts-check
// The page's property list (props.js's engine): its URL parameters, their ranges and defaults. `model: true` marks
// the properties a lesson sets (an explicit URL value overrides the lesson's); `effect: 'redraw'` those that need no
// new forward (the controls redraw the result they have). No DOM.
import { LESSONS } from '../lessons/catalogue.js';
import * as props from './props.js';
import { SCALE_NAMES, DEFAULT_SCALE } from './scales.js';

export const DEFAULT_TEXT = 'The cat sat on the mat because it was soft';
export const SECTIONS = ['header', 'input', 'controls', 'heads', 'detail', 'trace', 'lesson', 'share'];

/** @type {import('./props.js').Prop[]} */
export const PAGE_PROPS = [
  {
    name: 'preset',
    type: 'enum',
    values: ['', ...LESSONS.map((l) => l.id)],
    def: '',
    keep: true,
    help: 'lesson example to open (empty: your own sentence)',
  },
  {
    name: 'view',
    type: 'enum',
    values: ['', 'heads', 'pipeline', 'module', 'loop', 'causal'],
    def: '',
    help: 'which example of a multi-example lesson (002) feeds the heatmaps',
  },
  {
    name: 'text',
    type: 'text',
    def: DEFAULT_TEXT,
    maxLength: 200000,
    help: 'the sentence (always rendered as text; the page keeps at most 512 tokens, cut so that links stay short)',
  },
  { name: 'dmodel', type: 'int', def: 64, min: 1, max: 1024, model: true, help: 'd_model, embedding width' },
  { name: 'heads', type: 'int', def: 4, min: 1, max: 1024, model: true, help: 'num_heads; must divide d_model' },
  { name: 'causal', type: 'bool', def: false, model: true, help: 'causal mask: no attention to later tokens' },
  {
    name: 'fill',
    type: 'enum',
    values: ['-inf', '-1e9'],
    aliases: { '-Infinity': '-inf' },
    def: '-inf',
    model: true,
    help: 'value written into masked scores',
  },
  { name: 'dropout', type: 'number', def: 0, min: 0, max: 0.9, model: true, help: 'dropout on the attention weights' },
  { name: 'train', type: 'bool', def: false, model: true, help: 'train mode (dropout active) instead of eval' },
  { name: 'seed', type: 'int', def: 0, min: 0, max: 4294967295, model: true, help: 'torch.manual_seed value' },
  { name: 'pos', type: 'bool', def: true, help: 'add sinusoidal position encodings to the token embeddings' },
  {
    name: 'head',
    type: 'int',
    effect: 'redraw',
    def: 0,
    min: 0,
    max: 1023,
    help: 'selected head (enlarged and line view)',
  },
  { name: 'avg', type: 'bool', effect: 'redraw', def: false, help: 'show the head average in the enlarged view' },
  {
    name: 'batch',
    type: 'int',
    effect: 'redraw',
    def: 0,
    min: 0,
    max: 63,
    help: 'batch item shown when the input has B > 1',
  },
  {
    name: 'scale',
    type: 'enum',
    effect: 'redraw',
    values: SCALE_NAMES,
    def: DEFAULT_SCALE,
    help: 'colour scale (cividis is colour-blind safe)',
  },
  {
    name: 'norm',
    type: 'enum',
    effect: 'redraw',
    values: ['shared', 'max', 'one'],
    def: 'shared',
    help: 'colour range: one 0..max scale for every head, each heatmap 0..its own max, or 0..1',
  },
  {
    name: 'theme',
    type: 'enum',
    effect: 'redraw',
    values: ['auto', 'light', 'dark'],
    def: 'auto',
    help: 'colour theme',
  },
  { name: 'embed', type: 'bool', def: false, help: 'compact layout for iframes' },
  { name: 'hide', type: 'list', values: SECTIONS, def: [], help: 'sections to hide, comma separated' },
];
const BY_NAME = Object.fromEntries(PAGE_PROPS.map((p) => [p.name, p]));
/** @param {string} name */
export const pageProp = (name) => BY_NAME[name];

// The page's state: {values, explicit: {name: true} (what the URL or the user set: a lesson supplies the rest, and
// the URL stays short), messages (what the URL gave that was refused)}.
/** @param {string} search */
export const readPageQuery = (search) => props.fromQuery(PAGE_PROPS, search);
/** @param {{values: Record<string, any>, explicit: Record<string, boolean>}} state */
export const pageQueryString = (state) => props.toQuery(PAGE_PROPS, state.values, state.explicit);
/** @param {{values: Record<string, any>, explicit: Record<string, boolean>}} state @param {string} name @param {any} value */
export function setValue(state, name, value) {
  state.values[name] = value;
  state.explicit[name] = true;
}
