"""Events and errors of the Model Exchange FMUs under FMPy's CVode and fixed-step Euler.

Builds every linear first-order bundled model with `lcsfmu build --interface me`, runs
`fmpy.simulate_fmu(..., fmi_type="ModelExchange")` with CVode (default tolerance, output
interval 0.01) and with Euler for h = 1e-2 and 1e-3 (output interval h), and prints one
Markdown row each: events (fmi2EnterEventMode calls), the largest state difference from
`lcsfmu simulate --scheme event-driven` (rtol 1e-10, step 0.001, interpolated) over the run,
and FMPy's wall time. saturated_integrator is driven by the input sin t. These are the rows of
the capture table in docs/src/model-exchange.md.

    .venv/bin/python examples/me_euler.py OUT_DIR path/to/lcsfmu [model,model,...]
"""
import sys, subprocess, io, time as clock
import numpy as np
from fmpy import simulate_fmu
out, bin_ = sys.argv[1], sys.argv[2]
models = (sys.argv[3].split(",") if len(sys.argv) > 3 else
          ["backlash_gear", "coulomb_friction", "friction_block", "pwa_feedback", "relay_feedback",
           "rlc_diode", "saturated_integrator", "saturated_integrator_blocks", "servo_deadzone",
           "sign_spiral", "square_helix", "zero_crossing"])
MD = str(__import__("pathlib").Path(__file__).resolve().parents[1] / "models")
subprocess.run([bin_, "build", *[f"{MD}/{m}.toml" for m in models], "-o", out, "--interface", "me"], check=True, capture_output=True)
ED = "\n[scheme]\nmethod = \"event-driven\"\nrtol = 1e-10\natol = 1e-12\n"
times = np.linspace(0, 10, 10001)
sin_in = np.array(list(zip(times, np.sin(times))), dtype=[("time", float), ("x", float)])
np.savetxt(f"{out}/sin.csv", np.column_stack([times, np.sin(times)]), delimiter=",", header="time,x", comments="")
for m in models:
    txt = open(f"{MD}/{m}.toml").read()
    open(f"{out}/{m}_ed.toml", "w").write(txt + ED)
    cmd = [bin_, "simulate", f"{out}/{m}_ed.toml", "--step", "0.001", "-o", f"{out}/{m}_ed.csv"]
    if m == "saturated_integrator": cmd += ["--input", f"{out}/sin.csv"]
    subprocess.run(cmd, check=True, capture_output=True)
    ref = np.genfromtxt(f"{out}/{m}_ed.csv", delimiter=",", names=True)
    for solver, h in (("CVode", None), ("Euler", 1e-2), ("Euler", 1e-3)):
        calls = []
        kw = dict(solver=solver, output_interval=1e-2 if h != 1e-3 else 1e-3)
        if h: kw.update(step_size=h)
        if m == "saturated_integrator": kw["input"] = sin_in
        t0 = clock.time()
        try:
            r = simulate_fmu(f"{out}/{m}.fmu", fmi_type="ModelExchange", record_events=False, fmi_call_logger=calls.append, timeout=120, **kw)
        except Exception as e:
            print(f"| {m} | {solver} {h or ''} | FAILED {e} |"); continue
        wall = clock.time() - t0
        ev = sum(c.startswith("fmi2EnterEventMode") for c in calls)
        from fmpy import read_model_description
        md = read_model_description(f"{out}/{m}.fmu")
        sn = [d.variable.derivative.name for d in md.derivatives]
        err = 0.0
        for n in sn:
            yi = np.interp(r["time"], ref["time"], ref[n])
            err = max(err, float(np.max(np.abs(r[n] - yi))))
        print(f"| {m} | {solver} {h or ''} | {ev} | {err:.1e} | {wall:.2f} s |")
