"""Mechanical models with nonlinear forces and gaps (Moreau–Jean with a Newton loop) through
built FMUs and FMPy, against scipy's solve_ivp and an independent NumPy implementation of the
same scheme.

Contents
  test_pendulum_first_impact_matches_solve_ivp     impact time and speed vs an event, 1e-3
  test_pendulum_energy_between_impacts             energy kept to O(h) between impacts, lost
                                                   at impacts only
  test_pendulum_matches_numpy_moreau_jean          same scheme in NumPy (Newton + LCP), 1e-9
  test_duffing_matches_numpy_moreau_jean           same scheme in NumPy, 1e-9
  test_duffing_flight_matches_solve_ivp            before the first impact, solve_ivp to O(h)
  test_rocking_block_*                             see the functions
  test_check_names_the_nonlinear_mechanics         lcsfmu check: nonlinear force/gap, sparsity
"""
import subprocess

import numpy as np
from scipy.integrate import solve_ivp

from conftest import MODELS_DIR, assert_close, cosim

# pendulum_stop's defaults (models/pendulum_stop.toml).
M, L, G, C, THS, E = 1.0, 1.0, 9.81, 0.0, 0.3, 0.7
H = 1e-3


def moreau_jean(x0, stop, h, mass, force, dforce, gaps, theta=0.5, gamma=0.5):
    """Moreau–Jean with a converged Newton loop, written independently of lcsfmu:
    M (v1 - v0) = h [theta F(q1, v1, t1) + (1 - theta) F(q0, v0, t0)] + G(q1)^T p,
    q1 = q0 + h [theta v1 + (1 - theta) v0]; a contact takes part when
    g(q0) + gamma h G(q0) v0 <= 0, then 0 <= G(q1) v1 + e G(q0) v0 _|_ p >= 0.
    The LCP (a few contacts) is solved by enumeration of the active sets. `force(q, v, t)`,
    `dforce(q, v, t) -> (dF/dq, dF/dv)`, `gaps(q) -> (g, G, e)`."""
    n = len(x0) // 2
    q, v = np.array(x0[:n], float), np.array(x0[n:], float)
    steps = int(round(stop / h))
    out = [np.concatenate([q, v, np.zeros(len(gaps(q)[0]))])]
    for k in range(steps):
        t0, t1 = k * h, (k + 1) * h
        g0, G0, e = gaps(q)
        rate0 = G0 @ v
        active = g0 + gamma * h * rate0 <= 0
        f0 = force(q, v, t0)
        vb = v.copy()
        p = np.zeros(len(g0))
        for _ in range(100):
            qb = q + h * (theta * vb + (1 - theta) * v)
            f1 = force(qb, vb, t1)
            fq, fv = dforce(qb, vb, t1)
            W = mass - h * theta * fv - (h * theta) ** 2 * fq
            r0 = mass @ (vb - v) - h * (theta * f1 + (1 - theta) * f0)
            vf = vb - np.linalg.solve(W, r0)
            _, Gb, _ = gaps(qb)
            p = lcp_enum(Gb @ np.linalg.solve(W, Gb.T), Gb @ vf + e * rate0, active)
            v_new = vf + np.linalg.solve(W, Gb.T @ p)
            done = np.max(np.abs(v_new - vb)) <= 1e-15 * max(1.0, np.max(np.abs(v_new)))
            vb = v_new
            if done:
                break
        q = q + h * (theta * vb + (1 - theta) * v)
        v = vb
        out.append(np.concatenate([q, v, p]))
    return np.array(out)


def lcp_enum(W, qv, active):
    """0 <= W p + qv _|_ p >= 0 on the active contacts (p = 0 elsewhere), by enumeration."""
    idx = np.flatnonzero(active)
    if idx.size == 0:
        return np.zeros(len(qv))
    tol = 1e-12 * (1 + np.abs(qv[idx]).max())
    for mask in range(1 << len(idx)):
        s = [idx[i] for i in range(len(idx)) if mask >> i & 1]
        trial = np.zeros(len(qv))
        if s:
            trial[s] = np.linalg.solve(W[np.ix_(s, s)], -qv[s])
        y = W @ trial + qv
        if (trial >= -1e-14).all() and (y[idx] >= -tol).all():
            return trial
    raise AssertionError("no LCP solution")


def pendulum_reference(stop, h):
    mass = np.array([[M * L * L]])
    return moreau_jean(
        [1.0, 0.0], stop, h, mass,
        force=lambda q, v, t: np.array([-M * G * L * np.sin(q[0]) - C * v[0]]),
        dforce=lambda q, v, t: (np.array([[-M * G * L * np.cos(q[0])]]), np.array([[-C]])),
        gaps=lambda q: (np.array([q[0] + THS]), np.array([[1.0]]), E))


