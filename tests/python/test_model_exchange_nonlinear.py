"""Model Exchange of the nonlinear first-order bundled models (`lcsfmu build --interface me`,
FMI 2.0 and 3.0) under FMPy's CVode and Euler, against references computed here.

    test_vdp_saturation_equals_solve_ivp     the Lipschitz right-hand side with the saturation
                                             written as a clip, solve_ivp (DOP853, rtol 1e-12):
                                             CVode (rtol 1e-10) to 1e-6, Euler (h = 1e-3) to 2e-2
                                             at the output points
    test_diode_bridge_equals_its_ideal_circuit  the ideal bridge as one Lipschitz ODE,
                                             C v' = max(|Vm cos wt| - v, 0)/Rs - v/R, by solve_ivp:
                                             CVode to 1e-6 V, Euler (h = 1e-6) to 1e-2 V
    test_buck_pwm_switches_at_time_events    every switching instant k T and k T + d T (t <= 0.03)
                                             is an event at that time to 4 ulp, 600 of them; the
                                             mean output voltage over the last 100 periods is
                                             d Vin to 1e-3 (the ripple is 0.0375 V)
    test_fmu_state_repeats_a_nonlinear_run   buck_pwm, Euler by hand through its time events: a
                                             state saved mid-run, serialized, restored after the
                                             run went on, repeats it bit for bit

FMI 3.0 ME == FMI 2.0 ME bit for bit for these models is test_model_exchange3.py's
test_same_numbers_as_fmi2 (they are in conftest.ME_MODELS).
"""
from __future__ import annotations

from ctypes import POINTER, c_double

import numpy as np
import pytest
from fmpy import extract, read_model_description
from scipy.integrate import solve_ivp

from test_model_exchange import MeDriver, event_times, me_fmus, me_run  # noqa: F401 (fixture)


def reference(f, y0, times):
    sol = solve_ivp(f, (times[0], times[-1]), y0, method="DOP853", rtol=1e-12, atol=1e-14,
                    t_eval=times, max_step=1e-3 * (times[-1] - times[0]))
    assert sol.success
    return sol.y


def vdp(_t, y, mu=1.0, k=2.0, umax=0.5):
    x1, x2 = y
    u = np.clip(-k * x2, -umax, umax)
    return [x2, mu * (1 - x1 ** 2) * x2 - x1 + u]


def distinct(r):
    """The result without the duplicate rows FMPy records at events."""
    keep = np.concatenate([np.diff(r["time"]) != 0, [True]])
    return r[keep]


@pytest.mark.parametrize("solver,kwargs,tol", [
    ("CVode", {"relative_tolerance": 1e-10}, 1e-6),
    ("Euler", {"step_size": 1e-3, "output_interval": 1e-3}, 2e-2),
])
def test_vdp_saturation_equals_solve_ivp(me_fmus, solver, kwargs, tol):
    kwargs = {"output_interval": 0.01, **kwargs}
    r, events = me_run(me_fmus["vdp_saturation"], solver=solver, **kwargs)
    assert events > 0, "the saturation is entered and left"
    r = distinct(r)
    ref = reference(vdp, [2.0, 0.0], r["time"])
    err = max(np.max(np.abs(r["x1"] - ref[0])), np.max(np.abs(r["x2"] - ref[1])))
    assert err <= tol, (solver, err)
    # The saturation is the clip of the feedback: the multiplier is the block's output.
    assert np.max(np.abs(r["u"] - np.clip(-2.0 * r["x2"], -0.5, 0.5))) <= 1e-9


def bridge(t, y, vm=10.0, w=314.159265358979, rs=1.0, r=100.0, c=1e-3):
    (v,) = y
    return [(max(abs(vm * np.cos(w * t)) - v, 0.0) / rs - v / r) / c]


@pytest.mark.parametrize("solver,kwargs,tol", [
    ("CVode", {"relative_tolerance": 1e-10}, 1e-6),
    ("Euler", {"step_size": 1e-6, "output_interval": 1e-6}, 1e-2),
])
def test_diode_bridge_equals_its_ideal_circuit(me_fmus, solver, kwargs, tol):
    kwargs = {"output_interval": 1e-4, **kwargs}
    r, events = me_run(me_fmus["diode_bridge_source"], solver=solver, **kwargs)
    assert events > 0
    r = distinct(r)
    ref = reference(bridge, [0.0], r["time"])
    err = np.max(np.abs(r["v"] - ref[0]))
    assert err <= tol, (solver, err)
    # The diodes: currents and reverse voltages nonnegative (to rounding of 10 V).
    for name in ("i1", "i2", "r3", "r4"):
        assert np.min(r[name]) >= -1e-9, name


def test_buck_pwm_switches_at_time_events(me_fmus):
    period, duty, vin = 1e-4, 0.5, 12.0
    r, _ = me_run(me_fmus["buck_pwm"], relative_tolerance=1e-8, output_interval=1e-6)
    times = event_times(r)
    instants = np.array([k * period + s * duty * period
                         for k in range(300) for s in (0, 1)][1:] + [0.03])
    nearest = np.array([times[np.argmin(np.abs(times - t))] for t in instants])
    ulps = np.abs(nearest - instants) / np.spacing(instants)
    assert np.max(ulps) <= 4, (instants[np.argmax(ulps)], np.max(ulps))
    r = distinct(r)
    last = r["time"] >= 0.02
    mean = np.trapezoid(r["vC"][last], r["time"][last]) / (r["time"][-1] - 0.02)
    assert abs(mean - duty * vin) <= 1e-3, mean
    ripple = np.ptp(r["vC"][last])
    assert ripple <= 0.0375 * 1.05, ripple


def test_fmu_state_repeats_a_nonlinear_run(me_fmus, tmp_path):
    fmu = me_fmus["buck_pwm"]
    unzipped = extract(fmu, tmp_path / "x")
    h, steps, cut = 1e-6, 600, 237

    def ptr(a):
        return a.ctypes.data_as(POINTER(c_double))

    def run(d, first, n):
        """Euler by hand, stopping at the time events the FMU reports."""
        m, nx, nz = d.m, d.nx, d.nz
        x, dx, z0, z1 = np.zeros(nx), np.zeros(nx), np.zeros(nz), np.zeros(nz)
        trace = []
        for k in range(first, first + n):
            m.getContinuousStates(ptr(x), nx)
            d.derivatives(ptr(dx), nx)
            m.getEventIndicators(ptr(z0), nz)
            x += h * dx
            m.setTime((k + 1) * h)
            m.setContinuousStates(ptr(x), nx)
            m.getEventIndicators(ptr(z1), nz)
            step_event, _ = m.completedIntegratorStep()
            if step_event or np.any((z0 > 0) != (z1 > 0)):
                m.enterEventMode()
                d.update()
                m.enterContinuousTimeMode()
            m.getContinuousStates(ptr(x), nx)
            trace.append(x.copy())
        return np.array(trace)

    assert read_model_description(fmu).modelExchange.canSerializeFMUstate
    d = MeDriver(fmu, unzipped)
    whole = run(d, 0, steps)
    d.close()
    d = MeDriver(fmu, unzipped)
    run(d, 0, cut)
    state = d.state()
    blob = d.serialize(state)
    first = run(d, cut, steps - cut)
    assert np.array_equal(first, whole[cut:])
    d.restore(d.deserialize(blob))
    again = run(d, cut, steps - cut)
    assert np.array_equal(again, whole[cut:])
    d.free_state(state)
    d.close()
