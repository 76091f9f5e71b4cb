"""A Newton step that fails, seen by an importer: tests/data/regularized_friction.toml (a block
sliding to rest under atan-regularized friction) built as FMI 2.0 and FMI 3.0 FMUs and stepped
through FMPy at h = 0.01.

The step in which the block would come to rest is the first whose start velocity is below the
velocity the friction takes in one step, h Fc / m; there the root of the step's equation lies on
the steep part of the force, and the full Newton steps from the start velocity cycle between two
velocities of opposite signs until the 50 iterations allowed are spent. An independent NumPy
Newton iteration of the same step (the scheme of docs/src/mechanical.md, one coordinate, no
contact) reproduces the cycle and the scaled residual the FMU logs.

After the failed step the FMU is terminated and refuses further steps (docs/src/fmu.md):
an importer that retries restores the FMU state it saved before the step, as a master with a
step-size control does, and a step of h / 10 from there succeeds.

Contents
  test_failed_newton_step_is_a_discard_that_keeps_the_state[2|3]
      the 21st step (from t = 0.2) returns Discard; the logger gets "the Newton iteration did
      not converge" with 50 iterations and the residual NumPy computes (1e-9 relative); the
      states read back equal those before the step bit for bit, and so does the last successful
      time (fmi2GetRealStatus, or fmi3DoStep's out-argument); terminated; a direct retry is
      refused; from the saved FMU state, steps of h / 10 bring the block to rest
"""
from __future__ import annotations

import re
import subprocess
from ctypes import byref

import numpy as np
import pytest
from fmpy import read_model_description
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import FMU2Slave
from fmpy.fmi3 import FMU3Slave, fmi3Boolean, fmi3Float64

from conftest import REPO, bits, fmi2LastSuccessfulTime, fmi2Terminated, unzipped
from test_forced_panic import Logged

MODEL = REPO / "tests" / "data" / "regularized_friction.toml"
# The model's parameters and step.
M, FC, EPS, V0, H, THETA = 1.0, 5.0, 1e-3, 1.0, 0.01, 0.5
MAX_ITERATIONS = 50
DISCARD, ERROR = 2, 3  # the same values in FMI 2.0 and 3.0
FAILURE = re.compile(r"the Newton iteration did not converge: no convergence after (\d+) "
                     r"iterations \(LCP solves\), largest scaled residual (\S+) \(tolerance")


@pytest.fixture(scope="module")
def built(lcsfmu_bin, tmp_path_factory):
    """The model as an FMI 2.0 and an FMI 3.0 FMU: {"2": path, "3": path}."""
    out = tmp_path_factory.mktemp("newton_discard")
    paths = {}
    for fmi in ("2", "3"):
        paths[fmi] = out / fmi / "regularized_friction.fmu"
        proc = subprocess.run([str(lcsfmu_bin), "build", str(MODEL), "-o", str(paths[fmi]),
                               "--fmi", fmi], capture_output=True, text=True)
        assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
    return paths


def force(v):
    return -2 / np.pi * FC * np.arctan(v / EPS)


def newton(v, h):
    """The Newton iteration of one Moreau–Jean step from velocity v (no contact, so each LCP is
    empty): iterates v_b from v, residual m (v_b - v) - h (θ F(v_b) + (1-θ) F(v)), each scaled
    by the magnitude of its terms. Returns [(v_b, scaled residual)] for iterates 0..50."""
    dforce = lambda w: -2 / np.pi * FC / EPS / (1 + (w / EPS) ** 2)  # noqa: E731
    out, vb = [], v
    for _ in range(MAX_ITERATIONS + 1):
        r = M * (vb - v) - h * (THETA * force(vb) + (1 - THETA) * force(v))
        scale = M * (abs(vb) + abs(v)) + h * (THETA * abs(force(vb)) + (1 - THETA) * abs(force(v)))
        out.append((vb, abs(r) / scale))
        vb -= r / (M - h * THETA * dforce(vb))
    return out


class Fmi2:
    """One FMI 2.0 instance through FMU2Slave, with its logged (status, category, message)."""

    def __init__(self, fmu):
        md = read_model_description(str(fmu))
        self.vr = {v.name: v.valueReference for v in md.modelVariables}
        self.s = FMU2Slave(guid=md.guid, unzipDirectory=unzipped(fmu),
                           modelIdentifier=md.coSimulation.modelIdentifier, instanceName="newton")
        self.log = Logged()
        self.s.instantiate(callbacks=self.log.callbacks)
        self.s.setupExperiment(startTime=0.0)
        self.s.enterInitializationMode()
        self.s.exitInitializationMode()

    def get(self, *names):
        return self.s.getReal([self.vr[n] for n in names])

    def step(self, t, h):
        try:
            self.s.doStep(currentCommunicationPoint=t, communicationStepSize=h,
                          noSetFMUStatePriorToCurrentPoint=False)
            return 0
        except FMICallException as e:
            return e.status

    def last_successful_time(self):
        return self.s.getRealStatus(fmi2LastSuccessfulTime)

    def terminated(self):
        return self.s.getBooleanStatus(fmi2Terminated)

    def save(self):
        return self.s.getFMUstate()

    def restore(self, state):
        self.s.setFMUstate(state)

    def free(self, state):
        self.s.freeFMUstate(state)

    def close(self):
        self.s.terminate()
        self.s.freeInstance()


