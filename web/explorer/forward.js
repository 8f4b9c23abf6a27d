// @ts-check
// MHA Explorer — the forward: one record from the controls to the trace. The settings (settings.js) become a Forward,
// which the core runs (compute/explorer-run.js's runModule, in a worker of the pool or here), the snippet prints
// (lessons/snippets.js) and the panels read (its mask, dropout and train mode): no field is copied under another name.
import { MAX_TOKENS, commas, now, tokenize } from '../compute/explorer-run.js';
import { copySnippet, moduleOutput } from '../lessons/snippets.js';
import { presetOf } from './settings.js';
import { inputLabels } from './input.js';

/** @typedef {import('./state.js').ExplorerState} ExplorerState */
/** @typedef {{style: 'tril-keep' | 'triu-block', fill: '-inf' | '-1e9'}} Mask how a causal mask is written (lessons/trace-words.js words it) */
/**
 * @typedef {object} Forward
 * @property {number} dModel @property {number} numHeads @property {number} seed @property {boolean} bias
 * @property {number} dropout @property {boolean} train
 * @property {Mask | null} mask the causal mask as the forward applies it and the snippet writes it, or null
 * @property {any} input {type: 'text', tokens, pos, text, truncated?, listed?} | {type: 'tensor', x, tokens, listed} | {type: 'rand' | 'randn', batch, seqLen}
 * @property {'input-first' | 'module-first'} [order] @property {Record<string, any>} [weights] a state_dict loaded after the init
 * @property {string} [weightsId] the weights' identity (the module cache's key)
 * @property {{file: string, layer: number, kind: string, sources?: any, how?: string} | null} [file] where loaded weights came from
 * @property {number} [b] the batch item shown @property {number} [h] the head shown @property {string} [seedNote]
 */

// A fixed lesson's result (lesson 002 computes itself) as the Forward its panels read.
/** @param {any} res @returns {Forward} */
function fixedForward(res) {
  const shown = res.shown || {};
  return {
    dModel: res.D,
    numHeads: res.H,
    seed: shown.seed || 0,
    bias: true,
    dropout: 0,
    train: false,
    mask: res.causal ? { style: 'tril-keep', fill: shown.fill || '-inf' } : null,
    input: null,
    file: null,
  };
}

// The input of a forward and its labels: a lesson's random x, the given x or tokens, or the student's sentence.
/** @param {ExplorerState} ex @param {Record<string, any>} eff @param {string[]} msgs */
function inputOf(ex, eff, msgs) {
  const pr = presetOf(eff),
    given = ex.given;
  if (pr && pr.input) {
    const labels = Array.from({ length: pr.input.seqLen }, (_, i) => 't' + i);
    return { input: { type: pr.input.type, batch: pr.input.batch, seqLen: pr.input.seqLen }, labels };
  }
  if (given) {
    // the given x (or tokens, which the page embeds)
    const labels = given.x ? inputLabels(given) : given.tokens.slice();
    const listed = given.tokens ? 'the tokens from ' + given.source : '';
    return {
      labels,
      input: given.x
        ? { type: 'tensor', x: given.x, tokens: labels, listed }
        : { type: 'text', tokens: labels, pos: eff.pos, text: labels.join(' '), listed },
    };
  }
  let tokens = Array.from(tokenize(eff.text)),
    truncated = false;
  if (tokens.length > MAX_TOKENS) {
    msgs.push('The text has ' + commas(tokens.length) + ' tokens; the page uses the first ' + MAX_TOKENS + '.');
    tokens = tokens.slice(0, MAX_TOKENS);
    truncated = true;
  }
  return { input: { type: 'text', tokens, pos: eff.pos, text: eff.text, truncated }, labels: tokens };
}

// The settings as a Forward (b and h are set once the result's B and H are known), and its labels.
/** @param {ExplorerState} ex @param {Record<string, any>} eff @param {string[]} msgs
 *  @returns {{forward: Forward, labels: string[]}} */
export function forwardOf(ex, eff, msgs) {
  const pr = presetOf(eff),
    { input, labels } = inputOf(ex, eff, msgs),
    loaded = ex.loaded;
  /** @type {Forward} */
  const forward = {
    dModel: eff.dmodel,
    numHeads: eff.heads,
    seed: eff.seed,
    bias: true,
    dropout: eff.dropout,
    train: eff.train,
    mask: eff.causal ? { style: pr && pr.input ? pr.maskStyle : 'tril-keep', fill: eff.fill } : null,
    input,
    order: pr && pr.input ? pr.order : undefined,
    seedNote: pr ? pr.seedNote : undefined,
    file: loaded
      ? { file: loaded.file, layer: loaded.layer, kind: loaded.kind, sources: loaded.sources, how: loaded.how }
      : null,
  };
  if (loaded) {
    forward.weights = loaded.state;
    forward.weightsId = String(loaded.id);
  }
  return { forward, labels };
}

// The result of the settings in the one shape every preset gives: {promise of {res, labels, forward, cells, copyAll},
// t0, t1 (0 while the forward runs elsewhere)}, or null when there is nothing to compute (no tokens). cells: the
// lesson panel's code cells ({id, title, code, output()}); copyAll: "Copy as PyTorch" is every cell (a fixed lesson).
/** @param {ExplorerState} ex @param {Record<string, any>} eff @param {string[]} msgs */
export function compute(ex, eff, msgs) {
  const pr = presetOf(eff);
  if (pr && pr.compute) {
    // a fixed lesson computes itself
    const t = now();
    let fixed;
    try {
      const out = pr.compute(ex.M, eff);
      fixed = Promise.resolve(Object.assign({ copyAll: true, forward: fixedForward(out.res) }, out));
    } catch (err) {
      fixed = Promise.reject(err);
    }
    ex.forwards.noForward();
    return { promise: fixed, t0: t, t1: t };
  }
  const { forward, labels } = forwardOf(ex, eff, msgs);
  if (forward.input.type === 'text' && forward.input.tokens.length === 0) return null;
  const t0 = now(),
    job = ex.forwards.runForward(forward),
    t1 = job.sync ? now() : 0;
  return {
    t0,
    t1,
    promise: job.promise.then((res) => {
      forward.b = Math.min(eff.batch, res.B - 1);
      forward.h = Math.min(eff.head, res.H - 1);
      const cells = pr
        ? [
            {
              id: 'lesson',
              title: "The lesson's example",
              code: pr.lessonCode(eff),
              output: () => pr.lessonOutput(res),
            },
          ]
        : [];
      cells.push({
        id: 'page',
        title: "Copy as PyTorch: the page's numbers (batch " + forward.b + ', head ' + forward.h + ')',
        code: copySnippet(forward),
        output: () => moduleOutput(res, forward),
      });
      return { res, labels, forward, cells, copyAll: false };
    }),
  };
}
