//! FMU states of the core instance: a restored or deserialized state repeats
//! the run bit for bit (first-order models; the bead chain on the band
//! solver's path and under both projected Moreau–Jean variants), and reset
//! repeats the run from the start.

use super::outputs;
use crate::{initialized, model};
use lcsfmu::instance::Instance;

fn run_steps(i: &mut Instance, from: usize, to: usize, h: f64) -> Vec<Vec<f64>> {
    (from..to)
        .map(|k| {
            i.do_step(k as f64 * h, (k + 1) as f64 * h - k as f64 * h)
                .unwrap();
            outputs(i)
        })
        .collect()
}

#[test]
fn fmu_states_replay_bit_for_bit_and_serialize_into_a_new_instance() {
    for stem in [
        "sign_spiral",
        "coulomb_friction",
        "rlc_diode",
        "saturated_integrator",
    ] {
        let h = 0.05;
        let mut i = initialized(model(stem));
        run_steps(&mut i, 0, 7, h);
        let snap = i.snapshot();
        let bytes = i.serialize(&snap);
        let first = run_steps(&mut i, 7, 40, h);
        i.restore(&snap).unwrap();
        assert_eq!(run_steps(&mut i, 7, 40, h), first, "{stem}: restore");
        let mut fresh = initialized(model(stem));
        let s = fresh.deserialize(&bytes).unwrap();
        fresh.restore(&s).unwrap();
        assert_eq!(
            run_steps(&mut fresh, 7, 40, h),
            first,
            "{stem}: deserialized"
        );
        assert!(fresh.deserialize(&bytes[..bytes.len() - 3]).is_err());
    }
}

/// The projected Moreau–Jean step saves no warm start of its second LCP (it
/// starts from the step's own percussions): a restored run still repeats bit
/// for bit, on the dense (N = 10) and the band (N = 60) path, through the blow
/// running down the column and the projections it causes.
///
/// The direct projection's index set, which remembers the previous step's,
/// travels in the saved active set: the same holds for it.
#[test]
fn projected_chain_states_replay_bit_for_bit() {
    let path = crate::model_path("bead_chain");
    for (size, method) in [
        (10, "moreau-jean-projected"),
        (60, "moreau-jean-projected"),
        (10, "moreau-jean-direct-projection"),
        (60, "moreau-jean-direct-projection"),
    ] {
        let m =
            lcsfmu::model::validate::load_with(&path, &[("N".into(), size)], Some(method)).unwrap();
        let h = 1e-3;
        let mut i = initialized(m.clone());
        // A state saved before the first step (the empty index set) replays too.
        let start = i.snapshot();
        let whole = run_steps(&mut i, 0, 30, h);
        i.restore(&start).unwrap();
        assert_eq!(
            run_steps(&mut i, 0, 30, h),
            whole,
            "N = {size} {method}: from t = 0"
        );
        let mut i = initialized(m.clone());
        run_steps(&mut i, 0, 3, h);
        let snap = i.snapshot();
        let bytes = i.serialize(&snap);
        let first = run_steps(&mut i, 3, 300, h);
        i.restore(&snap).unwrap();
        assert_eq!(
            run_steps(&mut i, 3, 300, h),
            first,
            "N = {size} {method}: restore"
        );
        let mut fresh = initialized(m);
        let s = fresh.deserialize(&bytes).unwrap();
        fresh.restore(&s).unwrap();
        assert_eq!(
            run_steps(&mut fresh, 3, 300, h),
            first,
            "N = {size} {method}: deserialized"
        );
        // The projection did act in these steps.
        let plain = lcsfmu::model::validate::load_with(&path, &[("N".into(), size)], None).unwrap();
        let mut p = initialized(plain);
        run_steps(&mut p, 0, 3, h);
        assert_ne!(
            run_steps(&mut p, 3, 300, h),
            first,
            "N = {size} {method}: no projection"
        );
    }
}

/// The band solver's path: its factor cache (refactored from the first changed
/// row) and the sweep must not make a restored run differ from the original in
/// a single bit, though the restored instance starts with no factors at all.
/// The struck column amplifies any rounding difference within a few steps.
#[test]
fn chain_states_replay_bit_for_bit() {
    let path = crate::model_path("bead_chain");
    let m = lcsfmu::model::validate::load_with_defines(&path, &[("N".into(), 300)]).unwrap();
    let mut i = initialized(m.clone());
    let h = 1e-3;
    let states = |i: &mut Instance, from: usize, to: usize| -> Vec<Vec<f64>> {
        (from..to)
            .map(|k| {
                i.do_step(k as f64 * h, h).unwrap();
                i.states().to_vec()
            })
            .collect()
    };
    states(&mut i, 0, 20);
    let snap = i.snapshot();
    let bytes = i.serialize(&snap);
    let first = states(&mut i, 20, 220);
    i.restore(&snap).unwrap();
    assert!(states(&mut i, 20, 220) == first, "restored run differs");
    let mut fresh = initialized(m);
    let s = fresh.deserialize(&bytes).unwrap();
    fresh.restore(&s).unwrap();
    assert!(
        states(&mut fresh, 20, 220) == first,
        "deserialized run differs"
    );
}

#[test]
fn reset_repeats_the_run() {
    let mut i = initialized(model("coulomb_friction"));
    let first = run_steps(&mut i, 0, 30, 0.1);
    i.reset().unwrap();
    i.setup_experiment(0.0, None).unwrap();
    i.enter_initialization_mode().unwrap();
    i.exit_initialization_mode().unwrap();
    assert_eq!(run_steps(&mut i, 0, 30, 0.1), first);
}
