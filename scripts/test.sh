#!/usr/bin/env bash
# The whole test suite: Rust unit and integration tests, lints, then every bundled
# model built into an FMU and checked with FMPy (pytest, in a venv created here).
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/python/requirements.txt

cargo fmt --all --check
cargo clippy --all-targets --release -- -D warnings
cargo test --release
cargo build --release
LCSFMU_BIN="$PWD/target/release/lcsfmu" "$venv/bin/python" -m pytest tests/python -q
