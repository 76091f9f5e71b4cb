"""Sampled-data partitions in Model Exchange: smc_implicit (`[[discrete]]`, period hc = 0.01)
built with --interface me (FMI 2.0 and 3.0) under FMPy's CVode and Euler, against the
Co-Simulation FMU under FMPy and the exact sampled-data solution computed here.

Between samples the plant is x1' = -sin(50 t) + CB u_k with u_k held, so its exact solution
is closed-form, and at a sample u_k = clip(-x1(t_k) / (CB hc), -1, 1). A scheme integrates
the held CB u_k exactly (it is constant) and differs from the exact solution only in its
quadrature of the disturbance over each period, delta_k (the right Riemann sum for the
theta-method at theta = 1 of the Co-Simulation FMU, the left one for FMPy's Euler, computed
here exactly). Over a period x1(t_{k+1}) = g(x1(t_k)) + D_k with g(x) = x - clip(x, -CB hc,
CB hc), which is 1-Lipschitz and 0 on [-CB hc, CB hc]; so the error in x1(t_k) is at most
e_k with e_{k+1} = |delta_k| when [x1 - e_k, x1 + e_k] lies in that interval and
e_k + |delta_k| otherwise, and the error in u_k at most e_k / (CB hc). The samples of two
runs then differ by at most the sum of their two bounds; each run is also checked against
the exact samples by its own. CVode's quadrature error per period is taken as 1e-8 (its
relative tolerance 1e-10 on states of size 1, with a margin of 100): measured, not a bound.

    test_samples_agree_with_co_simulation    every u_k, k = 0..99, of ME (CVode, Euler) and
                                             CS within the derived bounds; the measured
                                             differences are printed
    test_sample_instants_are_time_events     FMPy records an event at each t_k to 1e-9
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from fmpy import simulate_fmu

from conftest import MODELS_DIR

HC, CB, H = 0.01, 2.0, 1e-4
SAMPLES = 100
CVODE_DELTA = 1e-8
# The bounds are reached where a flat period resets the error to |delta_k| exactly; the
# runs' own rounding (1e4 steps times eps on x1 of size up to 2, times 1 / (CB hc) = 50)
# is 1.1e-10 in u.
ROUNDING = 1e-9


@pytest.fixture(scope="module", params=["2", "3"], ids=lambda v: f"fmi{v}")
def smc(request, lcsfmu_bin, tmp_path_factory):
    """{"me": path, "cs": path} of smc_implicit for one FMI version."""
    out = tmp_path_factory.mktemp(f"smc{request.param}")
    fmus = {}
    for interface in ["me", "cs"]:
        path = out / f"smc_implicit_{interface}.fmu"
        proc = subprocess.run([str(lcsfmu_bin), "build", str(MODELS_DIR / "smc_implicit.toml"),
                               "-o", str(path), "--interface", interface,
                               "--fmi", request.param], capture_output=True, text=True)
        assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
        fmus[interface] = path
    return fmus


def disturbance_integral(a, b):
    """Exact integral of -sin(50 t) over [a, b]."""
    return (np.cos(50 * b) - np.cos(50 * a)) / 50


def riemann(a, side):
    """The sum of h * (-sin(50 t)) over the steps of [a, a + HC] at their right or left ends."""
    n = round(HC / H)
    ends = a + H * (np.arange(1, n + 1) if side == "right" else np.arange(0, n))
    return float(np.sum(-np.sin(50 * ends)) * H)


def exact_samples():
    """u_k and x1(t_k) of the exact sampled-data system."""
    x1, us, xs = -1.0, [], []
    for k in range(SAMPLES):
        t = k * HC
        u = float(np.clip(-x1 / (CB * HC), -1.0, 1.0))
        us.append(u)
        xs.append(x1)
        x1 = x1 + CB * u * HC + disturbance_integral(t, t + HC)
    return np.array(us), np.array(xs)


def bound(xs, delta):
    """The bound on |u_k - exact u_k| (see the module's text); delta(k) the quadrature error
    over period k."""
    e, out = 0.0, []
    for k in range(SAMPLES):
        out.append(min(2.0, e / (CB * HC)))
        flat = abs(xs[k]) + e <= CB * HC
        e = (0.0 if flat else e) + abs(delta(k))
    return np.array(out)


def delta_of(scheme):
    if scheme == "cvode":
        return lambda k: CVODE_DELTA
    side = "right" if scheme == "cs" else "left"
    return lambda k: riemann(k * HC, side) - disturbance_integral(k * HC, k * HC + HC)


def held(r):
    """u held over each period, read in its middle."""
    mids = (np.arange(SAMPLES) + 0.5) * HC
    return np.array([r["u"][np.argmin(np.abs(r["time"] - m))] for m in mids])


def runs(smc):
    return {
        "cs": simulate_fmu(smc["cs"], stop_time=1.0, output_interval=H),
        "cvode": simulate_fmu(smc["me"], fmi_type="ModelExchange", solver="CVode", stop_time=1.0,
                              relative_tolerance=1e-10, output_interval=1e-3),
        "euler": simulate_fmu(smc["me"], fmi_type="ModelExchange", solver="Euler", stop_time=1.0,
                              step_size=H, output_interval=H),
    }


def test_samples_agree_with_co_simulation(smc):
    exact, xs = exact_samples()
    r = runs(smc)
    u = {k: held(v) for k, v in r.items()}
    b = {k: bound(xs, delta_of(k)) for k in r}
    for k in r:
        err = np.abs(u[k] - exact)
        print(f"{k} against the exact samples: largest {err.max():.3g}, "
              f"largest bound {b[k].max():.3g}")
        assert np.all(err <= b[k] + ROUNDING), (k, int(np.argmax(err - b[k])))
    for me in ["cvode", "euler"]:
        diff = np.abs(u[me] - u["cs"])
        allowed = b[me] + b["cs"] + ROUNDING
        print(f"ME {me} against CS: largest difference of a sample {diff.max():.3g} "
              f"(allowed there {allowed[np.argmax(diff)]:.3g})")
        assert np.all(diff <= allowed), (me, int(np.argmax(diff - allowed)))
    # The controller slid: the samples left the bound.
    assert np.any(np.abs(u["cvode"]) < 0.5)


def test_sample_instants_are_time_events(smc):
    r = simulate_fmu(smc["me"], fmi_type="ModelExchange", solver="CVode", stop_time=1.0,
                     relative_tolerance=1e-10, output_interval=0.003, record_events=True)
    t = r["time"]
    events = t[1:][np.diff(t) == 0]
    want = np.arange(1, SAMPLES + 1) * HC
    assert len(events) == len(want), events
    assert np.max(np.abs(events - want)) <= 1e-9
