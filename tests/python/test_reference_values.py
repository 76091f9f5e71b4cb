"""The numbers of ../shared/validation.md, reproduced through FMPy's simulate_fmu in
co-simulation (output_interval = communication step = the scheme's h).

Tolerances (validation.md): same scheme and h: 1e-9 * max(1, |ref|) at every step and discrete
outcomes identical; against the exact solution: the O(h) bound stated per case.

Contents
  Sign spiral (§1)
    test_spiral_h02_steps_and_first_zero         x_1..x_4, zero from index 4 on
    test_spiral_h001_first_zero_and_x50          first zero index 96, x_50 = (0.16, 0.82)
    test_spiral_first_zero_time_within_exact_bound   first zero time in [1 - 5h, 1]
    test_spiral_backward_euler_and_sign_law      x_{k+1} = x_k + h M u_{k+1}, u in Sign(x_{k+1})
  Coulomb friction (§3)
    test_friction_h02_velocity_sequence_and_stick     v sequence, stick from step 6, x = 41.14
    test_friction_h01_and_h001_stick_step_and_position   step 11 / x = 46.045; step 102 / 50.46869
    test_friction_net_force                       F_f = -mu m g while sliding, momentum balance
  RLC circuit with an ideal diode (§4)
    test_rlc_error_against_exact_solution         <= 0.55 h at t = 1, 2, 5; 3.30e-4 within 5 %
    test_rlc_diode_switch_and_complementarity     conducting before / blocking after 1.2091996
  Saturated integrator (§5)
    test_saturated_integrator_clamp_recurrence    y in [L, U] exactly, clamp recurrence to 1e-12
    test_saturated_integrator_against_stop_operator   exact stop-operator values within O(h)
"""
import math

import numpy as np
import pytest

from conftest import ZERO, assert_close, comm_times, cosim, first_index, sampled_input, zero_from

REL = 1e-9  # same scheme, same h

# ---------------------------------------------------------------------------- spiral

SPIRAL_M = np.array([[-1.0, 2.0], [-2.0, -1.0]])


def spiral(fmus, h, **kwargs):
    r = cosim(fmus["sign_spiral"], output_interval=h, **kwargs)
    assert_close(r["time"], comm_times(0.0, 2.0, h), 0.0, "communication points")
    return r


def inf_norm(r):
    return np.maximum(np.abs(r["x1"]), np.abs(r["x2"]))


def test_spiral_h02_steps_and_first_zero(fmus):
    r = spiral(fmus, 0.2)
    assert len(r) == 11
    expected = [(-1.0, 1.0), (-0.4, 1.2), (0.0, 1.0), (0.2, 0.4), (0.0, 0.0)]
    for k, (x1, x2) in enumerate(expected):
        assert_close([r["x1"][k], r["x2"][k]], [x1, x2], REL, f"x_{k}")
    assert first_index(inf_norm(r) <= ZERO) == 4
    assert zero_from(inf_norm(r)) == 4, "the origin is reached at t = 0.8 and kept"


def test_spiral_h001_first_zero_and_x50(fmus):
    r = spiral(fmus, 0.01)
    assert len(r) == 201
    assert_close([r["x1"][50], r["x2"][50]], [0.16, 0.82], REL, "x_50")
    assert first_index(inf_norm(r) <= ZERO) == 96
    assert zero_from(inf_norm(r)) == 96


@pytest.mark.parametrize("h", [0.2, 0.1, 0.05, 0.01])
def test_spiral_first_zero_time_within_exact_bound(fmus, h):
    # exact: ||x(t)||_1 = max(2 - 2t, 0), origin at t* = 1; backward Euler is early by < 5h
    r = spiral(fmus, h)
    k = first_index(inf_norm(r) <= ZERO)
    assert k is not None, "the origin is never reached"
    assert 1.0 - 5 * h <= r["time"][k] <= 1.0
    assert zero_from(inf_norm(r)) == k


@pytest.mark.parametrize("h", [0.2, 0.01])
def test_spiral_backward_euler_and_sign_law(fmus, h):
    r = spiral(fmus, h)
    x = np.stack([r["x1"], r["x2"]], axis=1)
    u = np.stack([r["u1"], r["u2"]], axis=1)
    # the scheme: x_{k+1} = x_k + h M u_{k+1}
    assert_close(x[1:], x[:-1] + h * u[1:] @ SPIRAL_M.T, 1e-12, "backward Euler step")
    # box law -1 <= u <= 1 complementary to -x: u_i = sign(x_i) whenever x_i != 0
    assert np.all(np.abs(u) <= 1.0 + 1e-12)
    moving = np.abs(x[1:]) > ZERO
    assert_close(u[1:][moving], np.sign(x[1:][moving]), 1e-12, "u = sign(x) off zero")


