"""Where Modelica tools chatter (docs/src/chattering.md): the three models of the page run
through FMPy as Co-Simulation and as Model Exchange under CVode, against the independent
references of scripts/chattering.py (a closed form; event-driven Filippov integrations).

The FMUs are built once with `--interface cs,me` (compiled: the prebuilt runtime is
Co-Simulation only; a few seconds with the template already compiled in target/fmu-build, as
the other Model Exchange tests leave it). Bounds are the measured errors (scripts/chattering.py,
the page's tables) with a margin of about 2.

Contents
  test_sliding_mode_cs                 OpenModelica #12190's Test1: x, y within 1e-12 of the exact
                                       Filippov solution (measured 4.4e-14), u = 3/17 while sliding
  test_sliding_mode_me                 the same under CVode: one event, 1e-12 (measured 6.7e-16)
  test_sliding_mode_event_based_stuck  the event-based formulation makes 200 events without
                                       leaving t = 1/7 (+1e-9)
  test_friction_reference_events       the reference's stick/slip events at the times of the
                                       issue #9963 log (0.0291791, 0.1342973, 0.2419225), 1e-6
  test_friction_cs                     HeatLosses' chain at h = 1e-3: 8e-3 (measured 3.7e-3)
  test_friction_me                     under CVode: 5e-4 (measured 2.3e-4), at most 10 events
  test_friction_event_based_stuck      without a stuck mode: 200 events, t below 1e-6
  test_bridge_cs                       the PM machine into the diode bridge: currents within 4 A
                                       (measured 1.8), speed within 0.04 rad/s (0.016)
  test_bridge_me                       under CVode to t = 0.8, through the two commutations
                                       6.6e-13 s apart at t = 0.5236: currents within 1 A
                                       (measured 0.59)
"""
import sys

import numpy as np
import pytest
from fmpy import simulate_fmu

from conftest import REPO

sys.path.insert(0, str(REPO / "scripts"))
import chattering as ch  # noqa: E402


@pytest.fixture(scope="module")
def fmus(lcsfmu_bin, tmp_path_factory):
    out = tmp_path_factory.mktemp("chattering")
    return ch.build(lcsfmu_bin, out)


def run(fmu, fmi_type, name, **kw):
    step, stop = ch.experiment(name)
    kw = dict(fmi_type=fmi_type, output_interval=step, stop_time=stop, **kw)
    if fmi_type == "ModelExchange":
        kw["solver"] = "CVode"
    return simulate_fmu(str(fmu), **kw)


def errors(r, ref, states):
    return {n: float(np.max(np.abs(r[n] - ref[n]))) for n in states}


def test_sliding_mode_cs(fmus):
    r = run(fmus["filippov_slide"], "CoSimulation", "filippov_slide")
    err = errors(r, ch.slide_exact(r["time"]), ["x", "y"])
    assert max(err.values()) < 1e-12, err
    sliding = r["time"] > 0.15
    assert np.all(np.abs(r["u"][sliding] - 3 / 17) < 1e-12)


def test_sliding_mode_me(fmus):
    calls = []
    r = run(fmus["filippov_slide"], "ModelExchange", "filippov_slide",
            fmi_call_logger=calls.append)
    err = errors(r, ch.slide_exact(r["time"]), ["x", "y"])
    assert max(err.values()) < 1e-12, err
    assert sum(c.startswith("fmi2EnterEventMode") for c in calls) == 1


def test_sliding_mode_event_based_stuck():
    c = ch.slide_events(max_events=200, wall=30.0)
    assert c["events"] == 200
    assert 1 / 7 - 1e-9 < c["reached"] < 1 / 7 + 1e-9, c


def test_friction_reference_events():
    segs, events, _, reached = ch.HeatLosses().reference()
    assert reached == pytest.approx(0.4)
    starts = [(sol.t[0], mode) for sol, mode in segs]
    # mass2 breaks away, the ElastoGap lifts off, mass3 breaks away (the log:
    # state events at 0.0291791230813, 0.134297365988, 0.2419224865)
    t_m2 = next(t for t, m in starts if m[1] != 0)
    t_gap = next(t for t, m in starts if m[0] == 0)
    t_m3 = next(t for t, m in starts if m[2] != 0)
    assert t_m2 == pytest.approx(0.0291791, abs=1e-6)
    assert t_gap == pytest.approx(0.1342973, abs=1e-6)
    assert t_m3 == pytest.approx(0.2419225, abs=1e-6)


def test_friction_cs(fmus):
    r = run(fmus["heat_losses_friction"], "CoSimulation", "heat_losses_friction")
    states = ch.CASES["heat_losses_friction"]["states"]
    err = errors(r, ch.heat_losses_reference(r["time"]), states)
    assert max(err.values()) < 8e-3, err


def test_friction_me(fmus):
    calls = []
    r = run(fmus["heat_losses_friction"], "ModelExchange", "heat_losses_friction",
            fmi_call_logger=calls.append)
    assert r["time"][-1] == pytest.approx(0.4)
    states = ch.CASES["heat_losses_friction"]["states"]
    err = errors(r, ch.heat_losses_reference(r["time"]), states)
    assert max(err.values()) < 5e-4, err
    assert sum(c.startswith("fmi2EnterEventMode") for c in calls) <= 10


def test_friction_event_based_stuck():
    c = ch.heat_losses_events(max_events=200, wall=30.0)
    assert c["events"] == 200
    assert c["reached"] < 1e-6, c


def test_bridge_cs(fmus):
    r = run(fmus["pm_braking_bridge"], "CoSimulation", "pm_braking_bridge")
    assert r["time"][-1] == pytest.approx(0.8)
    err = errors(r, ch.bridge_reference(r["time"]), ["phi", "w", "ia", "ib"])
    assert err["ia"] < 4.0 and err["ib"] < 4.0, err
    assert err["w"] < 0.04 and err["phi"] < 0.01, err


def test_bridge_me(fmus):
    r = run(fmus["pm_braking_bridge"], "ModelExchange", "pm_braking_bridge")
    assert r["time"][-1] == pytest.approx(0.8)
    err = errors(r, ch.bridge_reference(r["time"]), ["phi", "w", "ia", "ib"])
    assert max(err.values()) < 1.0, err
