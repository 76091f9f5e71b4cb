#!/usr/bin/python3
"""Reference run of Siconos for models/rocking_block.toml: writes tests/data/rocking_block_siconos.csv.

Run with Debian's interpreter and its python3-siconos package (4.4.0, `apt-get install
python3-siconos gcc`), not the project's venv:

    /usr/bin/python3 scripts/siconos-rocking-block.py [OUTPUT.csv]

The set-up of Siconos' RockingBlockTS example (siconos-tutorials,
examples/mechanics/RockingBlock): a LagrangianLinearTIDS with the mass matrix diag(m, m, I),
gravity, two LagrangianScleronomousR relations (the corners' gaps and their Jacobians, in a C
plugin compiled here: Siconos loads relation plugins from shared libraries), NewtonImpactNSL(e),
MoreauJeanOSI(theta = 0.50001), an LCP, TimeStepping with h = 0.01 over 2 s. Two deliberate
departures from the example:

- the gaps use the block of the mass matrix, L = 1, H = 1.5 (the example's plugin has
  L = 0.2, H = 0.1 in its gaps while its inertia uses L = 1, H = 1.5);
- the Newton loop is run for a fixed 30 iterations per step (tolerance -1). Siconos 4.4's
  convergence test reads the dynamical system's residual with the reaction of the same
  iteration, which is zero after the first one, so with any positive tolerance every step
  stops after one linearization at the step's start (G of the start positions in the impact
  law); 30 iterations reach the fixed point of the scheme lcsfmu solves (its converged
  Newton loop), which is what this reference is for.
"""
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import siconos.kernel as sk

LENGTH, HEIGHT, MASS, GRAVITY, RESTITUTION = 1.0, 1.5, 1.0, 9.81, 0.5
THETA, STEP, STOP, NEWTON_ITERATIONS = 0.50001, 0.01, 2.0, 30

PLUGIN = f"""
#include <math.h>
static const double L = {LENGTH!r}, H = {HEIGHT!r};
void h1(unsigned int nq, const double *q, unsigned int ny, double *y, unsigned int nz, double *z)
{{ y[0] = q[1] - 0.5 * L * sin(q[2]) - 0.5 * H * cos(q[2]); }}
void h2(unsigned int nq, const double *q, unsigned int ny, double *y, unsigned int nz, double *z)
{{ y[0] = q[1] + 0.5 * L * sin(q[2]) - 0.5 * H * cos(q[2]); }}
void G1(unsigned int nq, const double *q, unsigned int ny, double *W, unsigned int nz, double *z)
{{ W[0] = 0.0; W[1] = 1.0; W[2] = -0.5 * L * cos(q[2]) + 0.5 * H * sin(q[2]); }}
void G2(unsigned int nq, const double *q, unsigned int ny, double *W, unsigned int nz, double *z)
{{ W[0] = 0.0; W[1] = 1.0; W[2] = 0.5 * L * cos(q[2]) + 0.5 * H * sin(q[2]); }}
"""


def simulate(plugin: str) -> np.ndarray:
    inertia = MASS * (LENGTH ** 2 + HEIGHT ** 2) / 12
    block = sk.LagrangianLinearTIDS([0.0, 1.0, 0.2], [0.0, 0.0, 0.0],
                                    np.diag([MASS, MASS, inertia]))
    block.setFExtPtr(np.array([0.0, -MASS * GRAVITY, 0.0]))
    nsds = sk.NonSmoothDynamicalSystem(0.0, STOP)
    nsds.insertDynamicalSystem(block)
    for k in (1, 2):
        relation = sk.LagrangianScleronomousR(f"{plugin}:h{k}", f"{plugin}:G{k}")
        nsds.link(sk.Interaction(sk.NewtonImpactNSL(RESTITUTION), relation), block)
    stepping = sk.TimeStepping(nsds, sk.TimeDiscretisation(0.0, STEP),
                               sk.MoreauJeanOSI(THETA), sk.LCP())
    stepping.setNewtonOptions(sk.SICONOS_TS_NONLINEAR)
    stepping.setNewtonTolerance(-1.0)
    stepping.setNewtonMaxIteration(NEWTON_ITERATIONS)
    rows = [[0.0, *block.q(), *block.velocity()]]
    for _ in range(int(round(STOP / STEP))):
        stepping.computeOneStep()
        assert stepping.getNewtonNbIterations() == NEWTON_ITERATIONS
        rows.append([stepping.nextTime(), *block.q(), *block.velocity()])
        stepping.nextStep()
    return np.array(rows)


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else (
        Path(__file__).resolve().parents[1] / "tests" / "data" / "rocking_block_siconos.csv")
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "rocking_plugin.c"
        source.write_text(PLUGIN)
        subprocess.run(["gcc", "-O2", "-fPIC", "-shared", "-o", str(Path(tmp) / "rocking_plugin.so"),
                        str(source), "-lm"], check=True)
        rows = simulate(str(Path(tmp) / "rocking_plugin"))
    header = (
        "Siconos 4.4.0 (Debian python3-siconos) on models/rocking_block.toml's block: made by\n"
        "scripts/siconos-rocking-block.py (MoreauJeanOSI theta = 0.50001, h = 0.01, Newton loop\n"
        "run 30 iterations per step).\ntime,x,y,th,vx,vy,vth")
    np.savetxt(out, rows, delimiter=",", fmt="%.17g", header=header)


if __name__ == "__main__":
    main()