# --------------------------------------------------------------------------- friction

M, G, MU = 100.0, 9.81, 10.0


def friction(fmus, h, **kwargs):
    r = cosim(fmus["coulomb_friction"], output_interval=h, **kwargs)
    assert_close(r["time"], comm_times(0.0, kwargs.get("stop_time", 5.0), h), 0.0,
                 "communication points")
    return r


def test_friction_h02_velocity_sequence_and_stick(fmus):
    r = friction(fmus, 0.2)
    assert len(r) == 26
    assert_close(r["v"][:6], [100, 80.38, 60.76, 41.14, 21.52, 1.90], REL, "v_0..v_5")
    assert abs(r["v"][5]) > ZERO
    assert zero_from(r["v"]) == 6, "v exactly 0 from step 6 (t = 1.2) on"
    assert_close(r["x"][-1], 41.14, REL, "final x")
    assert_close(r["x"][6:], np.full(len(r) - 6, 41.14), REL, "x while sticking")


@pytest.mark.parametrize("h, stick_step, x_final, x_tol", [
    (0.1, 11, 46.045, REL * 46.045),
    (0.01, 102, 50.46869, 5e-6),  # validation.md gives 7 significant digits
])
def test_friction_h01_and_h001_stick_step_and_position(fmus, h, stick_step, x_final, x_tol):
    r = friction(fmus, h)
    assert zero_from(r["v"]) == stick_step
    assert abs(r["v"][stick_step - 1]) > ZERO
    assert abs(r["x"][-1] - x_final) <= x_tol, r["x"][-1]
    # exact: stop at t = v0/(mu g) = 1.0193680, x = 50.968400; backward Euler stops in
    # [t*, t* + h) and its right Riemann sum of the decreasing v lies in [x* - h v0, x*]
    assert 1.0193680 <= r["time"][stick_step] < 1.0193680 + h
    assert 50.968400 - h * 100 <= r["x"][-1] <= 50.968400


@pytest.mark.parametrize("h", [0.2, 0.1])
def test_friction_net_force(fmus, h):
    r = friction(fmus, h)
    f_max = MU * M * G
    ff = r["F_f"]
    # F_f is the named output F_plus - F_minus; only the net force is compared
    assert_close(ff, r["F_plus"] - r["F_minus"], 1e-12 * f_max, "F_f = F_plus - F_minus")
    assert np.all(r["F_plus"] >= 0) and np.all(r["F_minus"] >= 0)
    assert np.all(np.abs(ff) <= f_max * (1 + 1e-12))
    sliding = r["v"] > ZERO
    assert sliding.sum() == zero_from(r["v"])
    assert_close(ff[sliding], np.full(sliding.sum(), -f_max), REL, "F_f while sliding")
    # momentum balance of each step (F_a = 0): v_{k+1} = v_k + (h/m) F_f,{k+1}
    assert_close(r["v"][1:], r["v"][:-1] + h / M * ff[1:], REL, "momentum balance")
    # sticking with no applied force: zero net friction after the stopping step
    k = zero_from(r["v"])
    assert np.all(np.abs(ff[k + 1:]) <= 1e-9 * f_max)
    # v_abs (unique) is |v|
    assert_close(r["v_abs"], np.abs(r["v"]), REL, "v_abs = |v|")


# -------------------------------------------------------------------------------- RLC

T_SWITCH = 1.2091996
RLC_EXACT = {1.0: (0.65970015, 0.53350720), 2.0: (0.24773387, 0.54629302),
             5.0: (0.01233394, 0.54629302)}


@pytest.fixture(scope="module")
def rlc_default(fmus):
    h = 1e-3
    # output_interval must be given: FMPy's default doubles stepSize until <= 1000 steps
    r = cosim(fmus["rlc_diode"], output_interval=h)
    assert len(r) == 5001
    assert_close(r["time"], comm_times(0.0, 5.0, h), 0.0, "communication points")
    return h, r


def test_rlc_error_against_exact_solution(rlc_default):
    h, r = rlc_default
    errors = []
    for t, (i_exact, q_exact) in RLC_EXACT.items():
        k = int(round(t / h))
        assert r["time"][k] == t
        err = max(abs(r["i_L"][k] - i_exact), abs(r["q_C"][k] - q_exact))
        assert err <= 0.55 * h, f"error {err} at t = {t}"
        errors.append(err)
    assert abs(max(errors) - 3.30e-4) <= 0.05 * 3.30e-4, errors


