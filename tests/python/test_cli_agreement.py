"""`lcsfmu simulate` (in process, same core as the FMU) against FMPy's simulate_fmu.

Both use the communication points t_k = start + k*step (last clipped to stop) and apply inputs
at each point, so they must agree to 1e-12 * max(1, |ref|) in every column, time included.
For the friction block the split F_plus/F_minus is not unique while sticking (validation.md §3),
so the net force F_f is compared instead of its parts (the stick-slip block reports a unique
split: its friction parts are compared too).

Contents
  test_cli_equals_fmpy                     each model, default or given experiments, via the .fmu
  test_cli_on_toml_equals_cli_on_fmu       the model file and its FMU simulate identically
  test_cli_set_equals_fmpy_start_values    --set NAME=VALUE == start_values={NAME: VALUE}
"""
import numpy as np
import pytest

from conftest import (MODELS_DIR, assert_same_results, comm_times, cosim, run_cli,
                      sampled_input, write_input_csv)

NOT_UNIQUE = {"F_plus", "F_minus"}


def compared_columns(result):
    return [n for n in result.dtype.names if n not in NOT_UNIQUE]


def sin_table(start, stop, h):
    """x = sin t sampled at the communication points."""
    return sampled_input("x", np.sin, comm_times(start, stop, h))


def coarse_table(start, stop, h):
    """x = sin t sampled every 10 h from before the start to past the stop: both importers
    interpolate linearly between samples."""
    times = np.arange(-1, int(round((stop - start) / (10 * h))) + 2) * (10 * h) + start
    return sampled_input("x", np.sin, times)


# (id, model, experiment, start values, input table factory)
CASES = [
    ("spiral-default", "sign_spiral", {}, {}, None),
    ("spiral-h0.01-start0.5", "sign_spiral", {"start": 0.5, "stop": 2.0, "step": 0.01}, {}, None),
    ("friction-default", "coulomb_friction", {}, {}, None),
    ("friction-clipped-last-step", "coulomb_friction", {"stop": 1.05, "step": 0.2}, {}, None),
    ("rlc-h1e-3", "rlc_diode", {"stop": 5.0, "step": 1e-3}, {}, None),
    ("saturated-sin", "saturated_integrator", {"stop": 10.0, "step": 0.01}, {}, sin_table),
    ("saturated-interpolated", "saturated_integrator", {"stop": 10.0, "step": 0.01}, {},
     coarse_table),
    ("two-carts-default", "two_carts", {}, {}, None),
    ("ball-h1e-2-e0.5", "bouncing_ball", {"stop": 5.0, "step": 0.01}, {"e": 0.5}, None),
    ("cradle-e0.3", "newtons_cradle", {"stop": 0.2, "step": 1e-3}, {"e": 0.3}, None),
    ("stick-slip-belt-input", "stick_slip", {"stop": 10.0, "step": 1e-3}, {},
     lambda start, stop, h: sampled_input("v_belt", lambda t: 0.1 + 0.05 * np.sin(t),
                                          comm_times(start, stop, h))),
    ("bead-chain-default", "bead_chain", {}, {"e": 0.9}, None),
    ("servo-set-point", "servo_deadzone", {"stop": 10.0, "step": 0.01}, {},
     lambda start, stop, h: sampled_input("r", lambda t: 1.0 + 0.8 * np.sin(2 * t),
                                          comm_times(start, stop, h))),
    ("backlash-sin", "backlash_gear", {"stop": 10.0, "step": 0.01}, {},
     lambda start, stop, h: sampled_input("u", np.sin, comm_times(start, stop, h))),
    ("latch-sin", "zero_crossing", {"stop": 10.0, "step": 0.01}, {},
     lambda start, stop, h: sampled_input("s", lambda t: np.sin(t - 4.0),
                                          comm_times(start, stop, h))),
    ("pwa-k2", "pwa_feedback", {"stop": 20.0, "step": 0.01}, {"k2": 0.1}, None),
    ("helix-default", "square_helix", {}, {}, None),
    ("vdp-h0.02", "vdp_saturation", {"stop": 20.0, "step": 0.02}, {}, None),
    ("vdp-mu2-h0.02", "vdp_saturation", {"stop": 10.0, "step": 0.02}, {"mu": 2.0}, None),
    ("bridge-h1e-5", "diode_bridge_source", {"stop": 0.01, "step": 1e-5}, {}, None),
    ("buck-d0.3", "buck_pwm", {"stop": 0.001, "step": 1e-6}, {"d": 0.3}, None),
    # nonlinear mechanics (Moreau-Jean with a Newton loop), each past at least two impacts
    # (pendulum: t = 0.637 and 1.955, damped 0.656 and 2.118; duffing: 1.232 and 4.445; the
    # block: 11 contact episodes in 2 s, 32 with mu = 0.8)
    ("pendulum-h1e-3", "pendulum_stop", {"stop": 3.0, "step": 1e-3}, {}, None),
    ("pendulum-damped-h2e-3", "pendulum_stop", {"stop": 3.0, "step": 2e-3}, {"c": 0.2, "e": 0.5},
     None),
    ("duffing-h1e-3", "duffing_impact", {"stop": 10.0, "step": 1e-3}, {}, None),
    ("rocking-h1e-3", "rocking_block", {"stop": 2.0, "step": 1e-3}, {}, None),
    ("rocking-mu-h1e-3", "rocking_block", {"stop": 2.0, "step": 1e-3}, {"mu": 0.8}, None),
]


