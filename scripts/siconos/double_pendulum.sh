#!/bin/sh
# Siconos' reference runs of models/double_pendulum.toml (the double pendulum against a wall
# of Siconos' mechanics/Pendulum/DoublePendulumTS example), with a driver written here
# (double_pendulum.cpp) against the installed Siconos 4.4 C++ libraries (Debian:
# libsiconos-kernel-dev, libsiconos-numerics-dev). Nothing is fetched.
#
#   scripts/siconos/double_pendulum.sh [DRIVER OPTIONS] > out.csv
#       build the driver (once, into $CARGO_TARGET_DIR or target/) and run it with the
#       options given (see double_pendulum.cpp: --tol, --max-iter, --shipped-jacobian, --every)
#   scripts/siconos/double_pendulum.sh --reference
#       write tests/data/double_pendulum_siconos_converged.csv: Newton tolerance 1e-15
#       (converged to rounding), every 10th step and every step with a percussion
#   scripts/siconos/double_pendulum.sh --example
#       the example's own settings (tolerance 0.05, its Jacobian): reproduces its
#       DoublePendulumResult.ref to the 16 digits printed there
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out_dir=${CARGO_TARGET_DIR:-$repo/target}/siconos
mkdir -p "$out_dir"
bin=$out_dir/double_pendulum
if [ ! -x "$bin" ] || [ "$here/double_pendulum.cpp" -nt "$bin" ]; then
    ${CXX:-g++} -O2 -std=c++17 \
        -I/usr/include/siconos -I/usr/include/siconos/kernel \
        -I/usr/include/siconos/numerics -I/usr/include/siconos/externals \
        "$here/double_pendulum.cpp" -o "$bin" \
        -lsiconos_kernel -lsiconos_numerics -lsiconos_externals
fi
case "${1:-}" in
    --reference)
        dest=$repo/tests/data/double_pendulum_siconos_converged.csv
        {
            echo "# Siconos 4.4 (scripts/siconos/double_pendulum.sh --reference): MoreauJeanOSI theta = 0.500001, h = 5e-4, Newton tolerance 1e-15 (converged); every 10th step and every step with a percussion"
            "$bin" --tol 1e-15 --max-iter 100 --every 10
        } > "$dest"
        echo "wrote $dest" >&2
        ;;
    --example)
        exec "$bin" --tol 0.05 --max-iter 20000 --shipped-jacobian
        ;;
    *)
        exec "$bin" "$@"
        ;;
esac
