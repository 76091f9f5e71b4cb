"""The prebuilt runtime (`lcsfmu build --runtime prebuilt`) against the compiled binary.

The prebuilt runtime is the FMU template built once without a model: it reads
resources/model.json at fmi2Instantiate and steps with run-time sizes, where the compiled
binary has the model and its sizes compiled in. Both must give the same numbers, bit for bit,
through FMPy: every bundled model on its default experiment and every case of
test_cli_agreement (other steps, start values, input tables). Then what the runtime refuses:
a resource location it cannot read, and a model.json that is not the XML's.

The tool must carry a runtime (scripts/test.sh builds it with scripts/build-runtime.sh and
exports LCSFMU_RUNTIME_DIR).
"""
import subprocess
import zipfile

import pytest
from fmpy import extract, read_model_description
from fmpy.fmi2 import (FMU2Slave, calloc, fmi2CallbackAllocateMemoryTYPE,
                       fmi2CallbackFreeMemoryTYPE, fmi2CallbackFunctions,
                       fmi2CallbackLoggerTYPE, free)

from conftest import MODEL_NAMES, bundled_stems, model_file
from test_cli_agreement import CASES, fmpy_run


@pytest.fixture(scope="session")
def prebuilt_fmus(lcsfmu_bin, tmp_path_factory):
    """Every bundled model built with the prebuilt runtime: {model name: path}."""
    out = tmp_path_factory.mktemp("prebuilt")
    models = [str(model_file(name)) for name in MODEL_NAMES]
    proc = subprocess.run([str(lcsfmu_bin), "build", "--runtime", "prebuilt", *models,
                           "-o", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, f"lcsfmu build --runtime prebuilt failed:\n{proc.stderr}"
    return {name: out / f"{name}.fmu" for name in MODEL_NAMES}


def test_every_bundled_model_is_covered():
    assert sorted(MODEL_NAMES) == bundled_stems()


def test_the_binaries_differ_and_the_rest_is_the_same(fmus, prebuilt_fmus):
    """Not the same file twice: the runtime is one library for every model."""
    runtime = None
    for name in MODEL_NAMES:
        with zipfile.ZipFile(fmus[name]) as c, zipfile.ZipFile(prebuilt_fmus[name]) as p:
            so = f"binaries/linux64/{name}.so"
            assert c.read(so) != p.read(so), name
            runtime = runtime or p.read(so)
            assert p.read(so) == runtime, name
            for entry in ("modelDescription.xml", "resources/model.json"):
                assert c.read(entry) == p.read(entry), f"{name}: {entry}"


def same_bits(a, b, what):
    assert a.dtype.names == b.dtype.names, what
    for n in a.dtype.names:
        assert a[n].tobytes() == b[n].tobytes(), f"{what}: column {n} differs"


@pytest.mark.parametrize("model", MODEL_NAMES)
def test_default_experiment_bit_for_bit(fmus, prebuilt_fmus, model):
    same_bits(fmpy_run(prebuilt_fmus[model], {}), fmpy_run(fmus[model], {}), model)


@pytest.mark.parametrize("model, experiment, start_values, make_table",
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_agreement_cases_bit_for_bit(fmus, prebuilt_fmus, model, experiment, start_values,
                                     make_table):
    table = None
    if make_table is not None:
        table = make_table(experiment.get("start", 0.0), experiment["stop"], experiment["step"])
    compiled = fmpy_run(fmus[model], experiment, start_values, table)
    prebuilt = fmpy_run(prebuilt_fmus[model], experiment, start_values, table)
    same_bits(prebuilt, compiled, model)


def instantiate(fmu_dir, guid, location):
    """fmi2Instantiate of the unpacked FMU with this GUID and resource location (None: NULL);
    returns whether an instance came back, and the messages logged."""
    messages = []
    md = read_model_description(str(fmu_dir / "modelDescription.xml"))
    slave = FMU2Slave(guid=guid, unzipDirectory=str(fmu_dir),
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="i")

    def log(env, name, status, category, message):
        messages.append(message.decode())

    callbacks = fmi2CallbackFunctions()
    callbacks.logger = fmi2CallbackLoggerTYPE(log)
    callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
    callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
    comp = slave.fmi2Instantiate(b"i", 1, guid.encode(),
                                 None if location is None else location.encode(),
                                 callbacks, 0, 1)
    if comp:
        slave.fmi2FreeInstance(comp)
    slave.freeLibrary()
    return bool(comp), " ".join(messages)


def test_resource_location_decoded_and_errors_named(prebuilt_fmus, tmp_path):
    """A path with a space and a non-ASCII letter (percent-encoded by FMPy), then what is refused."""
    fmu_dir = tmp_path / "dir with space é"
    extract(str(prebuilt_fmus["sign_spiral"]), str(fmu_dir))
    guid = read_model_description(str(fmu_dir / "modelDescription.xml")).guid
    resources = (fmu_dir / "resources").as_uri()
    assert "%20" in resources and "%C3%A9" in resources
    comp, log = instantiate(fmu_dir, guid, resources + "/")
    assert comp, log
    for location, reason in [
        (None, "fmuResourceLocation is NULL"),
        ("http://example.org/resources", "is not a file: URI"),
        ((tmp_path / "nowhere").as_uri(), "cannot read the model"),
        (resources + "%zz", "bad percent escape"),
    ]:
        comp, log = instantiate(fmu_dir, guid, location)
        assert not comp and reason in log, (location, log)
    # A model.json edited after the build no longer has the XML's GUID.
    model_json = fmu_dir / "resources" / "model.json"
    model_json.write_text(model_json.read_text().replace('"sign_spiral"', '"other_spiral"'))
    comp, log = instantiate(fmu_dir, guid, resources)
    assert not comp and "belong to different builds" in log, log