def test_rlc_diode_switch_and_complementarity(rlc_default):
    h, r = rlc_default
    t, u = r["time"], r["u_D"]
    R = C = 1.0
    y = r["i_L"] - r["q_C"] / (R * C) + u / R  # diode current, from the outputs
    assert np.all(u >= 0)
    assert np.all(y >= -1e-9), y.min()
    assert np.all(np.abs(u * y) <= 1e-9), np.abs(u * y).max()
    # discrete outcome: conducting (u_D = 0) before the exact switch, blocking after it
    assert np.all(u[t < T_SWITCH] <= ZERO)
    assert np.all(u[t > T_SWITCH] > 0)
    # blocking: zero diode current, so backward Euler keeps q_C exactly
    blocking = t > T_SWITCH
    assert np.all(np.abs(y[blocking]) <= 1e-12)
    q = r["q_C"][blocking]
    assert_close(q, np.full(q.size, q[0]), 1e-12, "q_C while blocking")
    assert abs(q[0] - 0.54629302) <= 0.55 * h


# -------------------------------------------------------------- saturated integrator

SAT_L, SAT_U = -0.5, 0.5
SAT_EXACT = {1.0: 0.45969769, 4.0: 0.15364362, 5.0: -0.5, 7.0: -0.25390225, 10.0: 0.33907153}


def stop_operator_sin(t: float) -> float:
    """Exact solution for x = sin t, y(0) = 0, [L, U] = [-0.5, 0.5] (validation.md §5)."""
    if t <= math.pi / 3:
        return 1 - math.cos(t)
    if t <= math.pi:
        return 0.5
    s = (t - math.pi) % (2 * math.pi) + math.pi  # period 2 pi from pi on
    if s <= 1.5 * math.pi:
        return -0.5 - math.cos(s)
    if s <= 2 * math.pi:
        return -0.5
    if s <= 2.5 * math.pi:
        return 0.5 - math.cos(s)
    return 0.5


@pytest.fixture(scope="module")
def saturated_sin(fmus):
    h, stop = 0.01, 10.0
    times = comm_times(0.0, stop, h)
    r = cosim(fmus["saturated_integrator"], output_interval=h,
              input=sampled_input("x", np.sin, times))
    assert_close(r["time"], times, 0.0, "communication points")
    return h, times, r


def test_saturated_integrator_clamp_recurrence(saturated_sin):
    h, times, r = saturated_sin
    y = r["y"]
    assert np.all(y >= SAT_L) and np.all(y <= SAT_U), "y leaves [L, U]"
    assert y.min() == SAT_L and y.max() == SAT_U, "both limits are reached with sin t"
    # one step of the FMU from its own y_k, input held at x(t_k)
    one_step = np.clip(y[:-1] + h * np.sin(times[:-1]), SAT_L, SAT_U)
    assert_close(y[1:], one_step, 1e-12, "y_{k+1} = clamp(y_k + h x(t_k), L, U)")
    # and the recurrence run independently from y_0 = 0
    ref = [0.0]
    for t in times[:-1]:
        ref.append(min(max(ref[-1] + h * math.sin(t), SAT_L), SAT_U))
    assert_close(y, ref, 1e-12, "independent clamp recurrence")
    # the forces keep y at a limit only: 0 <= y - L ⟂ k >= 0, 0 <= U - y ⟂ l >= 0
    assert np.all(r["k"] >= 0) and np.all(r["l"] >= 0)
    assert np.all(np.abs(r["k"] * (y - SAT_L)) <= 1e-12)
    assert np.all(np.abs(r["l"] * (SAT_U - y)) <= 1e-12)


def test_saturated_integrator_against_stop_operator(saturated_sin):
    h, times, r = saturated_sin
    # O(h) bound. At the nodes the FMU's y_k is exactly the stop operator S applied to
    # w_h = integral of the held input x_h(t) = x(t_k) on [t_k, t_k+1) (with a constant rate
    # the clamp of the step IS the exact stop over the step). S is Lipschitz with constant 2
    # in the sup norm (S = w - P with the play P 1-Lipschitz), so |y_k - y(t_k)| <= 2 sup|w_h - w|.
    # w_h - w at a node is the left Riemann sum error of sin: -(h/2)(x(t_k) - x(0)) plus the
    # trapezoid error <= T h^2 max|x''| / 12; between nodes add <= h^2 max|x'| / 2. With
    # |x|, |x'|, |x''| <= 1 and T = 10:  bound = 2 (h/2 + h^2 (T/12 + 1/2)) ~= 0.0103.
    T = 10.0
    bound = 2 * (h / 2 + h * h * (T / 12 + 0.5))
    for t, y_exact in SAT_EXACT.items():
        k = int(round(t / h))
        assert times[k] == t
        assert abs(stop_operator_sin(t) - y_exact) <= 1e-8  # the formula matches the table
        assert abs(r["y"][k] - y_exact) <= bound, (t, r["y"][k], y_exact)
    exact = np.array([stop_operator_sin(t) for t in times])
    assert np.max(np.abs(r["y"] - exact)) <= bound
