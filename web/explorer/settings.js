// @ts-check
// MHA Explorer — an explorer's settings as a forward uses them: the page's values (state/page.js) with the lesson's
// defaults for what the student did not set (effective), what the student changed from the lesson (modified), the
// cross-field rule (num_heads divides d_model) and the long-text cut. No DOM.
import { PAGE_PROPS } from '../state/page.js';
import { MAX_TOKENS, commas, divisors, headsMessage, tokenEnds, tokenize } from '../compute/explorer-run.js';
import { lessonById } from '../lessons/index.js';

/** @typedef {import('./state.js').ExplorerState} ExplorerState */
/** @typedef {Record<string, any>} Settings the page's values as a forward uses them (PAGE_PROPS' names) */

// The properties that build the module (state/page.js marks them): a new example or Reset starts them from defaults.
export const MODEL_PROPS = PAGE_PROPS.filter((p) => p.model).map((p) => p.name);
// A text is cut after at most MAX_TOKENS tokens, at a token boundary, and so that its share link stays
// within what web servers accept (8 KiB request lines for nginx and Apache; Node answers 431 from 16 KiB).
const TEXT_LINK_BUDGET = 6000; // characters of the URL-encoded text in a link

/** @param {Settings} v */
export function presetOf(v) {
  return v.preset ? lessonById(v.preset) : null;
}

// The values the forward uses: the lesson's defaults for the model properties the student did not set, the file's
// d_model when weights are loaded, the given x's d_model.
/** @param {ExplorerState} ex @returns {Settings} */
export function effective(ex) {
  const v = ex.st.values,
    pr = presetOf(v),
    eff = {};
  for (const p of PAGE_PROPS) {
    let val = v[p.name];
    if (pr && pr.defaults && p.model && !ex.st.explicit[p.name] && pr.defaults[p.name] !== undefined)
      val = pr.defaults[p.name];
    eff[p.name] = Array.isArray(val) ? val.slice() : val;
  }
  if (ex.loaded) eff.dmodel = ex.loaded.dModel; // the file's d_model
  if (ex.given && ex.given.x && !pr) eff.dmodel = ex.given.x.shape[2]; // the given x's (loaded weights must match it)
  return eff;
}

// The lesson's defaults the student changed.
/** @param {Settings} eff @returns {string[]} */
export function modified(eff) {
  const pr = presetOf(eff);
  if (!pr || !pr.defaults) return [];
  return Object.keys(pr.defaults).filter((k) => String(pr.defaults[k]) !== String(eff[k]));
}

// Cross-field rules: messages pushed, eff fixed in place.
/** @param {Settings} eff @param {string[]} msgs */
export function validate(eff, msgs) {
  if (eff.dmodel % eff.heads !== 0) {
    msgs.push(headsMessage(eff.dmodel, eff.heads) + '. Using ' + nearestDivisor(eff.dmodel, eff.heads) + ' heads.');
    eff.heads = nearestDivisor(eff.dmodel, eff.heads);
  }
}
/** @param {number} D @param {number} H */
export function nearestDivisor(D, H) {
  const ds = divisors(D);
  let best = ds[0];
  for (const d of ds) if (Math.abs(d - H) < Math.abs(best - H)) best = d;
  return best;
}

// A long text cut to what the page draws and a link carries: {text, message (null when it fits)}.
/** @param {string} text @returns {{text: string, message: string | null}} */
export function fitText(text) {
  const t = tokenEnds(text),
    ends = t.ends;
  const fits = (k) => encodeURIComponent(t.text.slice(0, ends[k - 1])).length <= TEXT_LINK_BUDGET;
  if (ends.length <= MAX_TOKENS && fits(ends.length || 1)) return { text, message: null };
  let lo = 1,
    hi = Math.min(ends.length, MAX_TOKENS);
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  const cut = t.text.slice(0, ends[lo - 1]);
  return {
    text: cut,
    message:
      'Your text has ' +
      commas(ends.length) +
      ' tokens (' +
      commas(text.length) +
      ' characters): the page keeps the first ' +
      commas(lo) +
      ' tokens, up to “' +
      tokenize(cut).pop() +
      '”' +
      (lo < Math.min(ends.length, MAX_TOKENS)
        ? ', so that a share link stays short enough for web servers.'
        : ' (it draws at most ' + MAX_TOKENS + ').'),
  };
}
// The state's text cut as fitText says (and said in the messages).
/** @param {ExplorerState} ex */
export function applyFitText(ex) {
  const f = fitText(ex.st.values.text);
  if (f.message) {
    ex.st.values.text = f.text;
    ex.messages.push(f.message);
  }
  return f;
}
