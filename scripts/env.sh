# Sourced by the scripts: this machine's toolchain traps, in one place.
# Debian's Emscripten needs Debian's acorn, which a Node that is not Debian's does not find.
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"
