"""FMU state, reset and multiple instances, driven call by call with fmpy.fmi2.FMU2Slave.

Every comparison is bit for bit (the same core replaying the same steps must produce the same
floating-point numbers, signs of zeros included). doStep is called with
noSetFMUStatePriorToCurrentPoint = false because the tests do go back in time.

Contents
  test_get_set_fmu_state_replays_bit_identically      getFMUstate mid-run, run on, setFMUstate, run on
                                                      (across an impact for the mechanical
                                                      nonlinear models: IMPULSES)
  test_serialized_state_continues_in_fresh_instance   serialize -> new initialized instance ->
                                                      deSerialize + setFMUstate -> identical run
  test_serialized_state_carries_parameters            ... even if the new instance has other parameters
  test_serialization_is_deterministic                 the same state serializes to the same bytes
  test_state_carries_the_input                        saturated integrator: input set before the
                                                      snapshot is restored with it
  test_reset_restores_start_values                    fmi2Reset (after terminate and mid-run), rerun
  test_two_instances_stepped_alternately              interleaved instances == each one alone
  test_two_instances_in_two_threads                   concurrent instances == each one alone
"""
import math
import threading

import pytest

from conftest import bits

# model: (h, steps, mid step, modified start values, inputs(t) or None)
CASES = {
    # before the origin is reached (t = 0.5 of ~0.96)
    "sign_spiral": (0.05, 40, 10, {"x1": 2.0, "x2": 0.5}, None),
    # sliding at the snapshot, sticking after step 11
    "coulomb_friction": (0.1, 30, 6, {"mu": 5.0, "v": 60.0}, None),
    # conducting at the snapshot, the diode switches at t = 1.21 after it
    "rlc_diode": (1e-3, 2000, 1100, {"R": 2.0, "L": 0.5, "C": 0.25}, None),
    # input x = sin t set at every communication point
    "saturated_integrator": (0.01, 800, 300, {"U": 0.2, "y": 0.1},
                             lambda t: {"x": math.sin(t)}),
    # between the first collision of the carts and the stop (contacts come and go after it)
    "two_carts": (0.1, 50, 12, {"k2": 2.0, "x2": 3.0}, None),
    # after the first impact, with many impacts to come
    "bouncing_ball": (1e-3, 3000, 600, {"e": 0.5, "q": 2.0}, None),
    # mid-flight after the simultaneous impact
    "newtons_cradle": (1e-3, 100, 1, {"e": 0.5}, None),
    # sticking at the snapshot, slipping later; the belt speed is an input
    "stick_slip": (1e-3, 5000, 2500, {"mu": 0.4, "k": 20.0},
                   lambda t: {"v_belt": 0.1 + 0.05 * math.sin(t)}),
    # beads landing at the snapshot (band solver for N = 60 would need a rebuild; N = 10 is dense)
    "bead_chain": (1e-3, 600, 150, {"e": 0.2, "d": 0.011}, None),
    # the signal form: a sliding mode reached before the snapshot
    "relay_feedback": (0.01, 200, 60, {"x1": 0.8}, None),
    # static maps that follow the set-point at once, set at every communication point
    "servo_deadzone": (0.01, 500, 150, {"umax": 1.2, "x": 0.5},
                       lambda t: {"r": 1.0 + 0.5 * math.sin(3 * t)}),
    # the play operator, moving and holding
    "backlash_gear": (0.01, 800, 300, {"d": 0.3}, lambda t: {"u": math.sin(t)}),
    # the latch switches after the snapshot
    "zero_crossing": (0.01, 600, 100, {"latch": 1.0}, lambda t: {"s": math.sin(t - 3.0)}),
    # sticks after the snapshot
    "friction_block": (0.01, 400, 50, {"Fc": 1.5, "v": 2.0}, None),
    # the Newton step: the snapshot carries the iterate's start (state,
    # multipliers) and the LCP's active set
    "vdp_saturation": (0.01, 600, 150, {"mu": 1.5}, None),
    "buck_pwm": (1e-6, 600, 150, {"d": 0.4}, None),
    # a source in time: the bridge blocks at the snapshot (t = 3 ms); after the source's sign
    # change at 5 ms the other pair conducts (i2 > 0 from 7.6 to 11.0 ms)
    "diode_bridge_source": (1e-5, 1500, 300, {"Vm": 5.0, "v": 2.0}, None),
    # Moreau-Jean with a Newton loop: the snapshot in flight, the run cut after an impact
    # (IMPULSES below): the pendulum hits its stop at t = 0.637
    "pendulum_stop": (1e-3, 1000, 400, {"e": 0.5, "theta": 0.8}, None),
    # the forced oscillator hits its wall at t = 1.232
    "duffing_impact": (1e-3, 1500, 1000, {"A": 3.0, "e": 0.5}, None),
    # the block's first corner lands at t = 0.18, the other one later
    "rocking_block": (1e-3, 500, 100, {"e": 0.3, "th": 0.3}, None),
}
MODELS = list(CASES)
# The contact impulses of the mechanical nonlinear models: zero at the snapshot (in flight),
# nonzero at some step after it, so the replayed window crosses an impact.
IMPULSES = {"pendulum_stop": ["p"], "duffing_impact": ["p"], "rocking_block": ["p1", "p2"]}


