"""FMI 2.0 and 3.0 Model Exchange FMUs (`lcsfmu build --interface me [--fmi 3]`) under FMPy's
CVode and Euler.

What is checked, against validation.md where it has exact answers; the tests that take the
fixture `me_fmus` run for both FMI versions (ids fmi2, fmi3), the others say which:

    test_refused_models_name_the_reason      mechanical models are refused
    test_validate_and_run                    validate_fmu clean; CVode and Euler reach the stop time
                                             for every first-order bundled model (the nonlinear
                                             ones' references: test_model_exchange_nonlinear.py)
    test_rlc_diode_switches_at_the_exact_time   the diode blocks at t = 1.2091996 (to 1e-7 with
                                             CVode at rtol 1e-10), then the exact decay
    test_relay_slides_without_chattering     one event at sqrt(2) - 1, then on the surface
                                             x1 + x2 = 0 to 3 (x1(3) = 0.0312055)
    test_a_mode_change_reports_changed_values  valuesOfContinuousStatesChanged at every change of mode
                                             (also without projection), not when the mode is kept
    test_euler_enters_sliding_modes          FMPy's Euler (h = 1e-2, 1e-3, no event location): the relay
                                             slides after 2 events, the friction mass sticks at v = 0,
                                             the spiral ends on the origin (capture rule); rlc_diode and
                                             the saturated integrator keep their event counts
    test_fmu_state_repeats_the_run           FMPy's FMU2Model or FMU3Model, Euler by hand: a state saved at an event,
                                             serialized, restored after the run went on through mode
                                             changes, repeats the uninterrupted run bit for bit
    test_saturated_integrator_limits         leaves its limits exactly where sin t changes sign;
                                             reaches them within FMPy's input lag (see the test)
    test_sign_spiral_ends_on_the_origin      finishes in a subprocess with a timeout, on the origin,
                                             after a few dozen events, the last at t = 1
    test_agrees_with_event_driven_simulate   rlc_diode and relay_feedback: ME under CVode ==
                                             `lcsfmu simulate --scheme event-driven` to 1e-6
    test_nan_state_is_refused_and_kept       FMI 2.0: fmi2SetContinuousStates(NaN): fmi2Error, state
                                             kept; fmi2GetDirectionalDerivative == finite differences
                                             (FMI 3.0: test_model_exchange3.py)
    test_cs_and_me_in_one_archive            --interface cs,me, both versions: both run; CS equals
                                             the CS-only FMU bit for bit; the GUIDs differ
    test_exports_and_check                   nm: FMI 2.0 35 functions (me), 44 (cs,me); FMI 3.0 the
                                             75; `lcsfmu check` passes on all, the
                                             Model Exchange run included
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fmpy import extract, read_model_description, simulate_fmu
from fmpy.validation import validate_fmu

from conftest import (FMI2_COMMON_FUNCTIONS, FMI2_CS_FUNCTIONS, ME_MODELS, MODELS_DIR, PYTHON,
                      exported_symbols, run_cli)
from test_fmi3 import fmi3_functions

FMI_VERSIONS = ["2", "3"]
MECHANICAL = ["bead_chain", "bouncing_ball", "duffing_impact", "newtons_cradle",
              "pendulum_stop", "rocking_block", "stick_slip", "two_carts"]


def build(lcsfmu_bin, models, out: Path, *extra: str) -> subprocess.CompletedProcess:
    cmd = [str(lcsfmu_bin), "build", *map(str, models), "-o", str(out), *extra]
    return subprocess.run(cmd, capture_output=True, text=True)


@pytest.fixture(scope="session", params=FMI_VERSIONS, ids=lambda v: f"fmi{v}")
def me_fmus(request, me_builds) -> dict[str, Path]:
    """Every first-order bundled model built with --interface me, per FMI version."""
    return me_builds(request.param)


@pytest.fixture(scope="session")
def me_fmus2(me_builds) -> dict[str, Path]:
    """The FMI 2.0 builds alone, for the tests of FMI 2.0's own calls."""
    return me_builds("2")


