"""Siconos' Moreau-Jean options (issue 20 section 3) against an independent NumPy
implementation: `gamma`, the activation parameter of MoreauJeanOSI(theta, gamma), and method
`moreau-jean-direct-projection` (MoreauJeanDirectProjectionOSI run by
TimeSteppingDirectProjection), on bouncing_ball and two_carts.

The reference, for M v' = Fq q + f + G^T P, gaps g = G q + g0, theta = 1/2:
  iteration matrix   W = M - (h theta)^2 Fq
  free velocity      v_f = v + W^-1 h (Fq q + f + theta h Fq v)
  prediction         p_k = g_k + gamma h G_k v     (at the step's start)
  index set          moreau-jean: p_k <= 0.
                     direct projection: a contact outside joins when p_k <= 1e-7; one inside
                     leaves when p_k > 1e-7 and G_k v >= 0; the set starts empty
  Newton's law       0 <= G_k v+ + e_k G_k v  _|_  P_k >= 0 over the index set, P_k = 0 else
                     v+ = v_f + W^-1 G^T P,  q+ = q + h (theta v+ + (1 - theta) v)
  projection         (direct projection only) while some contact of the index set has
                     g_k(q+) < -1e-8, at most 10 times:
                     q+ <- q+ + G_I^T mu,  0 <= G_I q+ + g0_I + G_I G_I^T mu _|_ mu >= 0
                     (Euclidean metric, index-set rows I only; velocities unchanged)
The LCPs are solved by Murty's least-index principal pivoting (test_moreau_jean.murty), a
different method from the FMU's solvers. No activation in these runs is decided by rounding:
the smallest margin of every activation test is asserted to be far above the agreement.

Contents
  test_gamma_and_direct_projection_step_by_step   ball (gamma 0, 0.5, 1; direct projection
                                      with gamma 0.5 and 0), two_carts (gamma 0; direct
                                      projection): q, v, percussions to 1e-12 at every step
  test_gamma_zero_activates_on_a_closed_gap      the ball with gamma = 0 first takes part
                                      on the step after its gap closes
"""
import math
import re
import subprocess

import numpy as np
import pytest

from conftest import MODELS_DIR, assert_close, cosim
from test_moreau_jean import murty

REL = 1e-12
ACTIVATION, DEACTIVATION, TOLERANCE, PASSES = 1e-7, 1e-7, 1e-8, 10


def reference(M, Fq, f, G, g0, e, q0, v0, h, steps, gamma=0.5, direct=False):
    """q, v and percussions at every step (row 0: the start), and the smallest margin of the
    activation tests."""
    theta = 0.5
    W = M - (h * theta) ** 2 * Fq
    q, v = np.array(q0, float), np.array(v0, float)
    nc = G.shape[0]
    index = np.zeros(nc, dtype=bool)
    Q, V, P = [q], [v], [np.zeros(nc)]
    margin = math.inf
    for _ in range(steps):
        gap, rate = G @ q + g0, G @ v
        predicted = gap + gamma * h * rate
        if direct:
            leave = (predicted > DEACTIVATION) & (rate >= 0.0)
            index = np.where(index, ~leave, predicted <= ACTIVATION)
            margin = min(margin, np.abs(predicted - ACTIVATION).min())
        else:
            index = predicted <= 0.0
            margin = min(margin, np.abs(predicted).min())
        vf = v + np.linalg.solve(W, h * (Fq @ q + f + theta * h * Fq @ v))
        p = np.zeros(nc)
        if index.any():
            Ga = G[index]
            D = Ga @ np.linalg.solve(W, Ga.T)
            b = Ga @ vf + e[index] * rate[index]
            p[index] = murty(D, b)
        vn = vf + np.linalg.solve(W, G.T @ p)
        q = q + h * (theta * vn + (1 - theta) * v)
        if direct:
            for _ in range(PASSES):
                g = G @ q + g0
                if not (index.any() and -g[index].min() > TOLERANCE):
                    break
                Ga = G[index]
                q = q + Ga.T @ murty(Ga @ Ga.T, g[index])
        v = vn
        Q.append(q), V.append(v), P.append(p)
    return np.array(Q), np.array(V), np.array(P), margin


def ball(gamma=0.5, direct=False, e=0.8, h=1e-3, stop=3.0):
    return reference(np.eye(1), np.zeros((1, 1)), np.array([-9.81]), np.eye(1), np.zeros(1),
                     np.array([e]), [1.0], [0.0], h, round(stop / h), gamma, direct)


