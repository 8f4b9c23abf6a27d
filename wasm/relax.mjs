// Builds dist/mha-relaxed.js from dist/mha.js: a·b + c and c − a·b on f32x4 become one
// f32x4.relaxed_madd / relaxed_nmadd, which V8 compiles to an FMA on CPUs that have one.
//
//   node wasm/relax.mjs dist/mha.js dist/mha-relaxed.js
//   node wasm/relax.mjs test_attention.js test_attention-relaxed.js   (any -sSINGLE_FILE output)
//
// Why a post-link pass: base SIMD128 has no FMA, so every GEMM step is a mul then an add, and
// Debian's clang 14 only knows the pre-standard relaxed-SIMD opcodes. Binaryen (npm) reads the
// linked module, and the rewrite happens on its IR, so the encoding is the standard one.
// Relaxed madd may round once (fused) or twice (unfused) depending on the hardware: results
// differ from dist/mha.js in the last bits (tests hold every build to the same tolerances).
import fs from 'node:fs';

const b = await import('binaryen').then(
  (m) => m.default,
  () => {
    console.error('relax: the npm package binaryen is missing; run scripts/install-deps (npm ci)');
    process.exit(1);
  },
);
const DATA_URI = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/;
// The API (wasm/api/protocol.js, bundled by esbuild: `var`, double quotes) names the build; this one reports
// 'wasmsimd-relaxed'.
const SUFFIX_LINE = 'var BUILD_SUFFIX = "";';

function main([input, output]) {
  if (!input || !output) throw new Error('usage: node wasm/relax.mjs dist/mha.js dist/mha-relaxed.js');
  const js = fs.readFileSync(input, 'utf8');
  const embedded = js.match(DATA_URI);
  if (!embedded) throw new Error(`${input}: no embedded wasm (the build must use -sSINGLE_FILE=1)`);
  const isApi = js.includes('createMhaModule'); // dist/mha.js names its build; test binaries do not
  if (isApi && !js.includes(SUFFIX_LINE)) throw new Error(`${input}: the API no longer contains ${SUFFIX_LINE}`);

  const module = b.readBinary(new Uint8Array(Buffer.from(embedded[1], 'base64')));
  const F = b.Features;
  module.setFeatures(
    F.MVP |
      F.MutableGlobals |
      F.SignExt |
      F.NontrappingFPToInt |
      F.SIMD128 |
      F.BulkMemory |
      F.BulkMemoryOpt |
      F.ExceptionHandling |
      F.RelaxedSIMD,
  );
  const fused = fuseMultiplyAdds(module);
  if (!module.validate()) throw new Error('the rewritten module does not validate');
  const bytes = module.emitBinary();
  module.dispose();

  const out = js
    .replace(DATA_URI, () => 'data:application/octet-stream;base64,' + Buffer.from(bytes).toString('base64'))
    .replace(SUFFIX_LINE, () => 'var BUILD_SUFFIX = "-relaxed";');
  fs.writeFileSync(output, out);
  console.log(`relax: ${output}: ${fused} f32x4 multiply-adds fused into relaxed_madd or relaxed_nmadd`);
}

