// MHA Explorer, the model page — reading a model's attentions: {shape: [L, 1, H, T, T], data: Float32Array},
// as model.forward(ids) returns them (and transformers' output_attentions stacked), row-major, batch of one.
// No DOM: the page, its tests and Node read them alike.

// The dimensions of attentions, checked: {L, H, T}.
export function dimsOf(attn) {
  const s = attn && attn.shape;
  if (!s || s.length !== 5 || s[1] !== 1 || s[3] !== s[4]) {
    throw new Error('attentions must be shaped [layers, 1, heads, tokens, tokens]; got ' + JSON.stringify(s));
  }
  const [L, , H, T] = s;
  if (!attn.data || attn.data.length !== L * H * T * T) {
    throw new Error(
      'attentions of shape [' +
        s.join(', ') +
        '] need ' +
        L * H * T * T +
        ' values; got ' +
        (attn.data ? attn.data.length : 0),
    );
  }
  return { L, H, T };
}

// The offset of row `query` of head (layer, head): its T weights are data[offset .. offset + T).
export function rowOffset(dims, layer, head, query) {
  return ((layer * dims.H + head) * dims.T + query) * dims.T;
}

// One head's [T, T] weights as the widgets' matrix {S, T, data} (a view, no copy).
export function headMatrix(attn, layer, head) {
  const d = dimsOf(attn),
    n = d.T * d.T,
    at = (layer * d.H + head) * n;
  return { S: d.T, T: d.T, data: attn.data.subarray(at, at + n) };
}
