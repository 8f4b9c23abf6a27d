// MHA Explorer — page state. ONE declarative list of properties drives the URL query, the
// validation of hostile or out-of-range input, and the defaults (TensorFlow Playground style).
// An ES module, bundled by web/build.mjs (esbuild) into a classic script: file:// keeps working.
import { LESSONS } from './lessons/index.js';

  var DEFAULT_TEXT = 'The cat sat on the mat because it was soft';
  var SECTIONS = ['header', 'input', 'controls', 'heads', 'detail', 'trace', 'lesson', 'share'];

  // name, type, default, range/values, help. `model: true` marks the properties a lesson preset
  // sets (an explicit URL value overrides the preset's).
  var PROPS = [
    { name: 'preset', type: 'enum', values: [''].concat(LESSONS.map(function (l) { return l.id; })), def: '',
      help: 'lesson example to open (empty: your own sentence)' },
    { name: 'view', type: 'enum', values: ['', 'heads', 'pipeline', 'module', 'loop', 'causal'], def: '',
      help: 'which example of a multi-example lesson (002) feeds the heatmaps' },
    { name: 'text', type: 'text', def: DEFAULT_TEXT, maxLength: 200000,
      help: 'the sentence (always rendered as text; the page keeps at most 512 tokens, cut so that links stay short)' },
    { name: 'dmodel', type: 'int', def: 64, min: 1, max: 1024, model: true, help: 'd_model, embedding width' },
    { name: 'heads', type: 'int', def: 4, min: 1, max: 1024, model: true, help: 'num_heads; must divide d_model' },
    { name: 'causal', type: 'bool', def: false, model: true, help: 'causal mask: no attention to later tokens' },
    { name: 'fill', type: 'enum', values: ['-inf', '-1e9'], def: '-inf', model: true, help: 'value written into masked scores' },
    { name: 'dropout', type: 'number', def: 0, min: 0, max: 0.9, model: true, help: 'dropout on the attention weights' },
    { name: 'train', type: 'bool', def: false, model: true, help: 'train mode (dropout active) instead of eval' },
    { name: 'seed', type: 'int', def: 0, min: 0, max: 4294967295, model: true, help: 'torch.manual_seed value' },
    { name: 'pos', type: 'bool', def: true, help: 'add sinusoidal position encodings to the token embeddings' },
    { name: 'head', type: 'int', def: 0, min: 0, max: 1023, help: 'selected head (enlarged and line view)' },
    { name: 'avg', type: 'bool', def: false, help: 'show the head average in the enlarged view' },
    { name: 'batch', type: 'int', def: 0, min: 0, max: 63, help: 'batch item shown when the input has B > 1' },
    { name: 'scale', type: 'enum', values: ['blues', 'cividis'], def: 'blues', help: 'colour scale (cividis is colour-blind safe)' },
    { name: 'norm', type: 'enum', values: ['shared', 'max', 'one'], def: 'shared',
      help: 'colour range: one 0..max scale for every head, each heatmap 0..its own max, or 0..1' },
    { name: 'theme', type: 'enum', values: ['auto', 'light', 'dark'], def: 'auto', help: 'colour theme' },
    { name: 'embed', type: 'bool', def: false, help: 'compact layout for iframes' },
    { name: 'hide', type: 'list', values: SECTIONS, def: [], help: 'sections to hide, comma separated' }
  ];
  var BY_NAME = {};
  PROPS.forEach(function (p) { BY_NAME[p.name] = p; });

  function fmtDefault(p) { return Array.isArray(p.def) ? p.def.join(',') : String(p.def); }

  // Parse one raw string for property p. Returns {ok, value, message}.
  function parseValue(p, raw) {
    var s = String(raw);
    var shown = s.length > 40 ? s.slice(0, 40) + '…' : s;
    function bad(why) {
      return { ok: false, message: 'URL parameter ' + p.name + '="' + shown + '" ' + why + '; using ' +
        (fmtDefault(p) === '' ? 'the default' : fmtDefault(p)) + '.' };
    }
    switch (p.type) {
      case 'int': {
        if (!/^\s*\d{1,10}\s*$/.test(s)) return bad('is not a whole number between ' + p.min + ' and ' + p.max);
        var n = parseInt(s, 10);
        if (n < p.min || n > p.max) return bad('is out of range (' + p.min + '–' + p.max + ')');
        return { ok: true, value: n };
      }
      case 'number': {
        if (!/^\s*\d*\.?\d+(e-?\d+)?\s*$/i.test(s)) return bad('is not a number between ' + p.min + ' and ' + p.max);
        var x = parseFloat(s);
        if (!(x >= p.min && x <= p.max)) return bad('is out of range (' + p.min + '–' + p.max + ')');
        return { ok: true, value: x };
      }
      case 'bool': {
        if (/^(1|true|yes|on)$/i.test(s)) return { ok: true, value: true };
        if (/^(0|false|no|off|)$/i.test(s)) return { ok: true, value: false };
        return bad('is not 0 or 1');
      }
      case 'enum': {
        var v = s === '-Infinity' && p.name === 'fill' ? '-inf' : s;
        if (p.values.indexOf(v) < 0) return bad('is not one of ' + p.values.filter(Boolean).join(', '));
        return { ok: true, value: v };
      }
      case 'list': {
        var items = s.split(',').map(function (t) { return t.trim(); }).filter(Boolean);
        var unknown = items.filter(function (t) { return p.values.indexOf(t) < 0; });
        if (unknown.length) return bad('names unknown sections (known: ' + p.values.join(', ') + ')');
        return { ok: true, value: items };
      }
      case 'text': {
        if (s.length > p.maxLength) {
          return { ok: true, value: s.slice(0, p.maxLength),
            message: 'The text is ' + s.length.toLocaleString('en-US') + ' characters long; only the first ' +
              p.maxLength.toLocaleString('en-US') + ' are used.' };
        }
        return { ok: true, value: s };
      }
    }
    return bad('is not understood');
  }

  function serializeValue(p, v) {
    if (p.type === 'bool') return v ? '1' : '0';
    if (p.type === 'list') return v.join(',');
    return String(v);
  }

  function defaults() {
    var s = {};
    PROPS.forEach(function (p) { s[p.name] = Array.isArray(p.def) ? p.def.slice() : p.def; });
    return s;
  }

  // State = {values, explicit: {name: true}}. `explicit` records what the URL or the user set,
  // so a preset supplies the rest and the URL stays short.
  function fromQuery(search) {
    var params;
    try { params = new URLSearchParams(search || ''); } catch (e) { params = new URLSearchParams(''); }
    var values = defaults();
    var explicit = {};
    var messages = [];
    PROPS.forEach(function (p) {
      if (!params.has(p.name)) return;
      var r = parseValue(p, params.get(p.name));
      if (r.message) messages.push(r.message);
      if (r.ok) { values[p.name] = r.value; explicit[p.name] = true; }
    });
    return { values: values, explicit: explicit, messages: messages };
  }

  function fromAttributes(el) {
    var q = new URLSearchParams();
    PROPS.forEach(function (p) { if (el.hasAttribute(p.name)) q.set(p.name, el.getAttribute(p.name)); });
    return q;
  }

  function toQuery(state) {
    var q = new URLSearchParams();
    PROPS.forEach(function (p) {
      if (!state.explicit[p.name]) return;
      var v = state.values[p.name];
      if (p.name !== 'preset' && serializeValue(p, v) === serializeValue(p, p.def) && !p.model) return;
      q.set(p.name, serializeValue(p, v));
    });
    return q.toString();
  }

  function set(state, name, value) {
    state.values[name] = value;
    state.explicit[name] = true;
  }

  const state = {
    PROPS: PROPS, BY_NAME: BY_NAME, SECTIONS: SECTIONS, DEFAULT_TEXT: DEFAULT_TEXT,
    parseValue: parseValue, serializeValue: serializeValue, defaults: defaults,
    fromQuery: fromQuery, fromAttributes: fromAttributes, toQuery: toQuery, set: set
  };
export default state;
