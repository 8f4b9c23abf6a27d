// MHA Explorer, the model page — what the model predicts, with and without heads: the position predicted (the next
// token after the last for a causal model, the first [MASK] for a masked language model), the top 5 tokens with
// their probabilities (softmax of the logits, in double precision), and the sets of heads the page switches off.
// A head switched off has its output zeroed before the output projection (model.forward's headsOff, as the lab's
// ablation and transformers with a forward pre-hook zeroing that head's slice of c_proj / o_proj / out_lin /
// attention.output.dense's input).

// The position whose logits the page shows: the last token (causal), the first `maskId` (masked LM), or -1
// (a masked LM whose text has no mask token; a model without a head).
export function predictionPosition(ids, { causal, hasLmHead, maskId }) {
  if (!hasLmHead || !ids.length) return -1;
  return causal ? ids.length - 1 : ids.indexOf(maskId);
}

// softmax(logits) in double precision (V floats → Float64Array).
export function softmax(logits) {
  let max = -Infinity,
    sum = 0;
  for (let i = 0; i < logits.length; i++) if (logits[i] > max) max = logits[i];
  const p = new Float64Array(logits.length);
  for (let i = 0; i < logits.length; i++) sum += p[i] = Math.exp(logits[i] - max);
  for (let i = 0; i < p.length; i++) p[i] /= sum;
  return p;
}

// The k most probable tokens of one position's logits (V floats): [{id, prob, logit}], most probable first (ties:
// the lower id first). prob = softmax(logits)[id], computed in double precision.
export function topTokens(logits, k = 5) {
  const probs = softmax(logits),
    ids = []; // the k best so far, best first
  for (let i = 0; i < logits.length; i++) {
    const v = logits[i];
    if (ids.length === k && !(v > logits[ids[k - 1]])) continue;
    let p = Math.min(ids.length, k - 1);
    while (p > 0 && v > logits[ids[p - 1]]) {
      if (p < k) ids[p] = ids[p - 1];
      p--;
    }
    ids[p] = i;
  }
  return ids.map((id) => ({ id, prob: probs[id], logit: logits[id] }));
}

// log Σ exp(logits) in double precision (the shift by the largest keeps each exp ≤ 1).
export function logSumExp(logits) {
  let max = -Infinity,
    sum = 0;
  for (let i = 0; i < logits.length; i++) if (logits[i] > max) max = logits[i];
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i] - max);
  return max + Math.log(sum);
}
// One token of a position's logits: {id, logit, logProb, prob, rank} (log-softmax in double precision; rank from 1,
// ties: the lower id first, as topTokens orders them). lse: logSumExp(logits), when known.
export function tokenStats(logits, id, lse = logSumExp(logits)) {
  const x = logits[id];
  let rank = 1;
  for (let i = 0; i < logits.length; i++) if (logits[i] > x || (logits[i] === x && i < id)) rank++;
  const logProb = x - lse;
  return { id, logit: x, logProb, prob: Math.exp(logProb), rank };
}
// A token with the heads off against the full model: tokenStats of `off` with {was: tokenStats of `full`, dLogProb,
// ranksUp: how many places it rose (negative: fell)}.
export function compareToken(full, off, id, lse = {}) {
  const now = tokenStats(off, id, lse.off),
    was = tokenStats(full, id, lse.full);
  return Object.assign(now, { was, dLogProb: now.logProb - was.logProb, ranksUp: was.rank - now.rank });
}

// The full model's top tokens beside the ablated model's: the ablated list, each with its change of probability
// and of place ({id, prob, logit, was: its full-model probability, wasRank: its full-model place or -1}).
export function compareTops(full, ablated, fullProbOf) {
  return ablated.map((t) => {
    const wasRank = full.findIndex((f) => f.id === t.id);
    return Object.assign({}, t, {
      wasRank,
      was: wasRank >= 0 ? full[wasRank].prob : fullProbOf ? fullProbOf(t.id) : NaN,
    });
  });
}

// Sets of heads, as model.forward's headsOff ([[layer, head]], sorted, no duplicates).
const key = (lh) => lh[0] + ':' + lh[1];
export function normalizeHeads(heads, L, H) {
  const seen = new Map();
  for (const lh of heads) {
    const [l, h] = lh;
    if (!(Number.isInteger(l) && Number.isInteger(h) && l >= 0 && l < L && h >= 0 && h < H)) {
      throw new Error(
        'head [' + lh + '] is not a head of this model (layers 0 to ' + (L - 1) + ', heads 0 to ' + (H - 1) + ')',
      );
    }
    seen.set(key(lh), [l, h]);
  }
  return Array.from(seen.values()).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}
// Every head of one layer.
export function wholeLayer(layer, H) {
  return Array.from({ length: H }, (_, h) => [layer, h]);
}
// Every head of the model but (layer, head): what one head alone can do.
export function allBut(layer, head, L, H) {
  const out = [];
  for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) if (l !== layer || h !== head) out.push([l, h]);
  return out;
}
// Switches one head in a set: on when it was off, off when it was on.
export function toggleHead(heads, layer, head) {
  const k = key([layer, head]);
  return heads.some((x) => key(x) === k) ? heads.filter((x) => key(x) !== k) : heads.concat([[layer, head]]);
}
// The set in words: "none", "layer 0 head 3", "all of layer 2", "every head but layer 1 head 4", or a count.
export function describeHeads(heads, L, H) {
  if (!heads.length) return 'none';
  if (heads.length === L * H) return 'all ' + L * H + ' heads';
  if (heads.length === L * H - 1) {
    const on = new Set(heads.map(key));
    for (let l = 0; l < L; l++)
      for (let h = 0; h < H; h++) if (!on.has(key([l, h]))) return 'every head but layer ' + l + ' head ' + h;
  }
  const byLayer = new Map();
  for (const [l, h] of heads) byLayer.set(l, (byLayer.get(l) || []).concat(h));
  return Array.from(byLayer, ([l, hs]) =>
    hs.length === H ? 'all of layer ' + l : 'layer ' + l + ' head' + (hs.length > 1 ? 's ' : ' ') + hs.join(', '),
  ).join('; ');
}
