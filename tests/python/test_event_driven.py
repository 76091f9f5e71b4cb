"""The event-driven scheme (`--scheme event-driven`, src/scheme/event/mod.rs) through FMPy: embedded
Runge-Kutta in each mode, events located with Brent's method, time-stepping where events
accumulate. Against the closed forms of validation.md §1, §3-§6 (and tests/integration/event.rs).

Builds: the first-order bundled models (the nonlinear vdp_saturation and diode_bridge_source
included: see also test_event_driven_nonlinear.py) with `lcsfmu build M.toml --scheme event-driven` (default
rtol 1e-6, atol 1e-9), and rlc_diode from a copy of its file with a [scheme] table (rtol 1e-10,
atol 1e-12): "tight".

Contents
  test_validate_fmu                               fmpy.validation finds no problem
  test_default_experiment_runs_to_the_end         simulate_fmu(CoSimulation) to the stop, finite
  test_rlc_against_closed_form                    x(1), x(2), x(5) (steps of 0.5): 1e-5 / 1e-8 tight
  test_rlc_diode_blocks_after_the_exact_switch    u_D = 0 before t_s = 1.2091996, > 0 after
  test_saturated_integrator_with_held_sine        y in [L, U], clamp recursion, stop operator O(h)
  test_friction_stops_at_the_exact_time           v exactly 0 from the first point after 1.019368
  test_friction_stop_is_not_an_accumulation       one stop, no "events accumulate" warning
  test_spiral_exact_until_one_then_origin         piecewise-linear exact solution, origin after 1
  test_spiral_accumulation_warning                fmi2Warning "events accumulate at t = 1"
  test_debug_log_counts                           one counts line per doStep; plausible counts
  test_spiral_events_at_the_axis_crossings        the counted events sit at t = 1 - 2/3^n
  test_fmu_state_replays_across_an_event          get/setFMUstate, serialize into a new instance
  test_cli_equals_fmu                             `lcsfmu simulate --scheme event-driven` == FMU
"""
import math
import re
import subprocess
from ctypes import byref

import numpy as np
import pytest
from fmpy import read_model_description
from fmpy.fmi1 import printLogMessage
from fmpy.fmi2 import fmi2CallbackFunctions, fmi2CallbackLoggerTYPE
from fmpy.logging import addLoggerProxy
from fmpy.validation import validate_fmu

from conftest import (MODELS_DIR, assert_close, bits, comm_times, cosim, read_csv,
                      sampled_input, write_input_csv, zero_from)
from test_reference_values import RLC_EXACT, T_SWITCH, stop_operator_sin

MODELS = ["sign_spiral", "coulomb_friction", "rlc_diode", "saturated_integrator",
          "relay_feedback", "vdp_saturation", "diode_bridge_source"]
TIGHT = '\n[scheme]\nmethod = "event-driven"\nrtol = 1e-10\natol = 1e-12\n'