# Both versions' fmi*EnterEventMode: the importer's entries into Event Mode.
ENTER_EVENT_MODE = ("fmi2EnterEventMode", "fmi3EnterEventMode")


def me_run(fmu: Path, **kwargs):
    """simulate_fmu in Model Exchange with events recorded; (result, event-mode entries)."""
    calls: list[str] = []
    r = simulate_fmu(fmu, fmi_type="ModelExchange", record_events=True,
                     fmi_call_logger=calls.append, **kwargs)
    return r, sum(c.startswith(ENTER_EVENT_MODE) for c in calls)


def event_times(r) -> np.ndarray:
    """Times FMPy recorded twice (before and after an event)."""
    t = r["time"]
    return t[1:][np.diff(t) == 0]


def at(r, name: str, t: float) -> float:
    return float(r[name][np.argmin(np.abs(r["time"] - t))])


@pytest.mark.parametrize("fmi", FMI_VERSIONS)
@pytest.mark.parametrize("model", MECHANICAL)
def test_refused_models_name_the_reason(lcsfmu_bin, tmp_path, model, fmi):
    proc = build(lcsfmu_bin, [MODELS_DIR / f"{model}.toml"], tmp_path / "x.fmu",
                 "--interface", "me", "--fmi", fmi)
    assert proc.returncode != 0
    assert "mechanical model" in proc.stderr and model in proc.stderr, proc.stderr
    assert "--interface cs" in proc.stderr
    assert not (tmp_path / "x.fmu").exists()


@pytest.mark.parametrize("model", ME_MODELS)
def test_validate_and_run(me_fmus, model):
    fmu = me_fmus[model]
    assert validate_fmu(str(fmu)) == []
    md = read_model_description(fmu)
    assert md.modelExchange is not None and md.coSimulation is None
    with zipfile.ZipFile(fmu) as z:
        pairs = len(json.loads(z.read("resources/model.json"))["pairs"])
    assert md.numberOfEventIndicators == 2 * pairs
    assert len(md.derivatives) == md.numberOfContinuousStates
    if md.fmiVersion == "3.0":
        # named indicators: two per pair, each a continuous Float64
        assert len(md.eventIndicators) == 2 * pairs
        assert all(u.variable.name.startswith("indicator.") and u.variable.type == "Float64"
                   and u.variable.variability == "continuous" for u in md.eventIndicators)
    for solver in ("CVode", "Euler"):
        r, _ = me_run(fmu, solver=solver, timeout=60)
        assert math.isclose(r["time"][-1], float(md.defaultExperiment.stopTime)), solver
        for name in r.dtype.names:
            assert np.all(np.isfinite(r[name])), f"{solver}: {name} not finite"


def test_rlc_diode_switches_at_the_exact_time(me_fmus):
    r, events = me_run(me_fmus["rlc_diode"], relative_tolerance=1e-10)
    assert events == 1
    (ts,) = event_times(r)
    assert abs(ts - 1.2091996) < 1e-7, ts
    exact = {1.0: (0.65970015, 0.53350720), 2.0: (0.24773387, 0.54629302),
             5.0: (0.01233394, 0.54629302)}
    for t, (i_l, q_c) in exact.items():
        assert abs(at(r, "i_L", t) - i_l) < 1e-7 and abs(at(r, "q_C", t) - q_c) < 1e-7, t
    # blocking: the diode's reverse voltage is positive, the current (q_C) constant
    after = r["time"] > ts
    assert np.all(r["u_D"][after][1:] > 0)


