"""The mechanical models through FMPy's simulate_fmu in co-simulation, against validation.md and
closed forms. (fmpy.validation.validate_fmu and fmu-check run on every bundled model in
test_conformance.py; FMU-state replay in test_fmu_state.py.)

Contents
  Two carts (§2, semi-explicit scheme)
    test_two_carts_every_step_equals_the_notes_equations   an independent numpy implementation of
                                      the notes' equations (2x2 LCP by enumeration), 1e-9 per step
    test_two_carts_reference_values_and_contact_steps       x_10, x_20, the contact steps, rest
                                      from t = 3.1, no penetration below -1e-12
  Newton's cradle (§8, Moreau-Jean)
    test_cradle_simultaneous_impact_in_one_step              e = 1 and e = 0 (and e = 0.5)
  Bouncing ball (Moreau-Jean)
    test_ball_impacts_apexes_and_rest_against_closed_forms   h = 1e-2, 1e-3, 1e-4
  (Energy: the energy-safe impact law's guarantee is tested in test_moreau_jean.py, with the
  step-by-step comparison of the default Moreau-Jean step against the standard scheme.)
  Stick-slip (semi-explicit with friction)
    test_stick_slip_sticks_exactly_inside_the_band           slip exactly 0 while sticking, stuck
                                      whenever the spring force is inside the band, |F_f| = mu m g
                                      while slipping
  Bead chain
    test_bead_chain_n1000_comes_to_rest_and_keeps_its_height N = 1000 built with --define:
                                      moreau-jean about 1 % short, moreau-jean-projected within
                                      0.1 % of N d
"""
import itertools
import math
import subprocess

import numpy as np
import pytest
from fmpy.validation import validate_fmu

from conftest import MODELS_DIR, ZERO, assert_close, comm_times, cosim, sampled_input

REL = 1e-9  # same scheme, same h


# ------------------------------------------------------------------------- two carts

def notes_two_carts(h: float, steps: int):
    """validation.md §2 written out independently: the notes' equations (not their Julia code),
    the 2x2 LCP 0 <= M u + q ⟂ u >= 0 solved by trying all four complementary sets."""
    A = np.array([[-2.0, 1.0], [1.0, -1.0]])
    B = np.array([[1.0, -1.0], [0.0, 1.0]])
    C = np.array([[1.0, 0.0], [-1.0, 1.0]])
    x, v = np.array([1.0, 3.5]), np.zeros(2)
    rows = [np.concatenate([x, v, np.zeros(2)])]
    M = h * h * C @ B
    for _ in range(steps):
        q = C @ (x + h * v + h * h * A @ x)
        found = None
        for active in itertools.product([False, True], repeat=2):
            idx = [i for i in range(2) if active[i]]
            u = np.zeros(2)
            if idx:
                u[idx] = np.linalg.solve(M[np.ix_(idx, idx)], -q[idx])
            w = M @ u + q
            if (u >= -1e-14).all() and (w >= -1e-14).all():
                found = np.maximum(u, 0.0)
                break
        assert found is not None
        u = found
        v = v + h * A @ x + h * B @ u
        x = x + h * v
        rows.append(np.concatenate([x, v, u]))
    return np.array(rows)


def two_carts(fmus):
    r = cosim(fmus["two_carts"], output_interval=0.1)
    assert_close(r["time"], comm_times(0.0, 10.0, 0.1), 0.0, "communication points")
    return r


def test_two_carts_every_step_equals_the_notes_equations(fmus):
    r = two_carts(fmus)
    ref = notes_two_carts(0.1, len(r) - 1)
    for j, name in enumerate(["x1", "x2", "v1", "v2", "u1", "u2"]):
        assert_close(r[name], ref[:, j], REL, name)