@pytest.fixture(scope="session")
def ed(lcsfmu_bin, tmp_path_factory):
    """{model: event-driven .fmu}, plus "rlc_tight" and its model file "rlc_tight_toml"."""
    out = tmp_path_factory.mktemp("event_driven")
    cmd = [str(lcsfmu_bin), "build", *(str(MODELS_DIR / f"{m}.toml") for m in MODELS),
           "--scheme", "event-driven", "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
    paths = {m: out / f"{m}.fmu" for m in MODELS}
    tight = out / "tight"
    tight.mkdir()
    toml = tight / "rlc_diode.toml"
    toml.write_text((MODELS_DIR / "rlc_diode.toml").read_text() + TIGHT)
    proc = subprocess.run([str(lcsfmu_bin), "build", str(toml), "-o", str(tight / "rlc.fmu")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
    paths.update(rlc_tight=tight / "rlc.fmu", rlc_tight_toml=toml)
    assert all(p.is_file() for p in paths.values())
    return paths


def experiment(fmu):
    d = read_model_description(str(fmu)).defaultExperiment
    return float(d.startTime), float(d.stopTime), float(d.stepSize)


def run_default(fmu, **kwargs):
    """simulate_fmu over the model's default experiment, output_interval = its step."""
    start, stop, h = experiment(fmu)
    r = cosim(fmu, start_time=start, stop_time=stop, output_interval=h, **kwargs)
    assert_close(r["time"], comm_times(start, stop, h), 0.0, "communication points")
    return r


# FMPy's native logging proxy (fmpy/logging/logging.c) keeps the Python logger of the last
# instantiation in a C global, through which every later instance logs. After simulate_fmu(
# logger=f) that thunk is freed, and the next FMU message anywhere in the session would call
# freed memory (a segfault with FMPy 0.3.32). So point the global back at a thunk that lives.
_PRINT = fmi2CallbackLoggerTYPE(printLogMessage)


def captured(fmu, run=run_default, **kwargs):
    """(result, [(status, category, message)]) of a run with a capturing logger."""
    log = []
    try:
        r = run(fmu, logger=lambda _e, _n, s, c, m: log.append((s, c.decode(), m.decode())),
                **kwargs)
    finally:
        restore = fmi2CallbackFunctions()
        restore.logger = _PRINT
        addLoggerProxy(byref(restore))
    return r, log


# ------------------------------------------------------------------- validation, runs

@pytest.mark.parametrize("model", MODELS)
def test_validate_fmu(ed, model):
    assert validate_fmu(str(ed[model])) == []


@pytest.mark.parametrize("model", MODELS + ["rlc_tight"])
def test_default_experiment_runs_to_the_end(ed, model):
    r = run_default(ed[model])  # raises if a doStep fails; checks the last point is the stop
    for name in r.dtype.names:
        assert np.all(np.isfinite(r[name])), name


# ------------------------------------------------------------------ closed forms (§4-§6)

def rlc_exact(t):
    """validation.md §4 / tests/integration/event.rs: (i_L, q_C) for L = C = R = 1."""
    w, ts = math.sqrt(3) / 2, 2 * math.pi / (3 * math.sqrt(3))
    if t <= ts:
        return (math.exp(-t / 2) * (math.cos(w * t) + math.sin(w * t) / (2 * w)),
                2 / math.sqrt(3) * math.exp(-t / 2) * math.sin(w * t))
    q = math.exp(-ts / 2)
    return q * math.exp(-(t - ts)), q


@pytest.mark.parametrize("build, tol", [("rlc_diode", 1e-5), ("rlc_tight", 1e-8)])
def test_rlc_against_closed_form(ed, build, tol):
    # communication steps of 0.5 (not the default 1e-3, whose clipping alone keeps the
    # Runge-Kutta error near 1e-11): the step-size control sets the error.
    # Measured max error at t = 1, 2, 5: 7.6e-7 (default tolerances), 8.0e-11 (tight).
    r = cosim(ed[build], output_interval=0.5)
    for t, table in RLC_EXACT.items():
        assert_close(rlc_exact(t), table, 1e-8, f"closed form vs validation.md at {t}")
        k = int(round(t / 0.5))
        assert r["time"][k] == t
        assert_close([r["i_L"][k], r["q_C"][k]], rlc_exact(t), tol, f"x({t})")


def test_rlc_diode_blocks_after_the_exact_switch(ed):
    # the switch is located, not stepped over: conducting at every point before t_s
    r = run_default(ed["rlc_tight"])
    t, u = r["time"], r["u_D"]
    assert np.all(u[t < T_SWITCH] == 0.0) and np.all(u[t > T_SWITCH] > 0.0)


def test_saturated_integrator_with_held_sine(ed):
    # FMPy holds x(t_k) over [t_k, t_k+1): y' is constant in a step, so the exact integral of
    # what the FMU sees is clamp(y_k + h x(t_k), L, U) (Runge-Kutta integrates a constant
    # exactly; only the located limit rounds). Against the stop operator for x = sin t the held
    # input costs O(h): the bound of test_reference_values (2 (h/2 + h^2 (T/12 + 1/2))).
    h, stop, (lo, hi) = 0.01, 10.0, (-0.5, 0.5)
    times = comm_times(0.0, stop, h)
    r = cosim(ed["saturated_integrator"], output_interval=h, stop_time=stop,
              input=sampled_input("x", np.sin, times))
    y = r["y"]
    assert np.all(y >= lo - 1e-9) and np.all(y <= hi + 1e-9), (y.min(), y.max())
    assert_close(y[1:], np.clip(y[:-1] + h * np.sin(times[:-1]), lo, hi), 1e-9, "clamp step")
    exact = np.array([stop_operator_sin(t) for t in times])
    assert np.max(np.abs(y - exact)) <= 2 * (h / 2 + h * h * (stop / 12 + 0.5))  # 5.0e-3


T_STOP, X_STOP = 100.0 / (10.0 * 9.81), 100.0 ** 2 / (2 * 10.0 * 9.81)  # v0/(mu g), v0^2/(2 mu g)


@pytest.mark.parametrize("h", [0.2, 0.01])
def test_friction_stops_at_the_exact_time(ed, h):
    # §3: the mass stops at t* = 1.0193680, x* = 50.968400 and sticks (F_a = 0), so v is
    # exactly 0 (|v| <= ZERO) from the first communication point after t* on. The motion is
    # quadratic in t (exact for the 3rd-order pair), so x is limited by the stop's location only.
    r = cosim(ed["coulomb_friction"], output_interval=h)
    k = zero_from(r["v"])
    assert k is not None, f"v never exactly 0: v(5) = {r['v'][-1]!r}"
    assert r["time"][k - 1] < T_STOP <= r["time"][k]
    assert_close(r["x"][k:], np.full(len(r) - k, X_STOP), 1e-6, "x after the stop")
    assert np.all(np.abs(r["F_f"][k:]) <= 1e-9), "no friction force while sticking, F_a = 0"


def test_friction_stop_is_not_an_accumulation(ed):
    # One event (the stop), then the sticking mode: not Zeno, so no fmi2Warning.
    _, log = captured(ed["coulomb_friction"])
    assert [m for m in log if m[0] != 0] == []


def spiral_exact(t):
    """§1: x(t) through the axis crossings t_n = 1 - 2/3^n at ||x||_1 = 4/3^n (n >= 1)."""
    knots, pts = [0.0], [(-1.0, 1.0)]
    for n in range(1, 30):
        d = [(0, 1), (1, 0), (0, -1), (-1, 0)][(n - 1) % 4]
        knots.append(1 - 2 / 3 ** n)
        pts.append((4 / 3 ** n * d[0], 4 / 3 ** n * d[1]))
    pts = np.array(pts)
    return np.stack([np.interp(t, knots, pts[:, 0]), np.interp(t, knots, pts[:, 1])], axis=-1)


def test_spiral_exact_until_one_then_origin(ed):
    r = cosim(ed["sign_spiral"], output_interval=0.01)
    t, x = r["time"], np.stack([r["x1"], r["x2"]], axis=1)
    before = t <= 0.99  # piecewise linear: RK is exact, the crossings are located
    assert_close(x[before], spiral_exact(t[before]), 1e-9, "x before the accumulation")
    assert np.all(np.abs(x[t >= 1.01]).sum(axis=1) <= 1e-6), "at the origin after t = 1"


def test_spiral_accumulation_warning(ed):
    _, log = captured(ed["sign_spiral"])
    assert len(log) == 1, log[:3]  # the warning only: no counts lines without debug logging
    status, category, text = log[0]
    assert (status, category) == (1, "logStatusWarning")  # fmi2Warning
    prefix = "fmi2DoStep: events accumulate at t = "
    assert text.startswith(prefix), text
    assert abs(float(text[len(prefix):].split()[0]) - 1.0) <= 1e-6, text


# ------------------------------------------------------------------------ debug log

COUNTS = re.compile(r"fmi2DoStep: step from t = (\S+) to (\S+): (\d+) Runge-Kutta steps "
                    r"\((\d+) rejected\), (\d+) right-hand-side evaluations, (\d+) events, "
                    r"(\d+) LCP solves$")


def counts(fmu, h=None):
    """The debug log's counts lines of a run, as an int array (steps, rejected, rhs, events,
    lcp), checked to be one per doStep with that step's endpoints."""
    run = run_default if h is None else (lambda f, **kw: cosim(f, output_interval=h, **kw))
    r, log = captured(fmu, run=run, debug_logging=True)
    lines = [COUNTS.match(m) for s, c, m in log if c == "logEvents"]
    assert all(lines) and len(lines) == len(r) - 1, [m for m in log if m[1] == "logEvents"][:3]
    ends = np.array([[float(m[1]), float(m[2])] for m in lines])
    assert_close(ends, np.stack([r["time"][:-1], r["time"][1:]], axis=1), 0.0, "t = A to B")
    return ends, np.array([[int(g) for g in m.groups()[2:]] for m in lines])


@pytest.mark.parametrize("model", MODELS + ["rlc_tight"])
def test_debug_log_counts(ed, model):
    _, c = counts(ed[model], h=0.5 if model == "rlc_tight" else None)
    steps, rejected, rhs, events, lcp = c.T
    assert np.all(steps >= 1) and np.all(rejected >= 0) and np.all(lcp >= 0)
    # Bogacki-Shampine: 3 new evaluations per tried step (FSAL), one to start each
    # communication step and one after each event
    tried = steps + rejected
    assert np.all(3 * tried <= rhs) and np.all(rhs <= 3 * tried + 1 + events)
    assert np.all(events <= 101)  # max_events_per_step, then time-stepping
    total = c.sum(axis=0)
    if model == "rlc_tight":  # one switch on [0, 5]; measured 2,896 steps, 8,699 evaluations
        assert total[3] == 1 and total[0] >= len(c)
    if model == "relay_feedback":  # reaches the surface once, then slides: a mode, one event
        assert total[3] == 1


def test_spiral_events_at_the_axis_crossings(ed):
    # events before the accumulation: exactly the steps containing t_n = 1 - 2/3^n
    ends, c = counts(ed["sign_spiral"], h=0.01)
    crossings = [1 - 2 / 3 ** n for n in range(1, 5)]  # 1/3, 7/9, 25/27, 79/81
    early = ends[:, 1] <= 0.99 + 1e-12
    expected = [sum(a < tn <= b for tn in crossings) for a, b in ends[early]]
    assert list(c[early, 3]) == expected
    assert c[~early, 3].sum() >= 4, "the accumulating step [0.99, 1] holds many events"


# ------------------------------------------------------------------------- FMU state

@pytest.mark.parametrize("model, h, mid, n, switch", [
    ("rlc_diode", 0.05, 20, 40, ("u_D", lambda u: u == 0.0, lambda u: u > 0.0)),   # t_s 1.209
    ("relay_feedback", 0.01, 30, 60, ("u", lambda u: u == 1.0, lambda u: abs(u) < 1.0)),  # .414
    # nonlinear modes (src/scheme/mode/nonlinear.rs): the saturation reached at t = 0.1965
    ("vdp_saturation", 0.01, 10, 40, ("u_hi", lambda u: u == 0.0, lambda u: u > 0.0)),
])
def test_fmu_state_replays_across_an_event(ed, slaves, model, h, mid, n, switch):
    name, before, after = switch
    a = slaves(ed[model], "original")
    a.initialize()
    a.run(0.0, h, 0, mid)
    assert before(a.get(name)[0]), "the snapshot is taken before the event"
    state = a.fmu.getFMUstate()
    blob = a.fmu.serializeFMUstate(state)
    first = a.run(0.0, h, mid, n)
    assert after(a.get(name)[0]), "the continuation crosses the event"
    a.fmu.setFMUstate(state)
    a.fmu.freeFMUstate(state)
    assert bits(a.run(0.0, h, mid, n)) == bits(first), "setFMUstate in the same instance"
    b = slaves(ed[model], "restored")
    b.initialize()
    restored = b.fmu.deSerializeFMUstate(blob)
    b.fmu.setFMUstate(restored)
    b.fmu.freeFMUstate(restored)
    assert bits(b.run(0.0, h, mid, n)) == bits(first), "deserialized into a new instance"


# ------------------------------------------------------------------------------ CLI

@pytest.mark.parametrize("model", MODELS + ["saturated-sin", "rlc_tight"])
def test_cli_equals_fmu(ed, lcsfmu_bin, tmp_path, model):
    # same core, same communication points: identical numbers (bit for bit, every column)
    fmu = ed["saturated_integrator" if model == "saturated-sin" else model]
    cmd = [str(lcsfmu_bin), "simulate", "-o", str(tmp_path / "cli.csv")]
    if model == "rlc_tight":  # the file's own [scheme] table
        cmd.append(str(ed["rlc_tight_toml"]))
    else:
        cmd += [str(MODELS_DIR / f"{fmu.stem}.toml"), "--scheme", "event-driven"]
    kwargs = {}
    if model == "saturated-sin":
        start, stop, h = experiment(fmu)
        kwargs["input"] = sampled_input("x", np.sin, comm_times(start, stop, h))
        cmd += ["--input", str(write_input_csv(tmp_path / "x.csv", kwargs["input"]))]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    cli, r = read_csv(tmp_path / "cli.csv"), run_default(fmu, **kwargs)
    assert cli.dtype.names == r.dtype.names
    for name in r.dtype.names:
        assert bits(cli[name]) == bits(r[name]), name
