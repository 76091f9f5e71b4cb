#!/usr/bin/env bash
# Instructions per DoStep of bundled models, counted by callgrind (deterministic,
# unlike wall-clock figures on a shared machine): each model is built with
# --fmi 2 and --fmi 3, and with the prebuilt runtime (--runtime prebuilt, FMI
# 2.0) when the tool carries one, stepped N times by
# benches/callgrind/step_driver.c, and only the DoStep function is counted. The
# last column is the prebuilt step over the compiled one (fmi2DoStep).
#
# usage: scripts/count-instructions.sh [MODEL.toml ...]   (default: the small
#        first-order models, a linear and a nonlinear model of each kind,
#        vdp_linear beside vdp_saturation)
#        env: STEP (1e-3), STEPS (10000), LCSFMU
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 2; }
step=${STEP:-1e-3} steps=${STEPS:-10000}
bin=${LCSFMU:-target/release/lcsfmu}
[ -x "$bin" ] || cargo build --release --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# vdp_linear: vdp_saturation with its nonlinear term made linear, as
# benches/dostep.rs builds it (the linear step of the same sizes).
sed -e 's/mu\*(1 - x1^2)\*x2/mu*x2/' -e 's/name = "vdp_saturation"/name = "vdp_linear"/' \
    models/vdp_saturation.toml >"$work/vdp_linear.toml"
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(models/sign_spiral.toml models/coulomb_friction.toml
    models/relay_feedback.toml models/saturated_integrator.toml "$work/vdp_linear.toml"
    models/vdp_saturation.toml models/bouncing_ball.toml models/pendulum_stop.toml)
gcc -O2 -o "$work/driver" benches/callgrind/step_driver.c -ldl

# count VERSION FMU: instructions per step of that archive's binary.
count() {
    local version=$1 fmu=$2 dir token so
    dir="$work/$(basename "$fmu" .fmu)-$version"
    mkdir -p "$dir" && (cd "$dir" && unzip -q "$fmu")
    token=$(grep -oE '(guid|instantiationToken)="[^"]*"' "$dir/modelDescription.xml" | head -1 | cut -d'"' -f2)
    so=$(ls "$dir"/binaries/*/*.so)
    # The prebuilt runtime reads the model from the FMU's resources.
    valgrind --tool=callgrind --callgrind-out-file="$dir/cg" --toggle-collect="fmi${version}DoStep" \
        "$work/driver" "$version" "$so" "$token" "$step" "$steps" "file://$dir/resources" >/dev/null 2>"$dir/log" \
        || { cat "$dir/log" >&2; exit 1; }
    local total
    total=$(grep -E '^(summary|totals):' "$dir/cg" | head -1 | awk '{print $2}')
    echo $((total / steps))
}

printf '%-24s %12s %12s %12s %9s\n' model fmi2DoStep fmi3DoStep prebuilt2 ratio
for model in "${models[@]}"; do
    name=$(basename "$model" .toml)
    "$bin" build "$model" -o "$work/$name-2.fmu" >/dev/null
    "$bin" build "$model" --fmi 3 -o "$work/$name-3.fmu" >/dev/null
    two=$(count 2 "$work/$name-2.fmu")
    prebuilt=- ratio=-
    if "$bin" build "$model" --runtime prebuilt -o "$work/$name-p.fmu" >/dev/null 2>&1; then
        prebuilt=$(count 2 "$work/$name-p.fmu")
        ratio=$(awk -v a="$prebuilt" -v b="$two" 'BEGIN { printf "%.2f", a / b }')
    fi
    printf '%-24s %12s %12s %12s %9s\n' "$name" "$two" "$(count 3 "$work/$name-3.fmu")" "$prebuilt" "$ratio"
done
echo "(instructions per step, callgrind, $steps steps of $step s; the step's own code only)"
