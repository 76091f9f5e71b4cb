"""The masters users run lcsfmu FMUs in besides FMPy (issue 28, section 3), installed from PyPI
as users install them: libcosim (`libcosimpy`, the Open Simulation Platform), Ecos (`ecospy`,
with Debian's libtbb12) and a container FMU of `fmu-manipulation-toolbox`, run by FMPy.

libcosim and Ecos run in a child process (tests/python/masters.py): they crash the process on
FMUs they do not support. Each bundled model's FMI 2.0 Co-Simulation FMU runs its default
experiment in fixed steps, and every output after every step is compared with `lcsfmu
simulate` of the model, row by row (step k against step k); the largest difference is
printed. Both masters compute their own communication points: libcosim counts time in
integer nanoseconds and passes t_k = ns / 1e9 and h = t_{k+1} - t_k, Ecos accumulates t += h
and passes h unchanged, while `lcsfmu simulate` steps on t_k = k h. A model whose step reads
the time (sources in time) or the step size to the last bit (the Newton step of a nonlinear
model) therefore differs from `simulate` at the rounding level of the time (at most 1.2e-11
measured); in buck_pwm the PWM edges fall on communication points, where a time one ulp off
selects the other switch position. So each master's run is also replayed through FMPy with
the master's own time grid, which must give the master's numbers bit for bit: the FMU does
in libcosim and Ecos exactly what it does in FMPy with the same calls.

    test_libcosim                  every bundled model: == simulate (bitwise but for the models
                                   that read time or h: 1e-10), == FMPy on libcosim's grid
                                   (bitwise), and libcosim logs no warning or error (FMI Library
                                   asked the undeclared time for a start value before)
    test_ecos                      the same in Ecos
    test_ecos_fmi3                 the FMI 3.0 FMU in Ecos == the FMI 2.0 FMU in Ecos, bitwise
    test_ecos_ignores_discard      a step Ecos is refused with fmi2Discard: it goes on, the
                                   values frozen at the last good step
    test_container                 relay_feedback driving saturated_integrator inside one
                                   container FMU, run by FMPy: each FMU == simulate, bitwise
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import (MODEL_NAMES, MODELS_DIR, PYTHON, REPO, Slave, assert_close, cosim,
                      model_file, run_cli, write_input_csv)
from fmpy import read_model_description
from test_fmi3 import fmi3_fmus  # noqa: F401  (session fixture)

MASTERS = Path(__file__).with_name("masters.py")
# The models whose step reads the time (sources in time) or the step size to the last bit
# (a Newton iteration): in a master whose grid differs from `simulate`'s by rounding they
# differ by rounding (measured 1.2e-11 at most); buck_pwm by a switch position, at PWM edges
# that fall on communication points (no bound), and so does the netlist buck (its gate's
# PULSE edges, every 5 us, are on its 0.1 us grid). The others are equal bit for bit.
# heat_losses_friction reads the time (its force and brake; 1.4e-12 measured).
# pm_braking_bridge (no bound): its Newton step reads h and t to the last bit, and the
# bridge's commutations amplify the rounding: under Ecos (t accumulated, 7e-14 off k h) its
# rows first differ at t = 0.0021, by 0.12 A in the currents and 11 V in a diode's reverse
# voltage (a commutation one output point earlier or later); libcosim's nanosecond grid also
# passes h a few ulps above 1e-4 on 2070 of the 8000 steps, which then take 11 sub-steps of
# max_step = 1e-5 instead of 10 (8.1 measured). double_pendulum: M(q)'s Newton step
# (7.1e-15 under libcosim, 7.9e-15 under Ecos measured), and pendulum_on_slider's; smc_implicit
# and smc_explicit: their disturbance reads the time. half_wave (a netlist): its SIN source
# reads the time (3.7e-14 measured under libcosim).
READ_TIME_OR_STEP = {"diode_bridge_source": 1e-10, "buck_pwm": None, "vdp_saturation": 1e-10,
                     "pendulum_stop": 1e-10, "duffing_impact": 1e-10, "rocking_block": 1e-10,
                     "heat_losses_friction": 1e-10, "pm_braking_bridge": None,
                     "double_pendulum": 1e-10, "smc_implicit": 1e-10, "smc_explicit": 1e-10,
                     "cartesian_pendulum": 1e-10, "half_wave": 1e-10, "buck": None,
                     "pendulum_on_slider": 1e-10}
# Under Ecos' accumulated time diode_bridge_source's Newton step fails at
# t = 0.03499000000000004 (the line search finds no decrease; on simulate's grid it runs):
# fmi2Discard, which Ecos ignores.
def experiment(model: str, fmu: Path) -> tuple[float, float]:
    """(step, stop) of the model's default experiment (every bundled one starts at 0): its
    TOML [experiment], or for a netlist (whose .tran has SPICE's suffixes) the
    DefaultExperiment lcsfmu wrote into its FMU."""
    path = model_file(model)
    if path.suffix == ".cir":
        e = read_model_description(str(fmu)).defaultExperiment
        assert float(e.startTime or 0.0) == 0.0
        return float(e.stepSize), float(e.stopTime)
    import tomllib
    e = tomllib.loads(path.read_text())["experiment"]
    assert e.get("start", 0.0) == 0.0
    return float(e["step"]), float(e["stop"])


def run_master(master: str, fmu: Path, step: float, stop: float, out: Path):
    """The master's run in a child process: (rows, what it printed on stderr)."""
    proc = subprocess.run([PYTHON, str(MASTERS), master, str(fmu), repr(step), repr(stop),
                           str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, (f"{master} on {fmu.name}: exit status {proc.returncode}\n"
                                  f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return np.load(out), proc.stderr


@pytest.fixture(scope="module")
def simulated(lcsfmu_bin, tmp_path_factory):
    """`lcsfmu simulate` of each model's default experiment, run once."""
    out = tmp_path_factory.mktemp("simulated")
    cache = {}

    def get(model: str) -> np.ndarray:
        if model not in cache:
            cache[model] = run_cli(lcsfmu_bin, model_file(model), out)[1]
        return cache[model]

    return get


def outputs(rows: np.ndarray) -> list[str]:
    return [n for n in rows.dtype.names if n != "time"]


def largest_difference(rows: np.ndarray, ref: np.ndarray) -> float:
    return max(float(np.max(np.abs(rows[n] - ref[n]))) for n in outputs(rows))


def replay(fmu: Path, times: np.ndarray, steps: np.ndarray, names: list[str]) -> np.ndarray:
    """FMPy driving the FMU through the master's communication points and step sizes:
    the outputs after each step."""
    s = Slave(fmu, "replay")
    try:
        s.initialize()
        rows = []
        for t, h in zip(times, steps):
            s.step(t, h)
            rows.append(s.get(*names))
    finally:
        s.close()
    return np.array(rows, dtype=np.float64)


def compare(master: str, model: str, rows: np.ndarray, ref: np.ndarray, replayed: np.ndarray):
    """Prints and asserts the run's agreement with `simulate` and with FMPy's replay."""
    names = outputs(rows)
    mine = np.array([[r[n] for n in names] for r in rows], dtype=np.float64)
    assert mine.tobytes() == replayed.tobytes(), (
        f"{master} {model}: not FMPy's numbers on the same grid "
        f"(largest difference {np.max(np.abs(mine - replayed)):.3g})")
    diff = largest_difference(rows, ref)
    print(f"\n{master} {model}: {len(rows)} rows, largest difference against lcsfmu simulate "
          f"{diff:.3g}, against FMPy on {master}'s own time grid 0")
    assert len(rows) == len(ref)
    if model not in READ_TIME_OR_STEP:
        assert diff == 0.0, f"{master} {model}: {diff:.3g} from lcsfmu simulate"
    elif READ_TIME_OR_STEP[model] is not None:
        for n in names:
            assert_close(rows[n], ref[n], READ_TIME_OR_STEP[model], f"{master} {model} {n}")


@pytest.mark.parametrize("model", MODEL_NAMES)
def test_libcosim(fmus, simulated, model, tmp_path):
    step, stop = experiment(model, fmus[model])
    rows, stderr = run_master("libcosim", fmus[model], step, stop, tmp_path / "out.npy")
    # No "Start attribute is required ..." from FMI Library, nor anything else.
    noise = [line for line in stderr.splitlines() if "[error]" in line or "[warning]" in line]
    assert not noise, "\n".join(noise)
    # libcosim gives the rows after each step, not the start.
    ref = simulated(model)[1:]
    times = np.concatenate([[0.0], rows["time"]])
    replayed = replay(fmus[model], times[:-1], np.diff(times), outputs(rows))
    compare("libcosim", model, rows, ref, replayed)


@pytest.mark.parametrize("model", MODEL_NAMES)
def test_ecos(fmus, simulated, model, tmp_path):
    step, stop = experiment(model, fmus[model])
    rows, _ = run_master("ecos", fmus[model], step, stop, tmp_path / "out.npy")
    ref = simulated(model)
    times = rows["time"][:-1]
    replayed = replay(fmus[model], times, np.full(len(times), step), outputs(rows))
    # Ecos gives the start too; the replay has the rows after each step.
    compare("ecos", model, rows[1:], ref[1:], replayed)
    assert [rows[0][n] for n in outputs(rows)] == [ref[0][n] for n in outputs(rows)], "the start"


@pytest.mark.parametrize("model", ["relay_feedback", "rlc_diode", "bouncing_ball",
                                   "vdp_saturation", "coulomb_friction"])
def test_ecos_fmi3(fmus, fmi3_fmus, model, tmp_path):  # noqa: F811
    """Ecos runs FMI 3.0 Co-Simulation too (without Event Mode or early return)."""
    step, stop = experiment(model, fmus[model])
    two, _ = run_master("ecos", fmus[model], step, stop, tmp_path / "two.npy")
    three, _ = run_master("ecos", fmi3_fmus[model], step, stop, tmp_path / "three.npy")
    assert two.dtype.names == three.dtype.names
    assert two.tobytes() == three.tobytes(), model


@pytest.fixture(scope="module")
def discarding_fmu(lcsfmu_bin, tmp_path_factory):
    out = tmp_path_factory.mktemp("discard") / "regularized_friction.fmu"
    proc = subprocess.run([str(lcsfmu_bin), "build",
                           str(REPO / "tests" / "data" / "regularized_friction.toml"),
                           "-o", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return out


def test_ecos_ignores_discard(discarding_fmu, tmp_path):
    """regularized_friction's Newton step fails in the step from t = 0.2 (h = 0.01; see
    test_newton_discard.py): the FMU returns fmi2Discard with fmi2Terminated. Ecos neither
    stops nor says so; it goes on to the stop time with the values of the last good step."""
    rows, _ = run_master("ecos", discarding_fmu, 0.01, 1.0, tmp_path / "out.npy")
    assert len(rows) == 101, "Ecos steps on to the end"
    failed = int(np.flatnonzero(np.isclose(rows["time"], 0.2))[0])
    after = rows[failed:]
    for n in outputs(rows):
        assert np.all(after[n] == after[n][0]), f"{n} frozen after the discard"
    assert rows["v"][failed] > 0, "the block had not come to rest"


def test_container(fmus, lcsfmu_bin, tmp_path):
    """fmu-manipulation-toolbox's container of relay_feedback and saturated_integrator, the
    relay's x1 linked to the integrator's input x (and exposed), run by FMPy. The container
    passes a link's value after each step, so the integrator integrates x1(t_k) over the step
    from t_k: `lcsfmu simulate --input` of x1 at the communication points must give its
    outputs bit for bit, and the relay's are its own run's."""
    import json
    for name in ("relay_feedback", "saturated_integrator"):
        (tmp_path / f"{name}.fmu").write_bytes(fmus[name].read_bytes())
    (tmp_path / "pair.json").write_text(json.dumps({
        "name": "pair.fmu",
        "step_size": 0.01,
        "fmu": ["relay_feedback.fmu", "saturated_integrator.fmu"],
        "link": [["relay_feedback.fmu", "x1", "saturated_integrator.fmu", "x"]],
        "output": [["relay_feedback.fmu", "x1", "x1"]],
    }))
    tool = Path(sys.executable).with_name("fmucontainer")
    proc = subprocess.run([str(tool), "-container", "pair.json", "-fmu-directory", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0 and (tmp_path / "pair.fmu").is_file(), proc.stdout + proc.stderr
    rows = cosim(tmp_path / "pair.fmu", stop_time=3.0, output_interval=0.01)

    relay = run_cli(lcsfmu_bin, MODELS_DIR / "relay_feedback.toml", tmp_path)[1]
    table = np.zeros(len(rows), dtype=[("time", np.float64), ("x", np.float64)])
    table["time"], table["x"] = relay["time"], rows["x1"]
    integrator = run_cli(lcsfmu_bin, MODELS_DIR / "saturated_integrator.toml", tmp_path,
                         stop=3.0, input_csv=write_input_csv(tmp_path / "x1.csv", table))[1]
    for name, ref, columns in (("relay_feedback", relay, ("x1", "x2", "u")),
                               ("saturated_integrator", integrator, ("y", "k", "l"))):
        assert len(rows) == len(ref) == 301
        diff = max(float(np.max(np.abs(rows[c] - ref[c]))) for c in columns)
        print(f"\ncontainer {name}: {len(rows)} rows, largest difference against lcsfmu "
              f"simulate {diff:.3g}")
        assert diff == 0.0, name
    assert np.array_equal(rows["time"], relay["time"])
    # The relay drives the integrator: it is not at rest.
    assert rows["y"][-1] > 0.4
