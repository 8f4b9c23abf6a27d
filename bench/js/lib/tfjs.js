'use strict';
// TensorFlow.js peer: @tensorflow/tfjs-core + @tensorflow/tfjs-backend-wasm, one thread.
// Formulation: one fused matMul for Q,K,V with a concatenated [D,3D] weight and the bias added by
// the fused kernel (1/sqrt(dk) folded into the query columns), batched matMul for QKᵀ with
// transposeB, softmax, batched matMul with V, transpose back, fused matMul+bias for the output.
const path = require('path');
const { fusedQkv, transpose } = require('./onnx');

let tf = null,
  simd = null;
async function init() {
  if (tf) return tf;
  tf = require('@tensorflow/tfjs-core');
  const wasm = require('@tensorflow/tfjs-backend-wasm');
  wasm.setThreadsCount(1);
  // Point at the package's own binaries; with one thread the backend picks tfjs-backend-wasm-simd.wasm.
  const dir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')) + '/dist/';
  wasm.setWasmPaths(dir);
  await tf.setBackend('wasm');
  await tf.ready();
  simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  return tf;
}

function info() {
  const wasm = require('@tensorflow/tfjs-backend-wasm');
  return {
    version: require('@tensorflow/tfjs-core/package.json').version,
    backend: tf.getBackend(),
    simd,
    threads: wasm.getThreadsCount ? wasm.getThreadsCount() : 1,
  };
}

// Two formulations; the driver times both and reports the faster (both are checked against ours).
//  "batched": batched matMul(q, k, transposeB) / matMul(p, v) over [B*H,S,*] tensors.
//  "perhead": per (batch, head) 2-D matMuls with Kᵀ laid out [dk,S] by one transpose, because the
//             wasm backend only sends 2-D, non-transposed matMuls to XNNPACK (the batched and
//             transposed paths use a much slower generic loop); heads are merged by concat.
const variants = ['batched', 'perhead'];

// p: {Wq,bq,...} Float32Array in [out,in] layout. Returns {run(x: Float32Array) -> Float32Array, dispose}.
function setup(p, B, S, D, H, variant = 'perhead') {
  const dk = D / H;
  const { W, b } = fusedQkv(p, D, 1 / Math.sqrt(dk));
  const Wqkv = tf.tensor2d(W, [D, 3 * D]);
  const bqkv = tf.tensor1d(b);
  const Wo = tf.tensor2d(transpose(p.Wo, D, D), [D, D]);
  const bo = tf.tensor1d(p.bo);
  function batched(xt) {
    return tf.tidy(() => {
      const qkv = tf.fused.matMul({ a: xt, b: Wqkv, bias: bqkv }); // [B*S,3D]
      const t = tf.transpose(tf.reshape(qkv, [B, S, 3, H, dk]), [2, 0, 3, 1, 4]); // [3,B,H,S,dk]
      const [q, k, v] = tf.unstack(tf.reshape(t, [3, B * H, S, dk]));
      const scores = tf.matMul(q, k, false, true); // [B*H,S,S]
      const probs = tf.softmax(scores);
      const ctx = tf.matMul(probs, v); // [B*H,S,dk]
      const merged = tf.reshape(tf.transpose(tf.reshape(ctx, [B, H, S, dk]), [0, 2, 1, 3]), [B * S, D]);
      return tf.fused.matMul({ a: merged, b: Wo, bias: bo });
    });
  }
  function perhead(xt) {
    return tf.tidy(() => {
      const qkv = tf.reshape(tf.fused.matMul({ a: xt, b: Wqkv, bias: bqkv }), [B, S, 3, H, dk]);
      const [q, k, v] = tf.unstack(tf.transpose(qkv, [2, 0, 3, 1, 4])); // each [B,H,S,dk]
      const kt = tf.transpose(k, [0, 1, 3, 2]); // [B,H,dk,S]
      const qs = tf.unstack(tf.reshape(q, [B * H, S, dk]));
      const kts = tf.unstack(tf.reshape(kt, [B * H, dk, S]));
      const vs = tf.unstack(tf.reshape(v, [B * H, S, dk]));
      const rows = [];
      for (let bb = 0; bb < B; bb++) {
        const heads = [];
        for (let h = 0; h < H; h++) {
          const i = bb * H + h;
          heads.push(tf.matMul(tf.softmax(tf.matMul(qs[i], kts[i])), vs[i])); // [S,dk]
        }
        rows.push(tf.concat(heads, 1)); // [S,D], heads merged
      }
      const merged = B === 1 ? rows[0] : tf.concat(rows, 0);
      return tf.fused.matMul({ a: merged, b: Wo, bias: bo });
    });
  }
  const forward = variant === 'batched' ? batched : perhead;
  return {
    run(x) {
      const xt = tf.tensor2d(x, [B * S, D]);
      const y = forward(xt);
      const out = y.dataSync();
      xt.dispose();
      y.dispose();
      return out;
    },
    dispose() {
      Wqkv.dispose();
      bqkv.dispose();
      Wo.dispose();
      bo.dispose();
    },
  };
}

module.exports = { init, setup, info, variants };
