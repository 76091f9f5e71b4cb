#!/usr/bin/env bash
# The whole test suite: Rust unit and integration tests, lints, then every bundled
# model built into an FMU, checked under valgrind, a short run of each fuzz target,
# and FMPy (pytest, in a venv created here).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase prints the time taken so far: CI stops at 90 minutes, and its log then
# tells which phase grew.
phase() { echo "== $1 (at $((SECONDS / 60)) min $((SECONDS % 60)) s)"; }

phase "system packages and the venv"
. scripts/system-deps.sh
requirements=tests/python/requirements.txt . scripts/venv.sh
# The prebuilt runtimes (the template built once without a model), embedded by
# every lcsfmu built below: `lcsfmu build --runtime prebuilt` is tested too, and
# every FMU carries the win64 DLL, cross-built with Debian's Rust 1.96 and MinGW-w64
# (std compiled from source the first time: a few minutes) and run under wine by
# tests/python/test_win64.py.
phase "prebuilt runtimes"
bash scripts/build-runtime.sh target/runtime
bash scripts/build-runtime-win64.sh target/runtime
export LCSFMU_RUNTIME_DIR="$PWD/target/runtime"

phase "format, lints, docs"
cargo fmt --all --check
cargo fmt --manifest-path fuzz/Cargo.toml --all --check
cargo clippy --all-targets --release -- -D warnings
# The API documentation builds without a broken or private intra-doc link, and
# so do the private items' docs (the maintainer's map).
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --lib
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --lib --document-private-items
phase "cargo test"
cargo test --release
# The figures of the random FMI call sequences (tests/integration/call_sequences*.rs: FMI 2.0
# and 3.0, Co-Simulation and Model Exchange).
head -n 1 target/conformance/call-sequences*.txt
phase "FMU template lints"
cargo build --release --bins --examples
# The FMU template only compiles with a generated model: lint it with one.
cache=target/fmu-build
./target/release/lcsfmu build models/sign_spiral.toml -o "$cache/sign_spiral.fmu"
for features in "" forced-panic fmi3 forced-panic,fmi3 model-exchange me-only fmi3,model-exchange \
        fmi3,me-only; do
    LCSFMU_GENERATED="$PWD/$cache/generated/sign_spiral.rs" \
        cargo clippy -p fmu-template --release --features "$features" -- -D warnings
