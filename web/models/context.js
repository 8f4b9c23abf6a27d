// MHA Explorer, the model page — one page's context: its elements ($(id)), its state S (the model, the text's forward,
// the selection, the scores, the heads off) and its messages, status line and progress bar. The page's modules
// (loading, forward, panels, api) each take it.
import { showMessages } from '../chrome/messages.js';
import { IOI } from './patching.js';

// Lesson 004's sentence: which head links "it" to "road"?
export const DEFAULT_TEXT = "The chicken didn't cross the road because it was too wide.";

// The sentence the text's embedding is compared with (a sentence-transformers model).
export const OTHER_TEXT = 'The road was too wide for the chicken to cross.';

// A layer or head given as text (models.html's layer= or head=, an element's attribute) → {value} or {message}: a whole
// number from 0 (which ones the model has is known once it is loaded: loading.js's show).
/** @param {string} name @param {string} raw */
export function readIndex(name, raw) {
  if (/^\s*\d{1,9}\s*$/.test(raw)) return { value: parseInt(raw, 10) };
  return { message: name + ' must be a whole number from 0; using ' + name + ' 0 instead of "' + raw + '".' };
}
const startIndex = (params, name, said) => {
  const r = params.has(name) ? readIndex(name, params.get(name)) : { value: 0 };
  if (r.message) said.push(r.message);
  return r.message ? 0 : r.value;
};

// params: the page's URLSearchParams (text, layer, head, theme, model).
export function createContext(root, params) {
  const said = [];
  const $ = (id) => root.querySelector('#' + id);
  const S = {
    model: null,
    info: null,
    vocab: null,
    source: null, // the loaded model, its tokenizer's names, where it came from
    text: params.has('text') ? params.get('text') : DEFAULT_TEXT,
    enc: null,
    out: null,
    pos: -1,
    fullLogits: null, // the text's tokens, forward, predicted position and logits
    full: [],
    ablated: [],
    headsOff: [],
    offOut: null, // the attentions with the heads off (forward.js), shown as attnMode says (ablated-view.js)
    attnMode: 'ablated',
    ablation: 'zero', // how the heads off are switched off (ablation-mode.js): 'zero', 'mean' or 'resample'
    resampleText: IOI[1], // resample's other text
    weighting: 'attention', // the maps drawn: 'attention' (α), or 'norm' (α·‖v·W_O‖, writes-view.js)
    writes: null, // [L, H, T] ‖v_j·W_O^h‖ of the text (the full model's), when the norm view asked for it
    range: 'one', // the grid's colours: 0 to 1 ('one'), to each layer's ('layer') or each head's ('head') largest
    repeat: null,
    scores: null, // top 5s, heads off, the repeated sequence, role scores
    sel: { layer: startIndex(params, 'layer', said), head: startIndex(params, 'head', said) },
    role: '',
    minScore: 0,
    order: 'grid',
    query: null,
    key: -1,
    lookAll: false,
    loading: null,
    theme: params.get('theme') || 'auto',
    sentence: null, // a sentence-transformers folder's pooling (sentence.js), else null
    other: params.has('other') ? params.get('other') : OTHER_TEXT, // the text the sentence embedding compares with
    follow: null, // {text, id}: the token the predictions follow (id -1: not one token)
    embed: null, // embedding.js's: the texts' embeddings with and without the heads off
  };
  const messages = {
    core: '',
    load: '',
    unused: '', // the loaded model's warnings: what of its files it does not use
    select: said.join(' '),
    repeat: '',
    text: '',
    sentence: '',
    worker: '', // the model on the page's thread (its worker did not start), or a restart that failed
  };
  const ctx = {
    root,
    $,
    S,
    messages,
    view: null,
    grid: null,
    say: (kind, text) => {
      messages[kind] = text || '';
      showMessages($('messages'), Object.values(messages).filter(Boolean));
    },
    status: (text) => {
      $('status').textContent = text;
    },
    // the progress bar: text (null hides it) and the fraction done
    progress: (text, fraction) => {
      $('progress-box').hidden = text == null;
      if (text == null) return;
      $('progress-text').textContent = text;
      $('progress').value = Number.isFinite(fraction) ? Math.max(0, Math.min(1, fraction)) : 0;
    },
    // a token id as the page shows it (vocab.js's text: decoded byte-level BPE, ## marked)
    tokenText: (id) => (S.vocab.textOf ? S.vocab.textOf(id) : S.vocab.tokenOf(id)),
    shown: () => 'Showing ' + (S.source.folder || 'the model') + '.',
  };
  return ctx;
}
