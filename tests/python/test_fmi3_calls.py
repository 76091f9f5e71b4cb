"""FMI 3.0 call sequences on lcsfmu FMUs, driven by hand through FMPy's FMU3Slave: the state
machine of Event Mode and Step Mode (src/instance/state.rs), refusals that change nothing and are
logged, typed access to types the FMU has no variables of, FMU states and their serialization
across an early return, and reset.

Contents
  test_illegal_calls_are_refused_and_change_nothing  doStep in Event Mode, update in Step
                                                      Mode, Event Mode without eventModeUsed,
                                                      a NULL-free wrong type: fmi3Error, logged
  test_other_types_name_the_real_type                 getInt32 of a Float64 reference
  test_fmu_state_replays_across_an_early_return       get/set/serialize/deserialize: the run
                                                      after the restore repeats, bit for bit
  test_reset_repeats_the_run                          fmi3Reset, then the same run again
"""
from __future__ import annotations

import math

import pytest
from fmpy import extract, read_model_description
from fmpy.fmi1 import FMICallException
from fmpy.fmi3 import FMU3Slave

from test_fmi3 import fmi3_fmus, rlc_variants  # noqa: F401  (session fixtures)

T_SWITCH = 2 * math.pi / (3 * math.sqrt(3))


class Slave:
    """An FMU3Slave of one FMU, with the messages it logged."""

    def __init__(self, fmu, tmp_path, event_mode=False, early_return=False):
        self.md = read_model_description(str(fmu))
        d = extract(str(fmu), unzipdir=str(tmp_path / f"x{id(self)}"))
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.messages: list[str] = []
        self.s = FMU3Slave(guid=self.md.guid, unzipDirectory=d,
                           modelIdentifier=self.md.coSimulation.modelIdentifier,
                           instanceName="calls")
        self.s.instantiate(eventModeUsed=event_mode, earlyReturnAllowed=early_return,
                           logMessage=lambda env, status, cat, msg: self.messages.append(
                               msg.decode()))
        self.s.enterInitializationMode(startTime=0.0)
        self.s.exitInitializationMode()

    def values(self) -> list[float]:
        return self.s.getFloat64(list(self.vr.values()))

    def refused(self, call, *args, says: str) -> None:
        before = self.values()
        with pytest.raises(FMICallException) as e:
            call(*args)
        assert e.value.status == 3  # fmi3Error
        assert any(says in m for m in self.messages), self.messages
        assert self.values() == before

    def close(self):
        self.s.terminate()
        self.s.freeInstance()


def test_illegal_calls_are_refused_and_change_nothing(fmi3_fmus, tmp_path):
    a = Slave(fmi3_fmus["rlc_diode"], tmp_path, event_mode=True)
    # Event Mode after initialization: no step until fmi3EnterStepMode.
    a.refused(a.s.doStep, 0.0, 0.1, says="DoStep is not allowed in phase EventMode")
    a.s.updateDiscreteStates()
    a.s.enterStepMode()
    a.refused(a.s.updateDiscreteStates, says="UpdateDiscreteStates is not allowed in phase "
              "StepComplete")
    a.refused(a.s.enterStepMode, says="EnterStepMode is not allowed")
    a.s.doStep(0.0, 0.1)
    a.close()
    b = Slave(fmi3_fmus["rlc_diode"], tmp_path)
    b.refused(b.s.enterEventMode, says="eventModeUsed = false")
    b.refused(b.s.doStep, 0.5, 0.1, says="is not the FMU's time 0")
    b.s.doStep(0.0, 0.1)
    b.close()


def test_other_types_name_the_real_type(fmi3_fmus, tmp_path):
    a = Slave(fmi3_fmus["rlc_diode"], tmp_path)
    assert a.s.getInt32([]) == []
    a.refused(a.s.getInt32, [a.vr["R"]],
              says=f"value reference {a.vr['R']} (R) is a Float64 variable, not Int32")
    a.refused(a.s.getBoolean, [999], says="unknown value reference 999")
    a.close()


def run(slave: Slave, t: float, stop: float, h: float) -> list[tuple]:
    """Steps from t to stop on the grid of h with event handling; every (time, values)."""
    out = []
    while t < stop - 1e-12:
        nxt = (math.floor(t / h + 1e-9) + 1) * h
        event, _, early, last = slave.s.doStep(t, nxt - t)
        if event:
            slave.s.enterEventMode()
            slave.s.updateDiscreteStates()
            slave.s.enterStepMode()
        out.append((last, early, tuple(slave.values())))
        t = last
    return out


def test_fmu_state_replays_across_an_early_return(rlc_variants, tmp_path):
    a = Slave(rlc_variants["tight"], tmp_path, event_mode=True, early_return=True)
    a.s.updateDiscreteStates()
    a.s.enterStepMode()
    first = run(a, 0.0, 1.0, 0.5)
    state = a.s.getFMUState()
    rest = run(a, 1.0, 2.0, 0.5)
    assert [r[1] for r in rest] == [True, False, False]
    assert abs(rest[0][0] - T_SWITCH) <= 1e-8
    a.s.setFMUState(state)
    assert run(a, 1.0, 2.0, 0.5) == rest
    data = a.s.serializeFMUState(state)
    a.s.freeFMUState(state)
    b = Slave(rlc_variants["tight"], tmp_path, event_mode=True, early_return=True)
    b.s.updateDiscreteStates()
    b.s.enterStepMode()
    restored = b.s.deserializeFMUState(data)
    b.s.setFMUState(restored)
    assert run(b, 1.0, 2.0, 0.5) == rest
    assert first[-1][0] == 1.0
    a.close()
    b.close()


def test_reset_repeats_the_run(fmi3_fmus, tmp_path):
    a = Slave(fmi3_fmus["sign_spiral"], tmp_path, event_mode=True, early_return=True)
    a.s.updateDiscreteStates()
    a.s.enterStepMode()
    once = run(a, 0.0, 2.0, 0.2)
    a.s.reset()
    a.s.enterInitializationMode(startTime=0.0)
    a.s.exitInitializationMode()
    a.s.updateDiscreteStates()
    a.s.enterStepMode()
    assert run(a, 0.0, 2.0, 0.2) == once
    # Time-stepping without max_step: one internal step per step, never an early return.
    assert not any(early for _, early, _ in once)
    a.close()
