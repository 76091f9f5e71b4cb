#!/usr/bin/env bash
# Issues 10 and 28: an lcsfmu installed from source builds FMUs with its source
# tree gone, offline, and without a Rust toolchain too, by the three source routes
# a user has:
#   path   `cargo install --path` on the source tree;
#   crate  `cargo install` from the `.crate` that `cargo package` makes (whose
#          Cargo.toml cargo has rewritten, and which has no fmu-template/);
#   pip    `pip install .` (PEP 517: maturin builds a wheel of the source tree)
#          into a fresh venv.
# Each is built from a copy of the committed tree (git archive HEAD) with
# LCSFMU_RUNTIME_DIR unset, so its build script compiles the prebuilt runtimes
# itself (build.rs): linux64 always, win64 where a cross toolchain is given
# (the path and pip routes get the Debian one of scripts/win64-toolchain.sh
# when it and MinGW-w64 are there, as in scripts/test.sh; the crate route gets
# none, and must say so). Then, with both sources deleted:
#  - `lcsfmu --version` must name the runtimes the route was to get;
#  - path and crate: two models compiled with cargo from another directory with a
#    fresh cache, offline (the second is another model: only the template crate
#    is recompiled), the second checked (its binary run by the installed lcsfmu);
#  - every route, with an empty HOME, a PATH of the tool and /usr/bin:/bin only
#    (asserted to have neither cargo nor rustc) and no other variable: two models
#    built (`--runtime prebuilt`, and the default, which must then be the same
#    runtime), checked (binary run in a child process, the win64 DLL's exports)
#    and simulated; FMPy (the project's .venv) runs the FMUs and must give
#    `lcsfmu simulate`'s numbers bit for bit; `--fmi 3`, which the runtime does
#    not cover, must say that it needs cargo.
# Prints the figures (install and build times). Nothing outside the temporary
# directory and target/ is written.
set -euo pipefail
cd "$(dirname "$0")/.."
unset LCSFMU_RUNTIME_DIR LCSFMU_WIN64_TOOLCHAIN
repo=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
requirements=scripts/requirements.txt . scripts/venv.sh
fmpy_python=$repo/$venv/bin/python
# The nested runtime builds of all routes share their compiled dependencies, and
# the linux64 ones those of scripts/build-runtime.sh (build.rs).
export LCSFMU_RUNTIME_TARGET_DIR=$repo/target/runtime-build
win64_toolchain=
# Without them, no route gets a win64 runtime, and each must say so.
if command -v x86_64-w64-mingw32-gcc >/dev/null && [ -x "$repo/target/win64-toolchain/root/usr/bin/cargo" ]; then
    win64_toolchain=$repo/target/win64-toolchain
fi
echo "install test: win64 runtime from ${win64_toolchain:-no toolchain (MinGW-w64 and target/win64-toolchain absent)}"

# Every package the lockfile names, for every target, while the registry can be reached: the
# routes below are offline, and maturin's `cargo metadata` resolves the whole graph (Android's
# android_system_properties too, which no Linux build downloads: a fresh machine failed there).
cargo fetch --locked --quiet
mkdir "$tmp/src" "$tmp/src-pip"
git archive HEAD | tar -x -C "$tmp/src"
# A copy of its own: from the same path, maturin's cargo would reuse what `cargo
# install --path` compiled, build script run included, and test nothing of its own.
git archive HEAD | tar -x -C "$tmp/src-pip"
# Not verified here: verifying compiles the crate once more, and installing it
# below compiles it anyway.
(cd "$tmp/src" && cargo package --quiet --offline --no-verify --allow-dirty \
    --target-dir "$tmp/package")
crate=$(echo "$tmp"/package/package/lcsfmu-*.crate)
# The package must hold what the embedded build needs (build.rs embeds src/,
# template/, the manifest and the lock file).
list=$(tar -tzf "$crate" | sed 's|^[^/]*/||')
for f in build.rs template/build.rs template/src/lib.rs Cargo.lock Cargo.toml src/lib.rs \
        src/fmi/template_manifest.rs; do
    grep -qx "$f" <<<"$list" || { echo "cargo package leaves out $f" >&2; exit 1; }
done
mkdir "$tmp/crate"
tar -xzf "$crate" -C "$tmp/crate"

timed() {
    local what=$1 start
    shift
    start=$(date +%s.%N)
    "$@" >/dev/null
    echo "install test: $what $(echo "$(date +%s.%N) - $start" | bc) s"
}
# Registry dependencies are compiled once in the repository's own target tree
# (maturin's cargo too, through CARGO_TARGET_DIR).
install() {
    cargo install --quiet --offline --locked --path "$1" --root "$2" \
        --target-dir "$repo/target/install-test"
}
LCSFMU_WIN64_TOOLCHAIN=$win64_toolchain timed "cargo install --path" \
    install "$tmp/src" "$tmp/root-path"
timed "cargo install (the packaged crate)" install "$tmp/crate"/lcsfmu-* "$tmp/root-crate"
python3 -m venv "$tmp/root-pip"
# The build backend (maturin, pyproject.toml) comes from PyPI as for any user;
# cargo stays offline.
LCSFMU_WIN64_TOOLCHAIN=$win64_toolchain CARGO_NET_OFFLINE=true \
    CARGO_TARGET_DIR="$repo/target/install-test" timed "pip install ." \
    "$tmp/root-pip/bin/pip" install --quiet --disable-pip-version-check "$tmp/src-pip"
rm -rf "$tmp/src" "$tmp/src-pip" "$tmp/crate" "$tmp/package"