def fmpy_run(fmu, experiment, start_values=None, table=None):
    kwargs = {}
    if "start" in experiment:
        kwargs["start_time"] = experiment["start"]
    if "stop" in experiment:
        kwargs["stop_time"] = experiment["stop"]
    if "step" in experiment:
        kwargs["output_interval"] = experiment["step"]
    if start_values:
        kwargs["start_values"] = start_values
    if table is not None:
        kwargs["input"] = table
    return cosim(fmu, **kwargs)


@pytest.mark.parametrize("model, experiment, start_values, make_table",
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_cli_equals_fmpy(fmus, lcsfmu_bin, tmp_path, model, experiment, start_values,
                         make_table):
    table = None
    input_csv = None
    if make_table is not None:
        table = make_table(experiment.get("start", 0.0), experiment["stop"], experiment["step"])
        input_csv = write_input_csv(tmp_path / "inputs.csv", table)
    ref = fmpy_run(fmus[model], experiment, start_values, table)
    if "step" not in experiment:  # FMPy's default in co-simulation: DefaultExperiment stepSize
        assert len(ref) <= 1001
    _, cli = run_cli(lcsfmu_bin, fmus[model], tmp_path, sets=start_values, input_csv=input_csv,
                     **experiment)
    assert_same_results(cli, ref, 1e-12, compared_columns(ref))


@pytest.mark.parametrize("model", ["sign_spiral", "coulomb_friction", "saturated_integrator"])
def test_cli_on_toml_equals_cli_on_fmu(fmus, lcsfmu_bin, tmp_path, model):
    _, from_toml = run_cli(lcsfmu_bin, MODELS_DIR / f"{model}.toml", tmp_path)
    _, from_fmu = run_cli(lcsfmu_bin, fmus[model], tmp_path)
    assert_same_results(from_toml, from_fmu, 0.0)


SET_CASES = [
    ("friction-mu5-v50", "coulomb_friction", {"stop": 5.0, "step": 0.05}, {"mu": 5.0, "v": 50.0},
     None),
    ("friction-Fa", "coulomb_friction", {}, {"F_a": 20000.0}, None),
    ("spiral-x0", "sign_spiral", {"step": 0.01}, {"x1": 2.0, "x2": 0.0}, None),
    ("rlc-RLC", "rlc_diode", {"stop": 5.0, "step": 1e-3}, {"R": 2.0, "L": 0.5, "C": 0.25}, None),
    ("saturated-U0.2", "saturated_integrator", {"stop": 10.0, "step": 0.01},
     {"U": 0.2, "y": 0.1}, sin_table),
]


@pytest.mark.parametrize("model, experiment, start_values, make_table",
                         [c[1:] for c in SET_CASES], ids=[c[0] for c in SET_CASES])
def test_cli_set_equals_fmpy_start_values(fmus, lcsfmu_bin, tmp_path, model, experiment,
                                          start_values, make_table):
    table = input_csv = None
    if make_table is not None:
        table = make_table(0.0, experiment["stop"], experiment["step"])
        input_csv = write_input_csv(tmp_path / "inputs.csv", table)
    ref = fmpy_run(fmus[model], experiment, start_values, table)
    default = fmpy_run(fmus[model], experiment, None, table)
    # the start values matter: otherwise this test could not tell --set from no --set
    assert any(not np.array_equal(ref[n], default[n]) for n in ref.dtype.names if n != "time")
    _, cli = run_cli(lcsfmu_bin, fmus[model], tmp_path, sets=start_values, input_csv=input_csv,
                     **experiment)
    assert_same_results(cli, ref, 1e-12, compared_columns(ref))
