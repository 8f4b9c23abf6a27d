// MHA Explorer — weights loaded from a .safetensors file, for the main page: the attention module's
// state_dict from the lessons' MultiHeadAttention (W_q.weight, W_q.bias, …, W_o.bias), one layer of the
// training lab's model (layers.<l>.W_q.weight, …), nn.MultiheadAttention's (in_proj_weight, in_proj_bias,
// out_proj.weight, out_proj.bias; q_proj_weight, … when kdim/vdim differ) or a module with q_proj / k_proj /
// v_proj / o_proj (or out_proj) linears, with or without biases. The core reads the file and checks every
// shape; this picks the module's entries, renames them to the lessons' names and says, in a student's words,
// what is missing. No DOM (Node tests import it).

const LINEARS = ['W_q', 'W_k', 'W_v', 'W_o'];
const MODULE_KEYS = LINEARS.reduce(function (keys, n) {
  return keys.concat([n + '.weight', n + '.bias']);
}, []);

function listNames(names) {
  const shown = names.slice(0, 6).join(', ');
  return names.length > 6 ? shown + ', … (' + names.length + ' tensors)' : shown || 'no tensors';
}

// The tensor that starts another layout, the first by name: {name, prefix, kind} or null.
function firstOtherLayout(names) {
  let found = null;
  names.forEach(function (n) {
    const m = /^(.*?)(in_proj_weight|q_proj_weight|q_proj\.weight)$/.exec(n);
    if (m && (!found || n < found.name)) found = { name: n, prefix: m[1], kind: m[2] };
  });
  return found;
}

// Rows [i·D, (i+1)·D) of a [3·D, …] tensor.
function rowsOf(t, i, D) {
  const cols = t.shape.length === 2 ? t.shape[1] : 1;
  return { shape: t.shape.length === 2 ? [D, cols] : [D], data: t.data.slice(i * D * cols, (i + 1) * D * cols) };
}

// The file's tensors under the layout's prefix: get(n) (or undefined), need(n) (or throws), py(n): the Python
// expression of it in the file's state_dict `state`.
function layoutReader(tensors, found) {
  const p = found.prefix;
  return {
    get: function (n) {
      return tensors[p + n];
    },
    need: function (n) {
      if (!tensors[p + n])
        throw new Error(
          'it has ' +
            found.name +
            ' but no ' +
            p +
            n +
            ': an attention module has four projections (Q, K, V and the output).',
        );
      return tensors[p + n];
    },
    py: function (n) {
      return 'state["' + p + n + '"]';
    },
  };
}

// nn.MultiheadAttention's in_proj_weight [3·D, D] (and in_proj_bias [3·D]) cut into Q, K and V:
// {weights: [{t, py}] × 3, biases: [{t, py} or null] × 3, from}.
function packedQKV(file, found) {
  const w = file.get('in_proj_weight');
  if (w.shape.length !== 2 || w.shape[0] !== 3 * w.shape[1]) {
    throw new Error(
      found.name +
        ' has shape [' +
        w.shape.join(', ') +
        ']; nn.MultiheadAttention packs Q, K and V as [3·d_model, d_model].',
    );
  }
  const D = w.shape[1],
    b = file.get('in_proj_bias');
  if (b && (b.shape.length !== 1 || b.shape[0] !== 3 * D))
    throw new Error(
      found.prefix + 'in_proj_bias has shape [' + b.shape.join(', ') + ']; it should be [' + 3 * D + '].',
    );
  const rows = function (i) {
    return '[' + i * D + ':' + (i + 1) * D + ']';
  };
  return {
    weights: [0, 1, 2].map(function (i) {
      return { t: rowsOf(w, i, D), py: file.py('in_proj_weight') + rows(i) };
    }),
    biases: [0, 1, 2].map(function (i) {
      return b ? { t: rowsOf(b, i, D), py: file.py('in_proj_bias') + rows(i) } : null;
    }),
    from: "nn.MultiheadAttention's in_proj_weight" + (b ? ' and in_proj_bias' : '') + ' and out_proj',
  };
}

// Separate q/k/v weights: q_proj.weight, … (linears) or q_proj_weight, … (nn.MultiheadAttention with kdim/vdim,
// whose biases stay packed in in_proj_bias): {weights, biases, from} as packedQKV's.
function separateQKV(file, found, outName) {
  const dotted = found.kind === 'q_proj.weight',
    wName = function (x) {
      return x + (dotted ? '_proj.weight' : '_proj_weight');
    };
  const weights = ['q', 'k', 'v'].map(function (x) {
    return { t: file.need(wName(x)), py: file.py(wName(x)) };
  });
  const biases = ['q', 'k', 'v'].map(function (x) {
    const n = dotted ? x + '_proj.bias' : 'in_proj_bias';
    const i = 'qkv'.indexOf(x),
      t = file.get(n);
    if (!t) return null;
    if (dotted) return { t: t, py: file.py(n) };
    const D = weights[0].t.shape[0];
    return { t: rowsOf(t, i, D), py: file.py(n) + '[' + i * D + ':' + (i + 1) * D + ']' };
  });
  const from = dotted
    ? 'q_proj, k_proj, v_proj and ' + outName
    : "nn.MultiheadAttention's q_proj_weight, k_proj_weight, v_proj_weight and out_proj";
  return { weights: weights, biases: biases, from: from };
}

