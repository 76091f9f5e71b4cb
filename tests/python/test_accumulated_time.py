"""Masters that accumulate their time (issue 20, section 2).

OMSimulator advances `t += h` and ends with `h = min(h, stop - t)`: after 300 steps
of 0.01 the time is just below 3 and the last step of a 3 s run of relay_feedback is
2e-14, at the rounding level of the time. The FMU must report what every importer
stepping on the grid `k h` reports: the multiplier of the sliding mode, not round-off
divided by 2e-14 (lcsfmu's rule: `src/instance/tiny_step.rs`).

    test_accumulating_master_reports_the_sliding_multiplier   that loop, driven by FMPy
"""
from __future__ import annotations

from conftest import cosim


def run_accumulating(slaves, fmu, h, stop, last_step):
    s = slaves(fmu)
    s.initialize()
    t, steps = 0.0, []
    while True:
        step = last_step(t, h, stop)
        if step is None:
            break
        s.step(t, step)
        steps.append(step)
        t += step
    return s.get("x1", "x2", "u"), steps


def grid(fmu):
    r = cosim(fmu, stop_time=3.0, output_interval=0.01)
    return r["x1"][-1], r["x2"][-1], r["u"][-1]


def check(values, steps, reference):
    assert 0 < steps[-1] < 1e-12, f"the last step is {steps[-1]:e}"
    x1, x2, u = values
    gx1, gx2, gu = reference
    assert abs(x1 - gx1) <= 1e-12 and abs(x2 - gx2) <= 1e-12
    assert -1 < u < 1, "sliding"
    # Without the rule u(3) = -0.0315972 against -0.0314528 on the grid.
    assert abs(u - gu) <= 1e-9, f"u(3) = {u} after a step of {steps[-1]:e}, {gu} on the grid"


def test_accumulating_master_reports_the_sliding_multiplier(fmus, slaves):
    """OMSimulator's loop, written with FMPy: h = min(h, stop - t), t += h."""
    fmu = fmus["relay_feedback"]

    def last_step(t, h, stop):
        return min(h, stop - t) if t < stop else None

    values, steps = run_accumulating(slaves, fmu, 0.01, 3.0, last_step)
    assert len(steps) == 301, "300 steps of 0.01 accumulate to just below 3"
    check(values, steps, grid(fmu))
