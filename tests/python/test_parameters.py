"""Parameters and start values set through simulate_fmu(start_values=...) change the result as
the exact solution (or the scheme, where it is exact) says.

Contents
  test_friction_stop_time_and_distance_follow_parameters   t* = v0/(mu g), x* = v0^2/(2 mu g), O(h)
  test_friction_larger_mu_stops_earlier_than_smaller       mu = 5 slides longer than mu = 10
  test_friction_applied_force_beyond_static_limit          constant acceleration (F_a - mu m g)/m
  test_friction_applied_force_within_static_limit_sticks   at rest, F_f = -F_a
  test_spiral_other_start_reaches_origin_near_exact_time   first zero in [t* - 5h, t*], t* = |x0|_1/2
  test_rlc_other_parameters_keep_complementarity           u_D >= 0, y >= 0, u_D y = 0, BE residual
  test_saturated_integrator_other_limits                   y in [L, U], limit reached, clamp recurrence
"""
import math

import numpy as np
import pytest

from conftest import (ZERO, assert_close, comm_times, cosim, first_index, sampled_input,
                      zero_from)


# --------------------------------------------------------------------------- friction

@pytest.mark.parametrize("m, g, mu, v0", [
    (100.0, 9.81, 5.0, 100.0),
    (50.0, 9.81, 10.0, 100.0),
    (100.0, 1.62, 10.0, 30.0),
])
def test_friction_stop_time_and_distance_follow_parameters(fmus, m, g, mu, v0):
    h, stop = 0.05, 5.0
    r = cosim(fmus["coulomb_friction"], stop_time=stop, output_interval=h,
              start_values={"m": m, "g": g, "mu": mu, "v": v0})
    t_star, x_star = v0 / (mu * g), v0 ** 2 / (2 * mu * g)
    assert t_star < stop - 2 * h
    k = zero_from(r["v"])
    assert k is not None and k > 0, "the block never sticks"
    # backward Euler: v_{k+1} = max(v_k - h mu g, 0) stops at the first t_k >= t*
    assert t_star <= r["time"][k] + 1e-12 and r["time"][k] < t_star + h
    # x_N = right Riemann sum of the decreasing v: in [x* - h v0, x*]
    assert x_star - h * v0 <= r["x"][-1] <= x_star + 1e-9
    assert_close(r["F_f"][r["v"] > ZERO], np.full((r["v"] > ZERO).sum(), -mu * m * g), 1e-9,
                 "F_f = -mu m g while sliding")


def test_friction_larger_mu_stops_earlier_than_smaller(fmus):
    runs = {mu: cosim(fmus["coulomb_friction"], output_interval=0.2, start_values={"mu": mu})
            for mu in (5.0, 10.0)}
    k5, k10 = zero_from(runs[5.0]["v"]), zero_from(runs[10.0]["v"])
    assert k10 == 6  # validation.md, h = 0.2
    assert k5 is not None and k5 > k10
    assert runs[5.0]["x"][-1] > runs[10.0]["x"][-1]


@pytest.mark.parametrize("f_a, v0", [(20000.0, 100.0), (20000.0, 0.0), (-15000.0, 0.0)])
def test_friction_applied_force_beyond_static_limit(fmus, f_a, v0):
    m, g, mu, h = 100.0, 9.81, 10.0, 0.2
    f_max = mu * m * g
    assert abs(f_a) > f_max
    r = cosim(fmus["coulomb_friction"], output_interval=h, start_values={"F_a": f_a, "v": v0})
    direction = math.copysign(1.0, f_a)
    accel = (f_a - direction * f_max) / m
    k = np.arange(len(r))
    assert_close(r["v"], v0 + k * h * accel, 1e-9, "v_k = v0 + k h (F_a -+ mu m g)/m")
    # friction opposes the motion at full strength on every step
    assert_close(r["F_f"][1:], np.full(len(r) - 1, -direction * f_max), 1e-9, "F_f")


@pytest.mark.parametrize("f_a", [5000.0, -9000.0])
def test_friction_applied_force_within_static_limit_sticks(fmus, f_a):
    r = cosim(fmus["coulomb_friction"], output_interval=0.2, start_values={"F_a": f_a, "v": 0.0})
    assert np.all(np.abs(r["v"]) <= ZERO) and np.all(np.abs(r["x"]) <= ZERO)
    assert_close(r["F_f"][1:], np.full(len(r) - 1, -f_a), 1e-9, "static friction = -F_a")


# ----------------------------------------------------------------------------- spiral

@pytest.mark.parametrize("x0", [(2.0, 0.0), (0.5, -1.5), (-3.0, 1.0)])
@pytest.mark.parametrize("h", [0.2, 0.01])
def test_spiral_other_start_reaches_origin_near_exact_time(fmus, x0, h):
    t_star = (abs(x0[0]) + abs(x0[1])) / 2  # ||x(t)||_1 = max(||x0||_1 - 2t, 0)
    stop = t_star + 1.0
    r = cosim(fmus["sign_spiral"], stop_time=stop, output_interval=h,
              start_values={"x1": x0[0], "x2": x0[1]})
    assert (r["x1"][0], r["x2"][0]) == x0
    norm = np.maximum(np.abs(r["x1"]), np.abs(r["x2"]))
    k = first_index(norm <= ZERO)
    assert k is not None, "the origin is never reached"
    assert t_star - 5 * h <= r["time"][k] <= t_star + 1e-12
    assert zero_from(norm) == k


# -------------------------------------------------------------------------------- RLC

@pytest.mark.parametrize("R, L, C", [(2.0, 0.5, 0.25), (0.5, 2.0, 1.0), (3.0, 1.0, 0.1)])
def test_rlc_other_parameters_keep_complementarity(fmus, R, L, C):
    h = 1e-3
    r = cosim(fmus["rlc_diode"], output_interval=h, start_values={"R": R, "L": L, "C": C})
    assert len(r) == 5001
    i, q, u = r["i_L"], r["q_C"], r["u_D"]
    y = i - q / (R * C) + u / R  # diode current
    scale = max(1.0, np.abs(u).max()) * max(1.0, np.abs(y).max())
    assert np.all(u >= 0)
    assert np.all(y >= -1e-9), y.min()
    assert np.all(np.abs(u * y) <= 1e-9 * scale)
    # both diode modes occur, so the check is not vacuous
    assert np.any(u > 1e-6) and np.any(y > 1e-6)
    # the new parameters reached the dynamics: backward Euler residual with A, B of R, L, C
    di = (-q[1:] / (L * C) + u[1:] / L)
    dq = (i[1:] - q[1:] / (R * C) + u[1:] / R)
    assert_close(i[1:], i[:-1] + h * di, 1e-9, "i_L step")
    assert_close(q[1:], q[:-1] + h * dq, 1e-9, "q_C step")


# --------------------------------------------------------------- saturated integrator

@pytest.mark.parametrize("lo, hi", [(-0.5, 0.2), (-0.1, 0.5), (-0.05, 0.05)])
def test_saturated_integrator_other_limits(fmus, lo, hi):
    h, stop = 0.01, 10.0
    times = comm_times(0.0, stop, h)
    r = cosim(fmus["saturated_integrator"], output_interval=h, start_values={"L": lo, "U": hi},
              input=sampled_input("x", np.sin, times))
    y = r["y"]
    assert np.all(y >= lo) and np.all(y <= hi), (y.min(), y.max())
    assert y.max() == hi and y.min() == lo
    ref = [0.0]
    for t in times[:-1]:
        ref.append(min(max(ref[-1] + h * math.sin(t), lo), hi))
    assert_close(y, ref, 1e-12, "clamp recurrence with the new limits")