// Biases on all four projections or on none; the number present.
function countBiases(biases) {
  const present = biases.filter(Boolean).length;
  if (present && present < 4) {
    const missing = LINEARS.filter(function (_, i) {
      return !biases[i];
    }).join(', ');
    throw new Error(
      'it has biases for some projections but not for ' +
        missing +
        ': a module has biases on all four (bias=True) or none (bias=False).',
    );
  }
  return present;
}

// Another module's layout as the lessons' names: {state: {W_q.weight: {shape, data}, …} with zero biases for a
// module without any, from: how the file names them, sources: {W_q.weight: the Python expression of it in the
// file's state_dict `state`}} — or null when the file has none of these layouts.
function otherLayout(tensors, names) {
  const found = firstOtherLayout(names);
  if (!found) return null;
  const file = layoutReader(tensors, found);
  const outName = file.get('o_proj.weight') ? 'o_proj' : 'out_proj';
  const qkv = found.kind === 'in_proj_weight' ? packedQKV(file, found) : separateQKV(file, found, outName);
  const weights = qkv.weights.concat([{ t: file.need(outName + '.weight'), py: file.py(outName + '.weight') }]);
  const ob = file.get(outName + '.bias');
  const biases = qkv.biases.concat([ob ? { t: ob, py: file.py(outName + '.bias') } : null]);
  const present = countBiases(biases);
  const state = {},
    sources = {};
  LINEARS.forEach(function (n, i) {
    const D = weights[i].t.shape[0];
    state[n + '.weight'] = weights[i].t;
    sources[n + '.weight'] = weights[i].py;
    state[n + '.bias'] = biases[i] ? biases[i].t : { shape: [D], data: new Float32Array(D) };
    sources[n + '.bias'] = biases[i] ? biases[i].py : 'torch.zeros(' + D + ')';
  });
  return { state: state, sources: sources, from: qkv.from + (present ? '' : ', without biases (zeros)') };
}

// The lab's layers as its state_dict names them: layers.<l>, l written as PyTorch writes it (no leading 0); sorted.
function labLayers(names) {
  const layers = [];
  names.forEach(function (n) {
    const m = /^layers\.(0|[1-9]\d{0,5})\.W_q\.weight$/.exec(n);
    if (m) layers.push(Number(m[1]));
  });
  return layers.sort(function (a, b) {
    return a - b;
  });
}

// Which layout a file without the lessons' top-level names has: {kind: 'model', layer, prefix} for the lab's model
// (the layer asked for, or its first when 0 was asked), {kind: 'module', other} for another module's, or throws.
function fileLayout(tensors, names, layers, layer) {
  const other = layers.length ? null : otherLayout(tensors, names);
  if (other) return { kind: 'module', prefix: '', layer: layer, other: other };
  if (!layers.length) {
    throw new Error(
      "it holds no attention weights. The page loads the lessons' MultiHeadAttention (W_q.weight, W_q.bias, …, " +
        "W_o.bias), the training lab's model (layers.0.W_q.weight, …), nn.MultiheadAttention (in_proj_weight, out_proj.weight, …) " +
        'or q_proj/k_proj/v_proj/o_proj; this file has ' +
        listNames(names) +
        '.',
    );
  }
  if (layers.indexOf(layer) < 0) {
    if (layer !== 0) throw new Error('it has no layer ' + layer + ': its layers are ' + layers.join(', ') + '.');
    layer = layers[0];
  }
  return { kind: 'model', prefix: 'layers.' + layer + '.', layer: layer, other: null };
}

// A file without any of the four biases (bias=False) with zero biases added: {source, other: {sources, from}}.
function withZeroBiases(tensors, names, prefix) {
  const bare = {};
  names.forEach(function (n) {
    bare[n] = tensors[n];
  });
  LINEARS.forEach(function (n) {
    const w = bare[prefix + n + '.weight'];
    if (w) bare[prefix + n + '.bias'] = { shape: [w.shape[0]], data: new Float32Array(w.shape[0]) };
  });
  const other = { sources: {}, from: 'a module without biases (zeros)' };
  LINEARS.forEach(function (n) {
    other.sources[n + '.weight'] = 'state["' + prefix + n + '.weight"]';
    other.sources[n + '.bias'] = 'torch.zeros(' + (bare[prefix + n + '.weight'] || { shape: [0] }).shape[0] + ')';
  });
  return { source: bare, other: other };
}

