"""The signal form's blocks ([[blocks]], src/model/blocks.rs) through built FMUs and FMPy.

The block models of models/ are built here unless conftest's `fmus` already builds them, and two
test-only models are written from this file: `static_maps` (every memoryless block fed by one
input w, no states) and `block_loop` (four blocks in one algebraic loop around one state).
Formulas and numbers: ../shared/validation.md §5 (saturated integrator), §6 (sliding mode),
§7 (static maps, backlash). "Exactly zero" is |.| <= ZERO = 1e-12.

Contents
  Static maps (§7)
    test_static_maps_follow_set_input_without_step   setReal then getReal: the formulas at once
    test_static_maps_after_steps                     after doStep: the formulas of the held input
    test_static_maps_list_input_in_dependencies      every output depends on w in the XML
  Memory blocks
    test_backlash_clamp_recurrence_and_play_phases   y_{k+1} = clamp(y_k, u_k -+ d/2), §7 phases
    test_zero_crossing_latch                         0 until the held s > 0, then 1 for ever
    test_saturated_integrator_block_equals_matrix_form   same y, k/l == y_lo/y_hi
  Feedback loops
    test_relay_feedback_sliding_mode                 §6: surface at sqrt(2)-1, sliding, x1(3)
    test_square_helix_never_gains_and_loses_at_crossings
    test_square_helix_is_deterministic_and_restorable   two runs, get/setFMUstate: same bits
    test_pwa_feedback_converges_at_first_order       vs solve_ivp: O(h), h = 0.01 and 0.005
    test_friction_block_stops_and_sticks             Ff = G v + Fc sign v, then v = 0, |Ff| <= Fc
    test_servo_deadzone_laws_and_set_point           saturation/dead-zone laws, x -> r
    test_algebraic_loop_of_four_blocks               check, build, validate_fmu, 1000 steps
  lcsfmu check
    test_check_prints_blocks_and_classifies_after_elimination
    test_check_reports_a_singular_loop
"""
import math
import subprocess
import xml.etree.ElementTree as ET
import zipfile

import numpy as np
import pytest
from fmpy.validation import validate_fmu
from scipy.integrate import solve_ivp

from conftest import (MODEL_NAMES, MODELS_DIR, ZERO, assert_close, bits, comm_times,
                      cosim, first_index, sampled_input)

BLOCK_MODELS = ["pwa_feedback", "relay_feedback", "backlash_gear", "servo_deadzone",
                "square_helix", "zero_crossing", "friction_block", "saturated_integrator_blocks",
                "saturated_integrator"]

STATIC_MAPS_TOML = """
[model]
name = "static_maps"
[experiment]
start = 0.0
stop = 1.0
step = 0.1
[[inputs]]
name = "w"
start = 0.0
""" + "".join(f'[[blocks]]\nname = "{n}"\ntype = "{t}"\ninput = "w"\n{extra}\n' for n, t, extra in [
    ("b_abs", "abs", ""), ("b_sign", "sign", ""), ("b_max0", "max0", ""),
    ("b_sat", "saturation", "lo = -1\nhi = 2"), ("b_dz", "dead_zone", "lo = -1\nhi = 2"),
    ("b_max", "max", 'input2 = "0.5*w + 1"'), ("b_min", "min", 'input2 = "0.5*w + 1"'),
    ("b_pwa", "pwa", "k0 = 0.5\nu0 = 0.1\nbreakpoints = [-1, 0.5, 2]\nslopes = [2, -1, 0.25]"),
    ("b_cv", "coulomb_viscous", "Fc = 2\nG = 0.5"), ("b_relay", "relay", "on = 5\noff = -3"),
])

# a = sat(b + w + x), b = dead_zone(a/2 - d/4), c = |a/2 - x|, d = max(c/2, b): a->b->a and
# a->c->d->b->a are loops; the step LCP on the 6 ramps left is not a P-matrix (`lcsfmu check`).
BLOCK_LOOP_TOML = """
[model]
name = "block_loop"
[experiment]
start = 0.0
stop = 10.0
step = 0.01
[[inputs]]
name = "w"
start = 0.0
[[states]]
name = "x"
start = 0.5
der = "-x + d + w"
[[blocks]]
name = "a"
type = "saturation"
input = "b + w + x"
lo = -1
hi = 1
[[blocks]]
name = "b"
type = "dead_zone"
input = "0.5*a - 0.25*d"
lo = -0.2
hi = 0.2
[[blocks]]
name = "c"
type = "abs"
input = "0.5*a - x"
[[blocks]]
name = "d"
type = "max"
input = "0.5*c"
input2 = "b"
"""