def assert_crosses_an_impact(slave, model, at_mid, after):
    columns = [slave.output_names.index(name) for name in IMPULSES.get(model, [])]
    if columns:
        assert all(at_mid[j] == 0.0 for j in columns), "a contact is active at the snapshot"
        assert any(row[j] != 0.0 for row in after for j in columns), "no impact after the snapshot"


def full_run(slave, model, start_values=None):
    h, n, _, _, inputs = CASES[model]
    slave.initialize(start_values)
    return [slave.outputs()] + slave.run(0.0, h, 0, n, inputs)


@pytest.mark.parametrize("model", MODELS)
def test_get_set_fmu_state_replays_bit_identically(fmus, slaves, model):
    h, n, mid, _, inputs = CASES[model]
    s = slaves(fmus[model])
    s.initialize()
    s.run(0.0, h, 0, mid, inputs)
    at_mid = s.outputs()
    state = s.fmu.getFMUstate()
    first = s.run(0.0, h, mid, n, inputs)
    assert bits(first) != bits([at_mid] * len(first)), "nothing happens after the snapshot"
    assert_crosses_an_impact(s, model, at_mid, first)
    for _ in range(2):  # a state can be restored more than once
        s.fmu.setFMUstate(state)
        assert bits(s.outputs()) == bits(at_mid), "outputs right after setFMUstate"
        again = s.run(0.0, h, mid, n, inputs)  # doStep checks t_mid against the FMU's time
        assert bits(again) == bits(first)
    s.fmu.freeFMUstate(state)


@pytest.mark.parametrize("model", MODELS)
def test_serialized_state_continues_in_fresh_instance(fmus, slaves, model):
    h, n, mid, _, inputs = CASES[model]
    a = slaves(fmus[model], "original")
    a.initialize()
    a.run(0.0, h, 0, mid, inputs)
    state = a.fmu.getFMUstate()
    blob = a.fmu.serializeFMUstate(state)
    a.fmu.freeFMUstate(state)
    assert isinstance(blob, bytes) and len(blob) > 0
    first = a.run(0.0, h, mid, n, inputs)

    b = slaves(fmus[model], "restored")
    b.initialize()
    restored = b.fmu.deSerializeFMUstate(blob)
    b.fmu.setFMUstate(restored)
    b.fmu.freeFMUstate(restored)
    again = b.run(0.0, h, mid, n, inputs)
    assert bits(again) == bits(first)


@pytest.mark.parametrize("model", MODELS)
def test_serialized_state_carries_parameters(fmus, slaves, model):
    # the snapshot holds all dynamic data, parameters included (fmi2-notes §4)
    h, n, mid, modified, inputs = CASES[model]
    a = slaves(fmus[model], "original")
    a.initialize()
    a.run(0.0, h, 0, mid, inputs)
    state = a.fmu.getFMUstate()
    blob = a.fmu.serializeFMUstate(state)
    a.fmu.freeFMUstate(state)
    first = a.run(0.0, h, mid, n, inputs)

    b = slaves(fmus[model], "other-parameters")
    b.initialize(modified)
    restored = b.fmu.deSerializeFMUstate(blob)
    b.fmu.setFMUstate(restored)
    b.fmu.freeFMUstate(restored)
    parameters = [v.name for v in b.md.modelVariables
                  if v.causality == "parameter" and v.name in modified]
    for name in parameters:  # a still has the model's values
        assert b.get(name) == a.get(name) != [modified[name]]
    assert bits(b.run(0.0, h, mid, n, inputs)) == bits(first)


