"""Nonlinear first-order models and sources in time (the Newton step) through built FMUs and
FMPy, against scipy's solve_ivp.

Contents
  test_vdp_saturation_converges_at_first_order     vs solve_ivp: O(h), h = 0.01 and 0.005
  test_vdp_saturation_laws_hold_at_every_sample    u = sat(-k x2), the energy output
  test_theta_orders_on_a_smooth_nonlinear_phase    k = 0: order 1 (theta = 1), 2 (theta = 1/2)
  test_buck_pwm_average_is_d_vin                   mean vC over ten periods vs d Vin
  test_check_names_the_nonlinear_parts             lcsfmu check: der(x2), sparsity, Newton LCP
"""
import subprocess

import numpy as np
from scipy.integrate import solve_ivp

from conftest import MODELS_DIR, assert_close, comm_times, cosim

MU, K, UMAX = 1.0, 2.0, 0.5


def sat(v):
    return np.clip(v, -UMAX, UMAX)


def vdp(t, x):
    return [x[1], MU * (1 - x[0] ** 2) * x[1] - x[0] + sat(-K * x[1])]


def test_vdp_saturation_converges_at_first_order(fmus):
    # The right-hand side is Lipschitz (the saturation is continuous): DOP853 at rtol 1e-10
    # is far more accurate than the O(h) errors of backward Euler measured here.
    ref = solve_ivp(vdp, (0.0, 10.0), [2.0, 0.0], method="DOP853", rtol=1e-10, atol=1e-12,
                    dense_output=True)
    assert ref.success
    errors = {}
    for h in (0.01, 0.005):
        r = cosim(fmus["vdp_saturation"], stop_time=10.0, output_interval=h)
        assert_close(r["time"], comm_times(0.0, 10.0, h), 0.0, "communication points")
        x = ref.sol(r["time"])
        errors[h] = max(np.abs(r["x1"] - x[0]).max(), np.abs(r["x2"] - x[1]).max())
    ratio = errors[0.01] / errors[0.005]
    assert 1.7 < ratio < 2.3, (errors, ratio)
    assert errors[0.01] < 0.1, errors


def test_vdp_saturation_laws_hold_at_every_sample(fmus):
    r = cosim(fmus["vdp_saturation"], output_interval=0.01)
    # The Newton iteration converges to 1e-10 of the terms' size, far below 1e-9 here.
    assert_close(r["u"], sat(-K * r["x2"]), 1e-9, "u = saturation(-k x2)")
    assert_close(r["energy"], 0.5 * (r["x1"] ** 2 + r["x2"] ** 2), 1e-12, "energy output")
    assert (np.abs(r["u"]) >= UMAX - 1e-9).any(), "the saturation is reached"


def test_theta_orders_on_a_smooth_nonlinear_phase(lcsfmu_bin, tmp_path):
    # Without feedback (k = 0) Van der Pol is smooth and the pairs stay at rest; with the
    # feedback on, the block output is a multiplier acting over the whole step, which makes
    # the loop first order whatever theta (as in the linear scheme).
    ref = solve_ivp(lambda t, x: [x[1], MU * (1 - x[0] ** 2) * x[1] - x[0]], (0.0, 2.0),
                    [2.0, 0.0], method="DOP853", rtol=1e-12, atol=1e-13, dense_output=True)
    assert ref.success
    text = (MODELS_DIR / "vdp_saturation.toml").read_text()
    for theta, order in (("1.0", 1.0), ("0.5", 2.0)):
        toml = tmp_path / f"vdp_theta_{theta}.toml"
        toml.write_text(text.replace("theta = 1.0", f"theta = {theta}"))
        fmu = tmp_path / f"vdp_theta_{theta}.fmu"
        subprocess.run([lcsfmu_bin, "build", str(toml), "-o", str(fmu)], check=True,
                       capture_output=True)
        errors = []
        for h in (0.01, 0.005):
            r = cosim(fmu, stop_time=2.0, output_interval=h, start_values={"k": 0.0})
            x = ref.sol(r["time"][-1])
            errors.append(max(abs(r["x1"][-1] - x[0]), abs(r["x2"][-1] - x[1])))
        observed = np.log2(errors[0] / errors[1])
        print(f"theta = {theta}: errors {errors}, order {observed:.3f}")
        assert abs(observed - order) < 0.1, (theta, errors, observed)


def test_buck_pwm_average_is_d_vin(fmus):
    r = cosim(fmus["buck_pwm"], output_interval=1e-6)
    last = r["time"] >= r["time"][-1] - 10 * 1e-4
    vc = r["vC"][last]
    ripple = vc.max() - vc.min()
    assert abs(vc.mean() - 0.5 * 12.0) <= ripple, (vc.mean(), ripple)
    assert abs(r["switch"][last].mean() - 0.5) < 0.011


def test_check_names_the_nonlinear_parts(lcsfmu_bin):
    out = subprocess.run([lcsfmu_bin, "check", str(MODELS_DIR / "vdp_saturation.toml")],
                         capture_output=True, text=True, check=True).stdout
    assert "der(x2) += mu*(1 - x1^2)*x2" in out
    assert "Jacobian sparsity" in out and "df/dx" in out
    assert "LCP of the first Newton iteration" in out
    out = subprocess.run([lcsfmu_bin, "check", str(MODELS_DIR / "buck_pwm.toml")],
                         capture_output=True, text=True, check=True).stdout
    assert "[reads time]" in out
