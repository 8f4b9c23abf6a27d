// What heads do to the answer (analysis_bindings.cpp, mha/analysis.hpp): a loaded causal model's generate, lens,
// attribute, patch and meanAblation, added to models.js's Model. Arguments are checked here with messages; the core checks them again.
import { PATCH_KINDS } from './protocol.js';
import { fail, describe, isCount, checkConfig, checkSeed, unwrap } from './checks.js';

const GENERATE_OPTIONS = ['maxNewTokens', 'temperature', 'topK', 'topP', 'seed', 'eos', 'onToken', 'signal'];
const PATCH_OPTIONS = ['clean', 'corrupted', 'tokens', 'what', 'signal', 'onProgress'];
const TOP_K_DEFAULT = 50; // transformers' GenerationConfig.top_k: generate(do_sample=True) applies it unless told 0

function causal(model, what) {
  if (!model.info.causal || !model.info.hasLmHead)
    fail(`${what} needs a causal model with a language-model head (this is a ${model.info.modelType} model)`);
}

// The lens reads every layer through the model's head: a causal LM's, or an encoder's MLM head (BERT, DistilBERT).
function withHead(model) {
  if (!model.info.hasLmHead)
    fail(
      `the logit lens needs a language-model head (a causal LM's, or an encoder's MLM head: this ${model.info.modelType} model has none)`,
    );
}

function checkSignal(signal) {
  if (signal !== undefined && !(signal !== null && typeof signal === 'object' && typeof signal.aborted === 'boolean'))
    fail(`signal must be an AbortSignal (new AbortController().signal), got ${describe(signal)}`);
}

function promptIds(ids, info, what) {
  if (!Array.isArray(ids) && !(ArrayBuffer.isView(ids) && !(ids instanceof DataView)))
    fail(
      `${what} expects token ids (an array of whole numbers, as model.tokenize(text).ids gives), got ${describe(ids)}`,
    );
  const list = Array.from(ids);
  if (list.length === 0) fail(`${what} needs at least one token id`);
  if (list.length > info.maxPositions)
    fail(`${list.length} tokens are more than this model's ${info.maxPositions} positions; shorten the text`);
  list.forEach((t, i) => {
    if (!isCount(t, 0, info.vocab - 1))
      fail(`token ${i} is ${describe(t)}: token ids are whole numbers from 0 to ${info.vocab - 1}`);
  });
  return list;
}

function checkGenerate(options, info) {
  checkConfig(options, 'generate options', GENERATE_OPTIONS);
  const { maxNewTokens = 20, temperature, topK, topP, seed, eos, onToken, signal } = options;
  if (!isCount(maxNewTokens, 1, info.maxPositions))
    fail(`maxNewTokens must be a whole number from 1 to ${info.maxPositions}, got ${describe(maxNewTokens)}`);
  const sample = [temperature, topK, topP, seed].some((x) => x !== undefined);
  if (
    temperature !== undefined &&
    !(typeof temperature === 'number' && temperature > 0 && Number.isFinite(temperature))
  )
    fail(`temperature must be a positive number (1 leaves the logits as they are), got ${describe(temperature)}`);
  if (topK !== undefined && !isCount(topK, 0, info.vocab))
    fail(`topK must be a whole number from 0 (off) to ${info.vocab}, got ${describe(topK)}`);
  if (topP !== undefined && !(typeof topP === 'number' && topP > 0 && topP <= 1))
    fail(`topP must be a number in (0, 1] (1 keeps every token), got ${describe(topP)}`);
  if (seed !== undefined) checkSeed(seed);
  if (eos !== undefined && !isCount(eos, 0, info.vocab - 1))
    fail(`eos must be a token id from 0 to ${info.vocab - 1}, got ${describe(eos)}`);
  if (onToken !== undefined && typeof onToken !== 'function')
    fail(`onToken must be a function, got ${describe(onToken)}`);
  checkSignal(signal);
  return {
    maxNewTokens,
    sample,
    temperature: temperature === undefined ? 1 : temperature,
    topK: topK === undefined ? (sample ? TOP_K_DEFAULT : 0) : topK,
    topP: topP === undefined ? 1 : topP,
    seed: seed === undefined ? 0 : seed,
    eos: eos === undefined ? -1 : eos,
    onToken,
    signal,
  };
}

function checkTokens(tokens, info, max, min = 1) {
  const says = min === max ? 'two token ids [a, b]' : 'one token id [a], or two [a, b] for a difference';
  if (!Array.isArray(tokens) || tokens.length < min || tokens.length > max)
    fail(`tokens must be ${says} (the metric is logit[a] - logit[b]), got ${describe(tokens)}`);
  tokens.forEach((t) => {
    if (!isCount(t, 0, info.vocab - 1)) fail(`token ${describe(t)} is not a token id from 0 to ${info.vocab - 1}`);
  });
}

function checkPatch(options, info) {
  checkConfig(options, 'patch options', PATCH_OPTIONS);
  const { clean, corrupted, tokens, what = PATCH_KINDS[0] /* 'heads' */, signal, onProgress } = options;
  const a = promptIds(clean, info, 'patch (clean)'),
    b = promptIds(corrupted, info, 'patch (corrupted)');
  if (a.length !== b.length)
    fail(`the clean text has ${a.length} tokens and the corrupted one ${b.length}: patching needs the same count`);
  checkTokens(tokens, info, 2, 2);
  if (!PATCH_KINDS.includes(what)) fail(`what must be one of ${PATCH_KINDS.join(', ')}, got ${describe(what)}`);
  checkSignal(signal);
  if (onProgress !== undefined && typeof onProgress !== 'function')
    fail(`onProgress must be a function, got ${describe(onProgress)}`);
  return { clean: a, corrupted: b, tokens, what, signal, onProgress };
}

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

