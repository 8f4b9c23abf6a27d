// Tensors and attention: Generator, MultiHeadAttention, readSafetensors and the functions on tensors (matmul,
// softmax, scaledDotProductAttention, the lessons' pieces).
import { MAX_DIM, LIMITS } from './protocol.js';
import {
  fail,
  describe,
  checkCount,
  checkShape,
  checkTensor,
  checkOptions,
  checkQkv,
  checkConfig,
  checkSeed,
  unwrap,
} from './checks.js';

export function tensorsApi({ core, own, release, live, withStaged, runRaw, runAttention }) {
  // What MultiHeadAttention.forward returns: {output, weights, fullyMaskedRows} and `trace`, the
  // shape table, computed by the core when first read (a getter: spread or structuredClone skip it).
  class ForwardResult {
    #traceArgs;
    #trace = null;
    constructor(raw, traceArgs) {
      this.output = raw.output;
      this.weights = raw.weights;
      this.fullyMaskedRows = raw.fullyMaskedRows;
      this.#traceArgs = traceArgs;
    }
    get trace() {
      if (!this.#trace) this.#trace = unwrap(core.shapeTrace(...this.#traceArgs));
      return this.#trace;
    }
  }

  class Generator {
    constructor(seed = 67280421310721) {
      own(this, unwrap(core.generatorCreate(checkSeed(seed))));
    }
    manualSeed(seed) {
      unwrap(live(this, 'Generator').manualSeed(checkSeed(seed)));
      return this;
    }
    initialSeed() {
      return live(this, 'Generator').initialSeed();
    }
    rand(shape) {
      checkShape(shape, 'rand');
      return unwrap(live(this, 'Generator').rand(shape));
    }
    randn(shape) {
      checkShape(shape, 'randn');
      return unwrap(live(this, 'Generator').randn(shape));
    }
    delete() {
      release(this, 'Generator');
    }
  }

  function checkHeads(heads, H) {
    if (heads === undefined) return [0, H];
    const whole = (x) => typeof x === 'number' && Number.isInteger(x);
    if (
      !Array.isArray(heads) ||
      heads.length !== 2 ||
      !whole(heads[0]) ||
      !whole(heads[1]) ||
      !(heads[0] >= 0 && heads[0] < heads[1] && heads[1] <= H)
    ) {
      fail(
        `options.heads must be [start, end): two whole numbers with 0 <= start < end <= numHeads (${H}), such as [0, ${Math.max(1, H >> 1)}]; got ${Array.isArray(heads) ? `[${heads.map(describe).join(', ')}]` : describe(heads)}`,
      );
    }
    return heads;
  }

  function checkGenerator(g, name) {
    if (!(g instanceof Generator)) fail(`${name} must be a Generator (new M.Generator(seed)), got ${describe(g)}`);
    return live(g, 'Generator');
  }

  class MultiHeadAttention {
    constructor(config) {
      checkConfig(config, 'MultiHeadAttention', ['dModel', 'numHeads', 'bias', 'dropout', 'generator']);
      const { dModel, numHeads, bias = true, dropout = 0, generator } = config;
      checkCount(dModel, 'dModel', 1, LIMITS.dModel);
      checkCount(numHeads, 'numHeads', 1, LIMITS.dModel);
      if (typeof bias !== 'boolean') fail(`bias must be true or false, got ${describe(bias)}`);
      if (typeof dropout !== 'number' || !(dropout >= 0 && dropout < 1)) {
        fail(`dropout must be a number in [0, 1), got ${describe(dropout)}`);
      }
      const g = checkGenerator(generator, 'generator');
      own(this, unwrap(core.mhaCreate({ dModel, numHeads, bias, dropout }, g)));
      this.dModel = dModel;
      this.numHeads = numHeads;
      this.dK = dModel / numHeads;
    }
    // options.heads = [start, end): only those heads' part (their weights, and their term of W_o's sum; the
    // bias in the part that starts at head 0): the parts of a partition of the heads sum to the whole output.
    forward(q, k = q, v = k, options = {}) {
      const h = live(this, 'MultiHeadAttention');
      const o = checkOptions(options, ['heads']);
      const [h0, h1] = checkHeads(options && options.heads, this.numHeads);
      const [tq, tk, tv] = checkQkv(q, k, v, ['query', 'key', 'value']);
      const raw = runAttention([tq, tk, tv], o, (...args) => h.forward(...args, h0, h1));
      return new ForwardResult(raw, [tq.shape[0], tq.shape[1], this.dModel, this.numHeads, tk.shape[1]]);
    }
    parameterCount() {
      return live(this, 'MultiHeadAttention').parameterCount();
    }
    parameters() {
      return unwrap(live(this, 'MultiHeadAttention').parameters());
    }
    train(on = true) {
      if (typeof on !== 'boolean') fail(`train(mode) expects true or false, got ${describe(on)}`);
      live(this, 'MultiHeadAttention').setTraining(on);
      return this;
    }
    eval() {
      return this.train(false);
    }
    get training() {
      return live(this, 'MultiHeadAttention').training();
    }
    stateDict() {
      return unwrap(live(this, 'MultiHeadAttention').stateDict());
    }
    loadStateDict(state) {
      loadState(live(this, 'MultiHeadAttention'), state);
      return this;
    }
    toSafetensors() {
      return unwrap(live(this, 'MultiHeadAttention').toSafetensors());
    }
    delete() {
      release(this, 'MultiHeadAttention');
    }
  }

  // {name: tensor} (an object or a Map, as stateDict() and loadSafetensors() give) into a module.
  function loadState(handle, state) {
    const entries =
      state instanceof Map
        ? [...state.entries()]
        : state !== null && typeof state === 'object' && !Array.isArray(state)
          ? Object.keys(state).map((k) => [k, state[k]])
          : fail(
              `loadStateDict expects {name: {shape, data}} (as stateDict() or loadSafetensors() give), got ${describe(state)}`,
            );
    const names = entries.map(([name]) => String(name));
    const tensors = entries.map(([name, t]) => checkTensor(t, `'${name}'`));
    unwrap(withStaged(tensors, (...addrs) => handle.loadStateDict(names, addrs)));
  }

  // A .safetensors file as {tensors: {name: {shape, data}}, metadata: {key: value}} (objects without a
  // prototype, so any name is a plain key); a damaged file throws a message naming what is wrong.
  function readSafetensors(bytes) {
    if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
    if (!(bytes instanceof Uint8Array))
      fail(`expected the file's bytes (a Uint8Array or ArrayBuffer), got ${describe(bytes)}`);
    if (bytes.length > 0x7fffffff) fail('this file is larger than 2 GiB, more than a browser tab can load');
    const addr = core._malloc(Math.max(1, bytes.length)) >>> 0;
    if (!addr) fail('out of memory: the browser could not give this tab enough memory for that file');
    try {
      core.HEAPU8.set(bytes, addr);
      const file = unwrap(core.readSafetensors(addr, bytes.length));
      const tensors = Object.create(null),
        metadata = Object.create(null);
      file.names.forEach((name, i) => {
        tensors[name] = file.tensors[i];
      });
      for (const [key, value] of file.metadata) metadata[key] = value;
      return { tensors, metadata };
    } finally {
      core._free(addr);
    }
  }

  // The module's functions on tensors, in the order createMhaModule lists them.
  const functions = {
    matmul: (a, b) =>
      runRaw([checkTensor(a, 'matmul: a'), checkTensor(b, 'matmul: b')], (x, y) => core.matmul(x, y)).output,
    softmax: (t, dim = -1) => {
      checkCount(dim, 'softmax: dim', -8, 7);
      return runRaw([checkTensor(t, 'softmax: input')], (x) => core.softmax(x, dim)).output;
    },
    splitHeads: (t, numHeads) => {
      checkCount(numHeads, 'numHeads', 1, LIMITS.dModel);
      return runRaw([checkTensor(t, 'splitHeads: input')], (x) => core.splitHeads(x, numHeads)).output;
    },
    mergeHeads: (t) => runRaw([checkTensor(t, 'mergeHeads: input')], (x) => core.mergeHeads(x)).output,
    scaledDotProductAttention: (q, k, v, options = {}) => {
      const o = checkOptions(options);
      return runAttention(checkQkv(q, k, v, ['q', 'k', 'v']), o, core.scaledDotProductAttention);
    },
    shapeTrace: (config) => {
      checkConfig(config, 'shapeTrace', ['batch', 'seqLen', 'dModel', 'numHeads', 'kvLen']);
      const { batch, seqLen, dModel, numHeads, kvLen = seqLen } = config;
      checkCount(batch, 'batch', 1, MAX_DIM);
      checkCount(seqLen, 'seqLen', 1, MAX_DIM);
      checkCount(kvLen, 'kvLen', 1, MAX_DIM);
      checkCount(dModel, 'dModel', 1, LIMITS.dModel);
      checkCount(numHeads, 'numHeads', 1, LIMITS.dModel);
      return unwrap(core.shapeTrace(batch, seqLen, dModel, numHeads, kvLen));
    },
    parameterScenarios: (dModel, numHeads) =>
      unwrap(
        core.parameterScenarios(
          checkCount(dModel, 'dModel', 1, LIMITS.dModel),
          checkCount(numHeads, 'numHeads', 1, LIMITS.dModel),
        ),
      ),
    mixThenSplit: (config = {}) => {
      checkConfig(config, 'mixThenSplit', ['seed', 'dModel', 'outputIndex', 'generator']);
      const { seed = 1, dModel = 8, outputIndex = 3, generator } = config;
      checkCount(dModel, 'dModel', 1, LIMITS.dModel);
      checkCount(outputIndex, 'outputIndex', 0, dModel - 1);
      if (generator !== undefined)
        return unwrap(checkGenerator(generator, 'generator').mixThenSplit(dModel, outputIndex));
      const g = new Generator(checkSeed(seed));
      try {
        return unwrap(g._handle.mixThenSplit(dModel, outputIndex));
      } finally {
        g.delete();
      }
    },
    headSpecialization: (tokens) => {
      if (!Array.isArray(tokens) || !tokens.every((t) => typeof t === 'string')) {
        fail('headSpecialization expects an array of token strings');
      }
      checkCount(tokens.length, 'the number of tokens', 1, LIMITS.specializationTokens);
      return unwrap(core.headSpecialization(tokens));
    },
    loopVsVectorized: (mha, x, options = {}) => {
      if (!(mha instanceof MultiHeadAttention))
        fail(`loopVsVectorized expects a MultiHeadAttention, got ${describe(mha)}`);
      const h = live(mha, 'MultiHeadAttention');
      const o = checkOptions(options);
      return unwrap(
        withStaged([checkTensor(x, 'x'), o.mask, o.keyPaddingMask], (xa, ma, pa) =>
          h.loopVsVectorized(xa, o.causal, o.fill, o.mode, ma, pa),
        ),
      );
    },
  };

  return { Generator, MultiHeadAttention, checkGenerator, loadState, readSafetensors, functions };
}
