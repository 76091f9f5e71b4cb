#!/usr/bin/env python3
"""Co-simulation of an lcsfmu FMU with an FMU made by another exporter (issue 10).

The plant is lcsfmu's `coulomb_friction` (a mass with Coulomb friction, input F_a); the
controller is a PI position controller with velocity feedback written as a Python class
(examples/cosim/pi_controller.py) that PythonFMU turns into an FMU. A fixed-step master
written on FMPy's FMU2Slave couples them: every macro step it reads the plant's x and v,
sets them on the controller, reads the controller's force F (direct feedthrough), sets it
as the plant's F_a and steps both FMUs. That is Gauss-Seidel coupling, a sampled-data
controller with a zero-order hold and no extra delay. `--coupling jacobi` steps both FMUs
on the values of the previous step instead (every connection one macro step late, all
connections 0 before the first step), which is what FMPy's SSP simulator does; `--ssp`
writes the same loop as an SSP file and runs it with `fmpy.ssp.simulation.simulate_ssp`.

    python examples/cosim_pi.py -o loop.csv                     # builds both FMUs
    python examples/cosim_pi.py --plant cf.fmu --controller PIController.fmu --ssp loop.ssp

The plant is built with `lcsfmu build` ($LCSFMU_BIN, or `lcsfmu` on PATH) and the
controller with `python -m pythonfmu build` unless given. The macro step is a power of two
(2^-7 s) so that t_k = k h is exact whether a master multiplies or adds.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave

HERE = Path(__file__).resolve().parent
CONTROLLER_SOURCE = HERE / "cosim" / "pi_controller.py"
PLANT_MODEL = HERE.parent / "models" / "coulomb_friction.toml"

# A 1 kg mass at rest, friction coefficient 0.2 (sticks while |F_a| <= mu m g = 1.962 N),
# driven to x = 1 m by the controller's defaults (r = 1, kp = 20, ki = 20, kd = 6).
PLANT_START = {"m": 1.0, "mu": 0.2, "x": 0.0, "v": 0.0}
CONTROLLER_START: dict[str, float] = {}
STEP = 2.0 ** -7
STOP = 10.0
COLUMNS = ("time", "x", "v", "F_a", "F_f", "z")


def build_plant(lcsfmu: str, out_dir: Path) -> Path:
    """`lcsfmu build models/coulomb_friction.toml` into out_dir."""
    fmu = out_dir / "coulomb_friction.fmu"
    subprocess.run([lcsfmu, "build", str(PLANT_MODEL), "-o", str(fmu)], check=True,
                   stdout=subprocess.DEVNULL)
    return fmu


def build_controller(out_dir: Path) -> Path:
    """`pythonfmu build -f pi_controller.py` with this interpreter: PIController.fmu."""
    subprocess.run([sys.executable, "-m", "pythonfmu", "build", "-f", str(CONTROLLER_SOURCE),
                    "-d", str(out_dir)], check=True, stdout=subprocess.DEVNULL)
    return out_dir / "PIController.fmu"


class Component:
    """One FMU instance driven by the master: FMU2Slave plus its value references by name."""

    def __init__(self, fmu: Path, name: str):
        md = read_model_description(str(fmu))
        self.vr = {v.name: v.valueReference for v in md.modelVariables}
        self.unzipdir = extract(str(fmu))
        self.slave = FMU2Slave(guid=md.guid, unzipDirectory=self.unzipdir,
                               modelIdentifier=md.coSimulation.modelIdentifier,
                               instanceName=name)
        self.instantiated = False

    def start(self, start_time: float, values: dict[str, float]) -> None:
        self.slave.instantiate()
        self.instantiated = True
        self.slave.setupExperiment(startTime=start_time)
        self.set(values)
        self.slave.enterInitializationMode()
        self.slave.exitInitializationMode()

    def set(self, values: dict[str, float]) -> None:
        if values:
            self.slave.setReal([self.vr[n] for n in values], [float(v) for v in values.values()])

    def get(self, *names: str) -> list[float]:
        return self.slave.getReal([self.vr[n] for n in names])

    def step(self, t: float, h: float) -> None:
        self.slave.doStep(currentCommunicationPoint=t, communicationStepSize=h)

    def close(self) -> None:
        """Terminate and free (after a failure too, so the failure is what gets reported)."""
        if self.instantiated:
            try:
                self.slave.terminate()
            except Exception:
                pass  # not allowed in every state (e.g. an error during initialization)
            self.slave.freeInstance()
        shutil.rmtree(self.unzipdir, ignore_errors=True)


def run_master(plant_fmu: Path, controller_fmu: Path, *, stop: float = STOP, step: float = STEP,
               coupling: str = "gauss-seidel", plant_start: dict | None = None,
               controller_start: dict | None = None) -> np.ndarray:
    """The coupled loop from 0 to stop. One row per communication point t_k = k h: the
    plant's x, v and F_f at t_k, the force F_a applied from t_k on and the controller's
    integral z at t_k."""
    if coupling not in ("gauss-seidel", "jacobi"):
        raise ValueError(f"unknown coupling {coupling!r}")
    plant = Component(plant_fmu, "plant")
    controller = Component(controller_fmu, "controller")
    try:
        plant.start(0.0, PLANT_START if plant_start is None else plant_start)
        controller.start(0.0, CONTROLLER_START if controller_start is None else controller_start)
        n = round(stop / step)
        rows = np.zeros(n + 1, dtype=[(c, np.float64) for c in COLUMNS])
        # Jacobi: what each input connection holds; 0 before the first step, as in FMPy's SSP.
        held_x = held_v = held_force = 0.0
        for k in range(n + 1):
            t = k * step
            x, v, friction = plant.get("x", "v", "F_f")
            if coupling == "gauss-seidel":
                controller.set({"x": x, "v": v})
                force = controller.get("F")[0]
            else:
                controller.set({"x": held_x, "v": held_v})
                force = held_force
            rows[k] = (t, x, v, force, friction, controller.get("z")[0])
            if k == n:
                break
            plant.set({"F_a": force})
            controller.step(t, step)
            plant.step(t, step)
            if coupling == "jacobi":
                held_x, held_v = plant.get("x", "v")
                held_force = controller.get("F")[0]
        return rows
    finally:
        controller.close()
        plant.close()


SSD = """<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription version="1.0" name="cosim_pi"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues">
  <ssd:System name="loop">
    <ssd:ParameterBindings>
      <ssd:ParameterBinding>
        <ssd:ParameterValues>
          <ssv:ParameterSet version="1.0" name="start">
            <ssv:Parameters>
{parameters}
            </ssv:Parameters>
          </ssv:ParameterSet>
        </ssd:ParameterValues>
      </ssd:ParameterBinding>
    </ssd:ParameterBindings>
    <ssd:Elements>
      <ssd:Component name="plant" source="resources/coulomb_friction.fmu" type="application/x-fmu-sharedlibrary">
        <ssd:Connectors>
          <ssd:Connector name="F_a" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="x" kind="output"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="v" kind="output"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="F_f" kind="output"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
      </ssd:Component>
      <ssd:Component name="controller" source="resources/PIController.fmu" type="application/x-fmu-sharedlibrary">
        <ssd:Connectors>
          <ssd:Connector name="x" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="v" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="F" kind="output"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="z" kind="output"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
      </ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="plant" startConnector="x" endElement="controller" endConnector="x"/>
      <ssd:Connection startElement="plant" startConnector="v" endElement="controller" endConnector="v"/>
      <ssd:Connection startElement="controller" startConnector="F" endElement="plant" endConnector="F_a"/>
    </ssd:Connections>
  </ssd:System>