def build(lcsfmu_bin, tomls, out_dir):
    proc = subprocess.run([str(lcsfmu_bin), "build", *map(str, tomls), "-o", str(out_dir)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, f"lcsfmu build failed:\n{proc.stdout}\n{proc.stderr}"


@pytest.fixture(scope="session")
def block_fmus(lcsfmu_bin, fmus, tmp_path_factory):
    """name -> .fmu for BLOCK_MODELS and the two test models (conftest's builds are reused)."""
    out = tmp_path_factory.mktemp("block_fmus")
    (out / "static_maps.toml").write_text(STATIC_MAPS_TOML)
    (out / "block_loop.toml").write_text(BLOCK_LOOP_TOML)
    todo = [MODELS_DIR / f"{n}.toml" for n in BLOCK_MODELS if n not in MODEL_NAMES]
    build(lcsfmu_bin, todo + [out / "static_maps.toml", out / "block_loop.toml"], out)
    paths = {n: fmus[n] if n in MODEL_NAMES else out / f"{n}.fmu" for n in BLOCK_MODELS}
    paths.update(static_maps=out / "static_maps.fmu", block_loop=out / "block_loop.fmu",
                 block_loop_toml=out / "block_loop.toml")
    return paths


def clamp(v, lo, hi):
    return np.minimum(np.maximum(v, lo), hi)


def ramp(v):
    return np.maximum(v, 0.0)


# ------------------------------------------------------------------------ static maps

# every breakpoint exactly (pwa -1, 0.5, 2; sat/dead zone -1, 2; max/min cross at w = 2;
# 0 for abs, sign, max0, relay, coulomb_viscous), points between and beyond, 1e-3 off the kinks
KINKS = [-1.0, 0.0, 0.5, 2.0]
SWEEP = sorted(set(KINKS + [k + e for k in KINKS for e in (-1e-3, 1e-3)]
                   + list(np.linspace(-3.0, 3.5, 14))))
SWEEP = SWEEP + SWEEP[::-1] + SWEEP[::3]  # up, down and jumps: the warm start must not matter


def static_expected(w):
    """validation.md §7 / blocks.rs formulas; the set-valued ones only away from w = 0."""
    lo, hi = -1.0, 2.0
    pwa = 0.5 * w + 0.1
    before = 0.5
    for y_i, k_i in zip([-1.0, 0.5, 2.0], [2.0, -1.0, 0.25]):
        pwa += (k_i - before) * ramp(w - y_i)
        before = k_i
    e = {"b_abs": abs(w), "b_abs_pos": ramp(w), "b_max0": ramp(w),
         "b_sat": clamp(w, lo, hi), "b_sat_lo": ramp(lo - w), "b_sat_hi": ramp(w - hi),
         "b_dz": w - clamp(w, lo, hi), "b_dz_lo": ramp(lo - w), "b_dz_hi": ramp(w - hi),
         "b_max": max(w, 0.5 * w + 1), "b_max_d": ramp(w - (0.5 * w + 1)),
         "b_min": min(w, 0.5 * w + 1), "b_min_d": ramp(0.5 * w + 1 - w), "b_pwa": pwa}
    for i, y_i in enumerate([-1.0, 0.5, 2.0]):
        e[f"b_pwa_ramp{i + 1}"] = ramp(w - y_i)
    if w != 0.0:
        sgn = math.copysign(1.0, w)
        e.update(b_sign=sgn, b_cv_sign=sgn, b_cv=0.5 * w + 2.0 * sgn,
                 b_relay=5.0 if w > 0 else -3.0, b_relay_s=1.0 if w > 0 else 0.0)
    return e


def check_static(values: dict, w, when):
    e = static_expected(w)
    for name, ref in e.items():
        assert_close(values[name], ref, 1e-12, f"{name} at w = {w!r} ({when})")
    if w == 0.0:  # set-valued at 0: only the bounds are known
        assert abs(values["b_sign"]) <= 1 and abs(values["b_cv"]) <= 2.0
        assert -3.0 <= values["b_relay"] <= 5.0
    assert set(e) | {"b_sign", "b_cv", "b_cv_sign", "b_relay", "b_relay_s"} == set(values)


def test_static_maps_follow_set_input_without_step(block_fmus, slaves):
    s = slaves(block_fmus["static_maps"])
    s.initialize()
    for w in SWEEP:
        s.set({"w": w})  # no doStep: the feedthrough re-solve must show the new value at once
        check_static(dict(zip(s.output_names, s.outputs())), w, "set, no step")


def test_static_maps_after_steps(block_fmus, slaves):
    s = slaves(block_fmus["static_maps"])
    s.initialize()
    h = 0.1
    for k, w in enumerate(SWEEP):
        s.set({"w": w})
        s.step(k * h, h)  # the step holds w: its end values are the maps of w
        check_static(dict(zip(s.output_names, s.outputs())), w, f"after step {k}")


def test_static_maps_list_input_in_dependencies(block_fmus):
    with zipfile.ZipFile(block_fmus["static_maps"]) as zf:
        md = ET.fromstring(zf.read("modelDescription.xml"))
    vs = md.find("ModelVariables").findall("ScalarVariable")
    index = {v.get("name"): i + 1 for i, v in enumerate(vs)}
    outputs = {int(u.get("index")): u.get("dependencies")
               for u in md.find("ModelStructure").find("Outputs").findall("Unknown")}
    static = set(static_expected(1.0))  # every output of the model: block outputs and roles
    assert {index[n] for n in static} == set(outputs)
    for i, deps in outputs.items():
        assert deps is not None and deps.split() == [str(index["w"])], (vs[i - 1].get("name"), deps)


# ---------------------------------------------------------------------- memory blocks

def play_sin(t, A, d):
    """Exact backlash output for u = A sin t, y(0) = 0, A > d (validation.md §7): 0 until
    u = d/2, u - d/2 up to A - d/2, hold until u = A - d, u + d/2 down to -A + d/2, hold until
    u = -A + d, u - d/2 up, ... (period 2 pi from the first maximum)."""
    a = math.asin((A - d) / A)
    if t <= math.pi / 2:
        return max(A * math.sin(t) - d / 2, 0.0)
    s = (t - math.pi / 2) % (2 * math.pi)
    if s <= math.pi / 2 - a:
        return A - d / 2
    if s <= math.pi:
        return A * math.sin(t) + d / 2
    if s <= 1.5 * math.pi - a:
        return -A + d / 2
    return A * math.sin(t) - d / 2


def test_backlash_clamp_recurrence_and_play_phases(block_fmus):
    h, A, d = 0.01, 1.0, 0.5
    times = comm_times(0.0, 10.0, h)
    u = A * np.sin(times)
    r = cosim(block_fmus["backlash_gear"], output_interval=h,
              input=sampled_input("u", lambda t: A * np.sin(t), times))
    y = r["y"]
    # §7 recurrence, u_k held over step k (FMPy sets the input at each communication point)
    assert_close(y[1:], clamp(y[:-1], u[:-1] - d / 2, u[:-1] + d / 2), 1e-12, "one step")
    ref = [0.0]
    for uk in u[:-1]:
        ref.append(min(max(ref[-1], uk - d / 2), uk + d / 2))
    assert_close(y, ref, 1e-12, "independent recurrence")
    # phases: the recurrence is the exact play of the piecewise-linear interpolant of the
    # samples, and the play is 1-Lipschitz in the sup norm: within h^2/8 of the play of sin
    exact = np.array([play_sin(t, A, d) for t in times[:-1]])
    dev = np.abs(y[1:] - exact).max()
    print(f"backlash: max |y_(k+1) - play(t_k)| = {dev:.3e} (bound h^2/8 = {h * h / 8:.3e})")
    assert dev <= h * h / 8 + ZERO
    k = first_index(u > d / 2)  # stays exactly 0 until the input reaches d/2
    assert np.all(np.abs(y[:k + 1]) <= ZERO) and y[k + 1] > ZERO
    # the rates: y_{k+1} = y_k + h (y_up - y_down), each >= 0
    assert np.all(r["y_up"] >= 0) and np.all(r["y_down"] >= 0)
    assert_close(r["y_up"][1:] - r["y_down"][1:], np.diff(y) / h, 1e-9, "rates")


def test_zero_crossing_latch(block_fmus):
    h = 0.01
    times = comm_times(0.0, 10.0, h)
    fn = lambda t: -np.cos(t)  # < 0 until pi/2, > 0 until 3pi/2, < 0 again until 5pi/2
    s = fn(times)
    r = cosim(block_fmus["zero_crossing"], output_interval=h, input=sampled_input("s", fn, times))
    latch = r["latch"]
    k = first_index(s > 0)  # first step whose held input is positive: ends at t_{k+1}
    assert k is not None and np.any(s[k:] < 0), "the signal must go back below 0"
    assert np.all(np.abs(latch[:k + 1]) <= ZERO), "0 before the first positive held input"
    assert np.all(np.abs(latch[k + 1:] - 1) <= ZERO), "1 from the end of that step on"
    assert np.all(np.diff(latch) >= 0), "never decreases"


def test_saturated_integrator_block_equals_matrix_form(block_fmus):
    h = 0.01
    times = comm_times(0.0, 10.0, h)
    a = cosim(block_fmus["saturated_integrator"], output_interval=h,
              input=sampled_input("x", np.sin, times))
    b = cosim(block_fmus["saturated_integrator_blocks"], output_interval=h,
              input=sampled_input("x", np.sin, times))
    assert_close(b["time"], a["time"], 0.0, "communication points")
    assert_close(b["y"], a["y"], 1e-12, "y")
    assert_close(b["y_lo"], a["k"], 1e-12, "y_lo vs k")
    assert_close(b["y_hi"], a["l"], 1e-12, "y_hi vs l")
    assert a["k"].max() > 0.5 and a["l"].max() > 0.5, "both limits must be active for sin t"


# --------------------------------------------------------------------- feedback loops

@pytest.mark.parametrize("h, x1_at_3", [(1e-2, 0.0314528), (1e-3, 0.0312303)])
def test_relay_feedback_sliding_mode(block_fmus, h, x1_at_3):
    r = cosim(block_fmus["relay_feedback"], output_interval=h)
    assert r["time"][-1] == 3.0
    s = r["x1"] + r["x2"]
    k = first_index(np.abs(s) <= ZERO)
    t_r = math.sqrt(2) - 1
    print(f"relay h = {h}: surface at t = {r['time'][k]} (exact {t_r:.6f}), "
          f"x1(3) = {r['x1'][-1]:.10f}")
    assert abs(r["time"][k] - t_r) <= 3 * h, "reaches the surface within a few h of sqrt(2)-1"
    assert np.all(np.abs(s[k:]) <= ZERO), "stays exactly on the surface (no chattering)"
    assert np.all(np.abs(r["u"][k:]) < 1), "sliding: u strictly inside [-1, 1]"
    assert np.all(r["u"][:k] == 1.0), "before the surface x1 + x2 > 0, u = 1"
    assert abs(r["x1"][-1] - x1_at_3) <= 1e-7  # validation.md gives 7 digits


def helix(fmu, h):
    r = cosim(fmu, output_interval=h)
    return r, np.abs(r["x"]) + np.abs(r["y"])


def crossing_steps(v):
    """Steps k -> k+1 where v changes sign or leaves/reaches 0 (an axis crossing)."""
    s = np.sign(v)
    return s[1:] != s[:-1]


@pytest.mark.parametrize("h", [0.01, 0.03, 0.07])
def test_square_helix_never_gains_and_loses_at_crossings(block_fmus, h):
    r, n1 = helix(block_fmus["square_helix"], h)
    loss = n1[:-1] - n1[1:]
    assert loss.min() >= -ZERO, "|x| + |y| grows"
    cx, cy = crossing_steps(r["x"]), crossing_steps(r["y"])
    lossy = loss > ZERO
    # away from the axes implicit Euler moves along the square exactly: a loss needs a crossing
    assert not np.any(lossy & ~(cx | cy)), np.flatnonzero(lossy & ~(cx | cy))
    assert np.all(loss <= 2 * h + ZERO), "a step changes |x| + |y| by at most 2h"
    signs = [np.sign(v)[np.sign(v) != 0] for v in (r["x"], r["y"])]
    crossings = sum(int(np.sum(sg[1:] != sg[:-1])) for sg in signs)
    total = n1[0] - n1[-1]
    print(f"helix h = {h}: {crossings} axis crossings, {lossy.sum()} lossy steps, max loss "
          f"{loss.max():.3g}, total {total:.3g} (bound 2h*crossings = {2 * h * crossings:.3g})")
    assert total <= 2 * h * crossings + ZERO


def test_square_helix_is_deterministic_and_restorable(block_fmus, slaves):
    # t = 3.3 of 9.99 (the clipped last step to 10 left out), crossings and losses after it
    h, n, mid = 0.03, 333, 110
    r1, _ = helix(block_fmus["square_helix"], h)
    r2, _ = helix(block_fmus["square_helix"], h)
    assert r1.tobytes() == r2.tobytes(), "two runs differ"
    s = slaves(block_fmus["square_helix"])
    s.initialize()
    s.run(0.0, h, 0, mid)
    state = s.fmu.getFMUstate()
    first = s.run(0.0, h, mid, n)
    s.fmu.setFMUstate(state)
    second = s.run(0.0, h, mid, n)
    s.fmu.freeFMUstate(state)
    assert bits(first) == bits(second), "continuing from a restored state differs"
    names = list(r1.dtype.names[1:])
    assert names == s.output_names
    assert bits(first) == bits([list(row)[1:] for row in r1[mid + 1:n + 1]]), "!= simulate_fmu"


PWA = dict(k0=0.5, k1=2.0, k2=0.2, y1=0.5, y2=1.5)


def pwa_u(y):
    return (PWA["k0"] * y + (PWA["k1"] - PWA["k0"]) * ramp(y - PWA["y1"])
            + (PWA["k2"] - PWA["k1"]) * ramp(y - PWA["y2"]))


def test_pwa_feedback_converges_at_first_order(block_fmus):
    # The right-hand side is Lipschitz (the pwa map is continuous), so DOP853 at rtol 1e-10
    # is accurate to ~1e-8 (3.5e-9 against Radau at rtol 1e-12): far below the O(h) errors.
    ref = solve_ivp(lambda t, x: [x[1], -x[0] - 0.2 * x[1] + pwa_u(-x[0])], (0.0, 20.0),
                    [1.5, 0.0], method="DOP853", rtol=1e-10, atol=1e-12, dense_output=True)
    assert ref.success
    errors = {}
    for h in (0.01, 0.005):
        r = cosim(block_fmus["pwa_feedback"], output_interval=h)
        assert_close(r["time"], comm_times(0.0, 20.0, h), 0.0, "communication points")
        assert_close(r["u"], pwa_u(-r["x1"]), 1e-12, "u = pwa(-x1) at every sample")
        x = ref.sol(r["time"])
        errors[h] = max(np.abs(r["x1"] - x[0]).max(), np.abs(r["x2"] - x[1]).max())
    ratio = errors[0.01] / errors[0.005]
    print(f"pwa_feedback: max error {errors[0.01]:.4e} (h = 0.01), {errors[0.005]:.4e} "
          f"(h = 0.005), ratio {ratio:.4f}")
    assert 1.7 <= ratio <= 2.3, "first order: halving h halves the error"
    # backward Euler damps an oscillation of frequency ~1 by ~h/2 per unit time: over T = 20
    # from amplitude 1.5 that is an error ~ 1.5 h T / 2 = 15 h at most
    for h, err in errors.items():
        assert err <= 15 * h


def test_friction_block_stops_and_sticks(block_fmus):
    h, Fc, G = 0.01, 2.0, 0.5
    r = cosim(block_fmus["friction_block"], output_interval=h)  # F = 0 (input start)
    v, ff = r["v"], r["Ff"]
    k = first_index(np.abs(v) <= ZERO)
    assert k is not None, "the mass never stops"
    assert np.all(np.diff(v[:k + 1]) < 0), "v decreases until the stop"
    assert_close(ff[:k], G * v[:k] + Fc * np.sign(v[:k]), 1e-9, "Ff = G v + Fc sign(v)")
    assert np.all(np.abs(v[k:]) <= ZERO), "sticks exactly at v = 0"
    assert np.all(np.abs(ff[k:]) <= Fc + ZERO), "|Ff| <= Fc while stuck"
    # m v' = -(G v + Fc) stops at t* = (m/G) ln(1 + G v0 / Fc); implicit Euler's velocity map
    # lies above the exact one while v > 0, so it stops no earlier, and O(h) later
    t_star = 2.0 * math.log(1 + 0.5 * 3.0 / 2.0)
    print(f"friction_block: stops at t = {r['time'][k]} (exact {t_star:.6f}); "
          f"Ff at the stop {ff[k]:.6f}")
    assert t_star <= r["time"][k] <= t_star + 2 * h


@pytest.mark.parametrize("r_set", [1.0, 0.5])
def test_servo_deadzone_laws_and_set_point(block_fmus, r_set):
    kp, ki, umax, dz = 4.0, 2.0, 1.5, 0.2
    r = cosim(block_fmus["servo_deadzone"], output_interval=0.01, stop_time=40.0,
              start_values={"r": r_set})
    x, z, sat, dzn = r["x"], r["z"], r["sat"], r["dzn"]
    assert np.all(np.abs(sat) <= umax + ZERO)
    assert np.any(sat >= umax - ZERO), "the actuator saturates at the start (kp r > umax)"
    assert_close(sat, clamp(kp * (r_set - x) + ki * z, -umax, umax), 1e-12, "saturation law")
    assert_close(dzn, sat - clamp(sat, -dz, dz), 1e-12, "dead zone law")
    # z' = r - x: at any rest point x = r; x' = 0 then gives dzn = r, i.e. sat = r + dz (< umax)
    # and ki z = sat. The linearization there has eigenvalues (-5 +- sqrt 17)/2 (slow one
    # -0.44), so after 40 s the initial distance (~1) has shrunk by e^-17.5 ~ 3e-8.
    rest = {"x": r_set, "z": (r_set + dz) / ki, "sat": r_set + dz, "dzn": r_set}
    for name, value in rest.items():
        assert abs(r[name][-1] - value) <= 1e-6, (name, r[name][-1], value)


def test_algebraic_loop_of_four_blocks(block_fmus, lcsfmu_bin, slaves):
    proc = subprocess.run([str(lcsfmu_bin), "check", str(block_fmus["block_loop_toml"])],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    fmu = block_fmus["block_loop"]
    assert validate_fmu(str(fmu)) == []
    s = slaves(fmu)
    s.initialize()
    h, rows, ws = 0.01, [], []
    for k in range(1000):  # doStep raises on fmi2Discard
        ws.append(1.5 * math.sin(2 * k * h))  # drives a through both limits, b out of its zone
        s.set({"w": ws[-1]})
        s.step(k * h, h)
        rows.append(s.get("x", "a", "b", "c", "d"))
    x, a, b, c, d = np.array(rows).T
    w = np.array(ws)
    # the loop's solution satisfies every block's law at once (w held over the step)
    assert_close(a, clamp(b + w + x, -1, 1), 1e-12, "a = sat(b + w + x)")
    e = 0.5 * a - 0.25 * d
    assert_close(b, e - clamp(e, -0.2, 0.2), 1e-12, "b = dead_zone(a/2 - d/4)")
    assert_close(c, np.abs(0.5 * a - x), 1e-12, "c = |a/2 - x|")
    assert_close(d, np.maximum(0.5 * c, b), 1e-12, "d = max(c/2, b)")
    # every branch is visited, so the laws above are not checked on one piece only
    assert np.any(a == 1) and np.any(a == -1) and np.any(b != 0) and np.any(d == b)


def check_output(lcsfmu_bin, path):
    proc = subprocess.run([str(lcsfmu_bin), "check", str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_check_prints_blocks_and_classifies_after_elimination(lcsfmu_bin):
    out = check_output(lcsfmu_bin, MODELS_DIR / "servo_deadzone.toml")
    # each block, its laws with its own names, and what its variables became
    assert "sat = saturation(input = kp*(r - x) + ki*z, lo = -umax, hi = umax)" in out
    assert "0 <= sat_lo  ⟂  sat_lo - (lo - (kp*(r - x) + ki*z)) >= 0" in out
    assert "-> pairs dzn_lo, dzn_hi; algebraic variables (free pairs) dzn" in out
    # the two free pairs are eliminated; the four ramps left form a P-matrix
    assert ("2 algebraic variables eliminated (a nonsingular block); on the 4 pairs left: "
            "a P-matrix") in out


def test_check_reports_a_singular_loop(lcsfmu_bin, tmp_path):
    # sat reads itself with gain 1: its equation sat = (sat + w) + sat_lo - sat_hi loses sat
    toml = tmp_path / "singular_loop.toml"
    toml.write_text('''
[model]
name = "singular_loop"
[[inputs]]
name = "w"
[[states]]
name = "x"
der = "-x + sat"
[[blocks]]
name = "sat"
type = "saturation"
input = "sat + w"
lo = -1
hi = 1
''')
    out = check_output(lcsfmu_bin, toml)
    assert "the equations of 1 algebraic variable are (nearly) singular" in out
