"""FMI 3.0 Model Exchange (`lcsfmu build --fmi 3 --interface me`): what differs from FMI 2.0.

The runs under FMPy's CVode and Euler, the exact answers and the archives are in
test_model_exchange.py, parametrized over both FMI versions; here, FMI 3.0's own calls:

    test_same_numbers_as_fmi2                 every linear first-order bundled model, CVode and
                                              Euler: the FMI 3.0 ME result equals the FMI 2.0 ME
                                              result bit for bit (FMPy's two drivers make the same
                                              calls of one core)
    test_named_indicators_read_as_float64     fmi3GetFloat64 of the EventIndicator variables ==
                                              fmi3GetEventIndicators, bit for bit, in Event Mode,
                                              in Continuous-Time Mode and after an event; the counts
    test_event_flags_and_step_over            fmi3CompletedIntegratorStep asks for Event Mode after
                                              a guard's zero was stepped over; fmi3UpdateDiscreteStates
                                              switches the mode in one call (no further update, no
                                              time event), after which every guard holds
    test_directional_and_adjoint_derivatives  fmi3GetDirectionalDerivative == finite differences of
                                              fmi3GetContinuousStateDerivatives (by states and
                                              inputs); fmi3GetAdjointDerivative == its transpose
    test_bad_calls_are_refused                NaN state and wrong counts (state kept); a bad
                                              tolerance; a known that is an output; CS instantiation
                                              of an ME-only FMU, each with the reason logged
"""
from __future__ import annotations

from ctypes import POINTER, c_double

import numpy as np
import pytest
from fmpy import extract, read_model_description, simulate_fmu
from fmpy.fmi1 import FMICallException
from fmpy.fmi3 import (FMU3Model, FMU3Slave, fmi3IntermediateUpdateCallback,
                        fmi3LogMessageCallback)

from conftest import ME_MODELS


@pytest.fixture(scope="module")
def me3(me_builds):
    return me_builds("3")


def ptr(a: np.ndarray):
    return a.ctypes.data_as(POINTER(c_double))


@pytest.mark.parametrize("model", ME_MODELS)
def test_same_numbers_as_fmi2(me_builds, model):
    two, three = me_builds("2")[model], me_builds("3")[model]
    for solver in ("CVode", "Euler"):
        a = simulate_fmu(two, fmi_type="ModelExchange", solver=solver, timeout=60)
        b = simulate_fmu(three, fmi_type="ModelExchange", solver=solver, timeout=60)
        assert a.dtype.names == b.dtype.names
        for name in a.dtype.names:
            assert np.array_equal(a[name], b[name]), (solver, name)


class Instance:
    """An FMI 3.0 Model Exchange instance of `fmu` through FMPy's FMU3Model, with its log."""

    def __init__(self, fmu, tmp_path, tolerance=1e-8):
        self.md = read_model_description(fmu)
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.messages: list[str] = []
        self.m = FMU3Model(guid=self.md.guid, unzipDirectory=extract(fmu, tmp_path / "x"),
                           modelIdentifier=self.md.modelExchange.modelIdentifier,
                           instanceName="me3")
        self.m.instantiate(logMessage=lambda _env, _status, _cat, msg:
                           self.messages.append(msg.decode()))
        self.nx = self.md.numberOfContinuousStates
        self.nz = self.md.numberOfEventIndicators
        self.z_vrs = [u.variable.valueReference for u in self.md.eventIndicators]
        self.tolerance = tolerance

    def start(self):
        """Initialization, the first update of the discrete states, Continuous-Time Mode."""
        self.m.enterInitializationMode(tolerance=self.tolerance, startTime=0.0)
        self.m.exitInitializationMode()
        flags = self.m.updateDiscreteStates()
        self.m.enterContinuousTimeMode()
        return flags

    def states(self):
        x = np.zeros(self.nx)
        self.m.getContinuousStates(ptr(x), self.nx)
        return x

    def set_states(self, x):
        self.m.setContinuousStates(ptr(np.asarray(x, dtype=float)), self.nx)

    def derivatives(self):
        d = np.zeros(self.nx)
        self.m.getContinuousStateDerivatives(ptr(d), self.nx)
        return d

    def indicators(self):
        z = np.zeros(self.nz)
        self.m.getEventIndicators(ptr(z), self.nz)
        return z

    def named_indicators(self):
        return np.array(self.m.getFloat64(self.z_vrs))

    def close(self):
        self.m.freeInstance()
        self.m.freeLibrary()


