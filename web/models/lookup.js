// MHA Explorer, the model page — where a token looks: for the picked query token, in every head of every layer,
// its keys ranked by weight; and the heads ranked by the weight they put on one key ("it" → "road").
// attentions: {shape: [L, 1, H, T, T], data}. Ties rank the earlier key (or the lower layer, then head) first.
import { dimsOf, rowOffset } from './attentions.js';

// The keys of one row ranked: [{key, weight}], the `top` largest (all T when top is absent).
function rankRow(data, offset, T, top) {
  const keys = Array.from({ length: T }, (_, k) => k);
  keys.sort((a, b) => data[offset + b] - data[offset + a] || a - b);
  return keys.slice(0, top == null ? T : top).map((key) => ({ key, weight: data[offset + key] }));
}

// For query position `query`, every head of every layer, layer by layer: [{layer, head, keys: [{key, weight}]}]
// with each head's `top` strongest keys (3 by default), strongest first.
export function lookFrom(attn, query, top = 3) {
  const d = dimsOf(attn);
  if (!(Number.isInteger(query) && query >= 0 && query < d.T))
    throw new Error('query ' + query + ' is not a token position (0 to ' + (d.T - 1) + ')');
  const rows = [];
  for (let l = 0; l < d.L; l++) {
    for (let h = 0; h < d.H; h++)
      rows.push({ layer: l, head: h, keys: rankRow(attn.data, rowOffset(d, l, h, query), d.T, top) });
  }
  return rows;
}

// Every head ranked by the weight query puts on key, strongest first: [{layer, head, weight, rank}], rank being
// key's place among that head's keys for this query (0: its strongest).
export function headsToward(attn, query, key) {
  const d = dimsOf(attn);
  if (!(Number.isInteger(key) && key >= 0 && key < d.T))
    throw new Error('key ' + key + ' is not a token position (0 to ' + (d.T - 1) + ')');
  const rows = lookFrom(attn, query, null).map((r) => ({
    layer: r.layer,
    head: r.head,
    weight: r.keys.find((k) => k.key === key).weight,
    rank: r.keys.findIndex((k) => k.key === key),
  }));
  return rows.sort((a, b) => b.weight - a.weight || a.layer - b.layer || a.head - b.head);
}
