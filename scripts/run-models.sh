#!/usr/bin/env bash
# The main job: build every bundled model into an FMU under out/, check each with
# the shared conformance checker, co-simulate it with FMPy over its default
# experiment and with `lcsfmu simulate`, and print the last rows of each.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/python/requirements.txt

cargo build --release
mkdir -p out
./target/release/lcsfmu build models/*.toml -o out
for fmu in out/*.fmu; do
    name=$(basename "$fmu" .fmu)
    echo "== $name"
    "$venv/bin/python" ../shared/tools/fmu-check.py "$fmu" | tail -n 1
    "$venv/bin/fmpy" simulate "$fmu" --interface-type CoSimulation --output-file "out/$name.fmpy.csv"
    ./target/release/lcsfmu simulate "$fmu" -o "out/$name.csv"
    tail -n 3 "out/$name.csv"
done