def carts(gamma=0.5, direct=False, h=0.1, stop=10.0):
    Fq = np.array([[-2.0, 1.0], [1.0, -1.0]])
    G = np.array([[1.0, 0.0], [-1.0, 1.0]])
    return reference(np.eye(2), Fq, np.zeros(2), G, np.zeros(2), np.zeros(2), [1.0, 3.5],
                     [0.0, 0.0], h, round(stop / h), gamma, direct)


def with_scheme(model: str, lines: list[str]) -> str:
    """The bundled model's text with its [scheme] method and options replaced."""
    toml = (MODELS_DIR / f"{model}.toml").read_text()
    return re.sub(r'\[scheme\]\nmethod = "[^"]*"\n', "[scheme]\n" + "\n".join(lines) + "\n",
                  toml, count=1)


def build(lcsfmu_bin, tmp_path, name, toml):
    path = tmp_path / f"{name}.toml"
    path.write_text(toml)
    fmu = tmp_path / f"{name}.fmu"
    proc = subprocess.run([str(lcsfmu_bin), "build", str(path), "-o", str(fmu)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return fmu


# (model, scheme lines, reference, h, stop, q names, v names, percussion names)
CASES = {
    "ball gamma=0": ("bouncing_ball", ['method = "moreau-jean"', "gamma = 0.0"],
                     lambda: ball(0.0), 1e-3, 3.0, ["q"], ["v"], ["p"]),
    "ball gamma=0.5": ("bouncing_ball", ['method = "moreau-jean"', "gamma = 0.5"],
                       lambda: ball(0.5), 1e-3, 3.0, ["q"], ["v"], ["p"]),
    "ball gamma=1": ("bouncing_ball", ['method = "moreau-jean"', "gamma = 1.0"],
                     lambda: ball(1.0), 1e-3, 3.0, ["q"], ["v"], ["p"]),
    "ball direct projection": ("bouncing_ball", ['method = "moreau-jean-direct-projection"'],
                               lambda: ball(0.5, True), 1e-3, 3.0, ["q"], ["v"], ["p"]),
    "ball direct projection gamma=0": (
        "bouncing_ball", ['method = "moreau-jean-direct-projection"', "gamma = 0.0"],
        lambda: ball(0.0, True), 1e-3, 3.0, ["q"], ["v"], ["p"]),
    "carts gamma=0": ("two_carts", ['method = "moreau-jean"', "gamma = 0.0"],
                      lambda: carts(0.0), 0.1, 10.0, ["x1", "x2"], ["v1", "v2"], ["u1", "u2"]),
    "carts direct projection": ("two_carts", ['method = "moreau-jean-direct-projection"'],
                                lambda: carts(0.5, True), 0.1, 10.0, ["x1", "x2"],
                                ["v1", "v2"], ["u1", "u2"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_gamma_and_direct_projection_step_by_step(lcsfmu_bin, tmp_path, case):
    model, lines, ref, h, stop, qs, vs, ps = CASES[case]
    Q, V, P, margin = ref()
    assert margin > 1e-9, f"smallest activation margin {margin:g}"
    fmu = build(lcsfmu_bin, tmp_path, model, with_scheme(model, lines))
    r = cosim(fmu, output_interval=h, stop_time=stop, output=qs + vs + ps)
    assert len(r) == len(Q)
    assert_close(np.array([r[n] for n in qs]).T, Q, REL, "q")
    assert_close(np.array([r[n] for n in vs]).T, V, REL, "v")
    assert_close(np.array([r[n] for n in ps]).T, P, REL, "percussions")
    # The run exercises the contacts: impacts on several steps.
    assert (P > 0).any(axis=1).sum() >= 2


def test_gamma_zero_activates_on_a_closed_gap():
    """gamma = 0: the first percussion comes on the step after the one whose end has q <= 0
    (a closed gap), never earlier; gamma = 1/2 can act a step before, and the runs part."""
    Q0, _, P0, _ = ball(0.0)
    Qh, _, _, _ = ball(0.5)
    first = int(np.flatnonzero(P0[:, 0] > 0)[0])
    assert Q0[first - 1, 0] <= 0.0 < Q0[first - 2, 0]
    assert Q0[:, 0].min() <= Qh[:, 0].min() < 0.0
    assert np.abs(Q0 - Qh).max() > 1e-3
