"""The theta-gamma variants of the first-order theta-method (issue 20 section 3), through
FMPy: Siconos' CircuitRLCD (tests/data/circuit_rlcd.toml) built with `gamma = 0.5` (the
multiplier term weighted, EulerMoreauOSI(theta, gamma)) and with `gamma_relation = 0.5`
(the relation at x_{k+gamma}), co-simulated by FMPy and compared with Siconos' published
runs (tests/data/circuit_rlcd_siconos.csv) and with `lcsfmu simulate`. The FMU's step
reads the previous step's multipliers, which its state carries: an FMU-state round trip in
the middle of the run must not change the result.
"""
import subprocess

import numpy as np
import pytest

from conftest import REPO, cosim, read_csv

DATA = REPO / "tests" / "data"
REL = 1e-11


def siconos(variant: str) -> dict[str, np.ndarray]:
    lines = [l for l in (DATA / "circuit_rlcd_siconos.csv").read_text().splitlines()
             if not l.startswith("#")]
    header = lines[0].split(",")
    table = np.array([[float(v) for v in l.split(",")] for l in lines[1:]])
    return {"time": table[:, 0], **{name: table[:, header.index(f"{variant}:{name}")]
                                    for name in ("x1", "x2", "lambda")}}


@pytest.mark.parametrize("line,variant", [("gamma = 0.5", "gamma_0.5"),
                                          ("gamma_relation = 0.5", "relation_0.5")])
def test_fmu_reproduces_siconos(lcsfmu_bin, tmp_path, line, variant):
    toml = (DATA / "circuit_rlcd.toml").read_text().replace("theta = 0.5\n",
                                                             f"theta = 0.5\n{line}\n")
    model = tmp_path / "circuit_rlcd.toml"
    model.write_text(toml)
    fmu = tmp_path / "circuit_rlcd.fmu"
    subprocess.run([str(lcsfmu_bin), "build", str(model), "-o", str(fmu)], check=True)
    res = cosim(fmu, output=["x1", "x2", "lambda"])
    ref = siconos(variant)
    assert len(res) == len(ref["time"])
    for name in ("x1", "x2", "lambda"):
        err = np.abs(res[name] - ref[name]).max() / np.abs(ref[name]).max()
        assert err < REL, f"{variant} {name}: {err:.1e} from Siconos"
    csv = tmp_path / "simulate.csv"
    subprocess.run([str(lcsfmu_bin), "simulate", str(model), "-o", str(csv)], check=True)
    ours = read_csv(csv)
    for name in ("x1", "x2", "lambda"):
        assert np.array_equal(ours[name], res[name]), f"{name}: simulate != FMU"


def test_state_round_trip_keeps_the_carried_multipliers(lcsfmu_bin, tmp_path):
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    toml = (DATA / "circuit_rlcd.toml").read_text().replace("theta = 0.5\n",
                                                             "theta = 0.5\ngamma = 0.0\n")
    model = tmp_path / "circuit_rlcd.toml"
    model.write_text(toml)
    fmu = tmp_path / "circuit_rlcd.fmu"
    subprocess.run([str(lcsfmu_bin), "build", str(model), "-o", str(fmu)], check=True)
    md = read_model_description(str(fmu))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    slave = FMU2Slave(guid=md.guid, unzipDirectory=extract(str(fmu)),
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="a")
    slave.instantiate()
    slave.setupExperiment(startTime=0.0)
    slave.enterInitializationMode()
    slave.exitInitializationMode()
    h, refs = 0.05, [vr["x1"], vr["x2"], vr["lambda"]]

    def advance(t, n):
        rows = []
        for _ in range(n):
            slave.doStep(t, h)
            t += h
            rows.append(slave.getReal(refs))
        return t, rows

    t, _ = advance(0.0, 20)
    saved = slave.getFMUstate()
    _, first = advance(t, 30)
    slave.setFMUstate(saved)
    _, again = advance(t, 30)
    slave.freeFMUstate(saved)
    slave.terminate()
    slave.freeInstance()
    assert first == again
    # gamma = 0 makes the step depend on the previous multipliers: the run takes some.
    assert max(abs(r[2]) for r in first) > 0.0
