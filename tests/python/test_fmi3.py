"""FMI 3.0 Co-Simulation (`lcsfmu build --fmi 3`, template/src/fmi3/) through FMPy 0.3.32.

Every bundled model is built twice, FMI 2.0 (the session's `fmus`) and FMI 3.0, from the same
core instance; the FMI 3.0 FMU must give the FMI 2.0 numbers bit for bit whenever no step
returns early, and report events as docs/src/fmi3.md says.

Contents
  test_validate_fmu                         fmpy.validation finds no problem in the FMI 3.0 XML
  test_exports_exactly_the_75_functions     nm: the 75 names of fmi3Functions.h, nothing else
  test_same_numbers_as_fmi2                 default experiment, no event mode: == FMI 2.0, bitwise
  test_event_mode_without_early_return      use_event_mode: every communication point == FMI 2.0
  test_early_return_runs_to_the_end         event mode + early return: to the stop, finite, and
                                            == FMI 2.0 at every regular point before the first
                                            early return
  test_model_exchange_is_refused            fmi3InstantiateModelExchange of a CS-only FMU: NULL,
                                            the reason logged (FMI 3.0 ME: test_model_exchange3.py)
  test_event_driven_early_return_at_switch  rlc_diode event-driven (tight): one early return,
                                            lastSuccessfulTime = t_s = 2 pi/(3 sqrt 3) to 1e-8,
                                            the diode blocks after fmi3UpdateDiscreteStates
  test_time_stepping_event_at_internal_step rlc_diode theta with max_step: the step returns at
                                            the internal step where the active set changed
"""
from __future__ import annotations

import math
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from fmpy import extract, read_model_description
from fmpy.fmi3 import FMU3Slave
from fmpy.validation import validate_fmu

from conftest import MODEL_NAMES, MODELS_DIR, cosim, exported_symbols, model_file

T_SWITCH = 2 * math.pi / (3 * math.sqrt(3))  # validation.md §4: 1.2091996
TIGHT = '\n[scheme]\nmethod = "event-driven"\nrtol = 1e-10\natol = 1e-12\n'
SUBSTEPS = '\n[scheme]\nmax_step = 0.01\n'