@pytest.mark.parametrize("model", MODELS)
def test_serialization_is_deterministic(fmus, slaves, model):
    h, n, mid, _, inputs = CASES[model]
    s = slaves(fmus[model])
    s.initialize()
    s.run(0.0, h, 0, mid, inputs)
    state = s.fmu.getFMUstate()
    blob1 = s.fmu.serializeFMUstate(state)
    blob2 = s.fmu.serializeFMUstate(state)
    s.run(0.0, h, mid, mid + 5, inputs)
    blob3 = s.fmu.serializeFMUstate(state)  # the snapshot does not follow the instance
    later = s.fmu.getFMUstate()
    blob4 = s.fmu.serializeFMUstate(later)
    assert blob1 == blob2 == blob3
    assert blob4 != blob1
    s.fmu.freeFMUstate(state)
    s.fmu.freeFMUstate(later)


def test_state_carries_the_input(fmus, slaves):
    model = "saturated_integrator"
    h, n, mid, _, inputs = CASES[model]
    s = slaves(fmus[model])
    s.initialize()
    s.run(0.0, h, 0, mid, inputs)
    s.set({"x": 0.7})  # an input value that is not the sine
    state = s.fmu.getFMUstate()
    t_mid = mid * h

    def continue_run():
        s.step(t_mid, (mid + 1) * h - t_mid)  # the first step uses the input held in the FMU
        return [s.outputs()] + s.run(0.0, h, mid + 1, n, inputs)

    first = continue_run()
    s.fmu.setFMUstate(state)
    assert s.get("x") == [0.7]
    again = continue_run()
    assert bits(again) == bits(first)

    s.fmu.setFMUstate(state)
    s.set({"x": -3.0})  # changed after restoring: the next step must use it
    changed = continue_run()
    assert bits(changed[0]) != bits(first[0])
    s.fmu.freeFMUstate(state)


@pytest.mark.parametrize("model", MODELS)
def test_reset_restores_start_values(fmus, slaves, model):
    h, n, mid, modified, inputs = CASES[model]
    fresh = slaves(fmus[model], "fresh")
    reference = full_run(fresh, model)

    s = slaves(fmus[model], "reused")
    first = full_run(s, model)
    assert bits(first) == bits(reference)
    # reset after terminate, then a run with other start values
    s.fmu.terminate()
    s.fmu.reset()
    other = full_run(s, model, modified)
    assert bits(other) != bits(first), "the modified start values must matter"
    # reset in the middle of a run (no terminate): back to the model's start values
    s.fmu.reset()
    second = full_run(s, model)
    assert bits(second) == bits(first)


@pytest.mark.parametrize("model", MODELS)
def test_two_instances_stepped_alternately(fmus, slaves, model):
    h, n, _, modified, inputs = CASES[model]
    alone_a = full_run(slaves(fmus[model], "alone-a"), model)
    alone_b = full_run(slaves(fmus[model], "alone-b"), model, modified)
    assert bits(alone_a) != bits(alone_b)

    a = slaves(fmus[model], "a")
    b = slaves(fmus[model], "b")
    a.initialize()
    b.initialize(modified)
    rows_a, rows_b = [a.outputs()], [b.outputs()]
    for k in range(n):
        rows_a += a.run(0.0, h, k, k + 1, inputs)
        rows_b += b.run(0.0, h, k, k + 1, inputs)
    assert bits(rows_a) == bits(alone_a)
    assert bits(rows_b) == bits(alone_b)


@pytest.mark.parametrize("model", ["rlc_diode", "saturated_integrator"])
def test_two_instances_in_two_threads(fmus, slaves, model):
    # ctypes releases the GIL during foreign calls, so the two instances really run at once
    _, _, _, modified, _ = CASES[model]
    alone = [full_run(slaves(fmus[model], "alone-a"), model),
             full_run(slaves(fmus[model], "alone-b"), model, modified)]
    pair = [slaves(fmus[model], "thread-a"), slaves(fmus[model], "thread-b")]
    results, errors = [None, None], []

    def work(i):
        try:
            for _ in range(3):
                pair[i].fmu.reset()
                results[i] = full_run(pair[i], model, modified if i else None)
        except Exception as e:  # reported in the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    assert bits(results[0]) == bits(alone[0])
    assert bits(results[1]) == bits(alone[1])