</ssd:SystemStructureDescription>
"""


def write_ssp(path: Path, plant_fmu: Path, controller_fmu: Path, *,
              plant_start: dict | None = None, controller_start: dict | None = None) -> Path:
    """The same loop as an SSP: SystemStructure.ssd (two components, three connections,
    the start values as an inline parameter set named by component) and both FMUs under
    resources/."""
    values = {f"plant.{k}": v for k, v in (PLANT_START if plant_start is None else plant_start).items()}
    values.update({f"controller.{k}": v for k, v in
                   (CONTROLLER_START if controller_start is None else controller_start).items()})
    parameters = "\n".join(
        f'              <ssv:Parameter name="{name}"><ssv:Real value="{value!r}"/></ssv:Parameter>'
        for name, value in values.items())
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("SystemStructure.ssd", SSD.format(parameters=parameters))
        z.write(plant_fmu, "resources/coulomb_friction.fmu")
        z.write(controller_fmu, "resources/PIController.fmu")
    return path


def run_ssp(path: Path, *, stop: float = STOP, step: float = STEP) -> np.ndarray:
    """FMPy's SSP simulator on the file, its result in run_master's layout. simulate_ssp
    applies only a parameter set it is given (the SSD's bindings are read, not applied),
    so the inline set is passed to it; it records every connector after each step under
    the step's start time, so its row k is the state at t_(k+1)."""
    from fmpy.ssp.simulation import simulate_ssp
    from fmpy.ssp.ssd import read_ssd

    start_values = read_ssd(str(path)).system.parameterBindings[0].parameterValues[0]
    result = simulate_ssp(str(path), start_time=0.0, stop_time=stop, step_size=step,
                          parameter_set=start_values)
    rows = np.zeros(len(result), dtype=[(c, np.float64) for c in COLUMNS])
    rows["time"] = result["time"] + step
    for column, connector in (("x", "plant.x"), ("v", "plant.v"), ("F_a", "plant.F_a"),
                              ("F_f", "plant.F_f"), ("z", "controller.z")):
        rows[column] = result[connector]
    return rows


def write_csv(path: Path, rows: np.ndarray) -> None:
    """CSV with shortest round-trip floats (repr), as lcsfmu writes."""
    with open(path, "w") as f:
        f.write(",".join(rows.dtype.names) + "\n")
        for row in rows:
            f.write(",".join(repr(float(value)) for value in row) + "\n")


def summary(rows: np.ndarray, what: str) -> str:
    r = float(CONTROLLER_START.get("r", 1.0))
    stuck = np.count_nonzero(rows["v"][1:] == 0.0)
    settle = np.flatnonzero(np.abs(rows["x"] - r) > 0.01 * r)
    settled = rows["time"][settle[-1] + 1] if settle.size and settle[-1] + 1 < len(rows) else None
    return (f"{what}: {len(rows) - 1} steps of {rows['time'][1]:g} s; x({rows['time'][-1]:g}) = "
            f"{rows['x'][-1]:.9f} (set-point {r:g}), largest x {rows['x'].max():.6f}, "
            f"within 1 % from t = {settled if settled is None else f'{settled:.4f}'} s; "
            f"v exactly 0 at {stuck} of {len(rows) - 1} points (sticking)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plant", type=Path, help="the coulomb_friction FMU (built if absent)")
    parser.add_argument("--controller", type=Path, help="the PythonFMU controller (built if absent)")
    parser.add_argument("--stop", type=float, default=STOP)
    parser.add_argument("--step", type=float, default=STEP)
    parser.add_argument("--coupling", choices=("gauss-seidel", "jacobi"), default="gauss-seidel")
    parser.add_argument("-o", "--output", type=Path, help="CSV of the master's run")
    parser.add_argument("--ssp", type=Path, help="also write the loop as this SSP and run it")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="cosim-pi-") as tmp:
        work = Path(tmp)
        lcsfmu = os.environ.get("LCSFMU_BIN") or shutil.which("lcsfmu") or "lcsfmu"
        plant = args.plant or build_plant(lcsfmu, work)
        controller = args.controller or build_controller(work)
        rows = run_master(plant, controller, stop=args.stop, step=args.step,
                          coupling=args.coupling)
        print(summary(rows, f"master ({args.coupling})"))
        if args.output:
            write_csv(args.output, rows)
        if args.ssp:
            ssp_rows = run_ssp(write_ssp(args.ssp, plant, controller), stop=args.stop,
                               step=args.step)
            print(summary(np.concatenate([rows[:1], ssp_rows]), f"SSP ({args.ssp})"))
            for column in ("x", "v"):
                diff = np.abs(ssp_rows[column] - rows[column][1:len(ssp_rows) + 1]).max()
                print(f"largest |{column}| difference SSP vs master ({args.coupling}): {diff:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
