// MHA Explorer JS API: the public names course pages and tests use.
//
// Appended to the Emscripten output (createMhaCore) by wasm/CMakeLists.txt; defines
// createMhaModule as a browser global and as Node's module.exports.
// This layer validates arguments (types, integrality, ranges, lengths) before they cross into
// wasm, turns the core's {error} results into thrown Errors, and owns object lifetimes.
/* global createMhaCore, MhaTokenizer */
var createMhaModule = (function () {
  'use strict';

  // The protocol's numbers come from the core (bindings.cpp, protocol()) when the first module starts:
  // mask modes by index, size limits, the tensor block header (uint32 rank, uint32 dims[maxDims], then the
  // floats), the result summary's slots, the largest model sizes (LIMITS) and the training tasks (the core's task table: name, title, brief,
  // readouts, roles, defaults).
  let MASK_MODES,
    MASK_MODE_WORDS,
    OPTIMIZER_CLASSES,
    MAX_DIMS,
    BLOCK_HEADER,
    MAX_DIM,
    MAX_ELEMENTS,
    MASKED_ROWS,
    HEADERS,
    TASKS,
    LIMITS;
  function readProtocol(core) {
    const p = core.protocol();
    MASK_MODES = p.maskModes;
    MASK_MODE_WORDS = MASK_MODES.map((m, i) => `'${m}' (${p.maskModeMeanings[i]})`).join(', ');
    OPTIMIZER_CLASSES = Object.freeze(p.optimizers.slice());
    MAX_DIMS = p.maxDims;
    BLOCK_HEADER = p.blockHeader;
    MAX_DIM = p.maxDim;
    MAX_ELEMENTS = p.maxElements;
    MASKED_ROWS = p.summaryMaskedRows;
    HEADERS = p.summaryHeaders;
    TASKS = deepFreeze(p.tasks);
    LIMITS = Object.freeze(p.limits);
  }
  function deepFreeze(x) {
    if (x !== null && typeof x === 'object') Object.values(x).forEach(deepFreeze);
    return Object.freeze(x);
  }
  // dist/mha-relaxed.js reports 'wasmsimd-relaxed': wasm/relax.mjs rewrites this line.
  const BUILD_SUFFIX = '';

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
    if (data.length !== n)
      fail(`${name}: shape [${t.shape.join(', ')}] needs ${n} values, but data has ${data.length}`);
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

  function wrap(core) {
    // Safety net for objects never .delete()d: free the wasm side when the wrapper is collected.
    const registry =
      typeof FinalizationRegistry === 'function'
        ? new FinalizationRegistry((handle) => {
            if (!handle.isDeleted()) handle.delete();
          })
        : null;

    function own(wrapper, handle) {
      wrapper._handle = handle;
      if (registry) registry.register(wrapper, handle, wrapper);
    }

    function release(wrapper, kind) {
      const handle = live(wrapper, kind);
      if (registry) registry.unregister(wrapper);
      handle.delete();
      wrapper._handle = null;
    }

    function live(wrapper, kind) {
      if (!wrapper._handle) fail(`this ${kind} was deleted; create a new one`);
      return wrapper._handle;
    }

    // Writes a validated tensor into wasm memory as a block; the caller frees it.
    function stage(t) {
      const addr = core._malloc(4 * (BLOCK_HEADER + t.data.length)) >>> 0; // unsigned: memory may pass 2 GB
      if (!addr)
        fail('out of memory: the browser could not give this tab enough memory for that size; try a smaller one');
      const at = addr >>> 2;
      const header = core.HEAPU32; // re-read after malloc: memory growth replaces the views
      header[at] = t.shape.length;
      for (let i = 0; i < t.shape.length; i++) header[at + 1 + i] = t.shape[i];
      core.HEAPF32.set(t.data, at + BLOCK_HEADER);
      return addr;
    }

    // The result slot's summary (bindings.cpp): data addresses [0, 1], fully masked rows [2],
    // then the output's and the weights' headers. The slot is static, so its address is fixed.
    const summary = core.resultSummaryAddress() >>> 2;

    // A copy of result tensor `which` (0 output, 1 weights) of the last raw call, or null.
    function readResult(which) {
      const heap = core.HEAPU32;
      const addr = heap[summary + which] >>> 2;
      if (!addr) return null;
      const h = summary + HEADERS + which * BLOCK_HEADER;
      const shape = Array.from(heap.subarray(h + 1, h + 1 + heap[h]));
      let n = 1;
      for (let i = 0; i < shape.length; i++) n *= shape[i];
      return { shape, data: core.HEAPF32.slice(addr, addr + n) };
    }

    // Stages the tensors (null stays 0; the same tensor is staged once), makes one core call,
    // and frees everything whatever happens. `call` gets the block addresses.
    function withStaged(tensors, call) {
      const staged = new Map(); // tensor → its block
      try {
        const addrs = tensors.map((t) => {
          if (!t) return 0;
          if (!staged.has(t)) staged.set(t, stage(t));
          return staged.get(t);
        });
        return call(...addrs);
      } finally {
        for (const addr of staged.values()) core._free(addr);
      }
    }

    // For core calls that leave tensors in the result slot: copies them out, or throws its message.
    function runRaw(tensors, call) {
      try {
        if (!withStaged(tensors, call)) fail(core.resultError());
        return { output: readResult(0), weights: readResult(1), fullyMaskedRows: core.HEAPU32[summary + MASKED_ROWS] };
      } finally {
        core.releaseResult();
      }
    }

    // An attention call of the core: q, k, v and the options' masks staged, then the core's argument order.
    function runAttention(qkv, o, call) {
      return runRaw([...qkv, o.mask, o.keyPaddingMask], (qa, ka, va, ma, pa) =>
        call(qa, ka, va, o.needWeights, o.causal, o.fill, o.mode, ma, pa),
      );
    }

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

    const TASK_NAMES = TASKS.map((t) => t.name);
    function taskDefaults(task) {
      const entry = TASKS.find((t) => t.name === task);
      if (!entry) fail(`task must be one of ${TASK_NAMES.join(', ')}; got ${describe(task)}`);
      return { ...entry.defaults };
    }
    const MODEL_OPTIONS = ['task', 'vocab', 'seqLen', 'dModel', 'numHeads', 'layers', 'causal', 'generator'];

    // A tiny attention model that learns a task (the core's TinyAttentionModel): token and position
    // embeddings, residual MultiHeadAttention layers, one linear readout per target.
    class TinyAttentionModel {
      constructor(config) {
        checkConfig(config, 'TinyAttentionModel', MODEL_OPTIONS);
        const task = config.task === undefined ? 'two-offsets' : config.task;
        const c = taskDefaults(task);
        for (const key of MODEL_OPTIONS) if (config[key] !== undefined) c[key] = config[key];
        checkCount(c.vocab, 'vocab', 2, LIMITS.vocab);
        checkCount(c.seqLen, 'seqLen', 2, LIMITS.seqLen);
        checkCount(c.dModel, 'dModel', 1, LIMITS.modelDModel);
        checkCount(c.numHeads, 'numHeads', 1, LIMITS.modelDModel);
        checkCount(c.layers, 'layers', 1, LIMITS.layers);
        if (typeof c.causal !== 'boolean') fail(`causal must be true or false, got ${describe(c.causal)}`);
        const g = checkGenerator(c.generator, 'generator');
        own(this, unwrap(core.modelCreate({ ...c, generator: undefined }, g)));
        this.config = Object.freeze({
          task,
          vocab: c.vocab,
          seqLen: c.seqLen,
          dModel: c.dModel,
          numHeads: c.numHeads,
          layers: c.layers,
          causal: c.causal,
        });
      }
      trainStep(optimizer, options = {}) {
        checkConfig(options, 'trainStep', ['batchSize']);
        const { batchSize = 32 } = options;
        checkCount(batchSize, 'batchSize', 1, LIMITS.batch);
        if (!(optimizer instanceof Optimizer))
          fail(`trainStep expects an optimizer (new M.Adam(model, {lr})), got ${describe(optimizer)}`);
        if (optimizer.model !== this) fail('this optimizer was made for another model');
        return unwrap(live(this, 'TinyAttentionModel').trainStep(live(optimizer, 'optimizer'), batchSize));
      }
      #tokens(tokens) {
        if (!Array.isArray(tokens) && !ArrayBuffer.isView(tokens))
          fail(`tokens must be an array of token ids such as [0, 3, 1], got ${describe(tokens)}`);
        const list = Array.from(tokens);
        checkCount(list.length, 'the number of tokens', 1, this.config.seqLen);
        list.forEach((t, i) => checkCount(t, `token ${i}`, 0, this.config.vocab - 1));
        return list;
      }
      // Loss and accuracy on a fresh batch from its own Generator(seed): the training stream is untouched.
      evaluate(options = {}) {
        checkConfig(options, 'evaluate', ['batchSize', 'seed']);
        const { batchSize = 256, seed = 1 } = options;
        checkCount(batchSize, 'batchSize', 1, LIMITS.batch);
        return unwrap(live(this, 'TinyAttentionModel').evaluate(batchSize, checkSeed(seed)));
      }
      attention(tokens) {
        return unwrap(live(this, 'TinyAttentionModel').attention(this.#tokens(tokens)));
      }
      predict(tokens) {
        return unwrap(live(this, 'TinyAttentionModel').predict(this.#tokens(tokens)));
      }
      roleScores() {
        return unwrap(live(this, 'TinyAttentionModel').roleScores());
      }
      // Per readout, the task's target at each position of `tokens` (-100 where there is nothing to predict).
      targets(tokens) {
        return unwrap(live(this, 'TinyAttentionModel').targets(this.#tokens(tokens)));
      }
      // The sequence of seqLen tokens the lab first shows the heads on (the task's example).
      example() {
        return unwrap(live(this, 'TinyAttentionModel').example());
      }
      shapeTrace(seqLen = this.config.seqLen) {
        checkCount(seqLen, 'seqLen', 1, this.config.seqLen);
        return unwrap(live(this, 'TinyAttentionModel').shapeTrace(seqLen));
      }
      ablate(layer, head, on = true) {
        checkCount(layer, 'layer', 0, this.config.layers - 1);
        checkCount(head, 'head', 0, this.config.numHeads - 1);
        if (typeof on !== 'boolean')
          fail(`ablate(layer, head, on) expects on to be true or false, got ${describe(on)}`);
        unwrap(live(this, 'TinyAttentionModel').ablate(layer, head, on));
        return this;
      }
      parameterCount() {
        return live(this, 'TinyAttentionModel').parameterCount();
      }
      zeroGrad() {
        live(this, 'TinyAttentionModel').zeroGrad();
        return this;
      }
      stateDict() {
        return unwrap(live(this, 'TinyAttentionModel').stateDict());
      }
      loadStateDict(state) {
        loadState(live(this, 'TinyAttentionModel'), state);
        return this;
      }
      toSafetensors() {
        return unwrap(live(this, 'TinyAttentionModel').toSafetensors());
      }
      toPyTorch(options = {}) {
        checkConfig(options, 'toPyTorch', ['steps', 'batchSize', 'optimizer', 'lossDigits', ...OPTIMIZER_OPTIONS]);
        const { steps = 200, batchSize = 32, optimizer = 'adam', lossDigits = 4, ...rest } = options;
        checkCount(steps, 'steps', 1, LIMITS.scriptSteps);
        checkCount(batchSize, 'batchSize', 1, LIMITS.batch);
        checkCount(lossDigits, 'lossDigits', 1, 9);
        const kind = optimizer instanceof Optimizer ? null : OPTIMIZERS[String(optimizer).toLowerCase()];
        const settings =
          optimizer instanceof Optimizer
            ? optimizer.options
            : kind
              ? optimizerSettings(kind, rest)
              : fail(`optimizer must be ${OPTIMIZER_WORDS} (or an optimizer), got ${describe(optimizer)}`);
        return unwrap(live(this, 'TinyAttentionModel').toPyTorch(steps, batchSize, settings, lossDigits));
      }
      delete() {
        release(this, 'TinyAttentionModel');
      }
    }

    // torch.optim's options, in camelCase; defaults as torch.optim's.
    const OPTIMIZER_OPTIONS = ['lr', 'momentum', 'dampening', 'nesterov', 'betas', 'eps', 'weightDecay'];
    // 'sgd' → 'SGD', …: the core's optimizers (protocol().optimizers), by their lower-case names too.
    const OPTIMIZERS = Object.fromEntries(OPTIMIZER_CLASSES.map((k) => [k.toLowerCase(), k]));
    const OPTIMIZER_WORDS = OPTIMIZER_CLASSES.map((k) => `'${k.toLowerCase()}'`)
      .join(', ')
      .replace(/, ([^,]*)$/, ' or $1');
    function optimizerSettings(kind, options) {
      checkConfig(
        options,
        kind,
        kind === 'SGD'
          ? ['lr', 'momentum', 'dampening', 'nesterov', 'weightDecay']
          : ['lr', 'betas', 'eps', 'weightDecay'],
      );
      const number = (x, name, fallback) => {
        if (x === undefined) return fallback;
        if (typeof x !== 'number' || !Number.isFinite(x)) fail(`${kind}: ${name} must be a number, got ${describe(x)}`);
        return x;
      };
      const betas = options.betas === undefined ? [0.9, 0.999] : options.betas;
      if (!Array.isArray(betas) || betas.length !== 2)
        fail(`${kind}: betas must be two numbers such as [0.9, 0.999], got ${describe(betas)}`);
      if (options.nesterov !== undefined && typeof options.nesterov !== 'boolean')
        fail(`${kind}: nesterov must be true or false`);
      return {
        kind,
        lr: number(options.lr, 'lr', 1e-3),
        momentum: number(options.momentum, 'momentum', 0),
        dampening: number(options.dampening, 'dampening', 0),
        nesterov: options.nesterov === true,
        beta1: number(betas[0], 'betas[0]', 0.9),
        beta2: number(betas[1], 'betas[1]', 0.999),
        eps: number(options.eps, 'eps', 1e-8),
        weightDecay: number(options.weightDecay, 'weightDecay', kind === 'AdamW' ? 1e-2 : 0),
      };
    }

    class Optimizer {
      constructor(kind, model, options) {
        if (!(model instanceof TinyAttentionModel))
          fail(`${kind} expects a TinyAttentionModel as its first argument, got ${describe(model)}`);
        this.options = Object.freeze(optimizerSettings(kind, options === undefined ? {} : options));
        this.model = model;
        own(this, unwrap(core.optimizerCreate(live(model, 'TinyAttentionModel'), this.options)));
      }
      get steps() {
        return live(this, 'optimizer').steps();
      }
      zeroGrad() {
        this.model.zeroGrad();
        return this;
      }
      delete() {
        release(this, 'optimizer');
      }
    }
    class SGD extends Optimizer {
      constructor(model, options) {
        super('SGD', model, options);
      }
    }
    class Adam extends Optimizer {
      constructor(model, options) {
        super('Adam', model, options);
      }
    }
    class AdamW extends Optimizer {
      constructor(model, options) {
        super('AdamW', model, options);
      }
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

    // ---- Real checkpoints (model_bindings.cpp) --------------------------------------------------

    const WEIGHTS = 'model.safetensors',
      INDEX = 'model.safetensors.index.json';
    const OUT_OF_MEMORY =
      'out of memory: the browser could not give this tab enough memory; close other tabs or try a smaller model';

    function isBlob(x) {
      return (
        x !== null &&
        typeof x === 'object' &&
        typeof x.size === 'number' &&
        typeof x.slice === 'function' &&
        typeof x.arrayBuffer === 'function'
      );
    }

    // Brand checks, true for a Uint8Array or ArrayBuffer of any realm (a page's parent window: instanceof is false)
    // and for nothing else (a Symbol.toStringTag cannot pass for one).
    const typedArrayTag = Object.getOwnPropertyDescriptor(
        Object.getPrototypeOf(Uint8Array.prototype),
        Symbol.toStringTag,
      ).get,
      bufferLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;
    const isUint8Array = (x) => typedArrayTag.call(x) === 'Uint8Array';
    function isArrayBuffer(x) {
      try {
        bufferLength.call(x);
        return true;
      } catch (e) {
        return false; // not an ArrayBuffer
      }
    }

    // One of loadModel's files as {name, size, bytes | blob | url}: a File, {name, bytes} with bytes a Uint8Array,
    // ArrayBuffer or Blob, or {name, url} (fetched when read; its size comes with the answer). A path keeps its last
    // part ('gpt2/config.json' is config.json).
    function checkFile(f, i) {
      const what = `files[${i}]`;
      if (f === null || typeof f !== 'object')
        fail(`${what} must be a File, {name, bytes} or {name, url}, got ${describe(f)}`);
      if (typeof f.name !== 'string' || f.name === '')
        fail(`${what} has no name: loadModel finds config.json, model.safetensors... by name`);
      const name = f.name.slice(f.name.lastIndexOf('/') + 1);
      const bytes = isBlob(f) ? f : f.bytes; // a File is a Blob (whose newer bytes() method is not our bytes)
      if (isUint8Array(bytes)) return { name, size: bytes.length, bytes };
      if (isArrayBuffer(bytes)) return { name, size: bytes.byteLength, bytes: new Uint8Array(bytes) };
      if (isBlob(bytes)) return { name, size: bytes.size, blob: bytes };
      if (bytes === undefined && (typeof f.url === 'string' || f.url instanceof URL)) {
        if (typeof fetch !== 'function') fail(`${what} (${name}): a url needs fetch(), which this JavaScript lacks`);
        return { name, size: undefined, url: String(f.url) };
      }
      return fail(
        `${what} (${name}): bytes must be a Uint8Array, ArrayBuffer or Blob (or url the file's address), got ${describe(bytes)}`,
      );
    }

    function checkFiles(files) {
      if (files === null || typeof files !== 'object' || typeof files[Symbol.iterator] !== 'function') {
        fail(
          `loadModel expects the checkpoint's files (an array or FileList of File, or of {name, bytes}), got ${describe(files)}`,
        );
      }
      const byName = new Map();
      Array.from(files).forEach((f, i) => {
        const file = checkFile(f, i);
        if (byName.has(file.name)) fail(`${file.name} was given twice`);
        byName.set(file.name, file);
      });
      return byName;
    }

    // ---- Reading the files, in order, without a file-sized temporary -------------------------------------------

    const READ_BUFFER = 4 << 20; // the buffer a file is read through (1-16 MiB measured alike: Chromium gives ≤ 2 MiB a read)
    const REOPEN = 1 << 20; // skipped bytes of a Blob past which its stream is reopened further on, not read over
    const EMPTY = new Uint8Array(0);

    // A file's bytes in order from `pos`: take(max) → the next 1..max bytes, a view valid until the next take. A
    // Blob's stream and a fetch's body are read by a BYOB reader refilling one buffer (a BYOB read cannot target
    // wasm memory: it would detach it); where a Blob's stream has no BYOB reader, slice().arrayBuffer() per buffer;
    // where a body has none, its chunks as they come. io: {signal, stop, open (every cursor, closed at the end)}.
    class FileCursor {
      constructor(file, pos, io) {
        Object.assign(this, { file, pos, io, view: EMPTY, used: 0, mode: 'memory', reader: null, buffer: null });
        io.open.push(this);
      }
      // A Blob from `pos`: its stream through a BYOB reader, else its slices. What is left of it, when one buffer
      // holds it, is one slice: Chromium's BYOB read of a small Blob's stream sometimes never answered while another
      // frame read a Blob (two model pages loading in one notebook: 1 load in 18–36 hung; DEVELOPERS.md).
      startBlob() {
        const blob = this.file.blob,
          whole = blob.size - this.pos <= READ_BUFFER,
          stream = !whole && typeof blob.stream === 'function' ? blob.slice(this.pos).stream() : null;
        this.mode = stream && this.byob(stream) ? 'byob' : 'slices';
        if (stream && this.mode === 'slices') stream.cancel().catch(() => {});
      }
      byob(stream) {
        try {
          this.reader = stream.getReader({ mode: 'byob' });
        } catch (e) {
          return false; // not a byte stream
        }
        this.buffer = this.buffer || new ArrayBuffer(READ_BUFFER);
        return true;
      }
      // A url: fetched from its start; the size from Content-Length (without one, the body whole, as a Blob).
      async fetchBody() {
        const { file, io } = this;
        let res;
        try {
          res = await fetch(file.url, { signal: io.signal });
        } catch (e) {
          io.stop();
          fail(`${file.name} could not be fetched from ${file.url} (${messageOf(e)})`);
        }
        if (!res.ok) {
          const status = `${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
          fail(`${file.name} could not be fetched: ${file.url} answered ${status}`);
        }
        const coding = res.headers.get('content-encoding'),
          length = res.headers.get('content-length');
        const size = length !== null && res.body && (!coding || coding === 'identity') ? Number(length) : NaN;
        if (!Number.isSafeInteger(size)) return this.wholeBody(res);
        if (file.size !== undefined && file.size !== size)
          fail(`${file.name} changed on the server while it was read (${file.size} bytes, then ${size})`);
        file.size = size;
        if (!this.byob(res.body)) {
          this.reader = res.body.getReader();
          this.mode = 'chunks';
        } else this.mode = 'byob';
      }
      async wholeBody(res) {
        try {
          this.file.blob = await res.blob();
        } catch (e) {
          this.io.stop();
          fail(this.readError(e));
        }
        this.file.size = this.file.blob.size;
        this.startBlob();
      }
      // The next bytes of the source at pos, or null at its end.
      async next() {
        const f = this.file;
        if (this.mode === 'memory') return this.pos < f.size ? f.bytes.subarray(this.pos) : null;
        if (this.mode === 'slices') {
          const end = Math.min(f.size, this.pos + READ_BUFFER);
          const v = this.pos < end ? new Uint8Array(await f.blob.slice(this.pos, end).arrayBuffer()) : EMPTY;
          return v.length ? v : null;
        }
        const { done, value } = await this.reader.read(this.mode === 'byob' ? new Uint8Array(this.buffer) : undefined);
        if (this.mode === 'byob' && value) this.buffer = value.buffer;
        return done ? null : value;
      }
      async fill() {
        let view;
        do {
          try {
            view = await this.next();
          } catch (e) {
            this.io.stop();
            fail(this.readError(e));
          }
          this.io.stop();
          if (view === null) {
            const { name, size } = this.file;
            fail(
              this.file.url && !this.file.blob
                ? `the download of ${name} ended after ${this.pos} of its ${size} bytes (${this.file.url})`
                : `${name} ended after ${this.pos} of its ${size} bytes: was it changed while it was read?`,
            );
          }
        } while (view.length === 0);
        this.view = view;
        this.used = 0;
      }
      readError(e) {
        const f = this.file;
        return f.url && !f.blob
          ? `the download of ${f.name} from ${f.url} failed after ${this.pos} of ${f.size} bytes (${messageOf(e)})`
          : `${f.name} could not be read (${messageOf(e)}): was it changed or moved since it was chosen?`;
      }
      async take(max) {
        this.io.stop();
        if (this.used === this.view.length) await this.fill();
        const n = Math.min(max, this.view.length - this.used);
        const out = this.view.subarray(this.used, this.used + n);
        this.used += n;
        this.pos += n;
        return out;
      }
      async skipTo(offset) {
        if (this.file.blob && offset - this.pos > this.view.length - this.used + REOPEN) {
          this.close();
          Object.assign(this, { pos: offset, view: EMPTY, used: 0 });
          this.startBlob();
        }
        while (this.pos < offset) await this.take(offset - this.pos);
      }
      // The next out.length - at bytes into out from at.
      async readInto(out, at = 0) {
        while (at < out.length) {
          const v = await this.take(out.length - at);
          out.set(v, at);
          at += v.length;
        }
        return out;
      }
      close() {
        if (this.reader) this.reader.cancel().catch(() => {});
        this.reader = null;
      }
    }

    function messageOf(e) {
      return e && typeof e.message === 'string' ? e.message : String(e);
    }

    // A cursor at byte pos of the file (a url is fetched: its size is known from then on).
    async function openCursor(file, pos, io) {
      const cursor = new FileCursor(file, 0, io);
      if (file.url && !file.blob) await cursor.fetchBody();
      else if (file.blob) {
        cursor.pos = pos;
        cursor.startBlob();
      } else cursor.pos = pos;
      await cursor.skipTo(pos);
      return cursor;
    }

    const MAX_TEXT = 256 << 20; // tokenizer.json of a 150k-token vocabulary: about 10 MB
    async function readText(file, io) {
      const cursor = await openCursor(file, 0, io);
      if (file.size > MAX_TEXT)
        fail(`${file.name} has ${file.size} bytes, too many for a JSON file of a checkpoint; is it the right file?`);
      const bytes = await cursor.readInto(new Uint8Array(file.size));
      cursor.close();
      try {
        return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch (e) {
        return fail(`${file.name} is not UTF-8 text; is it the right file?`);
      }
    }

    // Runs call(address) with `bytes` copied into wasm memory, freed after.
    function withBytes(bytes, call) {
      const addr = core._malloc(Math.max(1, bytes.length)) >>> 0;
      if (!addr) fail(OUT_OF_MEMORY);
      try {
        core.HEAPU8.set(bytes, addr);
        return call(addr);
      } finally {
        core._free(addr);
      }
    }

    // The largest token id tokenizer.json can produce (its vocabulary and added tokens), or -1.
    function tokenizerMaxId(json) {
      let max = -1;
      const vocab = json && json.model && json.model.vocab;
      if (Array.isArray(vocab))
        max = vocab.length - 1; // Unigram: [[piece, score], ...]
      else if (vocab && typeof vocab === 'object')
        for (const id of Object.values(vocab)) if (typeof id === 'number' && id > max) max = id;
      for (const t of json && Array.isArray(json.added_tokens) ? json.added_tokens : [])
        if (typeof t.id === 'number' && t.id > max) max = t.id;
      return max;
    }

    // tokenizer.json (with tokenizer_config.json when given) through the tokenizer module (wasm/tokenizer.mjs,
    // bundled as MhaTokenizer before this file), checked against the model's embedding; null without it.
    async function loadTokenizer(byName, info, io) {
      const file = byName.get('tokenizer.json');
      if (!file) return null;
      const text = await readText(file, io);
      let json;
      try {
        json = JSON.parse(text);
      } catch (e) {
        return fail(`tokenizer.json is not valid JSON (${e.message})`);
      }
      const maxId = tokenizerMaxId(json);
      if (maxId >= info.vocab) {
        fail(
          `tokenizer.json's vocabulary does not match the model: it has token ids up to ${maxId}, but the embedding has ` +
            `${info.vocab} rows (config.json's vocab_size); is the tokenizer from another model?`,
        );
      }
      const config = byName.get('tokenizer_config.json');
      return MhaTokenizer.loadTokenizer(text, config ? await readText(config, io) : null);
    }

    function checkLoadOptions(options) {
      checkConfig(options, 'loadModel options', ['onProgress', 'signal']);
      const { onProgress, signal } = options;
      if (onProgress !== undefined && typeof onProgress !== 'function')
        fail(`onProgress must be a function, got ${describe(onProgress)}`);
      if (
        signal !== undefined &&
        !(signal !== null && typeof signal === 'object' && typeof signal.aborted === 'boolean')
      ) {
        fail(`signal must be an AbortSignal (new AbortController().signal), got ${describe(signal)}`);
      }
      return { onProgress, signal };
    }

    // Each weight file's header (its first 8 bytes, then 8 + N) into the loader. Only the first file's cursor stays
    // open for the weights (a browser opens few connections per host: every shard's download at once could stall).
    async function addHeaders(loading, files, io) {
      for (const [i, file] of files.entries()) {
        io.stop();
        const cursor = await openCursor(file, 0, io);
        const first = await cursor.readInto(new Uint8Array(Math.min(8, file.size)));
        const n = unwrap(withBytes(first, (addr) => loading.headerBytes(file.name, addr, first.length, file.size)));
        const header = new Uint8Array(n);
        header.set(first);
        await cursor.readInto(header, first.length);
        io.stop();
        unwrap(withBytes(header, (addr) => loading.addFile(file.name, addr, header.length, file.size)));
        if (i > 0) cursor.close();
      }
    }

    // The plan's copies of each file, [offset in the file, length, address in wasm memory], in file order.
    function copiesByFile(plan) {
      const byFile = plan.files.map(() => []);
      for (const read of plan.reads) {
        const c = read.copies;
        for (let k = 0; k < c.length; k += 3) byFile[read.file].push([read.offset + c[k], c[k + 1], c[k + 2]]);
      }
      return byFile;
    }

    const REPORT = 4 << 20; // onProgress after every 4 MiB of weights and at the end of each file
    // Each file read once, in order, each byte of a kept tensor copied from the read buffer to its place in wasm
    // memory; the first file goes on from its header's cursor.
    async function fillWeights(plan, byName, onProgress, io) {
      const byFile = copiesByFile(plan);
      const total = byFile.reduce((sum, list) => list.reduce((s, c) => s + c[1], sum), 0);
      let loaded = 0,
        reported = 0;
      const report = (name) => {
        reported = loaded;
        if (onProgress) onProgress({ loaded, total, file: name });
      };
      report(plan.files[0]);
      for (const [f, copies] of byFile.entries()) {
        if (!copies.length) continue;
        const file = byName.get(plan.files[f]);
        const cursor = io.open.find((c) => c.file === file && c.reader) || (await openCursor(file, copies[0][0], io));
        for (const [offset, length, to] of copies) {
          await cursor.skipTo(offset);
          for (let done = 0; done < length;) {
            const bytes = await cursor.take(length - done);
            core.HEAPU8.set(bytes, to + done); // HEAPU8 re-read after every await: memory growth replaces the view
            done += bytes.length;
            loaded += bytes.length;
            if (loaded - reported >= REPORT) report(file.name);
          }
        }
        cursor.close();
        if (loaded > reported) report(file.name);
      }
    }

    // config.json and the weights' file or index among loadModel's files, or a message naming what is missing.
    function requiredFiles(byName) {
      const config =
        byName.get('config.json') ||
        fail(
          `config.json is missing: loadModel needs the checkpoint's config.json with its weights (given: ${[...byName.keys()].join(', ') || 'nothing'})`,
        );
      const index = byName.get(INDEX);
      if (!index && !byName.has(WEIGHTS)) {
        const other = [...byName.keys()].find((n) => /\.(bin|pt|pth|ckpt|h5|gguf|onnx)$/i.test(n));
        fail(
          `${WEIGHTS} is missing: loadModel reads the weights from model.safetensors, or from model.safetensors.index.json ` +
            `with its shards${other ? ` (${other} is another format: save the model with save_pretrained(..., safe_serialization=True))` : ''}`,
        );
      }
      return { config, index };
    }

    // A checkpoint's files → a Model: config.json, then model.safetensors (or the index and its shards), each
    // read once in order straight into wasm memory; optional tokenizer.json (+ tokenizer_config.json).
    async function loadModel(files, options = {}) {
      const { onProgress, signal } = checkLoadOptions(options === undefined ? {} : options);
      const byName = checkFiles(files);
      const stop = () => {
        if (signal && signal.aborted)
          throw signal.reason !== undefined ? signal.reason : new Error('the load was cancelled');
      };
      const io = { signal, stop, open: [] };
      stop();
      const { config, index } = requiredFiles(byName);
      let loading = null,
        handle = null;
      try {
        loading = unwrap(core.modelLoadingCreate(await readText(config, io)));
        let weightFiles = [byName.get(WEIGHTS)];
        if (index)
          weightFiles = unwrap(loading.addIndex(await readText(index, io)))
            .filter((n) => byName.has(n))
            .map((n) => byName.get(n));
        await addHeaders(loading, weightFiles, io);
        const plan = unwrap(loading.plan());
        await fillWeights(plan, byName, onProgress, io);
        handle = unwrap(loading.finish());
        const info = Object.freeze(handle.info());
        const tokenizer = await loadTokenizer(byName, info, io);
        stop();
        const model = new Model(handle, info, tokenizer);
        handle = null;
        return model;
      } finally {
        for (const cursor of io.open) cursor.close(); // a download cancelled, not left running
        if (loading) loading.delete();
        if (handle) handle.delete();
      }
    }

    function checkIds(ids, info) {
      if (!Array.isArray(ids) && !(ArrayBuffer.isView(ids) && !(ids instanceof DataView))) {
        fail(
          `forward expects token ids (an array of whole numbers, as model.tokenize(text).ids gives), got ${describe(ids)}`,
        );
      }
      const list = Array.from(ids);
      if (list.length === 0) fail('forward needs at least one token id');
      if (list.length > info.maxPositions) {
        fail(
          `${list.length} tokens are more than this model's ${info.maxPositions} positions (config.json's max_position_embeddings); shorten the text`,
        );
      }
      list.forEach((t, i) => {
        if (!isCount(t, 0, info.vocab - 1))
          fail(
            `token id ${i} must be a whole number from 0 to ${info.vocab - 1} (the model's vocabulary), got ${describe(t)}`,
          );
      });
      return list;
    }

    function checkForwardOptions(options, info, T) {
      checkConfig(options, 'forward options', ['headsOff', 'logitsAt', 'attentions']);
      const { headsOff = [], logitsAt = [], attentions = true } = options;
      if (typeof attentions !== 'boolean')
        fail(
          `attentions must be true or false (false: no attention weights, a faster forward), got ${describe(attentions)}`,
        );
      if (!Array.isArray(headsOff))
        fail(`headsOff must be a list of [layer, head] pairs such as [[0, 3]], got ${describe(headsOff)}`);
      headsOff.forEach((pair, i) => {
        if (!Array.isArray(pair) || pair.length !== 2)
          fail(`headsOff[${i}] must be a [layer, head] pair, got ${describe(pair)}`);
        checkCount(pair[0], `headsOff[${i}]'s layer`, 0, info.layers - 1);
        checkCount(pair[1], `headsOff[${i}]'s head`, 0, info.heads - 1);
      });
      if (!Array.isArray(logitsAt))
        fail(`logitsAt must be a list of positions such as [${T - 1}], got ${describe(logitsAt)}`);
      if (logitsAt.length > 0 && !info.hasLmHead)
        fail(`this ${info.modelType} checkpoint has no LM or MLM head: it gives no logits`);
      logitsAt.forEach((p, i) => checkCount(p, `logitsAt[${i}]`, 0, T - 1));
      return { headsOff: headsOff.map((p) => [p[0], p[1]]), logitsAt: logitsAt.slice(), attentions };
    }

    // A loaded checkpoint: info, tokenize, forward, dispose (its memory, weights and activations cache, back to the
    // core).
    class Model {
      #tokenizer;
      constructor(handle, info, tokenizer) {
        own(this, handle);
        this.info = info;
        this.#tokenizer = tokenizer;
      }
      tokenize(text) {
        live(this, 'model');
        if (typeof text !== 'string') fail(`tokenize expects a string, got ${describe(text)}`);
        if (!this.#tokenizer)
          fail(
            'this model was loaded without tokenizer.json: give it to loadModel with the other files (or pass token ids to forward)',
          );
        return this.#tokenizer.encode(text);
      }
      forward(ids, options = {}) {
        const handle = live(this, 'model');
        const list = checkIds(ids, this.info);
        const o = checkForwardOptions(options === undefined ? {} : options, this.info, list.length);
        return unwrap(handle.forward(list, o.headsOff, o.logitsAt, o.attentions));
      }
      get disposed() {
        return !this._handle;
      }
      dispose() {
        if (this._handle) release(this, 'model');
      }
    }

    return {
      Generator,
      MultiHeadAttention,
      TinyAttentionModel,
      SGD,
      Adam,
      AdamW,
      readSafetensors,
      loadModel,
      loadSafetensors: (bytes) => readSafetensors(bytes).tensors,
      tasks: TASK_NAMES,
      taskTable: TASKS,
      optimizers: OPTIMIZER_CLASSES,
      limits: LIMITS,
      modelDefaults: taskDefaults,
      implementation: core.implementation() + BUILD_SUFFIX,
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
      viewError: () => core.viewError(),
      // The compiled WebAssembly.Module: createMhaModule({wasmModule}) in a worker instantiates it without compiling.
      wasmModule: core.wasmModule,
      memoryStats: () => core.memoryStats(),
    };
  }

  return async function createMhaModule(moduleOverrides) {
    const core = await createMhaCore(moduleOverrides || {});
    readProtocol(core);
    return wrap(core);
  };
})();

if (typeof module === 'object' && module.exports) module.exports = createMhaModule;
