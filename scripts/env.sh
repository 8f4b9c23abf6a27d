# Sourced by the scripts: this machine's toolchain traps, in one place.
# Debian's Emscripten needs Debian's acorn, which a Node that is not Debian's does not find.
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"

# The flags this node needs to run relaxed SIMD (dist/mha-relaxed.js): one on Node 20, none later;
# prints nothing either where node cannot run it at all (wasm/relaxed-probe.mjs tells them apart).
MHA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
relaxed_node_flags() { node "$MHA_ROOT/wasm/relaxed-probe.mjs" 2>/dev/null || true; }

# Nothing may fetch from a model hub: transformers and huggingface_hub stay offline in every test.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1
