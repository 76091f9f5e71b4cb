"""The event-driven scheme on a nonlinear first-order model (src/scheme/mode/nonlinear.rs):
vdp_saturation with method = "event-driven" against an independent integration with SciPy.

The reference integrates x1' = x2, x2' = mu (1 - x1^2) x2 - x1 + u, u = clamp(-k x2, -umax,
umax) piecewise with solve_ivp (DOP853, rtol = atol = 1e-13), one mode at a time (u fixed at a
limit, or u = -k x2), with terminal events where -k x2 reaches a limit: the switching times
and the state between them, independent of lcsfmu's Runge-Kutta pair, Hermite interpolant,
Brent and Newton iteration.

Contents
  test_states_match_solve_ivp        x1, x2 at every output point of [0, 20]: 1e-8 (tight run; measured 9.9e-10)
  test_switching_times               u inside / at its limit 1e-6 before / after each reference
                                     switch (11 on [0, 20])
  test_default_tolerances_error      the default rtol 1e-6 run: error below 1e-4, above the tight
                                     run's (the tolerance does something)
"""
import subprocess

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from conftest import MODELS_DIR, assert_close, read_csv

MU, K, UMAX = 1.0, 2.0, 0.5
STOP = 20.0


def reference():
    """(event times, dense pieces [(t0, t1, sol)]) of the piecewise integration."""
    def field(mode):
        def f(_t, x):
            u = {1: UMAX, -1: -UMAX, 0: -K * x[1]}[mode]
            return [x[1], MU * (1 - x[0] ** 2) * x[1] - x[0] + u]
        return f

    def crossing(limit, direction):
        """-k x2 crossing `limit` in `direction` (+1 upwards, -1 downwards)."""
        def g(_t, x):
            return -K * x[1] - limit
        g.terminal, g.direction = True, direction
        return g

    # The guards of each mode and the mode each one leads to.
    guards = {0: [(crossing(UMAX, 1), 1), (crossing(-UMAX, -1), -1)],
              1: [(crossing(UMAX, -1), 0)],
              -1: [(crossing(-UMAX, 1), 0)]}
    t, x, mode = 0.0, np.array([2.0, 0.0]), 0
    events, pieces = [], []
    while True:
        sol = solve_ivp(field(mode), (t, STOP), x, method="DOP853", rtol=1e-13, atol=1e-13,
                        events=[g for g, _ in guards[mode]], dense_output=True)
        assert sol.success
        pieces.append((t, sol.t[-1], sol.sol))
        if sol.status == 0:
            return np.array(events), pieces
        fired = [k for k, te in enumerate(sol.t_events) if len(te)]
        t, x, mode = sol.t[-1], sol.y[:, -1], guards[mode][fired[0]][1]
        events.append(t)


def ref_state(pieces, t):
    for t0, t1, sol in pieces:
        if t0 <= t <= t1:
            return sol(t)
    raise AssertionError(f"no piece holds {t}")


@pytest.fixture(scope="module")
def ref():
    return reference()


def model_file(tmp_path, rtol, atol):
    text = (MODELS_DIR / "vdp_saturation.toml").read_text()
    text = text.replace('method = "theta"',
                        f'method = "event-driven"\nrtol = {rtol:e}\natol = {atol:e}')
    assert 'method = "event-driven"' in text
    path = tmp_path / "vdp_ed.toml"
    path.write_text(text)
    return path


def simulate(lcsfmu_bin, model, out, *extra):
    proc = subprocess.run([str(lcsfmu_bin), "simulate", str(model), "-o", str(out), *extra],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return read_csv(out)


def max_error(r, pieces):
    exact = np.array([ref_state(pieces, t) for t in r["time"]])
    return np.max(np.abs(np.stack([r["x1"], r["x2"]], axis=1) - exact))


def test_states_match_solve_ivp(lcsfmu_bin, tmp_path, ref):
    events, pieces = ref
    assert len(events) == 11, events
    r = simulate(lcsfmu_bin, model_file(tmp_path, 1e-10, 1e-12), tmp_path / "out.csv")
    exact = np.array([ref_state(pieces, t) for t in r["time"]])
    assert_close(r["x1"], exact[:, 0], 1e-8, "x1")
    assert_close(r["x2"], exact[:, 1], 1e-8, "x2")
    # the saturation's output is the clamp of -k x2 at every point
    assert_close(r["u"], np.clip(-K * r["x2"], -UMAX, UMAX), 1e-12, "u")


def test_switching_times(lcsfmu_bin, tmp_path, ref):
    events, _ = ref
    model = model_file(tmp_path, 1e-10, 1e-12)

    def u_at(t):
        r = simulate(lcsfmu_bin, model, tmp_path / "s.csv", "--stop", repr(float(t)))
        assert abs(r["time"][-1] - t) <= 1e-12
        return r["u"][-1]

    for te in events:
        before, after = u_at(te - 1e-6), u_at(te + 1e-6)
        at_limit = [abs(abs(u) - UMAX) <= 1e-12 for u in (before, after)]
        assert at_limit[0] != at_limit[1], f"switch at {te}: u = {before} then {after}"


def test_default_tolerances_error(lcsfmu_bin, tmp_path, ref):
    _, pieces = ref
    loose = simulate(lcsfmu_bin, model_file(tmp_path, 1e-6, 1e-9), tmp_path / "l.csv")
    tight = simulate(lcsfmu_bin, model_file(tmp_path, 1e-10, 1e-12), tmp_path / "t.csv")
    e_loose, e_tight = max_error(loose, pieces), max_error(tight, pieces)
    print(f"vdp_saturation event-driven: max error {e_loose:.3e} (rtol 1e-6), "
          f"{e_tight:.3e} (rtol 1e-10)")
    assert e_loose <= 1e-4
    assert e_tight < e_loose / 100
