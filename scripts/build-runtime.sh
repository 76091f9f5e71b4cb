#!/usr/bin/env bash
# Builds the prebuilt runtime: the FMU template compiled once, without a model
# (`--features prebuilt`; it reads resources/model.json at instantiation), into
# DIR/linux64/runtime.so. The lcsfmu tool embeds what DIR holds when it is
# compiled with LCSFMU_RUNTIME_DIR=DIR (build.rs), so the route for an installed
# tool with a runtime is:
#     bash scripts/build-runtime.sh target/runtime
#     LCSFMU_RUNTIME_DIR=$PWD/target/runtime cargo install --path .
# (cargo's build script of the root crate cannot build a cdylib of its own
# workspace, hence this script.)
# Usage: scripts/build-runtime.sh [DIR]   (default: target/runtime)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/target/runtime}
mkdir -p "$dir/linux64"
# Its own target directory: the runtime's core is built without the tool's
# features, and the workspace's libfmu_template.so must not be overwritten.
cargo build --release --quiet --locked -p fmu-template --features prebuilt \
    --manifest-path "$root/Cargo.toml" --target-dir "$root/target/runtime-build"
# Replaced only when it changed: the tool embedding it is rebuilt when its mtime moves.
cp "$root/target/runtime-build/release/libfmu_template.so" "$dir/linux64/runtime.so.tmp"
if cmp -s "$dir/linux64/runtime.so.tmp" "$dir/linux64/runtime.so"; then
    rm "$dir/linux64/runtime.so.tmp"
else
    mv "$dir/linux64/runtime.so.tmp" "$dir/linux64/runtime.so"
fi
