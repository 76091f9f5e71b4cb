"""A step past the stop time the master set up is an error (FMI 2.0 fmi2SetupExperiment,
FMI 3.0 fmi3EnterInitializationMode: "if the environment tries to compute past stopTime
the FMU has to return" an error).

A master's loop `while t < stop: doStep(t, h); t += h` over relay_feedback's 3 s in steps
of 0.01 accumulates its time to 2.99999999999998 after 300 steps and asks a 301st, to
3.00999999999998. Through FMPy, with the FMU 2.0 and 3.0 of the model:

    test_fmi2_step_past_the_stop_time   fmi2Error, the reason logged, every value kept; a
                                        step that lands on the stop time still runs
    test_fmi3_step_past_the_stop_time   the same with fmi3Error
    test_without_a_stop_time            no stop time set up: the 301st step runs
    test_fmpy_isclose_stop_runs         FMPy's own last step, to a point within math.isclose
                                        of the stop time and past it, runs
"""
from __future__ import annotations

import subprocess

import pytest
from fmpy import extract, read_model_description
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import FMU2Slave
from fmpy.fmi3 import FMU3Slave

from conftest import MODELS_DIR, cosim, unzipped
from test_forced_panic import Logged

STOP, H = 3.0, 0.01
fmi2Error = 3
fmi3Error = 3


@pytest.fixture(scope="module")
def relay_fmi3(lcsfmu_bin, tmp_path_factory):
    out = tmp_path_factory.mktemp("stop_time") / "relay_feedback.fmu"
    proc = subprocess.run([str(lcsfmu_bin), "build", str(MODELS_DIR / "relay_feedback.toml"),
                           "-o", str(out), "--fmi", "3"], capture_output=True, text=True)
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
    return out


def loop_to_stop(step) -> float:
    """The master's loop up to its 300th step; returns its accumulated time."""
    t = 0.0
    for _ in range(300):
        step(t, H)
        t += H
    assert t == 2.99999999999998 and t < STOP, "so the loop asks one step more"
    return t


def fmi2_instance(fmu, stop):
    md = read_model_description(str(fmu))
    slave = FMU2Slave(guid=md.guid, unzipDirectory=unzipped(fmu),
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="stop")
    log = Logged()
    slave.instantiate(callbacks=log.callbacks)
    slave.setupExperiment(startTime=0.0, stopTime=stop)
    slave.enterInitializationMode()
    slave.exitInitializationMode()
    vrs = [v.valueReference for v in md.modelVariables]
    return slave, log, vrs


def test_fmi2_step_past_the_stop_time(fmus):
    slave, log, vrs = fmi2_instance(fmus["relay_feedback"], STOP)
    t = loop_to_stop(lambda t, h: slave.doStep(t, h))
    log.take()
    before = slave.getReal(vrs)
    with pytest.raises(FMICallException) as e:
        slave.doStep(t, H)
    assert e.value.status == fmi2Error
    records = log.take()
    assert len(records) == 1 and records[0][0] == fmi2Error, records
    message = records[0][2]
    print(f"\nfmi2DoStep({t!r}, {H}) -> fmi2Error: {message}")
    assert "would end at 3.00999999999998, past the stop time 3" in message, message
    assert slave.getReal(vrs) == before, "the state as it was"
    # The step that lands on the stop time runs from the same state.
    slave.doStep(t, STOP - t)
    assert slave.getReal(vrs) != before
    slave.terminate()
    slave.freeInstance()


def test_fmi3_step_past_the_stop_time(relay_fmi3, tmp_path):
    md = read_model_description(str(relay_fmi3))
    slave = FMU3Slave(guid=md.guid, unzipDirectory=extract(str(relay_fmi3),
                                                           unzipdir=str(tmp_path / "x")),
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="stop3")
    messages = []
    slave.instantiate(logMessage=lambda env, status, cat, msg: messages.append(msg.decode()))
    slave.enterInitializationMode(startTime=0.0, stopTime=STOP)
    slave.exitInitializationMode()
    vrs = [v.valueReference for v in md.modelVariables]
    t = loop_to_stop(lambda t, h: slave.doStep(t, h))
    before = slave.getFloat64(vrs)
    with pytest.raises(FMICallException) as e:
        slave.doStep(t, H)
    assert e.value.status == fmi3Error
    assert any("past the stop time 3" in m for m in messages), messages
    assert slave.getFloat64(vrs) == before
    slave.doStep(t, STOP - t)
    assert slave.getFloat64(vrs)[0] == STOP, "the time, at the stop time"
    slave.terminate()
    slave.freeInstance()


def test_without_a_stop_time(fmus):
    slave, log, vrs = fmi2_instance(fmus["relay_feedback"], None)
    t = loop_to_stop(lambda t, h: slave.doStep(t, h))
    slave.doStep(t, H)
    assert log.take() == []
    slave.terminate()
    slave.freeInstance()


def test_fmpy_isclose_stop_runs(fmus):
    """FMPy takes a communication point within math.isclose (1e-9, relative) of the stop
    time for the stop time and does not clip it: a 0.9999999995 s run in steps of 0.1 ends
    with a step to 1.0, 5e-10 past the stop time it set up. The FMU lets it land."""
    result = cosim(fmus["relay_feedback"], stop_time=0.9999999995, output_interval=0.1)
    assert result["time"][-1] == 1.0