def test_relay_slides_without_chattering(me_fmus):
    r, events = me_run(me_fmus["relay_feedback"], relative_tolerance=1e-10)
    # One event: the surface is reached; the sliding mode is its own ODE.
    assert events == 1
    (tr,) = event_times(r)
    assert abs(tr - (math.sqrt(2) - 1)) < 1e-8, tr
    assert abs(at(r, "x1", 3.0) - 0.0312055) < 1e-7
    on = r["time"] > tr
    assert np.max(np.abs(r["x1"][on] + r["x2"][on])) <= 1e-12
    # the relay output is the equivalent control, strictly inside (-1, 1)
    assert np.all(np.abs(r["u"][on]) < 1)


@pytest.mark.parametrize("h", [1e-2, 1e-3])
def test_euler_enters_sliding_modes(me_fmus, h):
    # Before the capture rule (measured): relay 162 / 542 events, coulomb_friction 399 / 3981,
    # sign_spiral 105 / 1005 for h = 1e-2 / 1e-3. FMPy's Euler enters Event Mode twice per
    # switch: once at the step that crossed, once more the next step (it compares the new
    # mode's indicators with the old mode's), where the mode is kept.
    def euler(model):
        return me_run(me_fmus[model], solver="Euler", step_size=h, output_interval=h, timeout=60)

    r, events = euler("relay_feedback")
    assert events == 2, events
    t = r["time"]
    on = t > math.sqrt(2) - 1 + 2 * h
    assert np.max(np.abs(r["x1"][on] + r["x2"][on])) <= 1e-12
    assert np.all(np.abs(r["u"][on]) < 1)
    assert abs(r["x1"][-1] - 0.0312055) <= 2 * h, r["x1"][-1]
    # Coulomb friction: decelerates at mu g = 98.1 from v = 100, sticks at t = 100 / 98.1
    # with x = 100^2 / (2 * 98.1) = 50.9684 (validation: the exact stop), then stays.
    r, events = euler("coulomb_friction")
    assert events == 2, events
    stuck = r["time"] > 100 / 98.1 + 2 * h
    assert np.all(r["v"][stuck] == 0.0)
    assert abs(r["x"][-1] - 1e4 / (2 * 98.1)) <= 60 * h, r["x"][-1]
    # The sign spiral reaches the origin (exactly at t = 1) and stays on it.
    r, events = euler("sign_spiral")
    assert events <= 20, events
    after = r["time"] > 1.0 + 0.1
    assert np.all(r["x1"][after] == 0.0) and np.all(r["x2"][after] == 0.0)
    # Genuine switches are not captured: the diode blocks, the integrator leaves its limits.
    r, events = euler("rlc_diode")
    assert events == 2, events
    assert np.all(r["u_D"][r["time"] > 1.2091996 + 2 * h] > 0)
    times = np.linspace(0.0, 10.0, 10001)
    inp = np.array(list(zip(times, np.sin(times))), dtype=[("time", float), ("x", float)])
    r, events = me_run(me_fmus["saturated_integrator"], solver="Euler", step_size=h,
                       output_interval=h, input=inp, stop_time=10.0)
    assert events == 9, events
    assert abs(at(r, "y", 4.0) - 0.15364362) <= 5 * h


