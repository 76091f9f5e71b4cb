"""The model-description rules FMPy's validation does not check, on every built FMU.

- no `initial` attribute on an input (the standard forbids it; FMPy accepts it);
- `Outputs` lists every output exactly once, in index order;
- `InitialUnknowns` lists exactly the outputs whose initial is calculated or approx (and every
  calculatedParameter), in index order;
- `dependencies` is exact: measured through FMPy, an output's value changes when an input is set
  (with no step in between; several sizes and signs of change) if and only if the description
  lists that input among its dependencies, and every listed index is an input. Block outputs that
  are static maps of an input (servo_deadzone's saturation and dead zone, the latch's relay) are
  the bundled models' non-empty cases.

A test-only variant of the friction model whose named output reads the input (F_f + F_a) makes
the dependency check non-vacuous.

Contents
  test_inputs_have_no_initial_attribute
  test_outputs_and_initial_unknowns_are_exact
  test_dependencies_are_exact_as_measured        every bundled model and the variant
"""
import subprocess
import xml.etree.ElementTree as ET
import zipfile

import numpy as np
import pytest

from conftest import MODEL_NAMES, MODELS_DIR, Slave


@pytest.fixture(scope="session")
def input_feedthrough_fmu(lcsfmu_bin, tmp_path_factory):
    """coulomb_friction with F_f = F_plus - F_minus + F_a: an output that reads an input."""
    out = tmp_path_factory.mktemp("feedthrough")
    text = (MODELS_DIR / "coulomb_friction.toml").read_text()
    assert 'value = "F_plus - F_minus"' in text
    text = text.replace('value = "F_plus - F_minus"', 'value = "F_plus - F_minus + F_a"')
    text = text.replace('name = "coulomb_friction"', 'name = "friction_feedthrough"')
    toml = out / "friction_feedthrough.toml"
    toml.write_text(text)
    fmu = out / "friction_feedthrough.fmu"
    proc = subprocess.run([str(lcsfmu_bin), "build", str(toml), "-o", str(fmu)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return fmu


def description(fmu):
    with zipfile.ZipFile(fmu) as zf:
        return ET.fromstring(zf.read("modelDescription.xml"))


def variables(md):
    """1-based index -> ScalarVariable element."""
    return {i + 1: v for i, v in enumerate(md.find("ModelVariables").findall("ScalarVariable"))}


def unknowns(md, section):
    el = md.find("ModelStructure").find(section)
    return [] if el is None else el.findall("Unknown")


def initial_of(v):
    """The initial attribute, or the standard's default for the causality/variability."""
    if v.get("initial"):
        return v.get("initial")
    if v.get("variability") == "constant" or v.get("causality") in ("parameter", "input"):
        return "exact"
    return "calculated"


@pytest.mark.parametrize("model", MODEL_NAMES)
def test_inputs_have_no_initial_attribute(fmus, model):
    md = description(fmus[model])
    bad = [v.get("name") for v in variables(md).values()
           if v.get("causality") == "input" and v.get("initial") is not None]
    assert not bad


@pytest.mark.parametrize("model", MODEL_NAMES)
def test_outputs_and_initial_unknowns_are_exact(fmus, model):
    md = description(fmus[model])
    vs = variables(md)
    outputs = [i for i, v in vs.items() if v.get("causality") == "output"]
    listed = [int(u.get("index")) for u in unknowns(md, "Outputs")]
    assert listed == outputs
    want = [i for i, v in vs.items()
            if (v.get("causality") == "output" and initial_of(v) in ("calculated", "approx"))
            or v.get("causality") == "calculatedParameter"]
    got = [int(u.get("index")) for u in unknowns(md, "InitialUnknowns")]
    assert got == want
    if not want:
        assert md.find("ModelStructure").find("InitialUnknowns") is None, "empty element"


def declared_dependencies(md):
    """Output index -> set of input indices (each output states its dependencies)."""
    vs = variables(md)
    deps = {}
    for u in unknowns(md, "Outputs"):
        text = u.get("dependencies")
        assert text is not None, f"output {u.get('index')}: no dependencies attribute"
        listed = {int(d) for d in text.split()}
        assert all(vs[d].get("causality") == "input" for d in listed), listed
        deps[int(u.get("index"))] = listed
    return deps


# Input changes tried: a saturated block output moves only for changes that leave
# its flat part, so one direction or size alone could miss a real dependency.
PERTURBATIONS = (1.75, -1.75, 100.0, -100.0)


def measured_dependencies(fmu, md):
    """Output index -> inputs whose change alters it at once, through FMPy after one step."""
    vs = variables(md)
    inputs = [i for i, v in vs.items() if v.get("causality") == "input"]
    outputs = [i for i, v in vs.items() if v.get("causality") == "output"]
    name = {i: vs[i].get("name") for i in vs}
    s = Slave(fmu, "dependencies")
    try:
        s.initialize()
        s.step(0.0, 0.01)
        deps = {i: set() for i in outputs}
        for j in inputs:
            (old,) = s.get(name[j])
            before = s.get(*[name[i] for i in outputs])
            for change in PERTURBATIONS:
                s.set({name[j]: old + change})
                after = s.get(*[name[i] for i in outputs])
                s.set({name[j]: old})
                for i, b, a in zip(outputs, before, after):
                    if a != b:
                        deps[i].add(j)
            # Setting the input back restores the outputs (a function of the instant; a
            # re-solved static map may differ from the step's value in the last bits).
            assert np.allclose(s.get(*[name[i] for i in outputs]), before, rtol=1e-12, atol=1e-12)
        return deps
    finally:
        s.close()


@pytest.mark.parametrize("model", MODEL_NAMES + ["friction_feedthrough"])
def test_dependencies_are_exact_as_measured(fmus, input_feedthrough_fmu, model):
    fmu = input_feedthrough_fmu if model == "friction_feedthrough" else fmus[model]
    md = description(fmu)
    declared = declared_dependencies(md)
    assert declared == measured_dependencies(fmu, md)
    if model == "friction_feedthrough":
        vs = variables(md)
        index = {v.get("name"): i for i, v in vs.items()}
        assert declared[index["F_f"]] == {index["F_a"]}, "the variant must read its input"