def build(lcsfmu_bin, models: list[Path], out: Path, *extra: str) -> None:
    cmd = [str(lcsfmu_bin), "build", *map(str, models), "-o", str(out), *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"


@pytest.fixture(scope="session")
def fmi3_fmus(lcsfmu_bin, tmp_path_factory) -> dict[str, Path]:
    """Every bundled model built once with --fmi 3: {model name: path}."""
    out = tmp_path_factory.mktemp("fmi3")
    build(lcsfmu_bin, [model_file(m) for m in MODEL_NAMES], out, "--fmi", "3")
    return {m: out / f"{m}.fmu" for m in MODEL_NAMES}


@pytest.fixture(scope="session")
def rlc_variants(lcsfmu_bin, tmp_path_factory) -> dict[str, Path]:
    """rlc_diode event-driven with tight tolerances, and theta with sub-steps, as FMI 3.0."""
    out = tmp_path_factory.mktemp("fmi3_rlc")
    text = (MODELS_DIR / "rlc_diode.toml").read_text()
    paths = {}
    for name, scheme in [("tight", TIGHT), ("substeps", SUBSTEPS)]:
        d = out / name
        d.mkdir()
        (d / "rlc_diode.toml").write_text(text + scheme)
        build(lcsfmu_bin, [d / "rlc_diode.toml"], d / "rlc.fmu", "--fmi", "3")
        paths[name] = d / "rlc.fmu"
    return paths


def fmi3_functions() -> set[str]:
    """The 75 names fmi3Functions.h declares (from the fmi-sys crate in the cargo registry)."""
    headers = sorted(Path.home().glob(
        ".cargo/registry/src/*/fmi-sys-*/fmi-standard3/headers/fmi3Functions.h"))
    if not headers:
        pytest.skip("fmi3Functions.h of the fmi-sys crate is not in the cargo registry")
    names = set(re.findall(r"^#define (fmi3\w+)\s+fmi3FullName\(", headers[-1].read_text(), re.M))
    assert len(names) == 75, sorted(names)
    return names


def calls(fmu: Path, **kwargs) -> tuple[np.ndarray, list[str]]:
    """cosim, and the FMI calls FMPy made (its call logger's lines)."""
    lines: list[str] = []
    result = cosim(fmu, fmi_call_logger=lines.append, **kwargs)
    return result, lines


def do_steps(lines: list[str]) -> list[dict]:
    """The fmi3DoStep calls: communication point, size, and the four out-parameters."""
    steps = []
    for line in lines:
        if line.startswith("fmi3DoStep("):
            fields = dict(re.findall(r"(\w+)=([^,)]+)", line))
            steps.append({
                "t": float(fields["currentCommunicationPoint"]),
                "h": float(fields["communicationStepSize"]),
                "event": fields["eventHandlingNeeded"] == "True",
                "early": fields["earlyReturn"] == "True",
                "last": float(fields["lastSuccessfulTime"]),
            })
    return steps


def by_time(result: np.ndarray) -> dict[float, tuple]:
    """The last row at each time (after Event Mode, where FMPy records twice)."""
    return {float(row["time"]): tuple(row) for row in result}


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_validate_fmu(fmus, fmi3_fmus, name):
    md = read_model_description(str(fmi3_fmus[name]))
    assert md.fmiVersion == "3.0"
    assert validate_fmu(str(fmi3_fmus[name])) == []
    # The same variables, value references and units as the FMI 2.0 XML (units through
    # declared types in FMI 3.0: src/fmi/description3.rs), and the time, which FMI 3.0
    # requires and the FMI 2.0 XML leaves undeclared (docs/src/fmu.md).
    unit = lambda v: v.unit or (v.declaredType.unit if v.declaredType else None)  # noqa: E731
    two = read_model_description(str(fmus[name]))
    time, *rest = md.modelVariables
    assert (time.name, time.valueReference, time.causality) == ("time", 0, "independent")
    assert [(v.name, v.valueReference, unit(v)) for v in rest] == \
        [(v.name, v.valueReference, unit(v)) for v in two.modelVariables]


def test_exports_exactly_the_75_functions(fmi3_fmus, tmp_path):
    names = fmi3_functions()
    for name in ["rlc_diode", "bouncing_ball"]:
        d = extract(str(fmi3_fmus[name]), unzipdir=str(tmp_path / name))
        so = Path(d) / "binaries" / "x86_64-linux" / f"{name}.so"
        assert exported_symbols(so) == names


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_same_numbers_as_fmi2(fmus, fmi3_fmus, name):
    two, three = cosim(fmus[name]), cosim(fmi3_fmus[name])
    assert two.dtype.names == three.dtype.names
    assert two.tobytes() == three.tobytes()


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_event_mode_without_early_return(fmus, fmi3_fmus, name):
    two = cosim(fmus[name])
    three, lines = calls(fmi3_fmus[name], use_event_mode=True)
    steps = do_steps(lines)
    assert not any(s["early"] for s in steps)
    assert by_time(three) == by_time(two)
    # The first-order time-stepping schemes meet events where the active set changes.
    if name in ("rlc_diode", "sign_spiral"):
        assert any(s["event"] for s in steps)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_early_return_runs_to_the_end(fmus, fmi3_fmus, name):
    two = by_time(cosim(fmus[name]))
    three, lines = calls(fmi3_fmus[name], use_event_mode=True, early_return_allowed=True)
    steps = do_steps(lines)
    stop = read_model_description(str(fmus[name])).defaultExperiment.stopTime
    assert math.isclose(three["time"][-1], float(stop))
    assert all(np.isfinite(three[n]).all() for n in three.dtype.names)
    assert np.all(np.diff(three["time"]) >= 0)
    for s in steps:
        assert s["t"] < s["last"] <= s["t"] + s["h"]
        assert s["early"] == (s["last"] < s["t"] + s["h"])
        assert not s["early"] or s["event"]
    first_early = min((s["last"] for s in steps if s["early"]), default=math.inf)
    rows = by_time(three)
    for t, row in two.items():
        if t < first_early:
            assert rows[t] == row, t


def test_model_exchange_is_refused(fmi3_fmus, tmp_path):
    fmu = fmi3_fmus["rlc_diode"]
    md = read_model_description(str(fmu))
    d = extract(str(fmu), unzipdir=str(tmp_path / "x"))
    slave = FMU3Slave(guid=md.guid, unzipDirectory=d, modelIdentifier="rlc_diode",
                      instanceName="me")
    messages = []
    logger = lambda *args: messages.append(args[-1].decode())  # noqa: E731
    from fmpy.fmi3 import fmi3LogMessageCallback
    callback = fmi3LogMessageCallback(logger)
    instance = slave.fmi3InstantiateModelExchange(
        b"me", md.guid.encode(), b"", False, False, None, callback)
    assert not instance
    assert any("Model Exchange is not provided: this FMU is Co-Simulation only" in m
               for m in messages), messages
    slave.freeLibrary()


def test_event_driven_early_return_at_switch(rlc_variants):
    fmu = rlc_variants["tight"]
    result, lines = calls(fmu, stop_time=2.0, output_interval=0.5, use_event_mode=True,
                          early_return_allowed=True)
    steps = do_steps(lines)
    early = [s for s in steps if s["early"]]
    assert len(early) == 1, steps
    assert early[0]["event"]
    assert abs(early[0]["last"] - T_SWITCH) <= 1e-8, early[0]["last"] - T_SWITCH
    # The step after the event starts there and ends on the regular grid.
    after = steps[steps.index(early[0]) + 1]
    assert after["t"] == early[0]["last"] and after["t"] + after["h"] == 1.5
    # FMPy records the event time twice: before Event Mode (still conducting: u_D = 0,
    # i_L = q_C) and after fmi3UpdateDiscreteStates (blocking: u_D >= 0, then rising).
    at = result[result["time"] == early[0]["last"]]
    assert len(at) == 2
    assert at[0]["u_D"] == 0.0 and abs(at[0]["i_L"] - at[0]["q_C"]) <= 1e-8
    assert at[1]["u_D"] >= 0.0
    later = result[result["time"] > early[0]["last"]]
    assert np.all(later["u_D"] > 0)
    # Closed form (validation.md §4) at t = 2 after the event.
    last = result[-1]
    assert abs(last["i_L"] - 0.24773387047643658) <= 1e-8
    assert abs(last["q_C"] - 0.5462930158736014) <= 1e-8
    # Without early return the same FMU handles the event inside the step.
    _, plain = calls(fmu, stop_time=2.0, output_interval=0.5, use_event_mode=True)
    plain_steps = do_steps(plain)
    assert not any(s["early"] for s in plain_steps)
    assert [s["event"] for s in plain_steps] == [False, False, True, False]


def test_time_stepping_event_at_internal_step(rlc_variants):
    result, lines = calls(rlc_variants["substeps"], stop_time=2.0, output_interval=0.5,
                          use_event_mode=True, early_return_allowed=True)
    steps = do_steps(lines)
    early = [s for s in steps if s["early"]]
    assert early, steps
    # The first change of the active set: the diode blocks at the end of an internal step
    # of 0.01 near t_s. Where: the same scheme stepped by the importer in steps of 0.01
    # (one internal step each) shows it as the first point with u_D > 0.
    first = early[0]
    assert first["t"] == 1.0 and first["event"]
    fine = cosim(rlc_variants["substeps"], stop_time=2.0, output_interval=0.01)
    blocked = fine["time"][fine["u_D"] > 0][0]
    assert abs(first["last"] - blocked) <= 1e-12, (first, blocked)
    assert abs(blocked - T_SWITCH) <= 0.02
    # After the switch the active set stays: no further early return.
    assert len(early) == 1, early
    assert result["time"][-1] == 2.0
