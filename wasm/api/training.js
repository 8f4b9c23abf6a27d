// Training: the core's task table, TinyAttentionModel and its optimizers (SGD, Adam, AdamW).
import { LIMITS, TASKS, OPTIMIZER_CLASSES } from './protocol.js';
import { fail, describe, checkCount, checkConfig, checkSeed, unwrap } from './checks.js';

// tensors: what tensorsApi gives (a model's generator, loadStateDict).
export function trainingApi({ core, own, release, live }, { checkGenerator, loadState }) {
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
      if (typeof on !== 'boolean') fail(`ablate(layer, head, on) expects on to be true or false, got ${describe(on)}`);
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

  return { TinyAttentionModel, SGD, Adam, AdamW, TASK_NAMES, taskDefaults };
}