def test_pendulum_first_impact_matches_solve_ivp(fmus):
    def rhs(t, x):
        return [x[1], -G / L * np.sin(x[0]) - C / (M * L * L) * x[1]]

    def hit(t, x):
        return x[0] + THS
    hit.terminal, hit.direction = True, -1
    ref = solve_ivp(rhs, (0.0, 5.0), [1.0, 0.0], events=hit, rtol=1e-12, atol=1e-12,
                    method="DOP853")
    t_star, w_star = ref.t_events[0][0], ref.y_events[0][0][1]
    r = cosim(fmus["pendulum_stop"], output_interval=H, stop_time=2.0)
    k = int(np.flatnonzero(r["p"] > 0)[0])  # the impact step ends at r["time"][k]
    # The crossing within the last free step (from k - 1), to second order.
    tk, th, w = r["time"][k - 1], r["theta"][k - 1], r["omega"][k - 1]
    a = -G / L * np.sin(th)
    dt = (-(w) - np.sqrt(w * w - 2 * a * (th + THS))) / a
    assert 0 <= dt <= 2 * H, dt
    assert abs(tk + dt - t_star) <= 1e-3 * t_star, (tk + dt, t_star)
    assert abs(w + a * dt - w_star) <= 1e-3 * abs(w_star), (w + a * dt, w_star)
    # Newton's law on the step: the velocity after it is -e times the one before.
    assert abs(r["omega"][k] + E * w) <= 1e-9 * abs(w), (r["omega"][k], w)


def test_pendulum_energy_between_impacts(fmus):
    r = cosim(fmus["pendulum_stop"], output_interval=H)
    energy = 0.5 * M * L * L * r["omega"] ** 2 + M * G * L * (1 - np.cos(r["theta"]))
    assert_close(r["energy"], energy, 1e-12, "energy output")
    impacts = np.flatnonzero(r["p"] > 0)
    assert len(impacts) >= 3, impacts
    edges = [0, *impacts.tolist(), len(energy)]
    for a, b in zip(edges[:-1], edges[1:]):
        flight = energy[a + 1 if a else 0:b]
        if len(flight) < 10:
            continue
        drift = np.abs(flight - flight[0]).max() / flight[0]
        assert drift <= 10 * H, (a, b, drift)
    # Each impact (a step or two at the stop) takes energy: about 1 - e^2 of the kinetic.
    for k in impacts:
        assert energy[k] < energy[k - 1], k


def test_pendulum_matches_numpy_moreau_jean(fmus):
    r = cosim(fmus["pendulum_stop"], output_interval=H)
    ref = pendulum_reference(5.0, H)
    assert len(r) == len(ref)
    assert_close(r["theta"], ref[:, 0], 1e-9, "theta")
    assert_close(r["omega"], ref[:, 1], 1e-9, "omega")
    assert_close(r["p"], ref[:, 2], 1e-9, "p")


# duffing_impact's defaults (models/duffing_impact.toml).
DC, DK, DK3, DA, DW, DD, DE = 0.1, 1.0, 1.0, 2.0, 1.2, 1.0, 0.8


def duffing_force(q, v, t):
    return np.array([-DC * v[0] - DK * q[0] - DK3 * q[0] ** 3 + DA * np.cos(DW * t)])


def duffing_reference(stop, h):
    return moreau_jean(
        [0.0, 0.0], stop, h, np.eye(1), force=duffing_force,
        dforce=lambda q, v, t: (np.array([[-DK - 3 * DK3 * q[0] ** 2]]), np.array([[-DC]])),
        gaps=lambda q: (np.array([DD - q[0]]), np.array([[-1.0]]), DE))


def test_duffing_matches_numpy_moreau_jean(fmus):
    r = cosim(fmus["duffing_impact"], output_interval=H)
    ref = duffing_reference(20.0, H)
    assert len(r) == len(ref)
    assert (r["p"] > 0).sum() >= 3, "the wall is hit"
    assert_close(r["q"], ref[:, 0], 1e-9, "q")
    assert_close(r["v"], ref[:, 1], 1e-9, "v")
    assert_close(r["p"], ref[:, 2], 1e-9, "p")


