#!/usr/bin/env bash
# Issue 10: an installed lcsfmu builds FMUs with its source tree gone and no
# network, by both routes a user has: `cargo install --path` on the source tree,
# and `cargo install` from the `.crate` that `cargo package` makes (whose
# Cargo.toml cargo has rewritten). From a copy of the committed tree (git archive
# HEAD): package it, install it into one temporary root, install the unpacked
# crate into another, delete both sources, then for each root build a model from
# another directory with a fresh cache, offline, and check the archive (its
# binary run by the installed lcsfmu itself); then a
# second build (warm cache) and the error without cargo on PATH. The second build
# is another model: only the template crate is recompiled, as from the source
# tree. Nothing outside the temporary directory is deleted. These tools are built
# without a prebuilt runtime (LCSFMU_RUNTIME_DIR unset), so they compile every
# FMU and, without cargo, say so; scripts/wheel-test.sh installs the tool that
# carries one.
set -euo pipefail
cd "$(dirname "$0")/.."
unset LCSFMU_RUNTIME_DIR
repo=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir "$tmp/src"
git archive HEAD | tar -x -C "$tmp/src"
# Not verified here: verifying compiles the crate once more, and installing it
# below compiles it anyway.
(cd "$tmp/src" && cargo package --quiet --offline --no-verify --allow-dirty \
    --target-dir "$tmp/package")
crate=$(echo "$tmp"/package/package/lcsfmu-*.crate)
# The package must hold what the embedded build needs (build.rs embeds src/,
# template/, the manifest and the lock file).
list=$(tar -tzf "$crate" | sed 's|^[^/]*/||')
for f in build.rs template/build.rs template/src/lib.rs Cargo.lock Cargo.toml src/lib.rs; do
    grep -qx "$f" <<<"$list" || { echo "cargo package leaves out $f" >&2; exit 1; }
done
mkdir "$tmp/crate"
tar -xzf "$crate" -C "$tmp/crate"

# Registry dependencies are compiled once in the repository's own target tree.
install() {
    cargo install --quiet --offline --locked --path "$1" --root "$2" \
        --target-dir "$repo/target/install-test"
}
install "$tmp/src" "$tmp/root-path"
install "$tmp/crate"/lcsfmu-* "$tmp/root-crate"
rm -rf "$tmp/src" "$tmp/crate" "$tmp/package"

export CARGO_NET_OFFLINE=true
unset LCSFMU_SOURCE CARGO CARGO_TARGET_DIR
for route in path crate; do
    lcsfmu="$tmp/root-$route/bin/lcsfmu"
    work="$tmp/work-$route"
    mkdir "$work"
    cp models/sign_spiral.toml "$work/first.toml"
    cp models/bouncing_ball.toml "$work/second.toml"
    (
        cd "$work"
        export LCSFMU_CACHE="$tmp/cache-$route"
        for run in first second; do
            start=$(date +%s.%N)
            "$lcsfmu" build "$run.toml" -o "$run.fmu" >/dev/null
            echo "install test ($route): $run build $(echo "$(date +%s.%N) - $start" | bc) s"
            files=$(unzip -Z1 "$run.fmu")
            grep -qx modelDescription.xml <<<"$files"
            grep -qx 'binaries/linux64/[A-Za-z_0-9]*\.so' <<<"$files"
        done
        # The installed executable runs the binary itself (`__run-binary`), with
        # no development example beside it.
        report=$("$lcsfmu" check second.fmu)
        grep -q "^PASS binary loaded and run for 10 steps in a child process: " <<<"$report" ||
            { echo "$report" >&2; exit 1; }
    )
done

# Without a toolchain: a clear error, not a bare "No such file or directory".
mkdir "$tmp/bin"
ln -s "$tmp/root-crate/bin/lcsfmu" "$tmp/bin/lcsfmu"
if err=$(cd "$tmp/work-crate" && LCSFMU_CACHE="$tmp/cache-crate" PATH="$tmp/bin" lcsfmu build first.toml -o none.fmu 2>&1); then
    echo "built without cargo on PATH" >&2
    exit 1
fi
grep -q "needs a Rust toolchain (cargo)" <<<"$err" || { echo "unclear error: $err" >&2; exit 1; }
if err=$(cd "$tmp/work-crate" && PATH="$tmp/bin" lcsfmu build --runtime prebuilt first.toml -o none.fmu 2>&1); then
    echo "built with a prebuilt runtime it does not have" >&2
    exit 1
fi
grep -q "has no prebuilt runtime" <<<"$err" || { echo "unclear error: $err" >&2; exit 1; }
echo "install test: ok"
