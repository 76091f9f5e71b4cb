"""Runs that cannot go on: infeasible step LCPs end with fmi2Discard + terminated = true (FMPy
then stops and records the last successful time), impossible parameters fail initialization
with fmi2Error. Nothing may crash the Python process.

FMPy 0.3.32 on Discard: asks fmi2GetBooleanStatus(fmi2Terminated); if true it samples the
outputs once more at fmi2GetRealStatus(fmi2LastSuccessfulTime) and returns the shortened result
(so the last row repeats the last successful one); if false it would retry the step forever,
which the `timeout` of conftest.cosim turns into a failing assertion here.

Contents
  test_discard_mid_run_rlc_negative_resistance       R = -1: shortened result, terminated,
                                                     last time == LastSuccessfulTime, LCP
                                                     infeasible at that state (checked by hand)
  test_discard_at_first_step                         friction mu < 0, saturated integrator L > U
  test_cli_stops_at_the_same_point_as_fmpy           `lcsfmu simulate` writes the same rows, exit 1
  test_after_discard_only_queries_terminate_reset    doStep refused; getReal, terminate, reset work
  test_state_restored_after_discard_replays_to_same_discard   setFMUstate revives the instance
  test_initialization_error_raises                   R = 0, L = 0: non-finite matrices
  test_fixed_variables_refused_after_initialization  parameters and states: fmi2Error once running
  test_box_bounds_not_an_interval_raise              scaled_spiral with a < 0: lo > hi
  test_scaled_box_bounds_change_the_result           scaled_spiral with a = 2 reaches 0 at t* / 2
"""
import numpy as np
import pytest
from fmpy.fmi1 import FMICallException

from conftest import (ZERO, assert_same_results, comm_times, cosim, first_index,
                      fmi2LastSuccessfulTime, fmi2Terminated, run_cli, zero_from, bits)

fmi2Discard, fmi2Error = 2, 3


def simulate_on_instance(slave, fmu, **kwargs):
    """simulate_fmu on an instance we own, not terminated, so its status can be queried."""
    return cosim(fmu, fmu_instance=slave.fmu, terminate=False, **kwargs)


def rlc_step_lcp(state, R, L, C, h):
    """The scalar LCP w = a + b u of one backward Euler step of the RLC circuit from `state`."""
    A = np.array([[0.0, -1 / (L * C)], [1.0, -1 / (R * C)]])
    B = np.array([1 / L, 1 / R])
    Cr = np.array([1.0, -1 / (R * C)])
    Winv = np.linalg.inv(np.eye(2) - h * A)
    return Cr @ Winv @ state, h * Cr @ Winv @ B + 1 / R


def scalar_lcp_feasible(a, b):
    # 0 <= a + b u ⟂ u >= 0 has a solution iff a >= 0 or b > 0
    return a >= 0 or b > 0


def test_discard_mid_run_rlc_negative_resistance(fmus, slaves):
    h, stop = 1e-3, 5.0
    s = slaves(fmus["rlc_diode"])
    r = simulate_on_instance(s, fmus["rlc_diode"], output_interval=h, stop_time=stop,
                             start_values={"R": -1.0})
    assert s.fmu.getBooleanStatus(fmi2Terminated) is True
    t_last = s.fmu.getRealStatus(fmi2LastSuccessfulTime)
    assert 1.0 < r["time"][-1] < stop, "the run is shortened, not empty"
    assert r["time"][-1] == t_last
    # FMPy's extra sample at the last successful time repeats the last row
    assert bits(list(r[-1])) == bits(list(r[-2]))
    k = len(r) - 2  # index of the last successful communication point
    assert r["time"][k] == comm_times(0.0, stop, h)[k]
    # the FMU kept the state of the last successful time
    assert bits(s.outputs()) == bits([r[n][-1] for n in s.output_names])
    # independent check: the step from x_k has no solution, the one from x_{k-1} had one
    step = (k + 1) * h - k * h
    x_k = np.array([r["i_L"][k], r["q_C"][k]])
    x_prev = np.array([r["i_L"][k - 1], r["q_C"][k - 1]])
    assert not scalar_lcp_feasible(*rlc_step_lcp(x_k, -1.0, 1.0, 1.0, step))
    assert scalar_lcp_feasible(*rlc_step_lcp(x_prev, -1.0, 1.0, 1.0, step))
    s.fmu.terminate()


@pytest.mark.parametrize("model, start_values", [
    ("coulomb_friction", {"mu": -1.0}),
    ("saturated_integrator", {"L": 1.0, "U": 0.0}),
    ("saturated_integrator", {"L": 0.6, "U": 0.5}),
])
def test_discard_at_first_step(fmus, slaves, model, start_values):
    # no multipliers exist at all: initialization only warns, the first step is discarded
    s = slaves(fmus[model])
    r = simulate_on_instance(s, fmus[model], start_values=start_values)
    assert s.fmu.getBooleanStatus(fmi2Terminated) is True
    assert s.fmu.getRealStatus(fmi2LastSuccessfulTime) == 0.0
    assert list(r["time"]) == [0.0, 0.0]
    initial = {v.name: float(v.start) for v in s.md.modelVariables
               if v.causality == "output" and v.initial == "exact"}
    initial.update({k: v for k, v in start_values.items() if k in initial})
    for name, value in initial.items():
        assert list(r[name]) == [value, value], f"{name} moved"
    s.fmu.terminate()


