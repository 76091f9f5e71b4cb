#!/usr/bin/env bash
# The main job: build every bundled model (TOML and SPICE netlist) into an FMU under out/, check each with
# `lcsfmu check` (and with the shared conformance checker too, when ../shared is
# there), co-simulate it with
# FMPy over its default experiment and with `lcsfmu simulate`, and show that both
# give the same numbers (and, for each nonlinear model, on one line, how many Newton
# iterations its steps took). Models with inputs are driven by sine waves (out/*.csv,
# see `inputs` below). Each model's plot goes to out/<name>.svg, and out/index.html
# shows them all with their variables and agreement lines. Last, the bead chain is
# built again with 1,000 beads (--define N=1000) and co-simulated.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh

cargo build --release
mkdir -p out
./target/release/lcsfmu build models/*.toml models/*.cir -o out
# An input table per driven model: column name and signal over 0..10 s.
"$venv/bin/python" -c "
import math
signals = {'sine': ('x', math.sin), 'shaft': ('u', math.sin), 'crossing': ('s', lambda t: math.sin(t - 3))}
for file, (name, f) in signals.items():
    with open(f'out/{file}.csv', 'w') as out:
        out.write(f'time,{name}\n')
        for k in range(1001):
            out.write(f'{k * 0.01!r},{f(k * 0.01)!r}\n')
"
declare -A inputs=([saturated_integrator]=sine [saturated_integrator_blocks]=sine
                   [backlash_gear]=shaft [zero_crossing]=crossing)
check=../shared/tools/fmu-check.py
# The histogram `lcsfmu simulate -v` prints for a nonlinear model ("Newton iterations (LCP
# solves) per step, over N steps:", a line per count, the halvings and the largest residual)
# as one line; any other line of the log as it is (none for the linear models).
newton_line() {
    awk '
        /^Newton iterations \(LCP solves\) per step, over / { steps = $8; next }
        steps != "" && /^ +[0-9]+\+? iterations: [0-9]+ steps$/ {
            hist = hist sep $1 " on " $3 " steps"; sep = ", "; next
        }
        steps != "" && /line-search halvings:/ {
            halvings = $3; sub(";", "", halvings); residual = $NF; next
        }
        { print }
        END {
            if (steps != "")
                printf "Newton iterations (LCP solves) per step over %s steps: %s; line-search halvings %s; largest scaled residual at acceptance %.2e\n", steps, hist, halvings, residual
        }' "$1"
}
for fmu in out/*.fmu; do
    name=$(basename "$fmu" .fmu)
    echo "== $name"
    fmpy_input=() lcsfmu_input=()
    if [ -n "${inputs[$name]:-}" ]; then
        table="out/${inputs[$name]}.csv"
        fmpy_input=(--input-file "$table") lcsfmu_input=(--input "$table")
    fi
    # Every FAIL or SKIP line and the summary; a failed check ends the job (pipefail).
    ./target/release/lcsfmu check "$fmu" | grep -v '^PASS '
    if [ -f "$check" ]; then "$venv/bin/python" "$check" "$fmu" | tail -n 1; fi
    # FMPy would otherwise coarsen the step to keep at most 1000 output points.
    step=$("$venv/bin/python" -c "from fmpy import read_model_description as r; print(r('$fmu').defaultExperiment.stepSize)")
    "$venv/bin/fmpy" simulate "$fmu" --interface-type CoSimulation --output-interval "$step" "${fmpy_input[@]}" \
        --output-file "out/$name.fmpy.csv"
    # -v: a nonlinear model's Newton iterations per step, counted by the run itself (no
    # second run), on standard error; shown below on one line.
    log="out/$name.simulate.log"
    if ! ./target/release/lcsfmu simulate "$fmu" "${lcsfmu_input[@]}" -v -o "out/$name.csv" \
        --plot "out/$name.svg" 2>"$log"; then
        cat "$log"
        exit 1
    fi
    newton_line "$log"
    "$venv/bin/python" -c "
import numpy as np, sys
a = np.genfromtxt('out/$name.fmpy.csv', delimiter=',', names=True)
b = np.genfromtxt('out/$name.csv', delimiter=',', names=True)
d = max(float(np.max(np.abs(a[n] - b[n]))) for n in b.dtype.names)
print(f'{len(b)} rows; largest difference FMPy vs lcsfmu simulate: {d:.3g}')
sys.exit(0 if d <= 1e-12 else 1)
" | tee "out/$name.agreement.txt"
    tail -n 2 "out/$name.csv"
done

# The page of every model above: plot, variables, agreement line.
"$venv/bin/python" scripts/models-index.py out

echo "== bead_chain with N = 1000"
mkdir -p out/n1000
./target/release/lcsfmu build models/bead_chain.toml --define N=1000 -o out/n1000/bead_chain.fmu
./target/release/lcsfmu check out/n1000/bead_chain.fmu | grep -v '^PASS '
if [ -f "$check" ]; then "$venv/bin/python" "$check" out/n1000/bead_chain.fmu | tail -n 1; fi
started=$(date +%s.%N)
"$venv/bin/fmpy" simulate out/n1000/bead_chain.fmu --interface-type CoSimulation --output-interval 0.001 \
    --output-variables q1 q1000 v1000 top --output-file out/n1000/bead_chain.fmpy.csv
"$venv/bin/python" -c "
import numpy as np
r = np.genfromtxt('out/n1000/bead_chain.fmpy.csv', delimiter=',', names=True)
print(f'{len(r)} rows in {$(date +%s.%N) - $started:.1f} s (FMPy, 1000 beads); top of the column at t = 1: {r[\"top\"][-1]:.4f} m')
"