def test_two_carts_reference_values_and_contact_steps(fmus):
    r = two_carts(fmus)
    assert_close([r["x1"][10], r["x2"][10]], [1.5773344076262725, 2.3074148176857077], REL, "x_10")
    assert_close([r["x1"][20], r["x2"][20]], [0.7725583256575419, 1.0485614267800856], REL, "x_20")
    # The row at t_{k+1} reports u_k, the force of the step from t_k (the notes' index k).
    # A force is "on" above the LCP tolerance: at rest the LCP returns 1e-16-sized forces.
    on = lambda u: [k - 1 for k in np.flatnonzero(u > 1e-9)]
    assert on(r["u2"]) == [12, 13, 28, 29, 30]
    assert on(r["u1"]) == [24, 25, 29, 30]
    rest = np.flatnonzero(r["time"] >= 3.1 - 1e-9)[0]
    states = np.array([r[name] for name in ["x1", "x2", "v1", "v2"]])
    assert np.all(np.abs(states[:, rest:]) <= ZERO), "not exactly zero from t = 3.1"
    assert np.any(np.abs(states[:, rest - 1]) > ZERO), "already at rest at t = 3.0"
    assert r["x1"].min() >= -1e-12
    assert (r["x2"] - r["x1"]).min() >= -1e-12


# ---------------------------------------------------------------------------- cradle

@pytest.mark.parametrize("e, expected", [
    (1.0, [-1 / 3, 2 / 3, 2 / 3]),
    (0.0, [1 / 3, 1 / 3, 1 / 3]),
    # Solving the impact LCP by hand: both contacts close, P1 = (1 + e) 2/3, P2 = (1 + e) / 3.
    (0.5, [0.0, 0.5, 0.5]),
])
def test_cradle_simultaneous_impact_in_one_step(fmus, e, expected):
    r = cosim(fmus["newtons_cradle"], output_interval=1e-3, stop_time=2e-3,
              start_values={"e": e})
    assert_close([r["v1"][1], r["v2"][1], r["v3"][1]], expected, 1e-12, f"e = {e}")
    # Momentum is conserved by the impact.
    assert abs(r["v1"][1] + r["v2"][1] + r["v3"][1] - 1.0) <= 1e-12
    # Both percussions act in that step (two touching contacts at once).
    assert r["p1"][1] > 0 and r["p2"][1] > 0


# ------------------------------------------------------------------------------ ball

def ball_closed_form(g, e, q0, n):
    """Impact times t_k and apex heights after impact k (k = 1..n), and the Zeno time."""
    t1 = math.sqrt(2 * q0 / g)
    times = [t1 * (1 + 2 * e * (1 - e ** (k - 1)) / (1 - e)) for k in range(1, n + 1)]
    apexes = [q0 * e ** (2 * k) for k in range(1, n + 1)]
    return times, apexes, t1 * (1 + e) / (1 - e)


@pytest.mark.parametrize("h", [1e-2, 1e-3, 1e-4])
def test_ball_impacts_apexes_and_rest_against_closed_forms(fmus, h):
    g, e, q0 = 9.81, 0.8, 1.0
    r = cosim(fmus["bouncing_ball"], output_interval=h, stop_time=6.0)
    t, q, v, p = r["time"], r["q"], r["v"], r["p"]
    times, apexes, zeno = ball_closed_form(g, e, q0, 5)
    # Impact steps: a percussion after a step without one.
    hits = [k for k in range(1, len(t)) if p[k] > 0 and p[k - 1] == 0]
    v1 = math.sqrt(2 * g * q0)
    for k in range(5):
        # An impact is taken in the step whose predicted gap q + (h/2) v is <= 0: within a
        # step of the instant the discrete flight reaches the ground, which itself inherits
        # the earlier impacts' errors; each impact adds at most 2 h (measured: 0.7 h per impact
        # at h = 1e-2, 1e-3, 1e-4)...
        assert abs(t[hits[k]] - times[k]) <= 2 * (k + 1) * h, f"impact {k + 1} at {t[hits[k]]}"
        # ... from a height within |v| h of the ground, with a velocity within g h of the
        # exact one: the rebound and its apex are off by at most (1 + 2 e) v1 h.
        top = q[hits[k]:(hits[k + 1] if k + 1 < len(hits) else len(q))].max()
        assert abs(top - apexes[k]) <= (1 + 2 * e) * v1 * h, f"apex {k + 1}: {top}"
    # Flight between impacts is exact at the step points (constant acceleration and the
    # trapezoidal rule): before the first impact q = q0 - g t^2 / 2 to rounding.
    free = t < times[0] - 2 * h
    assert_close(q[free], q0 - 0.5 * g * t[free] ** 2, 1e-12, "free fall")
    # Rest: after the speed falls below g h for good the step cannot resolve a bounce. The
    # exact bounces left then last 2 v / (g (1 - e)) <= 2 h / (1 - e); with the 2 h of impact
    # detection per impact, the rest time is within (2 / (1 - e) + 5) h of the Zeno time.
    moving = np.flatnonzero(np.abs(v) > g * h)
    t_rest = t[moving[-1] + 1]
    assert abs(t_rest - zeno) <= (2 / (1 - e) + 5) * h, f"rest at {t_rest}, Zeno time {zeno}"
    # And the ball stays on the ground: heights within O(h^2 g) of it.
    after = t > zeno + 20 * h
    assert np.all(np.abs(q[after]) <= 10 * g * h * h)


