"""Shared fixtures and helpers for the FMPy test suite of lcsfmu.

Run with: bash scripts/test.sh (or .venv/bin/python -m pytest tests/python)
The binary is built once (`cargo build --release`, or taken from $LCSFMU_BIN), and
every bundled model is built into an FMU once per session.

Table of contents of the suite
  test_conformance.py       1, 7  validate_fmu, fmu-check.py, exported symbol set of the .so
  test_reference_values.py  2     validation.md numbers through simulate_fmu(CoSimulation)
  test_cli_agreement.py     3, 4  FMPy == `lcsfmu simulate` (1e-12); --set == start_values
  test_parameters.py        4     parameters/start values change results as the exact solution says
  test_fmu_state.py         5     get/set/serialize FMU state, fmi2Reset, two instances
  test_failures.py          6     Discard + terminated on infeasible steps, initialization errors
  test_newton_discard.py          a Newton step that fails (FMI 2.0 and 3.0): Discard, the logged
                                  iterations and residual == NumPy's, the state kept bit for bit,
                                  a retry with h / 10 from the saved FMU state
  test_forced_panic.py            a template built to panic in fmi2DoStep: fmi2Fatal, the message
                                  logged, every later call refused, the process lives
  test_second_importer.py         the Rust `fmi` crate (examples/fmi_cosim.rs) == FMPy, bit for bit
  test_fmi3.py                    FMI 3.0 (`--fmi 3`): validate, the 75 exports, == FMI 2.0 bit for
                                  bit with and without Event Mode, early return at rlc_diode's switch
  test_fmi3_calls.py              FMI 3.0 call sequences by hand: Event/Step Mode refusals, other
                                  types, FMU states across an early return, reset
  test_model_structure.py         rules FMPy does not check: initial on inputs, InitialUnknowns,
                                  dependencies measured through FMPy
  test_blocks.py                  the signal form: static maps vs validation.md §7 (set, then read
                                  at once), backlash, relay sliding (§6), square helix, latch,
                                  pwa feedback vs solve_ivp, friction, servo, an algebraic loop
  test_documentation.py           documentation/index.html of FMUs and out/index.html in headless
                                  Chromium: screenshot not blank, plot in the DOM, no console errors
  test_sweep.py                   examples/sweep.py: a 64-point Dask sweep of coulomb_friction vs the
                                  closed form, and == the same sweep run serially
  test_cosim.py                   examples/cosim_pi.py: coulomb_friction under a PythonFMU PI
                                  controller (FMU2Slave master) == one-process loop (bitwise),
                                  == closed form, == lcsfmu simulate replay; SSP == Jacobi master
  test_accumulated_time.py        masters that accumulate their time (t += h, OMSimulator's last step)
  test_stop_time.py               a step past the stop time set up: fmi2Error / fmi3Error, logged,
                                  the state kept; FMPy's own last step (within isclose) runs
  test_masters.py                 libcosim, Ecos (child processes: tests/python/masters.py) and a
                                  fmu-manipulation-toolbox container under FMPy: every bundled
                                  model == lcsfmu simulate, == FMPy on the master's own grid
  test_event_driven.py            the event-driven scheme vs validation.md's closed forms
  test_event_driven_nonlinear.py  event-driven vdp_saturation vs solve_ivp
  test_nonlinear.py               nonlinear first-order models and sources in time vs solve_ivp
  test_mechanics.py               mechanical models vs validation.md and closed forms
  test_moreau_jean.py             the Moreau-Jean step vs an independent NumPy implementation
  test_mech_nonlinear.py          nonlinear forces and gaps vs solve_ivp and NumPy Moreau-Jean
  test_mech_schemes_nonlinear.py  projected and semi-explicit schemes on nonlinear mechanics
  test_mech_slip_sliding.py       a nonlinear slip that slides, then sticks (puck in a bowl):
                                  Moreau–Jean and semi-explicit vs NumPy, 1e-9
  test_siconos_options.py         gamma and direct projection vs NumPy (Siconos' options)
  test_theta_gamma.py             theta-gamma variants vs Siconos' published CircuitRLCD
  test_model_exchange.py          FMI 2.0 and 3.0 ME under FMPy's CVode and Euler vs exact answers
  test_chattering.py              the cases users report against Modelica tools (sliding mode,
                                  diode bridge, friction chain): CS and ME/CVode vs Filippov
                                  references, the event-based formulations stuck
  test_model_exchange3.py         FMI 3.0 ME's own calls (what differs from FMI 2.0)
  test_me_rows.py                 examples/me_rows.py: FMI 2.0 == 3.0 rows, errors as stated
  test_prebuilt_runtime.py        `--runtime prebuilt` == the compiled binary
  test_win64.py                   the win64 binaries under wine == linux64
  test_user_guide.py              the user guide in headless Chromium, every link and anchor
  test_readme.py                  the README's first model, its commands run as written

Helpers in this file
  fixtures      lcsfmu_bin, fmus (name -> built .fmu), scaled_spiral_fmu (test-only model with
                parameter-dependent box bounds), slaves (FMU2Slave factory, cleaned up)
  simulation    cosim (simulate_fmu in co-simulation), run_cli (lcsfmu simulate -> array),
                comm_times (FMPy's communication points), sampled_input, write_input_csv
  comparison    assert_close, assert_same_results, first_index, ZERO
  FMI           Slave (FMU2Slave driven by hand), FMI2_CS_FUNCTIONS, exported_symbols
"""
from __future__ import annotations

