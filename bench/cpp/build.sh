#!/usr/bin/env bash
# Builds and runs the kernel microbenchmarks in three flavours and prints markdown tables:
#   native       g++ -O3 -march=native            (scalar kernels; Eigen GEMMs/attention when found)
#   wasm-simd    em++ -O3 -msimd128, run with node (the wasmsimd kernels)
#   wasm-scalar  em++ -O3 without SIMD, run with node (the scalar twins; the 3x baseline)
#   wasm-relaxed wasm-simd through wasm/relax.mjs (mul+add fused into relaxed_madd, the FMA build;
#                its peak row measures FMA chains), run with node's relaxed-SIMD flag where needed
# Usage: bench/cpp/build.sh [OUT_DIR=/tmp/mha-bench] [FLAVOURS="native wasm-simd wasm-scalar"] [MIN_SECONDS=0.25] [TIMER=cpu|wall]
#   e.g. bench/cpp/build.sh /tmp/mha-bench "wasm-simd wasm-scalar" 0.5 wall
# TIMER=cpu (default) times with process CPU time, robust on a shared machine; wall = steady_clock.
# Needs g++, em++ (Emscripten 3.1.x) and node (scripts/env.sh sets what this machine needs).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="${1:-/tmp/mha-bench}"
FLAVOURS="${2:-native wasm-simd wasm-scalar}"
MIN_SECONDS="${3:-0.25}"
TIMER="${4:-cpu}"
source "$ROOT"/scripts/env.sh
mkdir -p "$OUT"
SRCS=("$ROOT"/core/src/kernels/dispatch.cpp "$ROOT"/core/src/kernels/f32_scalar.cpp
      "$ROOT"/core/src/kernels/f32_wasmsimd.cpp "$HERE"/bench_kernels.cpp)
EM_FLAGS=(-std=c++17 -O3 -I"$ROOT"/core/include -sSINGLE_FILE=1 -sALLOW_MEMORY_GROWTH=1
          -sINITIAL_MEMORY=64MB)
# stale BIN [DEP...]: BIN is missing or older than a source, the kernel header, this script or a DEP
# (then it is rebuilt).
stale() {
  [[ -f "$1" ]] || return 0
  local s bin="$1"
  shift
  for s in "${SRCS[@]}" "$ROOT"/core/include/mha/kernels.hpp "$HERE"/build.sh "$@"; do [[ "$s" -nt "$bin" ]] && return 0; done
  return 1
}
build_simd() { if stale "$OUT"/bench_simd.js; then em++ "${EM_FLAGS[@]}" -msimd128 "${SRCS[@]}" -o "$OUT"/bench_simd.js; fi; }
for f in $FLAVOURS; do
  case "$f" in
    native)
      EIGEN=(); [ -d /usr/include/eigen3 ] && EIGEN=(-I/usr/include/eigen3)
      stale "$OUT"/bench_native && g++ -std=c++17 -O3 -march=native -DNDEBUG -I"$ROOT"/core/include "${EIGEN[@]}" \
        "${SRCS[@]}" -o "$OUT"/bench_native
      "$OUT"/bench_native "$MIN_SECONDS" "$TIMER" ;;
    wasm-simd)
      build_simd
      node "$OUT"/bench_simd.js "$MIN_SECONDS" "$TIMER" ;;
    wasm-relaxed)
      build_simd
      stale "$OUT"/bench_relaxed.js "$OUT"/bench_simd.js "$ROOT"/wasm/relax.mjs &&
        node "$ROOT"/wasm/relax.mjs "$OUT"/bench_simd.js "$OUT"/bench_relaxed.js >&2
      # shellcheck disable=SC2046  # the flags are one word or none
      node $(relaxed_node_flags) "$OUT"/bench_relaxed.js "$MIN_SECONDS" "$TIMER" ;;
    wasm-scalar)
      stale "$OUT"/bench_scalar.js && em++ "${EM_FLAGS[@]}" "${SRCS[@]}" -o "$OUT"/bench_scalar.js
      node "$OUT"/bench_scalar.js "$MIN_SECONDS" "$TIMER" ;;
    *) echo "unknown flavour: $f" >&2; exit 2 ;;
  esac
done
