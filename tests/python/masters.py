"""Runs one FMU in a master other than FMPy, in a process of its own, as a user would.

    python masters.py libcosim FMU STEP STOP OUT.npy
    python masters.py ecos FMU STEP STOP OUT.npy

libcosim (`libcosimpy`, the Open Simulation Platform) and Ecos (`ecospy`) crash the process
on FMUs they do not support (FMI 3.0 and Model Exchange in libcosim, Model Exchange in
Ecos), so the tests run them here, in a child process, where a crash fails one test and
not the suite. Each run starts at 0 with the FMU's start values, takes fixed steps of STEP
to STOP and writes a structured array to OUT.npy: the master's time and every output of
the FMU after each step (the row at the start too when the master gives one). What the
master logged goes to stderr, for the tests to read.
"""
from __future__ import annotations

import sys

import numpy as np
from fmpy import read_model_description


def outputs(fmu: str) -> list[tuple[str, int]]:
    md = read_model_description(fmu)
    return [(v.name, v.valueReference) for v in md.modelVariables if v.causality == "output"]


def table(names: list[str], rows: list[tuple]) -> np.ndarray:
    out = np.zeros(len(rows), dtype=[("time", np.float64)] + [(n, np.float64) for n in names])
    for k, row in enumerate(rows):
        out[k] = row
    return out


def run_libcosim(fmu: str, step: float, stop: float) -> np.ndarray:
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimObserver import CosimObserver
    from libcosimpy.CosimSlave import CosimLocalSlave

    # Warnings and errors only: what a clean run must not print.
    log_output_level(CosimLogLevel.WARNING)
    # libcosim counts time in integer nanoseconds.
    step_ns = round(step * 1e9)
    assert abs(step_ns * 1e-9 - step) <= 1e-15 * step, f"{step} s is not whole nanoseconds"
    n = round(stop / step)
    execution = CosimExecution.from_step_size(step_ns)
    observer = CosimObserver.create_last_value()
    execution.add_observer(observer)
    index = execution.add_local_slave(CosimLocalSlave(fmu_path=fmu, instance_name="fmu"))
    assert index >= 0, "libcosim refused the FMU"
    outs = outputs(fmu)
    vrs = [vr for _, vr in outs]
    rows = []
    for _ in range(n):
        assert execution.step(), "a libcosim step failed"
        t = execution.status().current_time / 1e9
        rows.append((t, *observer.last_real_values(index, vrs)))
    return table([name for name, _ in outs], rows)


def run_ecos(fmu: str, step: float, stop: float) -> np.ndarray:
    from ecospy import EcosSimulation, EcosSimulationStructure, SimulationListener

    outs = outputs(fmu)
    names = [f"fmu::{name}" for name, _ in outs]
    rows = []
    with EcosSimulationStructure() as structure:
        structure.add_model("fmu", fmu)
        with EcosSimulation(structure=structure, step_size=step) as sim:

            class Record(SimulationListener):
                def post(self, info):
                    rows.append((info.time, *(sim.get_real(name) for name in names)))

            sim.add_listener("record", Record())
            sim.init()
            rows.append((sim.get_time(), *(sim.get_real(name) for name in names)))
            # A fixed count: `step_until(stop)` drops the last step when the time,
            # accumulated as t += h, lands a few ulps past the stop time.
            sim.step(round(stop / step))
            sim.terminate()
    return table([name for name, _ in outs], rows)


def main() -> None:
    master, fmu, step, stop, out = sys.argv[1:]
    run = {"libcosim": run_libcosim, "ecos": run_ecos}[master]
    np.save(out, run(fmu, float(step), float(stop)))


if __name__ == "__main__":
    main()
