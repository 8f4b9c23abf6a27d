// What heads do to the answer (analysis_bindings.cpp, mha/analysis.hpp): a loaded causal model's generate, lens and
// patch, added to models.js's Model. Arguments are checked here with messages; the core checks them again.
import { fail, describe, isCount, checkConfig, checkSeed, unwrap } from './checks.js';

const GENERATE_OPTIONS = ['maxNewTokens', 'temperature', 'topK', 'topP', 'seed', 'eos', 'onToken', 'signal'];
const PATCH_OPTIONS = ['clean', 'corrupted', 'tokens', 'what', 'signal', 'onProgress'];
const PATCH_WHAT = ['resid'];
const TOP_K_DEFAULT = 50; // transformers' GenerationConfig.top_k: generate(do_sample=True) applies it unless told 0

function causal(model, what) {
  if (!model.info.causal || !model.info.hasLmHead)
    fail(`${what} needs a causal model with a language-model head (this is a ${model.info.modelType} model)`);
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
  // and the LM head, as TransformerLens's accumulated_resid(apply_ln=True) @ W_U (+ a constant per row).
  function lens(ids) {
    const handle = live(this, 'model');
    causal(this, 'the logit lens');
    return unwrap(core.modelLens(handle, promptIds(ids, this.info, 'lens')));
  }

  // Activation patching, normalised (patched - corrupted) / (clean - corrupted) of logit[a] - logit[b] at the last
  // position: {shape: [L, T], data}.
  async function patch(options) {
    const handle = live(this, 'model');
    causal(this, 'patching');
    checkConfig(options, 'patch options', PATCH_OPTIONS);
    const { clean, corrupted, tokens, what = 'resid', signal, onProgress } = options;
    const a = promptIds(clean, this.info, 'patch (clean)'),
      b = promptIds(corrupted, this.info, 'patch (corrupted)');
    if (a.length !== b.length)
      fail(`the clean text has ${a.length} tokens and the corrupted one ${b.length}: patching needs the same count`);
    if (!Array.isArray(tokens) || tokens.length !== 2 || !tokens.every((t) => isCount(t, 0, this.info.vocab - 1)))
      fail(`tokens must be two token ids [a, b] (the metric is logit[a] - logit[b]), got ${describe(tokens)}`);
    if (!PATCH_WHAT.includes(what)) fail(`what must be one of ${PATCH_WHAT.join(', ')}, got ${describe(what)}`);
    checkSignal(signal);
    if (onProgress !== undefined && typeof onProgress !== 'function')
      fail(`onProgress must be a function, got ${describe(onProgress)}`);
    if (signal && signal.aborted) throw new Error('patching was cancelled');
    const map = unwrap(core.modelPatchResid(handle, a, b, tokens[0], tokens[1]));
    if (onProgress) onProgress({ done: map.data.length, total: map.data.length });
    return map;
  }

  for (const [name, value] of Object.entries({ generate, lens, patch }))
    Object.defineProperty(Model.prototype, name, { value, writable: true, configurable: true });
}
