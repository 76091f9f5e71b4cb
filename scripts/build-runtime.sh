#!/usr/bin/env bash
# Builds the prebuilt runtime: the FMU template compiled once, without a model
# (`--features prebuilt`; it reads resources/model.json at instantiation), into
# DIR/linux64/runtime.so. The lcsfmu tool embeds what DIR holds when it is
# compiled with LCSFMU_RUNTIME_DIR=DIR (build.rs): the test suite builds the
# runtime once here and every lcsfmu it compiles embeds it. (Without the
# variable, a release build of lcsfmu compiles the same runtime itself.)
# Usage: scripts/build-runtime.sh [DIR]   (default: target/runtime)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/target/runtime}
mkdir -p "$dir/linux64"
# Its own target directory: the runtime's core is built without the tool's
# features, and the workspace's libfmu_template.so must not be overwritten.
# build.rs's nested build of the same runtime uses target/runtime-build/linux64
# too when LCSFMU_RUNTIME_TARGET_DIR=target/runtime-build (the install test).
cargo build --release --quiet --locked -p fmu-template --features prebuilt \
    --manifest-path "$root/Cargo.toml" --target-dir "$root/target/runtime-build/linux64"
# Replaced only when it changed: the tool embedding it is rebuilt when its mtime moves.
cp "$root/target/runtime-build/linux64/release/libfmu_template.so" "$dir/linux64/runtime.so.tmp"
if cmp -s "$dir/linux64/runtime.so.tmp" "$dir/linux64/runtime.so"; then
    rm "$dir/linux64/runtime.so.tmp"
else
    mv "$dir/linux64/runtime.so.tmp" "$dir/linux64/runtime.so"
fi