export CARGO_NET_OFFLINE=true
unset LCSFMU_SOURCE CARGO CARGO_TARGET_DIR LCSFMU_RUNTIME_TARGET_DIR
for route in path crate pip; do
    lcsfmu="$tmp/root-$route/bin/lcsfmu"
    win64=no
    if [ -n "$win64_toolchain" ] && [ "$route" != crate ]; then win64=yes; fi
    version=$("$lcsfmu" --version)
    grep -q "^prebuilt runtime linux64: compiled when this lcsfmu was built" <<<"$version" ||
        { echo "$version" >&2; exit 1; }
    if [ "$win64" = yes ]; then
        grep -q "^prebuilt runtime win64: cross-compiled" <<<"$version" || { echo "$version" >&2; exit 1; }
    else
        grep -q "^prebuilt runtime win64: none: " <<<"$version" || { echo "$version" >&2; exit 1; }
    fi
    echo "install test ($route): $(tr '\n' ';' <<<"$version" | sed 's/;prebuilt runtime /; /g')"
    work="$tmp/work-$route"
    mkdir "$work"
    cp models/sign_spiral.toml "$work/first.toml"
    cp models/bouncing_ball.toml "$work/second.toml"
    cp models/relay_feedback.toml models/bouncing_ball.toml "$work/"
    # Compiled with cargo (the pip route's tool embeds the same sources as the
    # others; compiling them once more would only cost time).
    if [ "$route" != pip ]; then
        (
            cd "$work"
            export LCSFMU_CACHE="$tmp/cache-$route"
            for run in first second; do
                timed "($route) compiled build of $run" \
                    "$lcsfmu" build --runtime compiled "$run.toml" -o "$run.fmu"
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
    fi
    # Without a toolchain.
    mkdir "$tmp/bin-$route" "$tmp/home-$route"
    ln -s "$lcsfmu" "$tmp/bin-$route/lcsfmu"
    env -i HOME="$tmp/home-$route" PATH="$tmp/bin-$route:/usr/bin:/bin" \
        LCSFMU_CACHE="$tmp/home-$route/cache" bash -euo pipefail -c '
        cd "$0"
        route=$1 win64=$2
        if command -v cargo || command -v rustc; then echo "a Rust toolchain is on PATH" >&2; exit 1; fi
        for model in relay_feedback bouncing_ball; do
            # The first explicitly, the second by default (no cargo: prebuilt).
            runtime=()
            [ "$model" = relay_feedback ] && runtime=(--runtime prebuilt)
            start=$(date +%s.%N)
            lcsfmu build "${runtime[@]}" "$model.toml" -o "$model.fmu" >/dev/null
            echo "install test ($route): no cargo: lcsfmu build ${runtime[*]} $model.toml" \
                "$(echo "$(date +%s.%N) - $start" | bc) s"
            files=$(unzip -Z1 "$model.fmu")
            grep -qx "binaries/linux64/$model.so" <<<"$files"
            if [ "$win64" = yes ]; then
                grep -qx "binaries/win64/$model.dll" <<<"$files" || { echo "$files" >&2; exit 1; }
            elif grep -q "^binaries/win64/" <<<"$files"; then
                echo "a win64 binary from a tool without the win64 runtime" >&2; exit 1
            fi
            unzip -p "$model.fmu" "binaries/linux64/$model.so" >"$model.so"
            report=$(lcsfmu check "$model.fmu")
            grep -q "^PASS binary loaded and run for 10 steps in a child process: " <<<"$report" ||
                { echo "$report" >&2; exit 1; }
            if [ "$win64" = yes ]; then
                grep -q "^PASS binaries/win64/$model.dll exports exactly the 34" <<<"$report" ||
                    { echo "$report" >&2; exit 1; }
            fi
            lcsfmu simulate "$model.fmu" -o "$model.csv"
        done
        # The default without cargo is the prebuilt runtime: the same library.
        cmp -s relay_feedback.so bouncing_ball.so ||
            { echo "the default build is not the prebuilt runtime" >&2; exit 1; }
        # What the runtime does not cover needs cargo, and says so.
        if err=$(lcsfmu build --fmi 3 relay_feedback.toml -o none.fmu 2>&1); then
            echo "an FMI 3.0 FMU built without cargo" >&2; exit 1
        fi
        grep -q "needs a Rust toolchain (cargo)" <<<"$err" || { echo "unclear error: $err" >&2; exit 1; }
        ' "$work" "$route" "$win64"
    "$fmpy_python" - "$work" "$route" <<'PY'
import csv, sys
from pathlib import Path
from fmpy import read_model_description, simulate_fmu
work, route = Path(sys.argv[1]), sys.argv[2]
for model in ("relay_feedback", "bouncing_ball"):
    with open(work / f"{model}.csv", newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], [[float(x) for x in r] for r in rows[1:]]
    fmu = str(work / f"{model}.fmu")
    # FMPy doubles the default step until at most 1,000 steps remain; lcsfmu simulate
    # takes the default experiment's step as it is.
    step = float(read_model_description(fmu).defaultExperiment.stepSize)
    result = simulate_fmu(fmu, fmi_type="CoSimulation", output_interval=step)
    assert list(result.dtype.names) == header, (result.dtype.names, header)
    assert len(result) == len(body), (len(result), len(body))
    for i, name in enumerate(header):
        fmpy = [float(x) for x in result[name]]
        assert fmpy == [r[i] for r in body], f"{model}: column {name} differs"
    print(f"install test ({route}): no cargo: {model}: FMPy == lcsfmu simulate, "
          f"bit for bit ({len(body)} rows)")
PY
done
echo "install test: ok"