done
cargo clippy -p fmu-template --release --features prebuilt -- -D warnings
# Memory: every bundled model's FMU (netlists too) under valgrind, 20 life cycles of 100 steps
# each (examples/fmu_cycles.rs); a leak or an invalid access fails the suite. A leak shows in
# one cycle; the repetitions catch state that grows from one instance to the next (a cache, a
# logger registry). With 200 cycles the valgrind phases took 12.5 of a 52-minute job here; with
# 50 (and five Model Exchange cycles) 17 of a 79-minute CI job.
phase "valgrind: FMI 2.0 Co-Simulation"
rm -rf "$cache/memcheck"
./target/release/lcsfmu build models/*.toml models/*.cir -o "$cache/memcheck" >/dev/null
for fmu in "$cache"/memcheck/*.fmu; do
    valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=1 \
        target/release/examples/fmu_cycles "$fmu" 20 100
done
# The same for FMI 3.0 builds (examples/fmu3_cycles.rs: Event Mode, early return, FMU
# states), and rlc_diode event-driven over 1,500 steps of 1 ms: past its switch at
# t = 1.209, where a step returns early (one more doStep per cycle).
phase "valgrind: FMI 3.0 Co-Simulation"
rm -rf "$cache/memcheck3"
./target/release/lcsfmu build models/*.toml models/*.cir --fmi 3 -o "$cache/memcheck3" >/dev/null
for fmu in "$cache"/memcheck3/*.fmu; do
    valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=1 \
        target/release/examples/fmu3_cycles "$fmu" 20 100
done
./target/release/lcsfmu build models/rlc_diode.toml --fmi 3 --scheme event-driven \
    -o "$cache/rlc_diode_event_driven3.fmu" >/dev/null
valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=1 \
    target/release/examples/fmu3_cycles "$cache/rlc_diode_event_driven3.fmu" 20 1500
# Model Exchange (examples/me_cycles.rs: Euler with event iterations, directional
# derivatives, a refused NaN state) on the cs,me build of every first-order model, over
# 3000 steps: past the switches of rlc_diode, the relay and the spiral, and through the
# time events of buck_pwm. Three cycles: the chattering models (pm_braking_bridge,
# heat_losses_friction) iterate events at most steps, 10 to 20 s a cycle under valgrind.
phase "valgrind: Model Exchange"
rm -rf "$cache/memcheck-me"
me_models=(backlash_gear coulomb_friction friction_block pwa_feedback relay_feedback rlc_diode
           saturated_integrator saturated_integrator_blocks servo_deadzone sign_spiral
           square_helix zero_crossing vdp_saturation diode_bridge_source buck_pwm
           filippov_slide pm_braking_bridge heat_losses_friction)
me_files=()
for m in "${me_models[@]}"; do me_files+=("models/$m.toml"); done
./target/release/lcsfmu build "${me_files[@]}" --interface cs,me -o "$cache/memcheck-me" >/dev/null
for fmu in "$cache"/memcheck-me/*.fmu; do
    valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=1 \
        target/release/examples/me_cycles "$fmu" 3 3000
done
# The same for FMI 3.0 Model Exchange (examples/me3_cycles.rs: also the named indicators
# against fmi3GetEventIndicators, and the adjoint derivatives).
phase "valgrind: FMI 3.0 Model Exchange"
rm -rf "$cache/memcheck-me3"
./target/release/lcsfmu build "${me_files[@]}" --fmi 3 --interface cs,me -o "$cache/memcheck-me3" >/dev/null
for fmu in "$cache"/memcheck-me3/*.fmu; do
    valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=1 \
        target/release/examples/me3_cycles "$fmu" 3 3000
done
# The prebuilt runtime, which reads the model file at every instantiation: three
# models of the three forms (matrices, blocks, mechanical), 100 life cycles each.
phase "valgrind: prebuilt runtime"
rm -rf "$cache/memcheck-prebuilt"
./target/release/lcsfmu build --runtime prebuilt models/sign_spiral.toml models/servo_deadzone.toml \
    models/bouncing_ball.toml -o "$cache/memcheck-prebuilt" >/dev/null
for fmu in "$cache"/memcheck-prebuilt/*.fmu; do
    valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=1 \
        target/release/examples/fmu_cycles "$fmu" 100 100
done
# Coverage-guided fuzzing (fuzz/, a workspace of its own, on the nightly toolchain): each
# target for 20 s from its seed corpus (written by fuzz/examples/seeds.rs); a crash, a
# panic, a hang over 10 s or 2 GB of memory fails the suite. The long runs: README, Fuzzing.
phase "fuzzing"
command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz
(
    cd fuzz
    cargo run --quiet --release --example seeds
    for target in model_file netlist fmu_state check_archive; do
        log="../target/fuzz-$target.log"
        if ! cargo +nightly fuzz run -O "$target" -- -max_total_time=20 -max_len=131072 \
            -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1; then
            tail -n 60 "$log"
            exit 1
        fi
        echo "fuzz $target: $(grep -E '^Done' "$log"), $(grep -oE 'cov: [0-9]+' "$log" | tail -n 1)"
    done
)
# Installed from source (cargo install --path, the packaged crate, pip install .),
# each compiling its own runtimes, then used with the source tree gone, offline,
# and without cargo (scripts/install-test.sh); and from the pip wheel into a venv
# without a Rust toolchain (scripts/wheel-test.sh).
phase "install and wheel"
bash scripts/install-test.sh
bash scripts/wheel-test.sh
phase "pytest"
LCSFMU_BIN="$PWD/target/release/lcsfmu" LCSFMU_FMI_COSIM="$PWD/target/release/examples/fmi_cosim" \
    "$venv/bin/python" -m pytest tests/python -q
phase "done"
