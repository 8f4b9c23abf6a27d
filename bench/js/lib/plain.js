'use strict';
// Plain-JS multi-head attention: what a tutorial site ships. Straightforward loops over
// Float32Array, no blocking, no SIMD, no workers. Weights in [out,in] layout (y = x·Wᵀ + b).

function linear(x, rows, W, b, D) {
  const y = new Float32Array(rows * D);
  for (let r = 0; r < rows; r++) {
    for (let o = 0; o < D; o++) {
      let sum = b[o];
      for (let i = 0; i < D; i++) sum += x[r * D + i] * W[o * D + i];
      y[r * D + o] = sum;
    }
  }
  return y;
}

// x: Float32Array [B,S,D]; p: {Wq,bq,Wk,bk,Wv,bv,Wo,bo}. Returns Float32Array [B,S,D].
function mhaForward(x, p, B, S, D, H) {
  const dk = D / H;
  const scale = 1 / Math.sqrt(dk);
  const q = linear(x, B * S, p.Wq, p.bq, D);
  const k = linear(x, B * S, p.Wk, p.bk, D);
  const v = linear(x, B * S, p.Wv, p.bv, D);
  const ctx = new Float32Array(B * S * D);
  const scores = new Float32Array(S);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      for (let i = 0; i < S; i++) {
        const qi = (b * S + i) * D + h * dk;
        let max = -Infinity;
        for (let j = 0; j < S; j++) {
          const kj = (b * S + j) * D + h * dk;
          let s = 0;
          for (let t = 0; t < dk; t++) s += q[qi + t] * k[kj + t];
          s *= scale;
          scores[j] = s;
          if (s > max) max = s;
        }
        let sum = 0;
        for (let j = 0; j < S; j++) {
          scores[j] = Math.exp(scores[j] - max);
          sum += scores[j];
        }
        for (let j = 0; j < S; j++) scores[j] /= sum;
        for (let t = 0; t < dk; t++) {
          let acc = 0;
          for (let j = 0; j < S; j++) acc += scores[j] * v[(b * S + j) * D + h * dk + t];
          ctx[qi + t] = acc;
        }
      }
    }
  }
  return linear(ctx, B * S, p.Wo, p.bo, D);
}

module.exports = { mhaForward };
