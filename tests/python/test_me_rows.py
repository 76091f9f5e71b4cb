"""examples/me_rows.py (issue 18): the Model Exchange rows the README and model-exchange.md
quote. The script must run, print one row per model, FMI version and tolerance, give the FMI
2.0 and 3.0 FMUs the same counts and errors (one instance behind both), and keep the errors
within what the guide states against validation.md's exact answers."""
from __future__ import annotations

import subprocess

from conftest import PYTHON, REPO

SCRIPT = REPO / "examples" / "me_rows.py"
# The largest error each model may show at rtol 1e-5 and 1e-8 (model-exchange.md's table,
# rounded up): the spiral lands on the origin exactly, rlc_diode and the relay follow the
# integrator's tolerance.
BOUNDS = {("sign_spiral", "1e-05"): 1e-12, ("sign_spiral", "1e-08"): 1e-12,
          ("rlc_diode", "1e-05"): 1e-4, ("rlc_diode", "1e-08"): 1e-6,
          ("relay_feedback", "1e-05"): 1e-5, ("relay_feedback", "1e-08"): 1e-7}


def test_me_rows_fmi2_equals_fmi3_within_the_stated_errors(lcsfmu_bin):
    proc = subprocess.run([PYTHON, str(SCRIPT), str(lcsfmu_bin)], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    table = proc.stdout.split("## Model Exchange, FMPy CVode\n", 1)[1].splitlines()[1:]
    rows = {}
    for line in table:
        name, fmi, rtol, returns, events, error, _wall = line.split()
        rows[(name, fmi, rtol)] = (int(returns), int(events), float(error))
    assert len(rows) == 12, table
    for (name, rtol), bound in BOUNDS.items():
        two, three = rows[(name, "2.0", rtol)], rows[(name, "3.0", rtol)]
        assert two == three, (name, rtol, two, three)
        returns, events, error = two
        assert error <= bound, (name, rtol, error)
        assert events >= 1 and returns > events, (name, rtol, two)
    # The spiral's 18 switches are located one by one, not chattered through.
    assert rows[("sign_spiral", "2.0", "1e-05")][1] == 18