export function installAnalysis(ctx, Model) {
  const { core, live } = ctx;

  // Greedy (no sampling option given) or sampled as generate(do_sample=True) under torch.manual_seed(seed); one
  // token per step, awaiting between steps: onToken({id, top}) after each (return false to stop), signal to cancel.
  async function generate(ids, options = {}) {
    const handle = live(this, 'model');
    causal(this, 'generate');
    const o = checkGenerate(options === undefined ? {} : options, this.info);
    const list = promptIds(ids, this.info, 'generate');
    const args = [o.maxNewTokens, o.sample, o.temperature, o.topK, o.topP, o.seed, o.eos];
    const session = unwrap(core.generationCreate(handle, list, ...args));
    const out = [];
    let stopped = '';
    try {
      while (!stopped) {
        if (o.signal && o.signal.aborted) stopped = 'cancelled';
        else {
          const step = unwrap(session.step());
          if (step.id < 0) stopped = step.stopped;
          else {
            out.push(step.id);
            const top = step.top.map(([id, prob]) => ({ id, prob }));
            if (o.onToken && o.onToken({ id: step.id, top }) === false) stopped = 'stopped';
            else await nextTask();
          }
        }
      }
    } finally {
      session.delete();
    }
    return { ids: out, stopped };
  }

  // [L + 1, T, V] logits: the residual stream entering each layer (then leaving the last) through the final norm
  // and the LM head, as TransformerLens's accumulated_resid(apply_ln=True) @ W_U (+ a constant per row); an encoder's
  // (post-norm: each layer's output is normed already) through its MLM head: cls(hidden_states[l]).
  function lens(ids) {
    const handle = live(this, 'model');
    withHead(this);
    return unwrap(core.modelLens(handle, promptIds(ids, this.info, 'lens')));
  }

  // The lens a row at a time (a long text's [L + 1, T, V] does not fit): {rows, row(l) → [T, V] = lens(ids)[l], dispose()};
  // the residual stream of every layer is kept until dispose().
  function lensRows(ids) {
    const handle = live(this, 'model');
    withHead(this);
    const session = unwrap(core.lensCreate(handle, promptIds(ids, this.info, 'lensRows')));
    const rows = session.rows();
    let alive = true;
    return {
      rows,
      row(l) {
        if (!alive) fail('this lens was disposed (lens.dispose()): call model.lensRows(ids) again');
        if (!isCount(l, 0, rows - 1)) fail(`row must be a whole number from 0 to ${rows - 1}, got ${describe(l)}`);
        return unwrap(session.row(l));
      },
      dispose() {
        if (alive) session.delete();
        alive = false;
      },
    };
  }

  // Activation patching as TransformerLens's patching module, normalised (patched - corrupted) / (clean - corrupted)
  // of logit[a] - logit[b] at the last position: {shape: [L, H] (heads) or [L, T], data}; one patched run per step,
  // awaiting between them: onProgress({done, total}), signal to cancel (the session's memory freed either way).
  async function patch(options) {
    const handle = live(this, 'model');
    causal(this, 'patching');
    const o = checkPatch(options, this.info);
    if (o.signal && o.signal.aborted) throw new Error('patching was cancelled');
    const session = unwrap(core.patchingCreate(handle, o.clean, o.corrupted, o.tokens, o.what));
    try {
      for (;;) {
        const step = unwrap(session.step());
        if (o.onProgress) o.onProgress({ done: step.done, total: step.total });
        if (step.map) return step.map;
        await nextTask();
        if (o.signal && o.signal.aborted) throw new Error('patching was cancelled');
      }
    } finally {
      session.delete();
    }
  }

  // Each head's direct effect on the logit of tokens[0] (or logit[a] - logit[b]) at `position` (default: the last),
  // as stack_head_results(apply_ln=True): {heads: [L][H], mlps: [L], embed, biases, sum, logit, centred}.
  function attribute(ids, options) {
    const handle = live(this, 'model');
    causal(this, 'the attribution');
    const list = promptIds(ids, this.info, 'attribute');
    checkConfig(options, 'attribute options', ['position', 'tokens']);
    const { position = list.length - 1, tokens } = options;
    if (!isCount(position, 0, list.length - 1))
      fail(`position must be a whole number from 0 to ${list.length - 1}, got ${describe(position)}`);
    checkTokens(tokens, this.info, 2);
    const r = unwrap(core.modelAttribute(handle, list, position, tokens));
    const H = this.info.heads;
    return { ...r, heads: Array.from({ length: this.info.layers }, (_, l) => r.heads.slice(l * H, (l + 1) * H)) };
  }

  // [L, H]: logit[a] - logit[b] at the last position with each head's output replaced by its mean over positions.
  function meanAblation(ids, options) {
    const handle = live(this, 'model');
    causal(this, 'mean ablation');
    const list = promptIds(ids, this.info, 'meanAblation');
    checkConfig(options, 'meanAblation options', ['tokens']);
    checkTokens(options.tokens, this.info, 2, 2);
    return unwrap(core.modelMeanAblation(handle, list, options.tokens));
  }

  for (const [name, value] of Object.entries({ generate, lens, lensRows, patch, attribute, meanAblation }))
    Object.defineProperty(Model.prototype, name, { value, writable: true, configurable: true });
}
