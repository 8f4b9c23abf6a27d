// MHA Explorer — weights loaded from a .safetensors file, for the main page: the attention module's
// state_dict from the lessons' MultiHeadAttention (W_q.weight, W_q.bias, …, W_o.bias) or one layer of the
// training lab's model (layers.<l>.W_q.weight, …). The core reads the file and checks every shape; this
// picks the module's entries and says, in a student's words, what is missing. No DOM (Node tests import it).

const LINEARS = ['W_q', 'W_k', 'W_v', 'W_o'];
const MODULE_KEYS = LINEARS.reduce(function (keys, n) { return keys.concat([n + '.weight', n + '.bias']); }, []);

function listNames(names) {
  var shown = names.slice(0, 6).join(', ');
  return names.length > 6 ? shown + ', … (' + names.length + ' tensors)' : shown || 'no tensors';
}

// tensors: {name: {shape, data}} as the core's loadSafetensors gives; layer: the lab layer wanted (if any).
// → {state: {W_q.weight, …}, dModel, kind: 'module' | 'model', layer, layers}, or throws an Error whose
// message completes "Could not load <file>: …".
export function attentionWeights(tensors, layer, maxDModel) {
  var names = Object.keys(tensors);
  // the lab's layers as its state_dict names them: layers.<l>, l written as PyTorch writes it (no leading 0)
  var layers = [];
  names.forEach(function (n) {
    var m = /^layers\.(0|[1-9]\d{0,5})\.W_q\.weight$/.exec(n);
    if (m) layers.push(Number(m[1]));
  });
  layers.sort(function (a, b) { return a - b; });
  var prefix = '', kind = 'module';
  if (!tensors['W_q.weight']) {
    if (!layers.length) {
      throw new Error('it holds no attention weights. The page loads the lessons\' MultiHeadAttention (W_q.weight, W_q.bias, …, ' +
        'W_o.bias) or the training lab\'s model (layers.0.W_q.weight, …); this file has ' + listNames(names) + '.');
    }
    kind = 'model';
    if (layers.indexOf(layer) < 0) {
      if (layer !== 0) throw new Error('it has no layer ' + layer + ': its layers are ' + layers.join(', ') + '.');
      layer = layers[0];
    }
    prefix = 'layers.' + layer + '.';
  }
  var q = tensors[prefix + 'W_q.weight'];
  if (q.shape.length !== 2 || q.shape[0] !== q.shape[1]) {
    throw new Error(prefix + 'W_q.weight has shape [' + q.shape.join(', ') + ']; the lessons\' MultiHeadAttention has square ' +
      '[d_model, d_model] weights (nn.Linear(d_model, d_model)).');
  }
  var D = q.shape[0];
  if (D < 1 || D > maxDModel) throw new Error('its d_model is ' + D + '; the page shows d_model from 1 to ' + maxDModel + '.');
  var state = {};
  MODULE_KEYS.forEach(function (k) {
    if (!tensors[prefix + k]) {
      throw new Error('it has no ' + prefix + k + ': the lessons\' MultiHeadAttention has W_q, W_k, W_v and W_o, each an ' +
        'nn.Linear with a weight and a bias.');
    }
    state[k] = tensors[prefix + k];
  });
  return { state: state, dModel: D, kind: kind, layer: kind === 'model' ? layer : null, layers: layers };
}

// The number of heads a file's metadata gives (the lab writes num_heads; a state_dict has no tensor for it):
// {heads: a whole number that divides d_model, or null; said: the raw value, when the file gave one}.
export function headsFromMetadata(metadata, dModel) {
  var raw = metadata && typeof metadata.num_heads === 'string' ? metadata.num_heads : null;
  var n = raw !== null && /^[1-9]\d{0,3}$/.test(raw) ? Number(raw) : null;
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
  '                for name, t in header.items()}'
].join('\n');

// The line(s) after `mha = MultiHeadAttention(…)` that load the weights ({file, layer}).
export function pyLoadLines(w) {
  var path = JSON.stringify(w.file);
  if (w.layer === null || w.layer === undefined) return ['mha.load_state_dict(load_file(' + path + '))  # the file you loaded on the page, next to this notebook'];
  var p = 'layers.' + w.layer + '.';
  return ['state = load_file(' + path + ')  # the file you loaded on the page, next to this notebook',
    'mha.load_state_dict({k[len("' + p + '"):]: v for k, v in state.items() if k.startswith("' + p + '")})  # layer ' + w.layer + ' of the lab\'s model'];
}
