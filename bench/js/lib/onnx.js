'use strict';
// A minimal ONNX ModelProto encoder (protobuf wire format written by hand), enough to build the
// multi-head attention graphs used by the ONNX Runtime Web peer. Field numbers follow onnx.proto
// (https://github.com/onnx/onnx/blob/main/onnx/onnx.proto).

// ---- protobuf wire format -------------------------------------------------------------------
class Writer {
  constructor() {
    this.chunks = [];
    this.len = 0;
  }
  bytes(u8) {
    this.chunks.push(u8);
    this.len += u8.length;
    return this;
  }
  varint(v) {
    // v: non-negative number or BigInt (int64 values are encoded as two's complement, 10 bytes)
    let b = BigInt.asUintN(64, BigInt(v));
    const out = [];
    do {
      let byte = Number(b & 0x7fn);
      b >>= 7n;
      if (b !== 0n) byte |= 0x80;
      out.push(byte);
    } while (b !== 0n);
    return this.bytes(Uint8Array.from(out));
  }
  tag(field, wire) {
    return this.varint((field << 3) | wire);
  }
  finish() {
    const out = new Uint8Array(this.len);
    let o = 0;
    for (const c of this.chunks) {
      out.set(c, o);
      o += c.length;
    }
    return out;
  }
}

const enc = new TextEncoder();
// Message builders: each field helper appends to the writer and returns it.
function msg(build) {
  const w = new Writer();
  build(w);
  return w.finish();
}
function fInt(w, field, v) {
  if (v !== undefined) w.tag(field, 0).varint(v);
}
function fBytes(w, field, u8) {
  w.tag(field, 2).varint(u8.length).bytes(u8);
}
function fStr(w, field, s) {
  if (s !== undefined) fBytes(w, field, enc.encode(s));
}
function fMsg(w, field, u8) {
  fBytes(w, field, u8);
}

// ---- ONNX messages ----------------------------------------------------------------------------
const DT = { FLOAT: 1, INT64: 7 };
const ATTR = { INT: 2, INTS: 7 };

// TensorProto: dims=1, data_type=2, name=8, raw_data=9 (little-endian)
function tensor(name, dims, data) {
  const isInt = data instanceof BigInt64Array;
  const raw = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return msg((w) => {
    for (const d of dims) fInt(w, 1, d);
    fInt(w, 2, isInt ? DT.INT64 : DT.FLOAT);
    fStr(w, 8, name);
    fBytes(w, 9, raw.slice());
  });
}

// AttributeProto: name=1, i=3, ints=8, type=20 (only INT and INTS attributes are needed here)
function attr(name, value) {
  return msg((w) => {
    fStr(w, 1, name);
    if (Array.isArray(value)) {
      for (const v of value) fInt(w, 8, v);
      fInt(w, 20, ATTR.INTS);
    } else if (Number.isInteger(value)) {
      fInt(w, 3, value);
      fInt(w, 20, ATTR.INT);
    } else throw new Error(`attr ${name}: only integer attributes are supported`);
  });
}

// NodeProto: input=1, output=2, name=3, op_type=4, attribute=5, domain=7
function node(opType, inputs, outputs, attrs = [], domain) {
  return msg((w) => {
    for (const i of inputs) fStr(w, 1, i);
    for (const o of outputs) fStr(w, 2, o);
    fStr(w, 3, `${opType}_${outputs[0]}`);
    fStr(w, 4, opType);
    for (const a of attrs) fMsg(w, 5, a);
    if (domain) fStr(w, 7, domain);
  });
}

// ValueInfoProto{name=1, type=2{tensor_type=1{elem_type=1, shape=2{dim=1{dim_value=1}}}}}
function valueInfo(name, dims) {
  const shape = msg((w) => {
    for (const d of dims)
      fMsg(
        w,
        1,
        msg((x) => fInt(x, 1, d)),
      );
  });
  const tt = msg((w) => {
    fInt(w, 1, DT.FLOAT);
    fMsg(w, 2, shape);
  });
  const type = msg((w) => fMsg(w, 1, tt));
  return msg((w) => {
    fStr(w, 1, name);
    fMsg(w, 2, type);
  });
}

// ModelProto: ir_version=1, producer_name=2, graph=7, opset_import=8{domain=1, version=2}
// GraphProto: node=1, name=2, initializer=5, input=11, output=12
function model({ nodes, initializers, inputs, outputs, opsets }) {
  const graph = msg((w) => {
    for (const n of nodes) fMsg(w, 1, n);
    fStr(w, 2, 'mha');
    for (const t of initializers) fMsg(w, 5, t);
    for (const i of inputs) fMsg(w, 11, i);
    for (const o of outputs) fMsg(w, 12, o);
  });
  return msg((w) => {
    fInt(w, 1, 8);
    fStr(w, 2, 'mha-explorer-bench');
    fMsg(w, 7, graph);
    for (const [domain, version] of opsets) {
      fMsg(
        w,
        8,
        msg((x) => {
          if (domain) fStr(x, 1, domain);
          fInt(x, 2, version);
        }),
      );
    }
  });
}

