"""Equality constraints ([[constraints]]) under Moreau–Jean, through the built FMU and FMPy:
cartesian_pendulum (pendulum_stop in x, y with the rod sqrt(x² + y²) - l = 0 and the stop as a
wall) against an independent NumPy implementation of the same scheme and against the angle form.

Contents
  test_cartesian_pendulum_matches_numpy_moreau_jean   same scheme in NumPy (Newton + mixed
                                                      LCP by enumeration), 1e-9
  test_cartesian_pendulum_converges_to_the_angle_form  before the stop: theta against
                                                      solve_ivp, first order in h (measured)
  test_cartesian_pendulum_impact_follows_newtons_law   the stop reverses the angular rate
                                                      by -e (to O(h))
"""
import numpy as np
from scipy.integrate import solve_ivp

from conftest import assert_close, cosim

# cartesian_pendulum's defaults (models/cartesian_pendulum.toml).
M, L, G, THS, E = 1.0, 1.0, 9.81, 0.3, 0.7
H = 1e-3
X0 = [np.sin(1.0), -np.cos(1.0), 0.0, 0.0]


def moreau_jean_constrained(x0, stop, h, theta=0.5, gamma=0.5):
    """Moreau–Jean with a converged Newton loop, written independently of lcsfmu, for the
    bob at (x, y): M (v1 - v0) = h F + Gc(q1)^T p + Ge(q1)^T lam, q1 = q0 + h [theta v1 +
    (1 - theta) v0]; the rod Ge(q1) v1 = 0 (lam free), the wall 0 <= Gc v1 + e Gc v0 _|_ p >= 0
    when g(q0) + gamma h Gc v0 <= 0. The mixed LCP (one pair, one equality) by enumeration."""
    q, v = np.array(x0[:2]), np.array(x0[2:])
    mass, force = M * np.eye(2), np.array([0.0, -M * G])
    gc = np.array([1.0, 0.0])  # the wall's gap x + l sin(theta_s)
    out = [np.concatenate([q, v, [0.0, 0.0]])]
    for _ in range(int(round(stop / h))):
        rate0 = gc @ v
        active = q[0] + L * np.sin(THS) + gamma * h * rate0 <= 0
        vb = v.copy()
        for _ in range(100):
            qb = q + h * (theta * vb + (1 - theta) * v)
            ge = qb / np.linalg.norm(qb)
            vf = v + np.linalg.solve(mass, h * force)
            rows = [ge, gc] if active else [ge]
            H_ = np.array(rows)
            W = H_ @ np.linalg.solve(mass, H_.T)
            b = H_ @ vf + np.array([0.0, E * rate0][:len(rows)])
            # The equality alone, then with the wall's percussion if that is not enough.
            lam = np.zeros(len(rows))
            lam[0] = -b[0] / W[0, 0]
            if active and W[1, 0] * lam[0] + b[1] < 0:
                lam = np.linalg.solve(W, -b)
                assert lam[1] >= 0
            v_new = vf + np.linalg.solve(mass, H_.T @ lam)
            done = np.max(np.abs(v_new - vb)) <= 1e-15 * max(1.0, np.max(np.abs(v_new)))
            vb = v_new
            if done:
                break
        q = q + h * (theta * vb + (1 - theta) * v)
        v = vb
        p = lam[1] if active else 0.0
        out.append(np.concatenate([q, v, [p, lam[0]]]))
    return np.array(out)


def test_cartesian_pendulum_matches_numpy_moreau_jean(fmus):
    r = cosim(fmus["cartesian_pendulum"], output_interval=H)
    ref = moreau_jean_constrained(X0, 5.0, H)
    assert len(r) == len(ref)
    assert (r["p"] > 0).sum() >= 3, "the stop is hit"
    for j, name in enumerate(["x", "y", "vx", "vy", "p", "rod"]):
        worst = np.abs(r[name] - ref[:, j]).max()
        print(f"cartesian_pendulum vs NumPy: {name} differs by at most {worst:.2e}")
        assert_close(r[name], ref[:, j], 1e-9, name)


def angle_form(t):
    sol = solve_ivp(lambda t, x: [x[1], -G / L * np.sin(x[0])], (0, t[-1]), [1.0, 0.0],
                    t_eval=t, method="DOP853", rtol=1e-12, atol=1e-12)
    assert sol.success
    return sol.y[0]


def test_cartesian_pendulum_converges_to_the_angle_form(fmus):
    # Before the stop (0.638 s): the angle atan2(x, -y) against the exact pendulum. The rod's
    # impulse acts at the step's end (G(q1)^T lam), not weighted by theta: first order.
    errors = []
    for h in (2e-3, 1e-3, 5e-4):
        r = cosim(fmus["cartesian_pendulum"], output_interval=h, stop_time=0.6)
        errors.append(np.abs(r["theta"] - angle_form(r["time"])).max())
    print("cartesian_pendulum theta vs solve_ivp over 0.6 s:", ", ".join(f"{e:.3e}" for e in errors))
    for a, b in zip(errors, errors[1:]):
        assert 1.9 <= a / b <= 2.1, errors
    assert errors[1] <= 2 * 1e-3, errors


def test_cartesian_pendulum_impact_follows_newtons_law(fmus):
    r = cosim(fmus["cartesian_pendulum"], output_interval=H, stop_time=1.0)
    k = int(np.flatnonzero(r["p"] > 0)[0])
    # The angular rate (x vy - y vx) / r² before and after the impact step.
    w = (r["x"] * r["vy"] - r["y"] * r["vx"]) / (r["x"] ** 2 + r["y"] ** 2)
    ratio = w[k] / w[k - 1]
    print(f"cartesian_pendulum: angular rate across the impact step x {ratio:.6f} (e = {E})")
    assert abs(ratio + E) <= 0.02, ratio