class MeDriver:
    """FMPy's FMU2Model or FMU3Model behind the calls an Euler loop and FMU states need."""

    def __init__(self, fmu, unzipped, start_values=None):
        from fmpy.fmi2 import FMU2Model
        from fmpy.fmi3 import FMU3Model
        md = read_model_description(fmu)
        self.v3 = md.fmiVersion.startswith("3")
        self.nx = md.numberOfContinuousStates
        self.nz = len(md.eventIndicators) if self.v3 else md.numberOfEventIndicators
        cls = FMU3Model if self.v3 else FMU2Model
        self.m = cls(guid=md.guid, unzipDirectory=unzipped,
                     modelIdentifier=md.modelExchange.modelIdentifier, instanceName="me")
        self.m.instantiate()
        if not self.v3:
            self.m.setupExperiment(startTime=0.0)
        vr = {v.name: v.valueReference for v in md.modelVariables}
        for name, value in (start_values or {}).items():
            (self.m.setFloat64 if self.v3 else self.m.setReal)([vr[name]], [value])
        self.m.enterInitializationMode()
        self.m.exitInitializationMode()
        self.update()
        self.m.enterContinuousTimeMode()

    def update(self) -> bool:
        """Discrete states updated; whether the continuous states changed."""
        if self.v3:
            return bool(self.m.updateDiscreteStates()[3])
        return bool(self.m.newDiscreteStates()[3])

    def derivatives(self, ptr, n):
        if self.v3:
            self.m.getContinuousStateDerivatives(ptr, n)
        else:
            self.m.getDerivatives(ptr, n)

    def state(self):
        return self.m.getFMUState() if self.v3 else self.m.getFMUstate()

    def restore(self, state):
        (self.m.setFMUState if self.v3 else self.m.setFMUstate)(state)

    def serialize(self, state) -> bytes:
        return (self.m.serializeFMUState if self.v3 else self.m.serializeFMUstate)(state)

    def deserialize(self, blob):
        return (self.m.deserializeFMUState if self.v3 else self.m.deSerializeFMUstate)(blob)

    def free_state(self, state):
        (self.m.freeFMUState if self.v3 else self.m.freeFMUstate)(state)

    def close(self):
        self.m.terminate()
        self.m.freeInstance()


def euler_by_hand(d: MeDriver, h: float, first: int, steps: int):
    """FMPy's Euler loop (event at the end of a step whose indicators changed sign, or when
    the completed step asks); the states after each step and the steps at which an event
    changed the states."""
    from ctypes import POINTER, c_double

    def ptr(a):
        return a.ctypes.data_as(POINTER(c_double))

    m, nx, nz = d.m, d.nx, d.nz
    x, dx, z0, z1 = np.zeros(nx), np.zeros(nx), np.zeros(nz), np.zeros(nz)
    trace, events = [], []
    for k in range(first, first + steps):
        m.getContinuousStates(ptr(x), nx)
        d.derivatives(ptr(dx), nx)
        m.getEventIndicators(ptr(z0), nz)
        x += h * dx
        m.setTime((k + 1) * h)
        m.setContinuousStates(ptr(x), nx)
        m.getEventIndicators(ptr(z1), nz)
        step_event, _ = m.completedIntegratorStep()
        if step_event or np.any((z0 > 0) != (z1 > 0)):
            m.enterEventMode()
            changed = d.update()
            m.enterContinuousTimeMode()
            if changed:
                events.append(k + 1)
        m.getContinuousStates(ptr(x), nx)
        trace.append(x.copy())
    return np.array(trace), events