// ---- MHA graphs ---------------------------------------------------------------------------------
// p: {Wq,bq,Wk,bk,Wv,bv,Wo,bo} as Float32Array, weights in [out,in] layout (y = x·Wᵀ + b).
function transpose(W, rows, cols) {
  // [rows,cols] -> [cols,rows]
  const T = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) T[c * rows + r] = W[r * cols + c];
  return T;
}
// Concatenated [D,3D] projection weight (input-major) and [3D] bias; optionally folds 1/sqrt(dk)
// into the query part (an exact rewrite up to rounding: softmax((s·q)kᵀ) = softmax(s·qkᵀ)).
function fusedQkv(p, D, qScale = 1) {
  const W = new Float32Array(D * 3 * D),
    b = new Float32Array(3 * D);
  const parts = [
    [p.Wq, p.bq, qScale],
    [p.Wk, p.bk, 1],
    [p.Wv, p.bv, 1],
  ];
  parts.forEach(([Wp, bp, s], j) => {
    for (let o = 0; o < D; o++) {
      for (let i = 0; i < D; i++) W[i * 3 * D + j * D + o] = Wp[o * D + i] * s;
      b[j * D + o] = bp[o] * s;
    }
  });
  return { W, b };
}

// Variant "ops": standard ai.onnx operators (MatMul/Add/Reshape/Transpose/Softmax), fused QKV matmul.
function mhaOpsModel(p, B, S, D, H) {
  const dk = D / H;
  const { W, b } = fusedQkv(p, D, 1 / Math.sqrt(dk));
  const i64 = (a) => BigInt64Array.from(a.map(BigInt));
  const inits = [
    tensor('Wqkv', [D, 3 * D], W),
    tensor('bqkv', [3 * D], b),
    tensor('Wo', [D, D], transpose(p.Wo, D, D)),
    tensor('bo', [D], p.bo),
    tensor('shape5', [5], i64([B, S, 3, H, dk])),
    tensor('shape3', [3], i64([B, S, D])),
  ];
  const nodes = [
    node('MatMul', ['x', 'Wqkv'], ['qkv0']),
    node('Add', ['qkv0', 'bqkv'], ['qkv1']),
    node('Reshape', ['qkv1', 'shape5'], ['qkv2']), // [B,S,3,H,dk]
    node('Transpose', ['qkv2'], ['qkv3'], [attr('perm', [2, 0, 3, 1, 4])]), // [3,B,H,S,dk]
    node('Split', ['qkv3'], ['q4', 'k4', 'v4'], [attr('axis', 0), attr('num_outputs', 3)]),
    node('Squeeze', ['q4', 'ax0'], ['q']),
    node('Squeeze', ['k4', 'ax0'], ['k']),
    node('Squeeze', ['v4', 'ax0'], ['v']),
    node('Transpose', ['k'], ['kt'], [attr('perm', [0, 1, 3, 2])]), // [B,H,dk,S]
    node('MatMul', ['q', 'kt'], ['scores']), // [B,H,S,S]
    node('Softmax', ['scores'], ['probs'], [attr('axis', -1)]),
    node('MatMul', ['probs', 'v'], ['ctx']), // [B,H,S,dk]
    node('Transpose', ['ctx'], ['ctx2'], [attr('perm', [0, 2, 1, 3])]), // [B,S,H,dk]
    node('Reshape', ['ctx2', 'shape3'], ['ctx3']),
    node('MatMul', ['ctx3', 'Wo'], ['o0']),
    node('Add', ['o0', 'bo'], ['y']),
  ];
  inits.push(tensor('ax0', [1], i64([0])));
  return model({
    nodes,
    initializers: inits,
    inputs: [valueInfo('x', [B, S, D])],
    outputs: [valueInfo('y', [B, S, D])],
    opsets: [['', 18]],
  });
}

// Variant "contrib": com.microsoft Attention (fused QKV projection + attention) + MatMul/Add out.
function mhaContribModel(p, B, S, D, H) {
  const { W, b } = fusedQkv(p, D, 1);
  const inits = [
    tensor('Wqkv', [D, 3 * D], W),
    tensor('bqkv', [3 * D], b),
    tensor('Wo', [D, D], transpose(p.Wo, D, D)),
    tensor('bo', [D], p.bo),
  ];
  const nodes = [
    node('Attention', ['x', 'Wqkv', 'bqkv'], ['ctx'], [attr('num_heads', H)], 'com.microsoft'),
    node('MatMul', ['ctx', 'Wo'], ['o0']),
    node('Add', ['o0', 'bo'], ['y']),
  ];
  return model({
    nodes,
    initializers: inits,
    inputs: [valueInfo('x', [B, S, D])],
    outputs: [valueInfo('y', [B, S, D])],
    opsets: [
      ['', 18],
      ['com.microsoft', 1],
    ],
  });
}

module.exports = { mhaOpsModel, mhaContribModel, fusedQkv, transpose };
