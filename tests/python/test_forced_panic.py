"""A panic inside the FMU, driven by FMPy (issue 20, section 4).

`LCSFMU_TEMPLATE_FEATURES=forced-panic lcsfmu build` compiles the template's test-only
feature: fmi2DoStep panics from t = 1 on (template/src/forced_panic.rs). FMPy raises
FMICallException on a status worse than Warning, so each refused call is an exception
whose `status` is read here; the FMU's messages come through our own logger.

    test_panic_is_fatal_logged_and_poisons_the_instance   steps before t = 1 work; the
        panicking step returns fmi2Fatal with the panic's message logged as logStatusFatal;
        every later call (reset included) is refused with fmi2Fatal and a logged reason;
        fmi2FreeInstance works, and a new instance of the same library runs again
"""
from __future__ import annotations

import os
import subprocess

import pytest
from fmpy import read_model_description
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import (FMU2Slave, fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE,
                       fmi2CallbackFunctions, fmi2CallbackLoggerTYPE, fmi2Terminated)
from fmpy.fmi1 import calloc, free

from conftest import MODELS_DIR, unzipped

fmi2Fatal = 4


@pytest.fixture(scope="module")
def panicking_fmu(lcsfmu_bin, tmp_path_factory):
    out = tmp_path_factory.mktemp("forced_panic") / "coulomb_friction.fmu"
    env = dict(os.environ, LCSFMU_TEMPLATE_FEATURES="forced-panic")
    proc = subprocess.run([str(lcsfmu_bin), "build", str(MODELS_DIR / "coulomb_friction.toml"),
                           "-o", str(out)], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, f"lcsfmu build failed:\n{proc.stdout}\n{proc.stderr}"
    return out


class Logged:
    """fmi2CallbackFunctions whose logger files (status, category, message)."""

    def __init__(self):
        self.records: list[tuple[int, str, str]] = []

        def logger(_env, _name, status, category, message):
            self.records.append((status, category.decode(), message.decode()))

        self.callbacks = fmi2CallbackFunctions()
        self.callbacks.logger = fmi2CallbackLoggerTYPE(logger)
        self.callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        self.callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)

    def take(self):
        records, self.records = self.records, []
        return records


def open_instance(fmu, name):
    md = read_model_description(str(fmu))
    slave = FMU2Slave(guid=md.guid, unzipDirectory=unzipped(fmu),
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName=name)
    log = Logged()
    slave.instantiate(callbacks=log.callbacks)
    slave.setupExperiment(startTime=0.0)
    slave.enterInitializationMode()
    slave.exitInitializationMode()
    vr = {v.name: v.valueReference for v in md.modelVariables}
    return slave, log, vr


def fatal(call):
    with pytest.raises(FMICallException) as e:
        call()
    return e.value.status


def test_panic_is_fatal_logged_and_poisons_the_instance(panicking_fmu):
    slave, log, vr = open_instance(panicking_fmu, "panicking")
    slave.doStep(currentCommunicationPoint=0.0, communicationStepSize=0.5)
    slave.doStep(currentCommunicationPoint=0.5, communicationStepSize=0.5)
    x_before = slave.getReal([vr["x"]])
    assert log.take() == []

    assert fatal(lambda: slave.doStep(currentCommunicationPoint=1.0,
                                      communicationStepSize=0.5)) == fmi2Fatal
    [(status, category, message)] = log.take()
    assert (status, category) == (fmi2Fatal, "logStatusFatal")
    assert "forced panic in fmi2DoStep at t = 1" in message, message
    assert message.startswith("fmi2DoStep: internal error"), message

    # Every call but fmi2FreeInstance is refused, each with a logged reason.
    refused = {
        "fmi2GetReal": lambda: slave.getReal([vr["x"]]),
        "fmi2SetReal": lambda: slave.setReal([vr["F_a"]], [1.0]),
        "fmi2DoStep": lambda: slave.doStep(currentCommunicationPoint=1.0,
                                           communicationStepSize=0.5),
        "fmi2GetFMUstate": slave.getFMUstate,
        "fmi2GetBooleanStatus": lambda: slave.getBooleanStatus(fmi2Terminated),
        "fmi2Terminate": slave.terminate,
        "fmi2Reset": slave.reset,
    }
    for name, call in refused.items():
        assert fatal(call) == fmi2Fatal, name
        [(status, _, message)] = log.take()
        assert status == fmi2Fatal and message.startswith(f"{name}: "), (name, message)
        assert "only fmi2FreeInstance" in message, message
    slave.freeInstance()

    # The process and the library live on: a new instance steps as before.
    again, log2, _ = open_instance(panicking_fmu, "again")
    again.doStep(currentCommunicationPoint=0.0, communicationStepSize=0.5)
    again.doStep(currentCommunicationPoint=0.5, communicationStepSize=0.5)
    assert again.getReal([vr["x"]]) == x_before
    again.terminate()
    again.freeInstance()
    assert log2.take() == []