def test_a_mode_change_reports_changed_values(me_fmus, tmp_path):
    """valuesOfContinuousStatesChanged is set at every event that changes the mode, whether
    or not the state was projected: the ODE the importer integrates is another one, and a
    master that restarts its integrator only on this flag (the Reference FMUs' fmusim with
    CVode) needs it. From x1 = 3 the relay crosses x1 + x2 = 0 transversally (u: 1 -> -1,
    the state not moved) and later slides (the state projected): both are reported, and an
    event that keeps the mode is not."""
    from ctypes import POINTER, c_double

    def ptr(a):
        return a.ctypes.data_as(POINTER(c_double))

    fmu = me_fmus["relay_feedback"]
    d = MeDriver(str(fmu), extract(str(fmu), unzipdir=str(tmp_path / "x")), {"x1": 3.0})
    m, nx, nz, h = d.m, d.nx, d.nz, 1e-2
    x, dx, z0, z1 = np.zeros(nx), np.zeros(nx), np.zeros(nz), np.zeros(nz)
    seen = []  # (the state moved, the derivatives changed, the flag)
    for k in range(600):
        m.getContinuousStates(ptr(x), nx)
        d.derivatives(ptr(dx), nx)
        m.getEventIndicators(ptr(z0), nz)
        x += h * dx
        m.setTime((k + 1) * h)
        m.setContinuousStates(ptr(x), nx)
        m.getEventIndicators(ptr(z1), nz)
        step_event, _ = m.completedIntegratorStep()
        if step_event or np.any((z0 > 0) != (z1 > 0)):
            before = np.zeros(nx)
            d.derivatives(ptr(before), nx)
            m.enterEventMode()
            flag = d.update()
            m.enterContinuousTimeMode()
            after, moved = np.zeros(nx), np.zeros(nx)
            m.getContinuousStates(ptr(moved), nx)
            d.derivatives(ptr(after), nx)
            seen.append((bool(np.any(moved != x)), bool(np.any(after != before)), flag))
    print(f"\nrelay from x1 = 3 under Euler h = {h}: events (moved, mode changed, flag) {seen}")
    assert all(flag == (moved or changed) for moved, changed, flag in seen), seen
    assert (False, True, True) in seen, "a switch without projection is reported"
    assert any(moved for moved, _, _ in seen), "the capture onto the sliding surface"
    d.close()


@pytest.mark.parametrize("model", ["relay_feedback", "sign_spiral"])
def test_fmu_state_repeats_the_run(me_fmus, tmp_path, model):
    from fmpy import extract
    fmu = me_fmus[model]
    md = read_model_description(fmu)
    assert md.modelExchange.canGetAndSetFMUstate and md.modelExchange.canSerializeFMUstate
    unzipped = extract(fmu, tmp_path / "x")
    h, steps = 1e-2, 200

    d = MeDriver(fmu, unzipped)
    whole, events = euler_by_hand(d, h, 0, steps)
    d.close()
    assert events, "the run has events that move the state"
    # Cut at the first event that moved the state (the capture), and before it.
    for cut in (events[0], events[0] - 3):
        d = MeDriver(fmu, unzipped)
        euler_by_hand(d, h, 0, cut)
        state = d.state()
        blob = d.serialize(state)
        first, _ = euler_by_hand(d, h, cut, steps - cut)
        assert np.array_equal(first, whole[cut:])
        # back from the bytes, after the run went through its mode changes
        d.restore(d.deserialize(blob))
        again, _ = euler_by_hand(d, h, cut, steps - cut)
        assert np.array_equal(again, whole[cut:]), (model, cut)
        d.restore(state)
        again, _ = euler_by_hand(d, h, cut, steps - cut)
        assert np.array_equal(again, whole[cut:]), (model, cut)
        d.free_state(state)
        d.close()


def test_saturated_integrator_limits(me_fmus):
    times = np.linspace(0.0, 10.0, 10001)
    inp = np.array(list(zip(times, np.sin(times))), dtype=[("time", float), ("x", float)])
    r, events = me_run(me_fmus["saturated_integrator"], relative_tolerance=1e-8, input=inp,
                       stop_time=10.0)
    ev = event_times(r)
    assert events == 6 and len(ev) == 6, ev
    pi = math.pi
    # Leaving a limit: the multiplier's guard reads the input directly, located exactly.
    for t, exact in zip(ev[1::2], (pi, 2 * pi, 3 * pi)):
        assert abs(t - exact) < 1e-9, (t, exact)
    # Reaching one: y integrates the input, and FMPy's CVode right-hand side uses the input
    # its root function last applied (it does not apply it at the time of each evaluation),
    # which lags by up to one internal step: measured 3e-4 .. 4.2e-4 at rtol 1e-8.
    for t, exact in zip(ev[0::2], (pi / 3, 1.5 * pi, 2.5 * pi)):
        assert abs(t - exact) < 1e-3, (t, exact)
    exact = {1.0: 0.45969769, 4.0: 0.15364362, 5.0: -0.5, 7.0: -0.25390225, 10.0: 0.33907153}
    for t, y in exact.items():
        assert abs(at(r, "y", t) - y) < 1e-3, t
    # At the limits (the sample FMPy records before an event is the root CVode returned, a
    # rounding past the limit; the event projects it onto the limit exactly).
    assert abs(float(np.min(r["y"])) + 0.5) <= 1e-12 and abs(float(np.max(r["y"])) - 0.5) <= 1e-12
    held = (r["time"] > 5.0) & (r["time"] < 6.0)
    assert np.all(r["y"][held] == -0.5)


