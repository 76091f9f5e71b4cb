#!/usr/bin/env bash
# The sha256 of `lcsfmu simulate`'s CSV for every bundled model under several
# settings, one line each: run it with the binary built before a change and
# after it, and diff the two outputs (a change meant to keep the numbers must
# leave every line the same).
#
# Each model runs at its own step, at 0.0007 and at 0.02; the mechanical ones also
# under each mechanical scheme, the ones with inputs also driven by a sine table.
# A run that fails is hashed too (its exit status and error), so a change in
# which runs fail shows as well.
#
# A line that changes is not always a regression: a change of rounding moves
# some runs far. bead_chain@0.02 moves the beads 2 diameters per step, and a
# contact's gap decides at rounding whether it opens; a start velocity 1 ulp
# off (-1.0000000000000002) moves its velocities by 0.2 from t = 0.14 with the
# same binary, and both runs are 1.1 m/s from a run at h = 5e-4. Compare a
# changed line against such a perturbed run before calling it a regression.
#
# usage: scripts/simulate-hashes.sh [MODEL.toml|MODEL.cir ...] > hashes.txt
#        env: LCSFMU (target/release/lcsfmu)
#        then: diff before.txt after.txt
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${LCSFMU:-target/release/lcsfmu}
[ -x "$bin" ] || cargo build --release --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
models=("$@")
# Every bundled model: TOML files and SPICE netlists.
[ ${#models[@]} -gt 0 ] || models=(models/*.toml models/*.cir)

# run NAME ARGS...: one simulate, its hash (or its failure's) on one line.
run() {
    local name=$1 rc=0
    shift
    "$bin" simulate "$@" -o "$work/out.csv" 2>"$work/err" || rc=$?
    if [ "$rc" = 0 ]; then
        printf '%s %s\n' "$name" "$(sha256sum <"$work/out.csv" | cut -d' ' -f1)"
    else
        printf '%s failed(%s) %s\n' "$name" "$rc" "$(sha256sum <"$work/err" | cut -d' ' -f1)"
    fi
    rm -f "$work/out.csv"
}

for model in "${models[@]}"; do
    name=$(basename "$model")
    name=${name%.*}
    run "$name" "$model"
    run "$name@0.0007" "$model" --step 0.0007
    run "$name@0.02" "$model" --step 0.02
    if grep -q '^\[\[coordinates\]\]' "$model"; then
        for scheme in moreau-jean moreau-jean-projected moreau-jean-direct-projection semi-explicit; do
            run "$name:$scheme" "$model" --scheme "$scheme"
        done
    fi
    input=$(awk '/^\[\[inputs\]\]/ { i = 1; next } i && /^name/ { gsub(/"/, "", $3); print $3; exit }' "$model")
    if [ -n "$input" ]; then
        awk -v name="$input" 'BEGIN { print "time," name; for (k = 0; k <= 2000; k++) printf "%.17g,%.17g\n", k * 0.01, sin(k * 0.01) }' >"$work/input.csv"
        run "$name+sine" "$model" --input "$work/input.csv"
    fi
done
