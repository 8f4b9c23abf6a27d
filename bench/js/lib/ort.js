'use strict';
// ONNX Runtime Web peer: onnxruntime-web (wasm execution provider) in Node, one thread, SIMD build.
// The model is written as ONNX protobuf bytes by lib/onnx.js. Two formulations are built:
//   "contrib": com.microsoft Attention (fused QKV + attention) + MatMul/Add for the output
//   "ops":     standard ai.onnx MatMul/Add/Reshape/Transpose/Split/Softmax graph
// The driver times both and reports the faster one (after checking both agree with ours).
const { mhaOpsModel, mhaContribModel } = require('./onnx');
// the one-thread configuration that models.js's ORT contender runs too
const { ortOneThread, ORT_SESSION } = require('./models-page.js');

let ort = null;
async function init() {
  if (ort) return ort;
  ort = ortOneThread(require('onnxruntime-web'));
  return ort;
}

function info() {
  return { version: ort.env.versions && ort.env.versions.web, threads: ort.env.wasm.numThreads };
}

const builders = { contrib: mhaContribModel, ops: mhaOpsModel };

async function setup(p, B, S, D, H, variant) {
  const bytes = builders[variant](p, B, S, D, H);
  const session = await ort.InferenceSession.create(bytes, { ...ORT_SESSION });
  return {
    async run(x) {
      const feeds = { x: new ort.Tensor('float32', x, [B, S, D]) };
      const res = await session.run(feeds);
      const y = res.y.data;
      res.y.dispose && res.y.dispose();
      return y;
    },
    async dispose() {
      await session.release();
    },
  };
}

module.exports = { init, setup, info, variants: Object.keys(builders) };
