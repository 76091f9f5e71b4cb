"""Model Exchange rows beside `lcsfmu compare`'s: FMPy's CVode on the ME FMUs.

For sign_spiral, rlc_diode and relay_feedback (`lcsfmu build --interface me`, FMI 2.0 and
3.0), runs `fmpy.simulate_fmu(..., fmi_type="ModelExchange", solver="CVode")` at relative
tolerance 1e-5 (FMPy's default) and 1e-8, and prints one row each: solver returns
(CompletedIntegratorStep calls: FMPy runs CVode to each output point or located event, CVode's
internal steps are not reported), events (EnterEventMode calls), the error against the exact solution of
validation.md, and the wall time of the simulation (FMPy's whole run: loading, instantiating,
integrating). Before them, `lcsfmu compare`'s table of each model (the Co-Simulation schemes).

    .venv/bin/python examples/me_rows.py [path/to/lcsfmu]

Errors: sign_spiral |x(2)|_inf (exact: the origin, reached at t = 1); rlc_diode the largest
state error at t = 1, 2, 5; relay_feedback |x1(3) - 0.0312055|.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from fmpy import simulate_fmu

REPO = Path(__file__).resolve().parents[1]


def error(name: str, r) -> float:
    at = lambda v, t: float(r[v][np.argmin(np.abs(r["time"] - t))])  # noqa: E731
    if name == "sign_spiral":
        return max(abs(at("x1", 2.0)), abs(at("x2", 2.0)))
    if name == "rlc_diode":
        exact = {1.0: (0.65970015, 0.53350720), 2.0: (0.24773387, 0.54629302),
                 5.0: (0.01233394, 0.54629302)}
        return max(max(abs(at("i_L", t) - i), abs(at("q_C", t) - q))
                   for t, (i, q) in exact.items())
    return abs(at("x1", 3.0) - 0.0312055)


def main() -> None:
    lcsfmu = sys.argv[1] if len(sys.argv) > 1 else str(REPO / "target/release/lcsfmu")
    names = ["sign_spiral", "rlc_diode", "relay_feedback"]
    with tempfile.TemporaryDirectory() as tmp:
        models = [str(REPO / "models" / f"{n}.toml") for n in names]
        for fmi in ("2", "3"):
            subprocess.run([lcsfmu, "build", *models, "--interface", "me", "--fmi", fmi,
                            "-o", f"{tmp}/fmi{fmi}"], check=True, capture_output=True)
        for name, model in zip(names, models):
            print(f"## {name}: lcsfmu compare (Co-Simulation schemes)")
            shown = subprocess.run([lcsfmu, "compare", model], check=True, capture_output=True,
                                   text=True).stdout
            print(shown.rstrip())
        print(f"\n## Model Exchange, FMPy CVode\n{'model':<16} {'FMI':>3} {'rtol':>6} "
              f"{'returns':>7} {'events':>6} {'error':>9} {'wall s':>7}")
        for name in names:
            for fmi in ("2", "3"):
                fmu = Path(tmp) / f"fmi{fmi}" / f"{name}.fmu"
                row(name, fmi, fmu)


def row(name: str, fmi: str, fmu: Path) -> None:
    """Prints the rows of one ME FMU, one per tolerance."""
    for rtol in (1e-5, 1e-8):
        calls: list[str] = []
        simulate_fmu(fmu, fmi_type="ModelExchange", solver="CVode",
                     relative_tolerance=rtol, fmi_call_logger=calls.append)
        steps = sum(c.startswith(f"fmi{fmi}CompletedIntegratorStep") for c in calls)
        events = sum(c.startswith(f"fmi{fmi}EnterEventMode") for c in calls)
        # Timed again without the call logger, which formats every call.
        started = time.perf_counter()
        r = simulate_fmu(fmu, fmi_type="ModelExchange", solver="CVode", relative_tolerance=rtol)
        wall = time.perf_counter() - started
        print(f"{name:<16} {fmi + '.0':>3} {rtol:>6.0e} {steps:>7} {events:>6} "
              f"{error(name, r):>9.2e} {wall:>7.3f}")


if __name__ == "__main__":
    main()
