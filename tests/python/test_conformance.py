"""Static conformance of every bundled model's FMU.

Contents
  test_fmpy_validate_fmu_reports_no_problems   fmpy.validation.validate_fmu(path) == []
  test_fmu_check_passes                        ../shared/tools/fmu-check.py: exit 0, '0 failed'
  test_archive_layout                          modelDescription.xml + binaries/linux64/<id>.so
  test_exports_exactly_the_fmi2_cs_functions   nm -D --defined-only: the 34 FMI 2.0 CS names only
  test_build_accepts_a_relative_cache_dir      lcsfmu build --cache-dir with a relative path
  test_glibc_floor                             objdump -T: no symbol newer than GLIBC_2.34 (docs/src/guarantees.md)
"""
import re
import subprocess
import zipfile
from pathlib import Path

import pytest
from fmpy import read_model_description
from fmpy.validation import validate_fmu

from conftest import (FMI2_COMMON_FUNCTIONS, FMI2_CS_FUNCTIONS, FMI2_CS_ONLY_FUNCTIONS,
                      FMU_CHECK, MODEL_NAMES, PYTHON, REPO, exported_symbols, unzipped)


@pytest.mark.parametrize("model", MODEL_NAMES)
def test_fmpy_validate_fmu_reports_no_problems(fmus, model):
    problems = validate_fmu(str(fmus[model]))
    assert problems == [], "\n".join(map(str, problems))


@pytest.mark.parametrize("model", MODEL_NAMES)
@pytest.mark.skipif(not FMU_CHECK.exists(),
                    reason="../shared/tools/fmu-check.py is not beside this clone")
def test_fmu_check_passes(fmus, model):
    proc = subprocess.run([PYTHON, str(FMU_CHECK), str(fmus[model])],
                          capture_output=True, text=True, timeout=120)
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, report
    summary = proc.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"[1-9]\d* passed, 0 failed", summary), report


@pytest.mark.parametrize("model", MODEL_NAMES)
def test_archive_layout(fmus, model):
    md = read_model_description(str(fmus[model]))
    assert md.fmiVersion == "2.0"
    assert md.coSimulation is not None and md.modelExchange is None
    ident = md.coSimulation.modelIdentifier
    assert ident == model
    with zipfile.ZipFile(fmus[model]) as zf:
        names = zf.namelist()
    assert "modelDescription.xml" in names
    assert f"binaries/linux64/{ident}.so" in names
    assert all("\\" not in n and not n.startswith(("/", ".")) for n in names), names


def test_symbol_list_is_the_fmi2_cs_api():
    # guards the hand-written list itself: 25 common + 9 co-simulation functions
    assert len(FMI2_COMMON_FUNCTIONS) == 25
    assert len(FMI2_CS_ONLY_FUNCTIONS) == 9
    assert len(FMI2_CS_FUNCTIONS) == 34


@pytest.mark.parametrize("model", MODEL_NAMES)
def test_exports_exactly_the_fmi2_cs_functions(fmus, model):
    so = Path(unzipped(fmus[model])) / "binaries" / "linux64" / f"{model}.so"
    symbols = exported_symbols(so)
    missing = FMI2_CS_FUNCTIONS - symbols
    extra = symbols - FMI2_CS_FUNCTIONS
    assert not missing, f"missing FMI functions: {sorted(missing)}"
    assert not extra, f"extra exported symbols: {sorted(extra)}"


def test_build_accepts_a_relative_cache_dir(lcsfmu_bin, tmp_path):
    """Cargo compiles the template from its own directory: a relative --cache-dir
    (here the default cache, named relative to the repository) must still work."""
    out = tmp_path / "spiral.fmu"
    r = subprocess.run(
        [str(lcsfmu_bin), "build", "models/sign_spiral.toml", "-o", str(out), "--cache-dir", "target/fmu-build"],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )
    assert r.returncode == 0, r.stderr
    assert not validate_fmu(str(out))


# The user guide promises that the FMU binaries load on glibc 2.34 or newer.
GLIBC_FLOOR = (2, 34)


@pytest.mark.parametrize("model", MODEL_NAMES)
def test_glibc_floor(fmus, model):
    so = Path(unzipped(fmus[model])) / "binaries" / "linux64" / f"{model}.so"
    proc = subprocess.run(["objdump", "-T", str(so)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    versions = {tuple(int(x) for x in v.split("."))
                for v in re.findall(r"\bGLIBC_(\d+(?:\.\d+)+)", proc.stdout)}
    assert versions, "no versioned glibc symbols found"
    assert max(versions) <= GLIBC_FLOOR, f"needs glibc {max(versions)}"
