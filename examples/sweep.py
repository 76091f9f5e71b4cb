#!/usr/bin/env python3
"""Sweep an lcsfmu FMU's parameters and start values with FMPy, on a Dask cluster.

    python examples/sweep.py MODEL.fmu --grid NAME=START:STOP:COUNT [--grid ...]
        [--scheduler ADDRESS | --workers N | --serial] [--stop T] [--step H]
        -o table.csv [--plot FILE.png|FILE.svg] [--plot-column COLUMN]

The grid is the Cartesian product of numpy.linspace(START, STOP, COUNT) over the --grid
options (the last one varies fastest). Every point is one
fmpy.simulate_fmu(..., fmi_type='CoSimulation') with the point as start_values, run as one
Dask task. The table has one row per point: the swept values (columns named as on the
command line), then `final_<name>` for every output variable of the FMU (causality
"output": an lcsfmu FMU's states, complementarity variables and named outputs), then
`max_abs_<name>` for the same outputs (the largest |value| at the communication points).

Shipping the FMU: the FMU's bytes are read once by the client and scattered to every worker
(client.scatter(..., broadcast=True)); each worker unpacks them once into its temporary
directory, in a folder named by the SHA-256 of the bytes, and every later task on that
machine reuses it. So the FMU need not be on a shared filesystem, and tasks never re-unzip.

Without --scheduler a LocalCluster is started (--workers N processes, one thread each; the
default is the number of CPUs). --serial runs the same points in this process, without Dask:
the numbers are bit-identical to a Dask run (same binary, same inputs, no shared state).
"""
from __future__ import annotations

import argparse
import hashlib
import itertools
import os
import shutil
import sys
import tempfile
import time
import zipfile

import numpy as np


# ---------------------------------------------------------------------- the work of a task

def unpacked_fmu(fmu_bytes: bytes, digest: str) -> str:
    """The FMU unpacked in this machine's temp directory (once per digest; safe between
    worker processes: unpack to a private folder, then rename it into place)."""
    target = os.path.join(tempfile.gettempdir(), f"lcsfmu-sweep-{digest}")
    if os.path.isfile(os.path.join(target, "modelDescription.xml")):
        return target
    private = tempfile.mkdtemp(prefix=f"lcsfmu-sweep-{digest[:12]}-")
    with open(os.path.join(private, "model.fmu"), "wb") as f:
        f.write(fmu_bytes)
    unzipdir = os.path.join(private, "fmu")
    with zipfile.ZipFile(os.path.join(private, "model.fmu")) as z:
        z.extractall(unzipdir)
    try:
        os.rename(unzipdir, target)
    except OSError:  # another process got there first
        pass
    shutil.rmtree(private, ignore_errors=True)
    return target


def run_point(fmu_bytes: bytes, digest: str, names: list[str], values: tuple[float, ...],
              outputs: list[str], stop: float | None, step: float | None) -> list[float]:
    """One simulation: the final value, then the max |value|, of every output."""
    from fmpy import simulate_fmu

    unzipdir = unpacked_fmu(fmu_bytes, digest)
    result = simulate_fmu(unzipdir, fmi_type="CoSimulation",
                          start_values=dict(zip(names, values)),
                          stop_time=stop, output_interval=step, output=outputs,
                          timeout=None)
    finals = [float(result[name][-1]) for name in outputs]
    maxabs = [float(np.max(np.abs(result[name]))) for name in outputs]
    return finals + maxabs


# ---------------------------------------------------------------------------- the sweep

def parse_grid(spec: str) -> tuple[str, np.ndarray]:
    try:
        name, rng = spec.split("=", 1)
        start, stop, count = rng.split(":")
        values = np.linspace(float(start), float(stop), int(count))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--grid {spec!r}: expected NAME=START:STOP:COUNT")
    if int(count) < 1:
        raise argparse.ArgumentTypeError(f"--grid {spec!r}: COUNT must be at least 1")
    return name.strip(), values


def sweepable_and_outputs(fmu_path: str) -> tuple[set[str], list[str]]:
    """Names that may be swept (parameters, inputs, exact-initial start values) and the
    output variables, in model order."""
    from fmpy import read_model_description

    md = read_model_description(fmu_path)
    sweepable = {v.name for v in md.modelVariables
                 if v.start is not None and v.type == "Real"
                 and (v.causality in ("parameter", "input") or v.initial == "exact")}
    outputs = [v.name for v in md.modelVariables if v.causality == "output"]
    return sweepable, outputs


