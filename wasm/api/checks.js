// The shared argument checks: every message a student reads for a bad argument, before anything crosses into wasm.
import { MASK_MODES, MASK_MODE_WORDS, MAX_DIMS, MAX_DIM, MAX_ELEMENTS } from './protocol.js';

function fail(message) {
  throw new Error(message);
}

function describe(x) {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an array';
  if (typeof x === 'number') return String(x);
  if (typeof x === 'string') return JSON.stringify(x.length > 40 ? x.slice(0, 40) + '…' : x);
  return typeof x;
}

function isCount(x, min, max) {
  return typeof x === 'number' && Number.isInteger(x) && x >= min && x <= max;
}

function checkCount(x, name, min, max) {
  if (!isCount(x, min, max)) fail(`${name} must be a whole number from ${min} to ${max}, got ${describe(x)}`);
  return x;
}

function checkShape(shape, name) {
  if (!Array.isArray(shape))
    fail(`${name}: shape must be an array of sizes such as [2, 5, 32], got ${describe(shape)}`);
  if (shape.length > MAX_DIMS) fail(`${name}: at most ${MAX_DIMS} dimensions are supported, got ${shape.length}`);
  let n = 1;
  for (let i = 0; i < shape.length; i++) {
    if (!isCount(shape[i], 1, MAX_DIM)) checkCount(shape[i], `${name}: size ${i} of the shape`, 1, MAX_DIM);
    n *= shape[i];
  }
  if (n > MAX_ELEMENTS)
    fail(`${name}: shape [${shape.join(', ')}] holds more than ${MAX_ELEMENTS} numbers (the 256 MiB cap)`);
  return n;
}

function checkTensor(t, name) {
  if (t === null || typeof t !== 'object' || Array.isArray(t)) {
    fail(`${name} must be a tensor {shape, data}, got ${describe(t)}`);
  }
  const n = checkShape(t.shape, name);
  let data = t.data;
  if (Array.isArray(data)) {
    if (!data.every((v) => typeof v === 'number')) fail(`${name}: data must contain only numbers`);
    data = Float32Array.from(data);
  }
  if (!(data instanceof Float32Array))
    fail(`${name}: data must be a Float32Array (or an array of numbers), got ${describe(data)}`);
  if (data.length !== n) fail(`${name}: shape [${t.shape.join(', ')}] needs ${n} values, but data has ${data.length}`);
  return { shape: t.shape.slice(), data };
}

// Validated attention options with their defaults, in the form the core takes: needWeights,
// causal, fill, mode (index into MASK_MODES), and the mask tensors or null.
// extra: option names a caller reads itself (MultiHeadAttention.forward's heads).
function checkOptions(options, extra = []) {
  const out = { needWeights: true, causal: false, fill: -Infinity, mode: 0, mask: null, keyPaddingMask: null };
  if (options === undefined || options === null) return out;
  checkConfig(options, 'options', ['mask', 'maskMode', 'fill', 'causal', 'keyPaddingMask', 'needWeights', ...extra]);
  if (options.mask !== undefined && options.mask !== null) out.mask = checkTensor(options.mask, 'options.mask');
  if (options.maskMode !== undefined) {
    out.mode = MASK_MODES.indexOf(options.maskMode);
    if (out.mode < 0) {
      fail(`options.maskMode must be one of ${MASK_MODE_WORDS}; got ${describe(options.maskMode)}`);
    }
  }
  if (options.fill !== undefined) {
    if (typeof options.fill !== 'number' || Number.isNaN(options.fill) || options.fill === Infinity) {
      fail(`options.fill must be a number such as -Infinity or -1e9, got ${describe(options.fill)}`);
    }
    out.fill = options.fill;
  }
  for (const flag of ['causal', 'needWeights']) {
    if (options[flag] !== undefined) {
      if (typeof options[flag] !== 'boolean')
        fail(`options.${flag} must be true or false, got ${describe(options[flag])}`);
      out[flag] = options[flag];
    }
  }
  if (options.keyPaddingMask !== undefined && options.keyPaddingMask !== null) {
    out.keyPaddingMask = checkTensor(options.keyPaddingMask, 'options.keyPaddingMask');
  }
  return out;
}

// q, k and v checked; an argument passed again is the same checked tensor, so it is staged once.
function checkQkv(q, k, v, names) {
  const tq = checkTensor(q, names[0]);
  const tk = k === q ? tq : checkTensor(k, names[1]);
  const tv = v === q ? tq : v === k ? tk : checkTensor(v, names[2]);
  return [tq, tk, tv];
}

// A plain options object with only the known keys.
function checkConfig(config, name, known) {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    fail(`${name} expects an object {${known.join(', ')}}, got ${describe(config)}`);
  }
  for (const key of Object.keys(config)) {
    if (!known.includes(key)) fail(`${name}: unknown option '${key}'; the options are ${known.join(', ')}`);
  }
  return config;
}

function checkSeed(seed) {
  if (typeof seed !== 'number' || !Number.isSafeInteger(seed)) {
    fail(`the seed must be a whole number (like torch.manual_seed(0)), got ${describe(seed)}`);
  }
  return seed;
}

// The core answers {value} or {error}; errors become thrown Errors here.
function unwrap(result) {
  if (result.error !== undefined) fail(result.error);
  return result.value;
}

export {
  fail,
  describe,
  isCount,
  checkCount,
  checkShape,
  checkTensor,
  checkOptions,
  checkQkv,
  checkConfig,
  checkSeed,
  unwrap,
};
