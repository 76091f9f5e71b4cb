"""A second importer against FMPy: the Rust `fmi` crate must read the same numbers, bit for bit.

`examples/fmi_cosim.rs` co-simulates an FMU through the `fmi` crate (its own archive extraction,
XML reader and library loading) with FMPy's communication points and input interpolation. Both
importers drive the same binary with the same calls, so every number, time included, must be the
same float64; a difference means the FMU depends on something an importer does differently (call
order, callbacks, resource location, memory layout).

Contents
  test_fmi_crate_equals_fmpy   every bundled model over its default experiment; for the first-order
                               ones also other experiments, start values, sampled and interpolated
                               inputs, a run that ends in a discard
"""
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description

from conftest import MODEL_NAMES, REPO, comm_times, cosim, read_csv, sampled_input, write_input_csv


@pytest.fixture(scope="session")
def fmi_cosim() -> Path:
    """The example binary: $LCSFMU_FMI_COSIM, or built once with cargo."""
    override = os.environ.get("LCSFMU_FMI_COSIM")
    if override:
        return Path(override)
    proc = subprocess.run(
        ["cargo", "build", "--release", "-q", "--example", "fmi_cosim",
         "--manifest-path", str(REPO / "Cargo.toml")],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return REPO / "target" / "release" / "examples" / "fmi_cosim"


def sin_table(start, stop, h, name="x", scale=1.0):
    return sampled_input(name, lambda t: scale * np.sin(t), comm_times(start, stop, h))


def coarse_table(start, stop, h, name="x"):
    """Samples every 7 h from before the start to past the stop: interpolated by both."""
    times = np.arange(-1, int((stop - start) / (7 * h)) + 2) * (7 * h) + start
    return sampled_input(name, np.sin, times)


# (id, model, start, stop or None for the default experiment, step or None, start values,
#  input table factory or None, whether the run ends in a discard)
CASES = [
    ("spiral-default", "sign_spiral", 0.0, None, None, {}, None, False),
    ("spiral-start0.5-h0.01", "sign_spiral", 0.5, 2.0, 0.01, {"x1": 2.0, "x2": -0.5}, None, False),
    ("friction-default", "coulomb_friction", 0.0, None, None, {}, None, False),
    ("friction-force-clipped", "coulomb_friction", 0.0, 3.05, 0.1, {"mu": 5.0, "v": 60.0},
     lambda a, b, h: sin_table(a, b, h, "F_a", 2000.0), False),
    ("rlc-h1e-3", "rlc_diode", 0.0, 5.0, 1e-3, {"R": 2.0}, None, False),
    ("rlc-negative-resistance", "rlc_diode", 0.0, 5.0, 1e-3, {"R": -1.0}, None, True),
    ("saturated-sin", "saturated_integrator", 0.0, 10.0, 0.01, {}, sin_table, False),
    ("saturated-interpolated", "saturated_integrator", 0.0, 10.0, 0.01, {"U": 0.3},
     coarse_table, False),
]
CASES += [
    # block outputs re-solved when the set-point is set, through both importers
    ("servo-set-point", "servo_deadzone", 0.0, 10.0, 0.01, {"kp": 3.0},
     lambda a, b, h: sin_table(a, b, h, "r", 2.0), False),
    ("latch-interpolated", "zero_crossing", 0.0, 10.0, 0.01, {},
     lambda a, b, h: coarse_table(a, b, h, "s"), False),
]
# Every other bundled model over its default experiment.
CASES += [(f"{m}-default", m, 0.0, None, None, {}, None, False)
          for m in MODEL_NAMES if m not in {c[1] for c in CASES}]


def bit_patterns(column) -> np.ndarray:
    return np.ascontiguousarray(column, dtype=np.float64).view(np.uint64)


@pytest.mark.parametrize("model, start, stop, step, start_values, make_table, discards",
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_fmi_crate_equals_fmpy(fmus, fmi_cosim, tmp_path, model, start, stop, step, start_values,
                               make_table, discards):
    fmu = fmus[model]
    experiment = read_model_description(str(fmu)).defaultExperiment
    stop = float(experiment.stopTime) if stop is None else stop
    step = float(experiment.stepSize) if step is None else step
    kwargs = {"start_time": start, "stop_time": stop, "output_interval": step}
    cmd = [str(fmi_cosim), str(fmu), "--start", repr(start), "--stop", repr(stop),
           "--step", repr(step), "-o", str(tmp_path / "fmi.csv")]
    for name, value in start_values.items():
        cmd += ["--set", f"{name}={value!r}"]
    if make_table is not None:
        table = make_table(start, stop, step)
        kwargs["input"] = table
        cmd += ["--input", str(write_input_csv(tmp_path / "input.csv", table))]

    ref = cosim(fmu, start_values=start_values, **kwargs)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    other = read_csv(tmp_path / "fmi.csv")

    assert other.dtype.names == ref.dtype.names
    assert len(other) == len(ref)
    ended_early = ref["time"][-1] < stop and not np.isclose(ref["time"][-1], stop)
    assert ended_early == discards
    for name in ref.dtype.names:
        same = bit_patterns(other[name]) == bit_patterns(ref[name])
        assert same.all(), (
            f"column {name} differs first at row {np.flatnonzero(~same)[0]}: "
            f"{other[name][~same][0]!r} (fmi crate) vs {ref[name][~same][0]!r} (FMPy)")