@pytest.mark.parametrize("model, start_values, step", [
    ("rlc_diode", {"R": -1.0}, 1e-3),
    ("saturated_integrator", {"L": 1.0, "U": 0.0}, None),
])
def test_cli_stops_at_the_same_point_as_fmpy(fmus, lcsfmu_bin, tmp_path, model, start_values,
                                            step):
    kwargs = {"output_interval": step} if step else {}
    ref = cosim(fmus[model], start_values=start_values, **kwargs)
    proc, cli = run_cli(lcsfmu_bin, fmus[model], tmp_path, sets=start_values, step=step,
                        expect_ok=False)
    assert proc.returncode != 0
    assert "stopped early" in proc.stderr
    assert cli is not None, "the rows before the failure are written"
    assert_same_results(cli, ref, 1e-12)


def run_to_discard(slave, h, n_max):
    """Steps until doStep raises; returns (outputs after every successful step, failing k)."""
    rows = [slave.outputs()]
    for k in range(n_max):
        try:
            rows += slave.run(0.0, h, k, k + 1)
        except FMICallException as e:
            assert e.status == fmi2Discard, f"doStep failed with status {e.status}"
            return rows, k
    pytest.fail("no discard")


def test_after_discard_only_queries_terminate_reset(fmus, slaves):
    h = 1e-3
    s = slaves(fmus["rlc_diode"])
    s.initialize({"R": -1.0})
    rows, k = run_to_discard(s, h, 5000)
    assert s.fmu.getRealStatus(fmi2LastSuccessfulTime) == k * h
    assert bits(s.outputs()) == bits(rows[-1])
    with pytest.raises(FMICallException) as info:
        s.step(k * h, h)
    assert info.value.status == fmi2Error
    assert s.fmu.getBooleanStatus(fmi2Terminated) is True  # still answered after the refusal
    s.fmu.terminate()
    s.fmu.reset()
    s.initialize()  # the model's R = 1 again: the run goes through
    assert s.fmu.getBooleanStatus(fmi2Terminated) is False
    s.run(0.0, h, 0, 3000)
    assert abs(s.fmu.getRealStatus(fmi2LastSuccessfulTime) - 3.0) <= 1e-12


def test_state_restored_after_discard_replays_to_same_discard(fmus, slaves):
    h, mid = 1e-3, 2000
    s = slaves(fmus["rlc_diode"])
    s.initialize({"R": -1.0})
    s.run(0.0, h, 0, mid)
    state = s.fmu.getFMUstate()
    first, k_first = run_to_discard_from(s, h, mid)
    assert s.fmu.getBooleanStatus(fmi2Terminated) is True
    s.fmu.setFMUstate(state)
    assert s.fmu.getBooleanStatus(fmi2Terminated) is False
    again, k_again = run_to_discard_from(s, h, mid)
    assert k_again == k_first
    assert bits(again) == bits(first)
    s.fmu.freeFMUstate(state)


def run_to_discard_from(slave, h, k0):
    rows = []
    for k in range(k0, 10 ** 5):
        try:
            rows += slave.run(0.0, h, k, k + 1)
        except FMICallException as e:
            assert e.status == fmi2Discard
            return rows, k
    pytest.fail("no discard")


@pytest.mark.parametrize("start_values", [{"R": 0.0}, {"L": 0.0}, {"C": 0.0}])
def test_initialization_error_raises(fmus, start_values):
    with pytest.raises(FMICallException) as info:
        cosim(fmus["rlc_diode"], output_interval=1e-2, start_values=start_values)
    assert info.value.status == fmi2Error
    assert "ExitInitializationMode" in str(info.value)


@pytest.mark.parametrize("name", ["mu", "v", "F_plus", "F_f"])
def test_fixed_variables_refused_after_initialization(fmus, slaves, name):
    # parameters are fixed and states are set through their start values only;
    # calculated outputs can never be set. The input F_a stays settable.
    s = slaves(fmus["coulomb_friction"])
    s.initialize()
    s.run(0.0, 0.2, 0, 2)
    before = s.outputs()
    with pytest.raises(FMICallException) as info:
        s.set({name: 1.0})
    assert info.value.status == fmi2Error
    assert bits(s.outputs()) == bits(before), "a refused set changed the instance"
    s.set({"F_a": 1.0})
    assert s.get("F_a") == [1.0]
    s.run(0.0, 0.2, 2, 3)  # and the instance keeps working


def test_box_bounds_not_an_interval_raise(scaled_spiral_fmu):
    with pytest.raises(FMICallException) as info:
        cosim(scaled_spiral_fmu, start_values={"a": -1.0})
    assert info.value.status == fmi2Error
    assert "ExitInitializationMode" in str(info.value)


@pytest.mark.parametrize("h", [0.2, 0.01])
def test_scaled_box_bounds_change_the_result(scaled_spiral_fmu, h):
    # u in a Sign(x): ||x(t)||_1 = max(||x0||_1 - 2 a t, 0), origin at t* = 1/a
    a = 2.0
    r = cosim(scaled_spiral_fmu, output_interval=h, start_values={"a": a})
    norm = np.maximum(np.abs(r["x1"]), np.abs(r["x2"]))
    k = first_index(norm <= ZERO)
    assert k is not None
    assert 1 / a - 5 * h <= r["time"][k] <= 1 / a
    assert zero_from(norm) == k
    assert np.all(np.abs(np.stack([r["u1"], r["u2"]])) <= a * (1 + 1e-12))
    assert np.max(np.abs(np.stack([r["u1"], r["u2"]]))) > 1.5  # the bounds really are +-2