def test_duffing_flights_match_solve_ivp(fmus):
    # Each flight between impacts, from the state after one impact step to the step before
    # the next, against solve_ivp from the same state: the trapezoidal rule's error.
    r = cosim(fmus["duffing_impact"], output_interval=H)
    impacts = np.flatnonzero(r["p"] > 0).tolist()
    edges = [0, *impacts, len(r) - 1]
    worst = 0.0
    for a, b in zip(edges[:-1], edges[1:]):
        if b - a < 10:
            continue
        t = r["time"][a:b]
        ref = solve_ivp(lambda t, x: [x[1], duffing_force([x[0]], [x[1]], t)[0]], (t[0], t[-1]),
                        [r["q"][a], r["v"][a]], method="DOP853", rtol=1e-12, atol=1e-12,
                        t_eval=t)
        assert ref.success
        worst = max(worst, np.abs(ref.y[0] - r["q"][a:b]).max(),
                    np.abs(ref.y[1] - r["v"][a:b]).max())
    print(f"duffing_impact: largest flight error vs solve_ivp {worst:.3e} (h = {H})")
    assert worst <= 0.1 * H, worst


def test_rocking_block_energy_decays_at_impacts_only(fmus):
    # Siconos' configuration (frictionless corners, e = 0.5, dropped at an angle): steps
    # without any percussion keep the energy (free flight: the trapezoidal rule is exact for
    # constant gravity and free rotation); steps with contact lose it, up to O(h^2) of drift.
    r = cosim(fmus["rocking_block"], output_interval=H)
    energy, e0 = r["energy"], r["energy"][0]
    contact = (r["p1"] > 0) | (r["p2"] > 0)
    d = np.diff(energy)
    free = ~contact[1:]
    assert free.sum() > 100 and (~free).sum() > 100, (free.sum(), (~free).sum())
    assert np.abs(d[free]).max() <= 1e-12 * e0, np.abs(d[free]).max()
    assert d[~free].max() <= 1e-5 * e0, d[~free].max()
    assert energy[-1] < 0.01 * e0, energy[-1]
    # The block ends at rest on both corners, flat, penetrating by O(h) at most.
    assert abs(r["th"][-1]) < 1e-4 and abs(r["y"][-1] - 0.75) < 1e-4, (r["th"][-1], r["y"][-1])


def test_rocking_block_period_matches_housner(fmus):
    # A slender block (width 0.2, height 1) released at th0 = 0.1 on its corner 1, which
    # sticks (mu = 1), plastic impacts (e = 0): it rocks about its corners. Housner (1963):
    # from rest at th0 the block reaches th = 0 after arccosh(1 / (1 - th0/alpha)) / p,
    # p = sqrt(3 g / (4 R)), alpha = atan(width/height), R the half diagonal (small rotations,
    # sin(alpha - th) ~ alpha - th); the impact keeps 1 - (3/2) sin^2 alpha of the rate.
    w, h, g, th0 = 0.2, 1.0, 9.81, 0.1
    y0 = w / 2 * np.sin(th0) + h / 2 * np.cos(th0)
    r = cosim(fmus["rocking_block"], output_interval=H, stop_time=1.0,
              start_values={"L": w, "H": h, "mu": 1.0, "e": 0.0, "th": th0, "y": y0})
    R, alpha = np.hypot(w, h) / 2, np.arctan(w / h)
    p = np.sqrt(3 * g / (4 * R))
    quarter = np.arccosh(1 / (1 - th0 / alpha)) / p
    k = int(np.flatnonzero(r["th"] <= 0)[0])
    t0 = r["time"][k - 1] + r["th"][k - 1] / (r["th"][k - 1] - r["th"][k]) * H
    assert abs(t0 - quarter) <= 5e-3 * quarter, (t0, quarter)

    # The same without the small-rotation approximation: solve_ivp of the pivoting block.
    def pivot(t, x):
        return [x[1], -g * R * np.sin(alpha - x[0]) / (4 / 3 * R * R)]

    def flat(t, x):
        return x[0]
    flat.terminal = True
    exact = solve_ivp(pivot, (0, 2), [th0, 0], events=flat, rtol=1e-12, atol=1e-12)
    assert abs(t0 - exact.t_events[0][0]) <= 2 * H, (t0, exact.t_events[0][0])
    # Corner 1 sticks while the block pivots on it.
    assert np.abs(r["p1_slip"][:k]).max() <= 1e-12
    hit = int(np.flatnonzero(r["p2"] > 0)[0])
    ratio = r["vth"][hit] / r["vth"][hit - 1]
    assert abs(ratio - (1 - 1.5 * np.sin(alpha) ** 2)) <= 0.01, ratio


def test_check_names_the_nonlinear_mechanics(lcsfmu_bin):
    out = subprocess.run([str(lcsfmu_bin), "check", str(MODELS_DIR / "pendulum_stop.toml")],
                         capture_output=True, text=True, check=True).stdout
    assert "force on theta +=" in out, out
    assert "m*g*l*sin(theta)" in out.replace(" ", ""), out
    assert "dF/dq" in out and "n  F on theta" in out, out
