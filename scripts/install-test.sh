#!/usr/bin/env bash
# Issue 10: an installed lcsfmu builds FMUs with its source tree gone and no
# network. Installs from a copy of the committed tree (git archive HEAD) into a
# temporary root, deletes the copy, builds a model from another directory with a
# fresh cache, offline, and checks the archive; then a second build (warm cache)
# and the error without cargo on PATH. The second build is another model: only
# the template crate is recompiled, as from the source tree. Also `cargo package` must carry the
# template. Nothing outside the temporary directory is deleted.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir "$tmp/src"
git archive HEAD | tar -x -C "$tmp/src"
# The package as `cargo package` makes it must hold the template sources.
list=$(cd "$tmp/src" && cargo package --list --offline --allow-dirty 2>/dev/null)
for f in template/build.rs template/src/lib.rs Cargo.lock src/lib.rs; do
    grep -qx "$f" <<<"$list" || { echo "cargo package leaves out $f" >&2; exit 1; }
done
# Registry dependencies are compiled once in the repository's own target tree.
cargo install --quiet --offline --locked --path "$tmp/src" --root "$tmp/root" \
    --target-dir "$repo/target/install-test"
rm -rf "$tmp/src"

mkdir "$tmp/work"
cp models/sign_spiral.toml "$tmp/work/first.toml"
cp models/bouncing_ball.toml "$tmp/work/second.toml"
cd "$tmp/work"
export LCSFMU_CACHE="$tmp/cache" CARGO_NET_OFFLINE=true
unset LCSFMU_SOURCE CARGO CARGO_TARGET_DIR
for run in first second; do
    start=$(date +%s.%N)
    "$tmp/root/bin/lcsfmu" build "$run.toml" -o "$run.fmu" >/dev/null
    echo "install test: $run build $(echo "$(date +%s.%N) - $start" | bc) s"
    files=$(unzip -Z1 "$run.fmu")
    grep -qx modelDescription.xml <<<"$files"
    grep -qx 'binaries/linux64/[A-Za-z_0-9]*\.so' <<<"$files"
done
"$tmp/root/bin/lcsfmu" check second.fmu >/dev/null

# Without a toolchain: a clear error, not a bare "No such file or directory".
mkdir "$tmp/bin"
ln -s "$tmp/root/bin/lcsfmu" "$tmp/bin/lcsfmu"
if err=$(PATH="$tmp/bin" lcsfmu build first.toml -o none.fmu 2>&1); then
    echo "built without cargo on PATH" >&2
    exit 1
fi
grep -q "needs a Rust toolchain (cargo)" <<<"$err" || { echo "unclear error: $err" >&2; exit 1; }
echo "install test: ok"