// The module's eight tensors from source (names under prefix), checked: {state, dModel}.
function moduleState(source, prefix, other, maxDModel) {
  const q = source[prefix + 'W_q.weight'];
  if (q.shape.length !== 2 || q.shape[0] !== q.shape[1]) {
    throw new Error(
      (other && other.state ? 'its query projection' : prefix + 'W_q.weight') +
        ' has shape [' +
        q.shape.join(', ') +
        "]; the lessons' MultiHeadAttention has square [d_model, d_model] weights (nn.Linear(d_model, d_model)).",
    );
  }
  const D = q.shape[0];
  if (D < 1 || D > maxDModel)
    throw new Error('its d_model is ' + D + '; the page shows d_model from 1 to ' + maxDModel + '.');
  const state = {};
  MODULE_KEYS.forEach(function (k) {
    if (!source[prefix + k]) {
      throw new Error(
        'it has no ' +
          prefix +
          k +
          ": the lessons' MultiHeadAttention has W_q, W_k, W_v and W_o, each an " +
          'nn.Linear with a weight and a bias (or, with bias=False, none of the four biases).',
      );
    }
    state[k] = source[prefix + k];
  });
  return { state: state, dModel: D };
}

// tensors: {name: {shape, data}} as the core's loadSafetensors gives; layer: the lab layer wanted (if any).
// → {state: {W_q.weight, …}, dModel, kind: 'module' | 'model', layer, layers, sources, from}, or throws an Error
// whose message completes "Could not load <file>: …". sources/from: set when the file used another layout.
export function attentionWeights(tensors, layer, maxDModel) {
  const names = Object.keys(tensors);
  const layers = labLayers(names);
  const layout = tensors['W_q.weight']
    ? { kind: 'module', prefix: '', layer: layer, other: null }
    : fileLayout(tensors, names, layers, layer);
  let source = layout.other ? layout.other.state : tensors,
    other = layout.other;
  const hasBias = function (n) {
    return source[layout.prefix + n + '.bias'];
  };
  if (!other && !LINEARS.some(hasBias)) {
    const zeros = withZeroBiases(tensors, names, layout.prefix);
    source = zeros.source;
    other = zeros.other;
  }
  const module = moduleState(source, layout.prefix, other, maxDModel);
  return {
    state: module.state,
    dModel: module.dModel,
    kind: layout.kind,
    layer: layout.kind === 'model' ? layout.layer : null,
    layers: layers,
    sources: other ? other.sources : null,
    from: other ? other.from : null,
  };
}

// The number of heads a file's metadata gives (the lab writes num_heads; a state_dict has no tensor for it):
// {heads: a whole number that divides d_model, or null; said: the raw value, when the file gave one}.
export function headsFromMetadata(metadata, dModel) {
  const raw = metadata && typeof metadata.num_heads === 'string' ? metadata.num_heads : null;
  const n = raw !== null && /^[1-9]\d{0,3}$/.test(raw) ? Number(raw) : null;
  return { heads: n !== null && dModel % n === 0 ? n : null, said: raw };
}

// The Python that loads the file into the snippet's `mha`: safetensors' load_file, or, without the package, a
// reader of the format (8-byte little-endian header size, JSON header, raw little-endian data).
export const PY_LOAD_FILE = [
  'import json',
  'try:',
  '    from safetensors.torch import load_file',
  'except ImportError:  # no safetensors package: read the format directly',
  '    def load_file(path):',
  '        with open(path, "rb") as f:',
  '            data = f.read()',
  '        n = int.from_bytes(data[:8], "little")',
  '        header = json.loads(data[8:8 + n])',
  '        header.pop("__metadata__", None)',
  '        dtypes = {"F32": torch.float32, "F64": torch.float64, "F16": torch.float16, "BF16": torch.bfloat16}',
  '        return {name: torch.frombuffer(bytearray(data[8 + n + t["data_offsets"][0]:8 + n + t["data_offsets"][1]]),',
  '                                       dtype=dtypes[t["dtype"]]).reshape(t["shape"]).float()',
  '                for name, t in header.items()}',
].join('\n');

// The line(s) after `mha = MultiHeadAttention(…)` that load the weights ({file, layer, sources, how}; sources: the
// lessons' names as expressions of the file's tensors, when it used another layout; how: what writes the file, when
// the page was given it rather than loading it).
export function pyLoadLines(w) {
  const path = JSON.stringify(w.file),
    where = '  # ' + (w.how || 'the file you loaded on the page, next to this notebook');
  if (w.sources) {
    return [
      'state = load_file(' + path + ')' + where,
      'mha.load_state_dict({' +
        MODULE_KEYS.map(function (k) {
          return '"' + k + '": ' + w.sources[k];
        }).join(',\n                     ') +
        '})',
    ];
  }
  if (w.layer === null || w.layer === undefined) return ['mha.load_state_dict(load_file(' + path + '))' + where];
  const p = 'layers.' + w.layer + '.';
  return [
    'state = load_file(' + path + ')' + where,
    'mha.load_state_dict({k[len("' +
      p +
      '"):]: v for k, v in state.items() if k.startswith("' +
      p +
      '")})  # layer ' +
      w.layer +
      " of the lab's model",
  ];
}
