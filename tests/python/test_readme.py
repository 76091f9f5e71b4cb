"""The README's first model, run as written (issue 28): every command of its "Install and a
first model" block but `cargo install` (scripts/install-test.sh installs it), from a fresh
directory with the repository's `models/`, `lcsfmu` the binary under test and `.venv/bin/fmpy`
the test suite's venv's. Each command succeeds and writes what it names: the CSV and plot of
`simulate`, the FMU, and FMPy's CSV (FMPy's `simulate` prints and writes nothing without
`--output-file` or `--show-plot`).

    test_first_model_commands_run_as_written
"""
from __future__ import annotations

import csv
import re
import shlex
import subprocess
import sys
from pathlib import Path

from conftest import REPO


def first_model_commands() -> list[list[str]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Install and a first model", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    commands = []
    for line in block.splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("cargo "):
            commands.append(shlex.split(line))
    return commands


def test_first_model_commands_run_as_written(lcsfmu_bin, tmp_path):
    (tmp_path / "models").symlink_to(REPO / "models")
    fmpy = Path(sys.executable).with_name("fmpy")
    commands = first_model_commands()
    assert [c[0] for c in commands] == ["lcsfmu"] * 3 + [".venv/bin/fmpy"], commands
    written = []
    for command in commands:
        program = {"lcsfmu": str(lcsfmu_bin), ".venv/bin/fmpy": str(fmpy)}[command[0]]
        proc = subprocess.run([program, *command[1:]], cwd=tmp_path, capture_output=True,
                              text=True, timeout=600)
        assert proc.returncode == 0, f"{shlex.join(command)}:\n{proc.stdout}\n{proc.stderr}"
        assert "warning" not in proc.stderr, proc.stderr
        for flag in ("-o", "--plot", "--output-file"):
            if flag in command:
                written.append(command[command.index(flag) + 1])
    assert sorted(written) == ["fmpy.csv", "relay.csv", "relay.svg", "relay_feedback.fmu"], written
    for name in written:
        assert (tmp_path / name).stat().st_size > 0, name
    with open(tmp_path / "fmpy.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0][:2] == ["time", "x1"] and len(rows) == 302, rows[:2]
    assert float(rows[-1][0]) == 3.0