# ------------------------------------------------------------------------ stick-slip

def test_stick_slip_sticks_exactly_inside_the_band(fmus):
    m, k, mu, g = 1.0, 10.0, 0.3, 9.81
    band = mu * m * g
    h = 1e-3
    times = comm_times(0.0, 20.0, h)
    belt = lambda t: 0.1 + 0.02 * np.sin(0.5 * t)  # a belt whose speed varies
    r = cosim(fmus["stick_slip"], output_interval=h, stop_time=20.0,
              input=sampled_input("v_belt", belt, times))
    slip, x, F = r["slip"], r["x"], r["F_f"]
    stuck = np.abs(slip) <= ZERO
    assert stuck.sum() > 1000 and (~stuck).sum() > 1000, "both phases occur"
    # The block rests on the belt: normal force m g, no penetration.
    assert_close(r["N"][1:], np.full(len(r) - 1, m * g), 1e-9, "normal force")
    assert np.all(np.abs(r["z"]) <= ZERO)
    # Friction never leaves the band; while slipping it sits on the band's edge, against the slip.
    assert np.all(np.abs(F) <= band * (1 + 1e-9))
    slipping = ~stuck
    slipping[0] = False
    assert_close(np.abs(F[slipping]), np.full(slipping.sum(), band), 1e-9, "sliding friction")
    assert np.all(F[slipping] * slip[slipping] < 0)
    # Inside the band it sticks: a stuck block whose spring force k|x| stays below the band
    # (with a margin for the inertia of following the belt's acceleration) stays stuck.
    for i in range(1, len(r) - 1):
        if stuck[i] and k * abs(x[i]) < 0.98 * band:
            assert stuck[i + 1], f"broke loose inside the band at t = {r['time'][i]}"


# ------------------------------------------------------------------------ bead chain

@pytest.mark.parametrize("method", ["moreau-jean", "moreau-jean-projected"])
def test_bead_chain_n1000_comes_to_rest_and_keeps_its_height(lcsfmu_bin, tmp_path, method):
    n, d, h = 1000, 0.01, 1e-3
    fmu = tmp_path / "bead_chain.fmu"
    proc = subprocess.run([str(lcsfmu_bin), "build", str(MODELS_DIR / "bead_chain.toml"),
                           "--define", f"N={n}", "--scheme", method, "-o", str(fmu)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert validate_fmu(str(fmu)) == []
    names = [f"q{i}" for i in range(1, n + 1)] + [f"v{i}" for i in range(1, n + 1)]
    r = cosim(fmu, output_interval=h, stop_time=1.0, output=names + ["top"])
    q = np.array([r[f"q{i}"] for i in range(1, n + 1)])
    v = np.array([r[f"v{i}"] for i in range(1, n + 1)])
    assert q[-1][0] == pytest.approx((n - 1) * d + 0.005)
    gaps = q[1:, -1] - q[:-1, -1] - d
    # The striker's blow runs down the column and dies out: everything at rest at the end.
    assert np.abs(v[:, -1]).max() <= 1e-9
    if method == "moreau-jean":
        # Moreau-Jean closes contacts at velocity level: each keeps a penetration of the order
        # of (relative velocity) x h, and they add up along the column (measured at h = 1e-3:
        # the column ends 0.99 % short of N d). Bound: 2 % of its height.
        assert gaps.min() >= -0.01 and q[0, -1] >= -1e-4
        assert abs(r["top"][-1] - n * d) <= 0.02 * n * d
    else:
        # The projection leaves no penetration behind (measured: 1.7e-14 relative).
        assert gaps.min() >= -1e-12 and q[0, -1] >= -1e-12
        assert abs(r["top"][-1] - n * d) <= 1e-3 * n * d