def test_named_indicators_read_as_float64(me3, tmp_path):
    inst = Instance(me3["rlc_diode"], tmp_path)
    try:
        assert inst.m.getNumberOfEventIndicators() == inst.nz == 2
        assert inst.m.getNumberOfContinuousStates() == inst.nx == 2
        names = [u.variable.name for u in inst.md.eventIndicators]
        assert names == ["indicator.u_D.lower", "indicator.u_D.upper"]
        inst.m.enterInitializationMode(tolerance=1e-8, startTime=0.0)
        inst.m.exitInitializationMode()
        # Event Mode after initialization: the first mode exists (the diode conducts)
        z = inst.indicators()
        assert z.tobytes() == inst.named_indicators().tobytes()
        # conducting: the guard is the diode current y = i_L - q_C (= 1 at the start);
        # the upper side has no bound and reads 1
        assert list(z) == [1.0, 1.0]
        inst.m.updateDiscreteStates()
        inst.m.enterContinuousTimeMode()
        for x in ([0.8, 0.3], [0.2, 0.5], [0.6, 0.1]):
            inst.set_states(x)
            z = inst.indicators()
            assert z.tobytes() == inst.named_indicators().tobytes(), x
            assert z[0] == pytest.approx(x[0] - x[1], abs=1e-15)
        inst.m.terminate()
    finally:
        inst.close()


def test_event_flags_and_step_over(me3, tmp_path):
    inst = Instance(me3["rlc_diode"], tmp_path)
    try:
        need, terminate, nominals, values, defined, _ = inst.start()
        assert (need, terminate, nominals, defined) == (False, False, False, False)
        inst.m.setTime(0.5)
        inst.set_states([0.8, 0.3])
        assert inst.m.completedIntegratorStep() == (False, False)
        # Past the diode's switch: its current i_L - q_C is negative, a zero stepped over.
        inst.m.setTime(1.3)
        inst.set_states([0.1, 0.55])
        assert inst.indicators()[0] < 0
        assert inst.m.completedIntegratorStep() == (True, False)
        inst.m.enterEventMode()
        need, terminate, nominals, values, defined, _ = inst.m.updateDiscreteStates()
        # one update settles the event; no time events; the state did not move (the blocking
        # mode holds no constraint on it), but the mode changed, which the FMU reports as
        # changed values so that a master restarting its integrator only on that flag
        # (fmusim with CVode) does not go on with the old mode's right-hand side
        assert (need, terminate, nominals, defined) == (False, False, False, False)
        assert values is True and list(inst.states()) == [0.1, 0.55]
        inst.m.enterContinuousTimeMode()
        z = inst.indicators()
        assert np.all(z >= 0), z
        assert z.tobytes() == inst.named_indicators().tobytes()
        # blocking: q_C' = 0 and the lower guard is the reverse voltage u_D - 0
        d = inst.derivatives()
        assert d[1] == pytest.approx(0.0, abs=1e-15)
        (u_d,) = inst.m.getFloat64([inst.vr["u_D"]])
        assert z[0] == pytest.approx(u_d, rel=1e-12, abs=1e-15) and u_d > 0
        inst.m.terminate()
    finally:
        inst.close()


@pytest.mark.parametrize("model,knowns", [("rlc_diode", ["i_L", "q_C"]),
                                          ("saturated_integrator", ["y", "x"])])