// Children of the expression kinds that can hold f32x4 arithmetic, as [getter, setter] names.
const FIELDS = new Map([
  [b.LoopId, [b.Loop, ['Body']]],
  [b.IfId, [b.If, ['Condition', 'IfTrue', 'IfFalse']]],
  [b.LocalSetId, [b.LocalSet, ['Value']]],
  [b.GlobalSetId, [b.GlobalSet, ['Value']]],
  [b.LoadId, [b.Load, ['Ptr']]],
  [b.SIMDLoadId, [b.SIMDLoad, ['Ptr']]],
  [b.StoreId, [b.Store, ['Ptr', 'Value']]],
  [b.BinaryId, [b.Binary, ['Left', 'Right']]],
  [b.UnaryId, [b.Unary, ['Value']]],
  [b.DropId, [b.Drop, ['Value']]],
  [b.SelectId, [b.Select, ['IfTrue', 'IfFalse', 'Condition']]],
  [b.SIMDExtractId, [b.SIMDExtract, ['Vec']]],
  [b.SIMDReplaceId, [b.SIMDReplace, ['Vec', 'Value']]],
  [b.SIMDShuffleId, [b.SIMDShuffle, ['Left', 'Right']]],
  [b.SIMDTernaryId, [b.SIMDTernary, ['A', 'B', 'C']]],
  [b.SIMDShiftId, [b.SIMDShift, ['Vec', 'Shift']]],
  [b.SIMDLoadStoreLaneId, [b.SIMDLoadStoreLane, ['Ptr', 'Vec']]],
  [b.ReturnId, [b.Return, ['Value']]],
  [b.BreakId, [b.Break, ['Condition', 'Value']]],
]);

// Visits the children of e (f maps each child to its replacement). Kinds not listed are not
// walked: what they hold stays unfused, which is still correct.
function mapChildren(e, f) {
  const id = b.getExpressionId(e);
  if (id === b.BlockId) {
    for (let i = 0; i < b.Block.getNumChildren(e); i++) b.Block.setChildAt(e, i, f(b.Block.getChildAt(e, i)));
  } else if (id === b.TryId) {
    b.Try.setBody(e, f(b.Try.getBody(e)));
    for (let i = 0; i < b.Try.getNumCatchBodies(e); i++) b.Try.setCatchBodyAt(e, i, f(b.Try.getCatchBodyAt(e, i)));
  } else if (id === b.CallId) {
    for (let i = 0; i < b.Call.getNumOperands(e); i++) b.Call.setOperandAt(e, i, f(b.Call.getOperandAt(e, i)));
  } else if (FIELDS.has(id)) {
    const [kind, names] = FIELDS.get(id);
    for (const name of names) {
      const child = kind['get' + name](e);
      if (child) kind['set' + name](e, f(child));
    }
  }
}

function fuseMultiplyAdds(module) {
  const isMul = (e) => b.getExpressionId(e) === b.BinaryId && b.Binary.getOp(e) === b.MulVecF32x4;
  const ternary = (op, mul, c) =>
    b._BinaryenSIMDTernary(module.ptr, op, b.Binary.getLeft(mul), b.Binary.getRight(mul), c);
  // add(c, mul(a, b)) and sub(c, mul(a, b)) evaluate c first, a relaxed madd evaluates it last:
  // c goes to a fresh local first, so every side effect (a local.tee, a load) keeps its order.
  // (clang writes exp's x + n·(-ln2) as x - n·ln2, and reuses locals across such expressions.)
  const cFirst = (fn, op, mul, c) => {
    const t = b._BinaryenFunctionAddVar(fn, b.v128);
    return module.block(null, [module.local.set(t, c), ternary(op, mul, module.local.get(t, b.v128))], b.v128);
  };

  let fused = 0;
  const visit = (fn, e) => {
    mapChildren(e, (c) => visit(fn, c));
    if (b.getExpressionId(e) !== b.BinaryId) return e;
    const op = b.Binary.getOp(e),
      left = b.Binary.getLeft(e),
      right = b.Binary.getRight(e);
    if (op === b.AddVecF32x4 && isMul(left)) {
      fused++;
      return ternary(b.RelaxedMaddVecF32x4, left, right);
    }
    if (op === b.AddVecF32x4 && isMul(right)) {
      fused++;
      return cFirst(fn, b.RelaxedMaddVecF32x4, right, left);
    }
    if (op === b.SubVecF32x4 && isMul(right)) {
      fused++;
      return cFirst(fn, b.RelaxedNmaddVecF32x4, right, left);
    }
    return e;
  };
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const fn = module.getFunctionByIndex(i);
    const body = b.Function.getBody(fn);
    if (body) b.Function.setBody(fn, visit(fn, body));
  }
  return fused;
}

main(process.argv.slice(2));