import csv
import math
import os
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from fmpy import extract, read_model_description, simulate_fmu
from fmpy.fmi2 import FMU2Slave

REPO = Path(__file__).resolve().parents[2]
MODELS_DIR = REPO / "models"
MODEL_NAMES = ["sign_spiral", "coulomb_friction", "rlc_diode", "saturated_integrator",
               "two_carts", "bouncing_ball", "newtons_cradle", "stick_slip", "bead_chain",
               # the signal form (states with der, and blocks)
               "pwa_feedback", "relay_feedback", "backlash_gear", "servo_deadzone",
               "square_helix", "zero_crossing", "friction_block", "saturated_integrator_blocks",
               # nonlinear dynamics and sources in time (the Newton step)
               "vdp_saturation", "diode_bridge_source", "buck_pwm",
               # nonlinear forces and gaps (Moreau–Jean with a Newton loop)
               "pendulum_stop", "duffing_impact", "rocking_block",
               # a configuration-dependent mass matrix M(q)
               "double_pendulum", "pendulum_on_slider",
               # equality constraints ([[constraints]])
               "cartesian_pendulum",
               # sampled-data controllers ([[discrete]])
               "smc_implicit", "smc_explicit", "pid_zoh", "oscillator_pid",
               # where Modelica tools chatter (docs/src/chattering.md, test_chattering.py)
               "filippov_slide", "pm_braking_bridge", "heat_losses_friction",
               # SPICE netlists (docs/src/circuits.md)
               "half_wave", "diode_bridge", "bridge_cap_filter", "buck"]


def model_file(name: str) -> Path:
    """A bundled model's file: its SPICE netlist `models/<name>.cir`, else `models/<name>.toml`
    (no name is both)."""
    netlist = MODELS_DIR / f"{name}.cir"
    return netlist if netlist.is_file() else MODELS_DIR / f"{name}.toml"


def bundled_stems() -> list[str]:
    """The stem of every file in models/: TOML models and netlists alike."""
    return sorted(p.stem for ext in ("toml", "cir") for p in MODELS_DIR.glob(f"*.{ext}"))
# ../shared sits beside the repository (as in CI).
FMU_CHECK = REPO.parent / "shared" / "tools" / "fmu-check.py"
PYTHON = sys.executable  # the venv interpreter running pytest

# validation.md: "exactly zero" means |.| <= 1e-12.
ZERO = 1e-12

# The FMI 2.0 Co-Simulation API, from the FMI 2.0 standard (fmi2Functions.h):
# 25 functions common to both interface types ...
FMI2_COMMON_FUNCTIONS = {
    "fmi2GetTypesPlatform", "fmi2GetVersion", "fmi2SetDebugLogging",
    "fmi2Instantiate", "fmi2FreeInstance",
    "fmi2SetupExperiment", "fmi2EnterInitializationMode", "fmi2ExitInitializationMode",
    "fmi2Terminate", "fmi2Reset",
    "fmi2GetReal", "fmi2GetInteger", "fmi2GetBoolean", "fmi2GetString",
    "fmi2SetReal", "fmi2SetInteger", "fmi2SetBoolean", "fmi2SetString",
    "fmi2GetFMUstate", "fmi2SetFMUstate", "fmi2FreeFMUstate",
    "fmi2SerializedFMUstateSize", "fmi2SerializeFMUstate", "fmi2DeSerializeFMUstate",
    "fmi2GetDirectionalDerivative",
}
# ... and 9 specific to Co-Simulation.
FMI2_CS_ONLY_FUNCTIONS = {
    "fmi2SetRealInputDerivatives", "fmi2GetRealOutputDerivatives",
    "fmi2DoStep", "fmi2CancelStep",
    "fmi2GetStatus", "fmi2GetRealStatus", "fmi2GetIntegerStatus",
    "fmi2GetBooleanStatus", "fmi2GetStringStatus",
}
FMI2_CS_FUNCTIONS = FMI2_COMMON_FUNCTIONS | FMI2_CS_ONLY_FUNCTIONS

