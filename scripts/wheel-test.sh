#!/usr/bin/env bash
# `pip install lcsfmu` without a Rust toolchain (issue 19): builds the wheel and
# proves that what it installs builds working FMUs alone.
#  1. The linux64 runtime is built against glibc 2.17 (cargo-zigbuild, target
#     x86_64-unknown-linux-gnu.2.17) and checked: no symbol newer than GLIBC_2.17.
#     The win64 runtime is scripts/build-runtime-win64.sh's.
#  2. maturin builds the wheel with both embedded (LCSFMU_RUNTIME_DIR; `--zig`
#     links the executable against glibc 2.17), and `auditwheel show` must find
#     it consistent with manylinux_2_17. (auditwheel reads only the ELF files in
#     the wheel, here the executable: the runtimes are inside it, which is why
#     step 1 checks the .so itself.)
#  3. A fresh venv gets the wheel with `pip install --no-index`. With an empty
#     HOME, a PATH of the venv and /usr/bin:/bin only (asserted to have neither
#     cargo nor rustc) and no $CARGO (env -i), the installed lcsfmu must say
#     (--version) that it carries both runtimes, and builds two
#     bundled models (the default runtime must then be the prebuilt one), checks
#     them (its binary run in a child process) and simulates them; FMPy (the
#     project's .venv) runs the FMUs, and its results must equal `lcsfmu
#     simulate`'s bit for bit.
# Prints the figures (wheel size, build time per model) and leaves the wheel in
# target/wheels/. Nothing outside the temporary directory and target/ is written.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tools=$repo/target/wheel-venv
[ -x "$tools/bin/python" ] || python3 -m venv "$tools"
"$tools/bin/pip" install --quiet --disable-pip-version-check -r scripts/wheel-requirements.txt
export PATH="$tools/bin:$PATH"
build=$repo/target/wheel-build
runtime=$repo/target/wheel-runtime
unset CARGO_TARGET_DIR LCSFMU_RUNTIME_DIR

# 1. The runtimes.
mkdir -p "$runtime/linux64"
cargo zigbuild --release --quiet --locked -p fmu-template --features prebuilt \
    --target x86_64-unknown-linux-gnu.2.17 --target-dir "$build"
# -p: an unchanged runtime keeps its time, and maturin does not rebuild the tool.
cp -p "$build/x86_64-unknown-linux-gnu/release/libfmu_template.so" "$runtime/linux64/runtime.so"
glibc=$(objdump -T "$runtime/linux64/runtime.so" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1)
echo "wheel test: the linux64 runtime needs at most $glibc"
[ "$(printf '%s\n' "$glibc" GLIBC_2.17 | sort -V | tail -n 1)" = GLIBC_2.17 ] ||
    { echo "the runtime needs $glibc, newer than manylinux2014's GLIBC_2.17" >&2; exit 1; }
bash scripts/build-runtime-win64.sh "$runtime"

# 2. The wheel.
LCSFMU_RUNTIME_DIR=$runtime maturin build --quiet --release --zig --locked \
    --target-dir "$build" -o "$tmp/dist" >"$tmp/maturin.log" 2>&1 ||
    { cat "$tmp/maturin.log" >&2; exit 1; }
wheel=$(echo "$tmp"/dist/lcsfmu-*.whl)
[ -f "$wheel" ] || { echo "no wheel was built" >&2; exit 1; }
echo "wheel test: $(basename "$wheel"), $(du -k "$wheel" | cut -f1) kB"
# auditwheel wraps its lines: compared with the line breaks made spaces.
audit=$(auditwheel show "$wheel" | tr -s ' \n' ' ')
grep -q 'consistent with the following platform tag: "manylinux_2_17_x86_64"' <<<"$audit" ||
    { echo "$audit" >&2; exit 1; }
# Listings are read whole before grep: `grep -q` stops at the first match, and the
# writer's SIGPIPE would fail the pipeline under pipefail (it did once, at random).
grep -qx 'lcsfmu-[0-9.]*\.data/scripts/lcsfmu' <<<"$(unzip -Z1 "$wheel")" ||
    { unzip -l "$wheel" >&2; exit 1; }

# 3. A fresh venv, no toolchain.
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install --quiet --disable-pip-version-check --no-index "$wheel"
mkdir "$tmp/home" "$tmp/work"
cp models/relay_feedback.toml models/bouncing_ball.toml "$tmp/work/"
env -i HOME="$tmp/home" PATH="$tmp/venv/bin:/usr/bin:/bin" \
    LCSFMU_CACHE="$tmp/home/cache" bash -euo pipefail -c '
    cd "$0"
    if command -v cargo || command -v rustc; then echo "a Rust toolchain is on PATH" >&2; exit 1; fi
    [ "$(command -v lcsfmu)" = "$1/bin/lcsfmu" ]
    # What the wheel carries: both runtimes of step 1.
    version=$(lcsfmu --version)
    for platform in linux64 win64; do
        grep -q "^prebuilt runtime $platform: embedded from LCSFMU_RUNTIME_DIR" <<<"$version" ||
            { echo "$version" >&2; exit 1; }
    done
    for model in relay_feedback bouncing_ball; do
        start=$(date +%s.%N)
        lcsfmu build "$model.toml" -o "$model.fmu" >/dev/null
        echo "wheel test: lcsfmu build $model.toml $(echo "$(date +%s.%N) - $start" | bc) s"
        grep -qx "binaries/win64/$model.dll" <<<"$(unzip -Z1 "$model.fmu")"
        report=$(lcsfmu check "$model.fmu")
        grep -q "^PASS binary loaded and run for 10 steps in a child process: " <<<"$report" ||
            { echo "$report" >&2; exit 1; }
        grep -q "^PASS binaries/win64/$model.dll exports exactly the 34" <<<"$report" ||
            { echo "$report" >&2; exit 1; }
        lcsfmu simulate "$model.fmu" -o "$model.csv"
    done' "$tmp/work" "$tmp/venv"
requirements=scripts/requirements.txt . scripts/venv.sh
"$venv/bin/python" - "$tmp/work" <<'PY'
import csv, sys
from pathlib import Path
from fmpy import read_model_description, simulate_fmu
work = Path(sys.argv[1])
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
    print(f"wheel test: {model}: FMPy == lcsfmu simulate, bit for bit ({len(body)} rows)")
PY
# Kept for `pip install target/wheels/lcsfmu-*.whl` (the wheel is not on PyPI yet).
mkdir -p "$repo/target/wheels"
cp "$wheel" "$repo/target/wheels/"
echo "wheel test: ok ($repo/target/wheels/$(basename "$wheel"))"