def test_directional_and_adjoint_derivatives(me3, tmp_path, model, knowns):
    inst = Instance(me3[model], tmp_path)
    try:
        inst.start()
        states = [v.name for v in inst.md.modelVariables
                  if v.valueReference in {d.variable.derivative.valueReference
                                          for d in inst.md.derivatives}]
        unknowns = [inst.vr[f"der({s})"] for s in states]
        known_vrs = [inst.vr[k] for k in knowns]
        x0, f0 = inst.states(), inst.derivatives()
        h = 1e-6
        jac = np.zeros((len(unknowns), len(known_vrs)))
        for j, (name, vr) in enumerate(zip(knowns, known_vrs)):
            jac[:, j] = inst.m.getDirectionalDerivative(unknowns, [vr], [1.0])
            if name in states:
                x = x0.copy()
                x[states.index(name)] += h
                inst.set_states(x)
                f1 = inst.derivatives()
                inst.set_states(x0)
            else:
                (w,) = inst.m.getFloat64([vr])
                inst.m.setFloat64([vr], [w + h])
                f1 = inst.derivatives()
                inst.m.setFloat64([vr], [w])
            assert np.allclose(jac[:, j], (f1 - f0) / h, rtol=1e-6, atol=1e-6), (name, jac[:, j])
        # a combined seed is the sum of the columns
        seed = np.array([0.3, -1.7])
        both = inst.m.getDirectionalDerivative(unknowns, known_vrs, list(seed))
        assert np.allclose(both, jac @ seed, rtol=1e-12, atol=1e-14)
        # adjoint: seed^T J, one value per known
        v = np.array([1.3, -0.4])[:len(unknowns)]
        adj = inst.m.getAdjointDerivative(unknowns, known_vrs, list(v),
                                          nSensitivity=len(known_vrs))
        assert np.allclose(adj, v @ jac, rtol=1e-12, atol=1e-14), (adj, v @ jac)
        inst.m.terminate()
    finally:
        inst.close()


def test_bad_calls_are_refused(me3, tmp_path):
    inst = Instance(me3["rlc_diode"], tmp_path)
    try:
        with pytest.raises(FMICallException):
            inst.m.enterInitializationMode(tolerance=2.0, startTime=0.0)
        assert any("tolerance 2 must be in (0, 1)" in m for m in inst.messages), inst.messages
        inst.start()
        before = inst.states()
        with pytest.raises(FMICallException):
            inst.m.setContinuousStates(ptr(np.array([float("nan"), 0.0])), 2)
        with pytest.raises(FMICallException):
            inst.m.setContinuousStates(ptr(np.zeros(3)), 3)
        with pytest.raises(FMICallException):
            inst.m.getEventIndicators(ptr(np.zeros(3)), 3)
        assert list(inst.states()) == list(before) == [1.0, 0.0]
        assert any("not a finite number; the states are kept" in m for m in inst.messages)
        with pytest.raises(FMICallException):
            inst.m.getDirectionalDerivative([inst.vr["der(i_L)"]], [inst.vr["u_D"]], [1.0])
        assert any("(u_D) cannot be a directional derivative's known" in m
                   for m in inst.messages), inst.messages
        inst.m.terminate()
    finally:
        inst.close()
    # an ME-only FMU has no Co-Simulation
    fmu = me3["rlc_diode"]
    md = read_model_description(fmu)
    slave = FMU3Slave(guid=md.guid, unzipDirectory=extract(fmu, tmp_path / "cs"),
                      modelIdentifier="rlc_diode", instanceName="cs")
    messages = []
    callback = fmi3LogMessageCallback(lambda *args: messages.append(args[-1].decode()))
    instance = slave.fmi3InstantiateCoSimulation(
        b"cs", md.guid.encode(), b"", False, False, False, False, None, 0, None, callback,
        fmi3IntermediateUpdateCallback())
    assert not instance
    assert any("Co-Simulation is not provided" in m for m in messages), messages
    slave.freeLibrary()