# fmi2StatusKind values (fmi2FunctionTypes.h)
fmi2LastSuccessfulTime = 2
fmi2Terminated = 3


# --------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="session")
def lcsfmu_bin() -> Path:
    """The lcsfmu executable: $LCSFMU_BIN, or built once with `cargo build --release`."""
    override = os.environ.get("LCSFMU_BIN")
    if override:
        path = Path(override)
        assert path.is_file(), f"LCSFMU_BIN={override} does not exist"
        return path
    proc = subprocess.run(
        ["cargo", "build", "--release", "-q", "--manifest-path", str(REPO / "Cargo.toml")],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, f"cargo build failed:\n{proc.stderr[-4000:]}"
    path = REPO / "target" / "release" / "lcsfmu"
    assert path.is_file()
    return path


@pytest.fixture(scope="session")
def fmus(lcsfmu_bin, tmp_path_factory) -> dict[str, Path]:
    """Every bundled model built once into an FMU: {model name: path}."""
    out = tmp_path_factory.mktemp("fmus")
    models = [str(model_file(name)) for name in MODEL_NAMES]
    proc = subprocess.run([str(lcsfmu_bin), "build", *models, "-o", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, f"lcsfmu build failed:\n{proc.stdout}\n{proc.stderr}"
    paths = {name: out / f"{name}.fmu" for name in MODEL_NAMES}
    for name, path in paths.items():
        assert path.is_file(), f"{name}.fmu was not written ({proc.stdout})"
    return paths


# Every first-order bundled model: the ones Model Exchange builds (the others are refused).
ME_MODELS = ["backlash_gear", "coulomb_friction", "friction_block", "pwa_feedback",
             "relay_feedback", "rlc_diode", "saturated_integrator",
             "saturated_integrator_blocks", "servo_deadzone", "sign_spiral", "square_helix",
             "zero_crossing", "vdp_saturation", "diode_bridge_source", "buck_pwm",
             "filippov_slide", "heat_losses_friction", "pm_braking_bridge"]


@pytest.fixture(scope="session")
def me_builds(lcsfmu_bin, tmp_path_factory):
    """`get(fmi)`: every model of ME_MODELS built once with --interface me and --fmi `fmi`
    ("2" or "3"), as {model name: path}; each version is built on first use."""
    built: dict[str, dict[str, Path]] = {}

    def get(fmi: str) -> dict[str, Path]:
        if fmi not in built:
            out = tmp_path_factory.mktemp(f"me{fmi}")
            models = [str(model_file(m)) for m in ME_MODELS]
            proc = subprocess.run([str(lcsfmu_bin), "build", *models, "-o", str(out),
                                   "--interface", "me", "--fmi", fmi],
                                  capture_output=True, text=True)
            assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
            built[fmi] = {m: out / f"{m}.fmu" for m in ME_MODELS}
        return built[fmi]

    return get


# A test-only model: the sign spiral with parameter-dependent box bounds -a <= u_i <= a, i.e.
# u in a*Sign(x). Its bounds stop being an interval when a < 0.
SCALED_SPIRAL_TOML = """
[model]
name = "scaled_spiral"
description = "sign spiral with box bounds -a <= u <= a (test model)"

[experiment]
start = 0.0
stop = 2.0
step = 0.2

[[parameters]]
name = "a"
value = 1.0

[[states]]
name = "x1"
start = -1.0

[[states]]
name = "x2"
start = 1.0

[[complementarity]]
name = "u1"
lo = "-a"
hi = "a"

[[complementarity]]
name = "u2"
lo = "-a"
hi = "a"

[system]
B = [[-1, 2],
     [-2, -1]]
C = [[-1, 0],
     [0, -1]]
"""


@pytest.fixture(scope="session")
def scaled_spiral_fmu(lcsfmu_bin, tmp_path_factory) -> Path:
    """The test-only scaled_spiral model built into an FMU."""
    out = tmp_path_factory.mktemp("scaled_spiral")
    toml = out / "scaled_spiral.toml"
    toml.write_text(SCALED_SPIRAL_TOML)
    fmu = out / "scaled_spiral.fmu"
    proc = subprocess.run([str(lcsfmu_bin), "build", str(toml), "-o", str(fmu)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, f"lcsfmu build failed:\n{proc.stdout}\n{proc.stderr}"
    return fmu


@pytest.fixture
def slaves():
    """Factory of hand-driven FMU2Slave instances; all are freed at teardown."""
    opened: list[Slave] = []

    def open_slave(fmu_path: Path, instance_name: str = "instance") -> Slave:
        s = Slave(fmu_path, instance_name)
        opened.append(s)
        return s

    yield open_slave
    for s in reversed(opened):
        s.close()


# ------------------------------------------------------------------------- simulation

def cosim(fmu: Path, **kwargs) -> np.ndarray:
    """simulate_fmu in co-simulation. A timeout guards against FMPy's endless retry of a
    step that returns fmi2Discard without terminated = true."""
    kwargs.setdefault("timeout", 60)
    return simulate_fmu(str(fmu), fmi_type="CoSimulation", **kwargs)


def comm_times(start: float, stop: float, h: float) -> np.ndarray:
    """The communication points FMPy's co-simulation loop uses: start + k*h (a product),
    the last one clipped to stop; a point within math.isclose of stop ends the run."""
    times = [start]
    k = 0
    while not (times[-1] > stop or math.isclose(times[-1], stop)):
        nxt = start + (k + 1) * h
        if nxt > stop and not math.isclose(nxt, stop):
            nxt = stop
        times.append(nxt)
        k += 1
    return np.array(times)


def sampled_input(name: str, fn, times: np.ndarray) -> np.ndarray:
    """A structured input table for simulate_fmu: columns 'time' and `name` = fn(time)."""
    table = np.zeros(len(times), dtype=[("time", np.float64), (name, np.float64)])
    table["time"] = times
    table[name] = fn(times)
    return table


def write_input_csv(path: Path, table: np.ndarray) -> Path:
    """The same table as CSV for `lcsfmu simulate --input` (repr: exact round trip)."""
    names = table.dtype.names
    with open(path, "w") as f:
        f.write(",".join(names) + "\n")
        for row in table:
            f.write(",".join(repr(float(row[n])) for n in names) + "\n")
    return path


def read_csv(path: Path) -> np.ndarray:
    """lcsfmu's CSV output as a structured array (float() reads shortest round-trip text exactly)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    arr = np.zeros(len(body), dtype=[(n, np.float64) for n in header])
    for i, row in enumerate(body):
        arr[i] = tuple(float(c) for c in row)
    return arr


def run_cli(lcsfmu_bin: Path, model: Path, out_dir: Path, *, start=None, stop=None, step=None,
            sets: dict | None = None, input_csv: Path | None = None, expect_ok: bool = True):
    """`lcsfmu simulate MODEL ... -o out.csv`; returns (CompletedProcess, result array or None)."""
    out = out_dir / f"cli_{model.stem}_{len(list(out_dir.glob('cli_*')))}.csv"
    cmd = [str(lcsfmu_bin), "simulate", str(model), "-o", str(out)]
    for flag, value in (("--start", start), ("--stop", stop), ("--step", step)):
        if value is not None:
            cmd += [flag, repr(float(value))]
    for name, value in (sets or {}).items():
        cmd += ["--set", f"{name}={float(value)!r}"]
    if input_csv is not None:
        cmd += ["--input", str(input_csv)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if expect_ok:
        assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stderr}"
    result = read_csv(out) if out.is_file() else None
    return proc, result


# ------------------------------------------------------------------------- comparison

def assert_close(actual, ref, tol: float, what: str = "") -> None:
    """|actual - ref| <= tol * max(1, |ref|) elementwise."""
    actual = np.asarray(actual, dtype=float)
    ref = np.asarray(ref, dtype=float)
    assert actual.shape == ref.shape, f"{what}: shape {actual.shape} != {ref.shape}"
    bound = tol * np.maximum(1.0, np.abs(ref))
    err = np.abs(actual - ref)
    bad = np.flatnonzero(~(err <= bound))
    assert bad.size == 0, (
        f"{what}: {bad.size} value(s) off by more than {tol:g} (scaled); first at index "
        f"{bad[0]}: {actual.flat[bad[0]]!r} vs {ref.flat[bad[0]]!r}")


def assert_same_results(a: np.ndarray, b: np.ndarray, tol: float = 1e-12, columns=None) -> None:
    """Same column names, same number of rows, and every column (time included) within tol."""
    assert a.dtype.names == b.dtype.names, f"columns {a.dtype.names} != {b.dtype.names}"
    assert len(a) == len(b), f"{len(a)} rows != {len(b)} rows"
    for name in columns or a.dtype.names:
        assert_close(a[name], b[name], tol, f"column {name}")


def first_index(mask) -> int | None:
    """Index of the first True of a boolean array, None if there is none."""
    idx = np.flatnonzero(np.asarray(mask))
    return int(idx[0]) if idx.size else None


def zero_from(values: np.ndarray) -> int | None:
    """First index k such that |values[j]| <= ZERO for every j >= k (None if the last is not zero)."""
    nonzero = np.flatnonzero(np.abs(values) > ZERO)
    if nonzero.size == 0:
        return 0
    k = int(nonzero[-1]) + 1
    return k if k < len(values) else None


# -------------------------------------------------------------------------------- FMI

@lru_cache(maxsize=None)
def unzipped(fmu_path: Path) -> str:
    """One extraction per FMU, so that instances of one FMU share one loaded library."""
    return extract(str(fmu_path))


class Slave:
    """An FMU2Slave of an lcsfmu FMU, driven call by call."""

    def __init__(self, fmu_path: Path, instance_name: str = "instance"):
        self.md = read_model_description(str(fmu_path))
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.output_names = [v.name for v in self.md.modelVariables if v.causality == "output"]
        self.output_vrs = [self.vr[n] for n in self.output_names]
        self.fmu = FMU2Slave(guid=self.md.guid, unzipDirectory=unzipped(fmu_path),
                             modelIdentifier=self.md.coSimulation.modelIdentifier,
                             instanceName=instance_name)
        self.fmu.instantiate()
        self.freed = False

    def set(self, values: dict) -> None:
        if values:
            names = list(values)
            self.fmu.setReal([self.vr[n] for n in names], [float(values[n]) for n in names])

    def get(self, *names: str) -> list[float]:
        return self.fmu.getReal([self.vr[n] for n in names])

    def outputs(self) -> list[float]:
        return self.fmu.getReal(self.output_vrs)

    def initialize(self, start_values: dict | None = None, start: float = 0.0,
                   stop: float | None = None) -> None:
        """setupExperiment, start values, enter/exit initialization (as FMPy does)."""
        self.fmu.setupExperiment(startTime=start, stopTime=stop)
        self.set(start_values or {})
        self.fmu.enterInitializationMode()
        self.fmu.exitInitializationMode()

    def step(self, t: float, h: float) -> None:
        # noSetFMUStatePriorToCurrentPoint = false: the tests do restore earlier states.
        self.fmu.doStep(currentCommunicationPoint=t, communicationStepSize=h,
                        noSetFMUStatePriorToCurrentPoint=False)

    def run(self, start: float, h: float, k0: int, k1: int, inputs=None) -> list[list[float]]:
        """Steps from t_k0 to t_k1 (t_k = start + k*h). inputs(t) -> dict is applied at each
        communication point before the step. Returns the outputs after every step."""
        rows = []
        for k in range(k0, k1):
            t = start + k * h
            if inputs is not None:
                self.set(inputs(t))
            self.step(t, start + (k + 1) * h - t)
            rows.append(self.outputs())
        return rows

    def close(self) -> None:
        if self.freed:
            return
        try:
            self.fmu.terminate()
        except Exception:
            pass  # not allowed in every phase (e.g. already terminated, or instantiated only)
        self.fmu.freeInstance()
        self.freed = True


def exported_symbols(so_path: Path) -> set[str]:
    """Names of the defined dynamic symbols of a shared library (nm -D --defined-only)."""
    proc = subprocess.run(["nm", "-D", "--defined-only", str(so_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    names = set()
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            names.add(parts[-1].split("@")[0])
    return names


def bits(rows) -> bytes:
    """Bit pattern of a list of output rows, for bit-identical comparisons (-0.0 != 0.0)."""
    return np.asarray(rows, dtype=np.float64).tobytes()