def test_sign_spiral_ends_on_the_origin(me_fmus, tmp_path):
    # In a subprocess with a timeout: a hang (events without end) fails instead of blocking.
    script = textwrap.dedent(f"""
        import json, numpy as np
        from fmpy import simulate_fmu
        calls = []
        r = simulate_fmu({str(me_fmus["sign_spiral"])!r}, fmi_type="ModelExchange",
                         record_events=True, fmi_call_logger=calls.append, timeout=60)
        t = r["time"]
        ev = t[1:][np.diff(t) == 0]
        print(json.dumps(dict(events=sum(c.startswith({ENTER_EVENT_MODE!r}) for c in calls),
                              times=ev.tolist(), end=float(t[-1]),
                              x=[float(r["x1"][-1]), float(r["x2"][-1])],
                              norm_after=float(np.max(np.abs(r["x1"][t > 1.0 + 1e-6])
                                                      + np.abs(r["x2"][t > 1.0 + 1e-6]))))))
    """)
    proc = subprocess.run([PYTHON, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["end"] == 2.0
    # The exact axis crossings 1/3, 7/9, 25/27 ...
    for k, exact in enumerate((1 / 3, 7 / 9, 25 / 27)):
        assert abs(out["times"][k] - exact) < 1e-8
    # ... accumulate at t = 1, where the selection LCP picks the mode in which both pairs
    # slide: the state lands on the origin and stays there (measured: 18 events).
    assert out["events"] < 40, out["events"]
    assert abs(out["times"][-1] - 1.0) < 1e-7
    assert out["x"] == [0.0, 0.0] and out["norm_after"] == 0.0


EVENT_DRIVEN = "\n[scheme]\nmethod = \"event-driven\"\nrtol = 1e-10\natol = 1e-12\n"


@pytest.mark.parametrize("model,names", [("rlc_diode", ["i_L", "q_C"]),
                                         ("relay_feedback", ["x1", "x2"])])
def test_agrees_with_event_driven_simulate(lcsfmu_bin, me_fmus, tmp_path, model, names):
    text = (MODELS_DIR / f"{model}.toml").read_text()
    if "[scheme]" in text:
        pytest.skip(f"{model} sets its own scheme")
    toml = tmp_path / f"{model}.toml"
    toml.write_text(text + EVENT_DRIVEN)
    _, cli = run_cli(lcsfmu_bin, toml, tmp_path, step=0.01)
    r, _ = me_run(me_fmus[model], relative_tolerance=1e-10, output_interval=0.01)
    for t in (0.5, 1.0, 1.5, 2.0, 3.0):
        k = int(np.argmin(np.abs(cli["time"] - t)))
        for n in names:
            assert abs(at(r, n, t) - cli[n][k]) < 1e-6, (n, t, at(r, n, t), cli[n][k])


def test_nan_state_is_refused_and_kept(me_fmus2, tmp_path):
    from ctypes import POINTER, c_double
    from fmpy import extract
    from fmpy.fmi1 import FMICallException
    from fmpy.fmi2 import FMU2Model
    fmu = me_fmus2["rlc_diode"]
    md = read_model_description(fmu)
    m = FMU2Model(guid=md.guid, unzipDirectory=extract(fmu, tmp_path / "x"),
                  modelIdentifier=md.modelExchange.modelIdentifier, instanceName="me")
    m.instantiate()

    def ptr(a):
        return a.ctypes.data_as(POINTER(c_double))

    try:
        m.setupExperiment(startTime=0.0)
        m.enterInitializationMode()
        m.exitInitializationMode()
        m.newDiscreteStates()
        m.enterContinuousTimeMode()
        before, after = np.zeros(2), np.zeros(2)
        m.getContinuousStates(ptr(before), 2)
        with pytest.raises(FMICallException):
            m.setContinuousStates(ptr(np.array([float("nan"), 0.0])), 2)
        m.getContinuousStates(ptr(after), 2)
        assert list(after) == list(before) == [1.0, 0.0]
        # a wrong count is refused too
        with pytest.raises(FMICallException):
            m.setContinuousStates(ptr(np.zeros(3)), 3)
        # Directional derivatives of der(i_L), der(q_C) by each state, against a forward
        # difference of fmi2GetDerivatives (the mode is frozen: its ODE is affine).
        vr = {v.name: v.valueReference for v in md.modelVariables}
        der = [vr["der(i_L)"], vr["der(q_C)"]]
        f0, f1 = np.zeros(2), np.zeros(2)
        m.getDerivatives(ptr(f0), 2)
        for j, state in enumerate(["i_L", "q_C"]):
            dd = m.getDirectionalDerivative(der, [vr[state]], [1.0])
            x = before.copy()
            x[j] += 1e-6
            m.setContinuousStates(ptr(x), 2)
            m.getDerivatives(ptr(f1), 2)
            m.setContinuousStates(ptr(before), 2)
            assert np.allclose(dd, (f1 - f0) / 1e-6, rtol=1e-6, atol=1e-6), (state, dd)
        m.terminate()
    finally:
        m.freeInstance()


@pytest.mark.parametrize("fmi", FMI_VERSIONS)
def test_cs_and_me_in_one_archive(lcsfmu_bin, tmp_path, fmi):
    model = MODELS_DIR / "rlc_diode.toml"
    proc = build(lcsfmu_bin, [model], tmp_path / "both.fmu", "--interface", "cs,me", "--fmi", fmi)
    assert proc.returncode == 0, proc.stderr
    assert build(lcsfmu_bin, [model], tmp_path / "cs.fmu", "--fmi", fmi).returncode == 0
    both, cs = read_model_description(tmp_path / "both.fmu"), read_model_description(
        tmp_path / "cs.fmu")
    assert both.modelExchange is not None and both.coSimulation is not None
    assert both.guid != cs.guid
    assert validate_fmu(str(tmp_path / "both.fmu")) == []
    a = simulate_fmu(tmp_path / "both.fmu", fmi_type="CoSimulation")
    b = simulate_fmu(tmp_path / "cs.fmu", fmi_type="CoSimulation")
    for name in b.dtype.names:
        assert np.array_equal(a[name], b[name]), name
    r, events = me_run(tmp_path / "both.fmu", relative_tolerance=1e-10)
    assert events == 1 and abs(event_times(r)[0] - 1.2091996) < 1e-7


FMI2_ME_FUNCTIONS = {
    "fmi2EnterEventMode", "fmi2NewDiscreteStates", "fmi2EnterContinuousTimeMode",
    "fmi2CompletedIntegratorStep", "fmi2SetTime", "fmi2SetContinuousStates",
    "fmi2GetDerivatives", "fmi2GetEventIndicators", "fmi2GetContinuousStates",
    "fmi2GetNominalsOfContinuousStates",
}


@pytest.mark.parametrize("fmi", FMI_VERSIONS)
@pytest.mark.parametrize("interface", ["me", "cs,me"])
def test_exports_and_check(lcsfmu_bin, tmp_path, interface, fmi):
    fmu = tmp_path / "sign_spiral.fmu"
    proc = build(lcsfmu_bin, [MODELS_DIR / "sign_spiral.toml"], fmu, "--interface", interface,
                 "--fmi", fmi)
    assert proc.returncode == 0, proc.stderr
    platform = "linux64" if fmi == "2" else "x86_64-linux"
    with zipfile.ZipFile(fmu) as z:
        so = tmp_path / "sign_spiral.so"
        so.write_bytes(z.read(f"binaries/{platform}/sign_spiral.so"))
        # no win64 prebuilt runtime: it is Co-Simulation only
        assert not any(n.startswith(("binaries/win64", "binaries/x86_64-windows"))
                       for n in z.namelist())
    if fmi == "3":
        # FMI 3.0 binaries export every function of fmi3Functions.h, whatever they declare
        expected = fmi3_functions()
    else:
        expected = FMI2_COMMON_FUNCTIONS | FMI2_ME_FUNCTIONS
    if interface == "cs,me" and fmi == "2":
        expected |= FMI2_CS_FUNCTIONS
    assert exported_symbols(so) == expected
    check = subprocess.run([str(lcsfmu_bin), "check", str(fmu)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "0 failed" in check.stdout
    if fmi == "2":
        assert "ModelExchange element with a modelIdentifier" in check.stdout
    else:
        assert "ContinuousStateDerivative lists state derivatives" in check.stdout
        assert "EventIndicator entries are continuous Float variables" in check.stdout
    # the child process runs the binary through Model Exchange (both versions), and through
    # Co-Simulation for the cs,me archive only; nothing is skipped
    assert "PASS binary run through Model Exchange in a child process" in check.stdout
    assert "0 skipped" in check.stdout, check.stdout
    ran = "binary loaded and run" in check.stdout and "PASS binary loaded" in check.stdout
    assert ran == (interface == "cs,me"), check.stdout


def test_simulate_reads_model_exchange_archives(lcsfmu_bin, me_fmus, tmp_path):
    # `lcsfmu simulate FILE.fmu` runs the embedded model with its own scheme: the numbers of
    # the model file, whichever interface types the archive declares.
    fmu_csv, toml_csv = tmp_path / "fmu.csv", tmp_path / "toml.csv"
    for source, out in ((me_fmus["rlc_diode"], fmu_csv), (MODELS_DIR / "rlc_diode.toml", toml_csv)):
        proc = subprocess.run([str(lcsfmu_bin), "simulate", str(source), "-o", str(out)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    assert fmu_csv.read_bytes() == toml_csv.read_bytes()


@pytest.mark.parametrize("fmi", FMI_VERSIONS)
def test_buck_netlist_under_cvode_follows_the_event_driven_run(lcsfmu_bin, tmp_path, fmi):
    # The buck converter's inductor relaxes in 1e-10 s behind the open switch: stiff, so
    # CVode and not Euler. Its mode at t = 0 was not found before the selection LCP's step
    # was shortened on stiff models (measured after: 6.5e-4 V between the two runs).
    netlist = MODELS_DIR / "buck.cir"
    fmu = tmp_path / "buck.fmu"
    proc = build(lcsfmu_bin, [netlist], fmu, "--interface", "me", "--fmi", fmi)
    assert proc.returncode == 0, proc.stderr
    r, events = me_run(fmu, output_interval=1e-7, timeout=60)
    assert events > 0
    out = tmp_path / "event_driven.csv"
    cmd = [str(lcsfmu_bin), "simulate", str(netlist), "--scheme", "event-driven", "-o", str(out)]
    sim = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert sim.returncode == 0, sim.stderr
    ref = np.genfromtxt(out, delimiter=",", names=True)
    v = np.interp(ref["time"], r["time"], r["V_out"])
    assert np.max(np.abs(v - ref["V_out"])) <= 2e-3
    # the output settles about d Vin = 6 V
    last = r["time"] > 0.9e-3
    assert abs(np.mean(r["V_out"][last]) - 6.0) <= 0.0375
