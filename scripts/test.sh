#!/usr/bin/env bash
# The whole test suite: Rust unit and integration tests, lints, then every bundled
# model built into an FMU, checked under valgrind and with FMPy (pytest, in a venv
# created here).
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/system-deps.sh
requirements=tests/python/requirements.txt . scripts/venv.sh

cargo fmt --all --check
cargo clippy --all-targets --release -- -D warnings
cargo test --release
# The figures of the random FMI call sequences (tests/integration/call_sequences.rs).
head -n 1 target/conformance/call-sequences.txt
cargo build --release --bins --examples
# The FMU template only compiles with a generated model: lint it with one.
cache=target/fmu-build
./target/release/lcsfmu build models/sign_spiral.toml -o "$cache/sign_spiral.fmu"
LCSFMU_GENERATED="$PWD/$cache/generated/sign_spiral.rs" cargo clippy -p fmu-template --release -- -D warnings
# Memory: every bundled model's FMU under valgrind, 1,000 life cycles of 100 steps
# each (examples/fmu_cycles.rs); a leak or an invalid access fails the suite.
rm -rf "$cache/memcheck"
./target/release/lcsfmu build models/*.toml -o "$cache/memcheck" >/dev/null
for fmu in "$cache"/memcheck/*.fmu; do
    valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=1 \
        target/release/examples/fmu_cycles "$fmu" 1000 100
done
# Installed with the source tree gone, offline (scripts/install-test.sh).
bash scripts/install-test.sh
LCSFMU_BIN="$PWD/target/release/lcsfmu" LCSFMU_FMI_COSIM="$PWD/target/release/examples/fmi_cosim" \
    "$venv/bin/python" -m pytest tests/python -q