class Fmi3(Fmi2):
    """The same through FMU3Slave; fmi3DoStep called with out-arguments of our own, which it
    writes whatever the outcome, so that they are read after a Discard too."""

    def __init__(self, fmu):
        md = read_model_description(str(fmu))
        self.vr = {v.name: v.valueReference for v in md.modelVariables}
        self.s = FMU3Slave(guid=md.guid, unzipDirectory=unzipped(fmu),
                           modelIdentifier=md.coSimulation.modelIdentifier, instanceName="newton")
        self.log = Logged()
        self.s.instantiate(logMessage=lambda _env, status, category, message:
                           self.log.records.append((status, category.decode(), message.decode())))
        self.s.enterInitializationMode(startTime=0.0)
        self.s.exitInitializationMode()
        self.last, self.stopped = None, None

    def get(self, *names):
        return self.s.getFloat64([self.vr[n] for n in names])

    def step(self, t, h):
        event, terminate, early, last = fmi3Boolean(), fmi3Boolean(), fmi3Boolean(), fmi3Float64()
        try:
            self.s.fmi3DoStep(self.s.component, t, h, fmi3Boolean(False), byref(event),
                              byref(terminate), byref(early), byref(last))
            status = 0
        except FMICallException as e:
            status = e.status
        self.last, self.stopped = last.value, terminate.value
        return status

    def last_successful_time(self):
        return self.last

    def terminated(self):
        return self.stopped

    def save(self):
        return self.s.getFMUState()

    def restore(self, state):
        self.s.setFMUState(state)

    def free(self, state):
        self.s.freeFMUState(state)


@pytest.mark.parametrize("fmi", ["2", "3"])
def test_failed_newton_step_is_a_discard_that_keeps_the_state(built, fmi):
    fmu = (Fmi2 if fmi == "2" else Fmi3)(built[fmi])
    starts, saved, status = [], None, 0
    for k in range(100):
        t = k * H
        starts.append(fmu.get("x", "v"))
        if saved is not None:
            fmu.free(saved)
        saved = fmu.save()
        status = fmu.step(t, H)
        if status != 0:
            break
    assert status == DISCARD, status
    # The step that fails is the one in which the block would stop, and only that one.
    assert k == 20 and t == 0.2, (k, t)
    velocities = np.array([v for _, v in starts])
    assert (velocities[:-1] > H * FC / M).all() and 0 < velocities[-1] < H * FC / M, velocities

    records = [r for r in fmu.log.take() if "Newton iteration" in r[2]]
    assert len(records) == 1, records
    level, category, message = records[0]
    assert (level, category) == (DISCARD, "logStatusDiscard"), records[0]
    assert f"from t = {t}" in message, message
    iterations, residual = FAILURE.search(message).groups()
    # NumPy's iteration from the same velocity: it cycles, each iterate's sign the opposite of
    # the last, and its 50th residual is the one logged.
    ref = newton(starts[-1][1], H)
    assert all(a[0] * b[0] < 0 for a, b in zip(ref[30:], ref[31:])), ref[30:]
    assert int(iterations) == MAX_ITERATIONS
    assert abs(float(residual) - ref[-1][1]) <= 1e-9 * ref[-1][1], (residual, ref[-1])
    assert ref[-1][1] > 0.1, "far from converged, not a near miss"

    # The state before the step, bit for bit, and its time.
    assert bits(fmu.get("x", "v")) == bits(starts[-1])
    assert fmu.last_successful_time() == t
    assert fmu.terminated() is True

    # A terminated FMU refuses to step; the saved state revives it.
    assert fmu.step(t, H / 10) == ERROR
    fmu.restore(saved)
    fmu.free(saved)
    assert bits(fmu.get("x", "v")) == bits(starts[-1])
    for j in range(100):
        assert fmu.step(t + j * H / 10, H / 10) == 0, j
    x, v = fmu.get("x", "v")
    assert abs(v) <= 1e-12 and x > starts[-1][0], (x, v)
    assert fmu.last_successful_time() == t + 99 * H / 10 + H / 10
    fmu.close()