def sweep(fmu_path: str, grid: list[tuple[str, np.ndarray]], *, stop=None, step=None,
          scheduler: str | None = None, workers: int | None = None, serial: bool = False):
    """Run the sweep; returns (pandas.DataFrame, seconds spent simulating)."""
    import pandas as pd

    sweepable, outputs = sweepable_and_outputs(fmu_path)
    names = [name for name, _ in grid]
    for name in names:
        if name not in sweepable:
            raise SystemExit(f"sweep.py: {name!r} is not a parameter, input or start value of "
                             f"the FMU; sweepable: {', '.join(sorted(sweepable))}")
    if len(set(names)) != len(names):
        raise SystemExit("sweep.py: a name is given to --grid twice")
    points = [tuple(float(x) for x in p) for p in itertools.product(*(v for _, v in grid))]
    with open(fmu_path, "rb") as f:
        fmu_bytes = f.read()
    digest = hashlib.sha256(fmu_bytes).hexdigest()

    t0 = time.perf_counter()
    if serial:
        rows = [run_point(fmu_bytes, digest, names, p, outputs, stop, step) for p in points]
    else:
        from dask.distributed import Client, LocalCluster

        cluster = None
        if scheduler:
            client = Client(scheduler)
        else:
            cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1,
                                   threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
        try:
            t0 = time.perf_counter()  # not counting the cluster's start
            shipped = client.scatter(fmu_bytes, broadcast=True)
            futures = [client.submit(run_point, shipped, digest, names, p, outputs, stop, step,
                                     pure=False)
                       for p in points]
            rows = client.gather(futures)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    seconds = time.perf_counter() - t0

    columns = (names + [f"final_{o}" for o in outputs] + [f"max_abs_{o}" for o in outputs])
    table = pd.DataFrame([list(p) + list(r) for p, r in zip(points, rows)], columns=columns)
    return table, seconds


def plot(table, names: list[str], column: str, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.5))
    if len(names) == 1:
        ax.plot(table[names[0]], table[column], marker="o")
        ax.set_xlabel(names[0])
        ax.set_ylabel(column)
    elif len(names) == 2:
        grid = table.pivot(index=names[1], columns=names[0], values=column)
        mesh = ax.pcolormesh(grid.columns.values, grid.index.values, grid.values,
                             shading="nearest")
        fig.colorbar(mesh, ax=ax, label=column)
        ax.set_xlabel(names[0])
        ax.set_ylabel(names[1])
    else:
        raise SystemExit("sweep.py: --plot draws sweeps of one or two names only")
    ax.set_title(column)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("fmu", help="an FMU built by lcsfmu")
    ap.add_argument("--grid", action="append", type=parse_grid, required=True,
                    metavar="NAME=START:STOP:COUNT",
                    help="sweep NAME over linspace(START, STOP, COUNT); repeat for a product")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="a running Dask scheduler, e.g. tcp://host:8786")
    where.add_argument("--workers", type=int, metavar="N",
                       help="start a LocalCluster of N worker processes (default: CPUs)")
    where.add_argument("--serial", action="store_true", help="run in this process, no Dask")
    ap.add_argument("--stop", type=float, help="stop time (default: the FMU's experiment)")
    ap.add_argument("--step", type=float,
                    help="communication step (default: the FMU's experiment)")
    ap.add_argument("-o", "--output", required=True, help="the table, CSV")
    ap.add_argument("--plot", metavar="FILE", help="draw the table (PNG or SVG, by extension)")
    ap.add_argument("--plot-column", metavar="COLUMN",
                    help="the column --plot draws (default: the first final_ column)")
    args = ap.parse_args(argv)

    table, seconds = sweep(args.fmu, args.grid, stop=args.stop, step=args.step,
                           scheduler=args.scheduler, workers=args.workers, serial=args.serial)
    table.to_csv(args.output, index=False)  # floats in shortest round-trip form
    names = [name for name, _ in args.grid]
    print(f"{len(table)} points in {seconds:.2f} s "
          f"({'serial' if args.serial else 'dask'}) -> {args.output}")
    if args.plot:
        column = args.plot_column or next(c for c in table.columns if c.startswith("final_"))
        if column not in table.columns:
            raise SystemExit(f"sweep.py: no column {column!r}; "
                             f"columns: {', '.join(table.columns)}")
        plot(table, names, column, args.plot)
        print(f"plot -> {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
