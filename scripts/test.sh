#!/usr/bin/env bash
# The whole test suite: Rust unit and integration tests, lints, then every bundled
# model built into an FMU and checked with FMPy (pytest, in a venv created here).
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/venv.sh

cargo fmt --all --check
cargo clippy --all-targets --release -- -D warnings
cargo test --release
cargo build --release
# The FMU template only compiles with a generated model: lint it with one.
cache=target/fmu-build
./target/release/lcsfmu build models/sign_spiral.toml -o "$cache/sign_spiral.fmu"
LCSFMU_GENERATED="$PWD/$cache/generated/sign_spiral.rs" cargo clippy -p fmu-template --release -- -D warnings
LCSFMU_BIN="$PWD/target/release/lcsfmu" "$venv/bin/python" -m pytest tests/python -q
