#!/usr/bin/python3
"""Wall time of `lcsfmu simulate` (the whole command, CSV written) against Siconos 4.4's
stepping loop on the same examples, and their ratio.

Run with Debian's interpreter and its python3-siconos package (`apt-get install
python3-siconos gcc`), from the repository root, after `cargo build --release`:

    /usr/bin/python3 scripts/siconos-speed.py [REPEATS]

Each example is an lcsfmu model and the Siconos set-up of the same system (the one its
comparison test checks against Siconos' own numbers): Siconos' time is its
`TimeStepping` loop alone (`hasNextEvent`, `computeOneStep`, reading the states into a
preallocated array, `nextStep`), its set-up excluded; lcsfmu's is the `lcsfmu simulate
MODEL -o FILE.csv` process, start to exit. Best of REPEATS (default 5) runs each. Without
Siconos the lcsfmu column is printed alone.

- circuit_rlcd: Siconos' CircuitRLCD (tests/data/circuit_rlcd.toml; FirstOrderLinearDS,
  FirstOrderLinearTIR, EulerMoreauOSI(0.5), h = 0.05 to 4.95), at h = 0.05 and, as a longer
  run, h = 1e-5;
- diode_bridge: Siconos' DiodeBridge of the same examples (tests/data/
  diode_bridge_theta_gamma.toml; four diodes, EulerMoreauOSI(0.5), h = 1e-6 to 4.999e-3);
- bouncing_ball: Siconos' BouncingBallTS (models/bouncing_ball.toml; a point mass,
  LagrangianLinearTIDS, LagrangianLinearTIR, NewtonImpactNSL(0.8), MoreauJeanOSI(0.5),
  h = 1e-3 to 6).
"""
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

try:
    import siconos.kernel as sk
except ImportError:
    sk = None

ROOT = Path(__file__).resolve().parent.parent
LCSFMU = os.environ.get("LCSFMU", str(ROOT / "target" / "release" / "lcsfmu"))


def lcsfmu_seconds(model, step, stop, repeats):
    best = float("inf")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.csv"
        for _ in range(repeats):
            start = time.perf_counter()
            subprocess.run([LCSFMU, "simulate", str(model), "--step", repr(step),
                            "--stop", repr(stop), "-o", str(out)], check=True)
            best = min(best, time.perf_counter() - start)
    return best


def run_loop(simulation, state, n):
    """Siconos' stepping loop, the states read every step into a preallocated array."""
    out = np.empty((n + 1, len(state())))
    k = 0
    start = time.perf_counter()
    while simulation.hasNextEvent():
        simulation.computeOneStep()
        if k <= n:
            out[k] = state()
        k += 1
        simulation.nextStep()
    return time.perf_counter() - start


def circuit_rlcd(step, stop):
    L, C, R = 1.0, 0.025330295910584444, 10.0
    A = np.array([[0.0, -1.0], [1.0 / (L * C), 0.0]])
    ds = sk.FirstOrderLinearDS(np.array([1.0, 1.0]), A)
    relation = sk.FirstOrderLinearTIR(np.array([[1.0 / C, 0.0]]), np.array([[1.0], [0.0]]))
    relation.setDPtr(np.array([[R]]))
    inter = sk.Interaction(sk.ComplementarityConditionNSL(1), relation)
    nsds = sk.NonSmoothDynamicalSystem(0.0, stop)
    nsds.insertDynamicalSystem(ds)
    nsds.link(inter, ds)
    td = sk.TimeDiscretisation(0.0, step)
    simulation = sk.TimeStepping(nsds, td, sk.EulerMoreauOSI(0.5), sk.LCP())
    return run_loop(simulation, ds.x, int(round(stop / step)))


def diode_bridge(step, stop):
    L, C, R = 1e-2, 1e-6, 1e3
    A = np.array([[0.0, -1.0 / C], [1.0 / L, 0.0]])
    ds = sk.FirstOrderLinearDS(np.array([10.0, 0.0]), A)
    B = np.array([[0.0, 0.0, -1.0 / C, 1.0 / C], [0.0, 0.0, 0.0, 0.0]])
    Cm = np.array([[0.0, 0.0], [0.0, 0.0], [-1.0, 0.0], [1.0, 0.0]])
    D = np.array([[1 / R, 1 / R, -1.0, 0.0], [1 / R, 1 / R, 0.0, -1.0],
                  [1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
    relation = sk.FirstOrderLinearTIR(Cm, B)
    relation.setDPtr(D)
    inter = sk.Interaction(sk.ComplementarityConditionNSL(4), relation)
    nsds = sk.NonSmoothDynamicalSystem(0.0, stop)
    nsds.insertDynamicalSystem(ds)
    nsds.link(inter, ds)
    td = sk.TimeDiscretisation(0.0, step)
    simulation = sk.TimeStepping(nsds, td, sk.EulerMoreauOSI(0.5), sk.LCP())
    return run_loop(simulation, ds.x, int(round(stop / step)))


def bouncing_ball(step, stop):
    ds = sk.LagrangianLinearTIDS([1.0], [0.0], np.eye(1))
    ds.setFExtPtr([-9.81])
    relation = sk.LagrangianLinearTIR(np.eye(1))
    inter = sk.Interaction(sk.NewtonImpactNSL(0.8), relation)
    nsds = sk.NonSmoothDynamicalSystem(0.0, stop)
    nsds.insertDynamicalSystem(ds)
    nsds.link(inter, ds)
    td = sk.TimeDiscretisation(0.0, step)
    simulation = sk.TimeStepping(nsds, td, sk.MoreauJeanOSI(0.5), sk.LCP())
    return run_loop(simulation, ds.q, int(round(stop / step)))


EXAMPLES = [
    ("circuit_rlcd", ROOT / "tests/data/circuit_rlcd.toml", 0.05, 4.95, circuit_rlcd),
    ("circuit_rlcd h=1e-5", ROOT / "tests/data/circuit_rlcd.toml", 1e-5, 4.95, circuit_rlcd),
    ("diode_bridge", ROOT / "tests/data/diode_bridge_theta_gamma.toml", 1e-6, 4.999e-3,
     diode_bridge),
    ("bouncing_ball", ROOT / "models/bouncing_ball.toml", 1e-3, 6.0, bouncing_ball),
]


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print(f"{'example':<22} {'steps':>8} {'lcsfmu simulate':>16} {'Siconos loop':>13} {'ratio':>7}")
    for name, model, step, stop, siconos in EXAMPLES:
        steps = int(round(stop / step))
        ours = lcsfmu_seconds(model, step, stop, repeats)
        if sk is None:
            print(f"{name:<22} {steps:>8} {ours * 1e3:>13.1f} ms {'(no Siconos)':>13}")
            continue
        theirs = min(siconos(step, stop) for _ in range(repeats))
        print(f"{name:<22} {steps:>8} {ours * 1e3:>13.1f} ms {theirs * 1e3:>10.1f} ms"
              f" {theirs / ours:>6.1f}x")
    print("(best of", repeats, "runs; ratio = Siconos time / lcsfmu time)")


if __name__ == "__main__":
    main()
