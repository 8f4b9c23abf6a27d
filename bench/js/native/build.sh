#!/usr/bin/env bash
# Builds bench_forward (native timing of our MHA forward) from core/src with the native Release
# flags of the CMake project (g++ -O3 -DNDEBUG, C++17, Eigen GEMMs when /usr/include/eigen3 exists).
# Usage: bench/js/native/build.sh [OUT_DIR=build/bench]. Rebuilds only when a source is newer.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
OUT="${1:-$ROOT/build/bench}"
BIN="$OUT/bench_forward"
SRCS=("$ROOT"/core/src/*.cpp "$ROOT"/core/src/kernels/*.cpp "$HERE/bench_forward.cpp")
CXX="${CXX:-g++}"
command -v "$CXX" >/dev/null || { echo "native: $CXX not found" >&2; exit 1; }
if [[ -x "$BIN" ]]; then
  stale=0
  for f in "${SRCS[@]}" "$ROOT"/core/include/mha/*.hpp; do [[ "$f" -nt "$BIN" ]] && { stale=1; break; }; done
  [[ $stale == 0 ]] && exit 0
fi
mkdir -p "$OUT/obj"
rm -f "$OUT"/obj/*.o "$BIN"
FLAGS=(-std=c++17 -O3 -DNDEBUG -I"$ROOT/core/include")
[[ -d /usr/include/eigen3 ]] && FLAGS+=(-isystem /usr/include/eigen3)
echo "native: building $BIN" >&2
objs=()
for f in "${SRCS[@]}"; do
  o="$OUT/obj/$(basename "${f%.cpp}").o"
  objs+=("$o")
  "$CXX" "${FLAGS[@]}" -c "$f" -o "$o" &
  while (( $(jobs -rp | wc -l) >= 2 )); do wait -n; done
done
for j in $(jobs -rp); do wait "$j"; done
for o in "${objs[@]}"; do [[ -f "$o" ]] || { echo "native: compile failed" >&2; exit 1; }; done
"$CXX" "${objs[@]}" -o "$BIN"
