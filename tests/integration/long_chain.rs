//! The struck bead column at N = 10,000 (`models/bead_chain.toml`, whose
//! comment tells users to build N = 1000 and more): 10,000 contacts on the
//! band solver, far beyond its dense fallback, run through the core instance
//! to the end of its experiment. Since the LCP acceptance became unit-free the
//! contacts between beads at rest (approach speeds of rounding size) are
//! judged in their own scale; the 10,000-bead column then stopped at
//! t = 0.03 with a candidate that verification rejected, and slow steps took
//! hundreds of active-set solves (`src/lcp/banded/pivot.rs` says why). Every
//! step must be solved, and each one's percussions must add up: the floor's
//! percussions are the only impulses from outside the column, so the column's
//! momentum changes by them and by gravity alone.

use lcsfmu::instance::variables;
use lcsfmu::model::validate;

#[test]
fn struck_column_of_ten_thousand_beads_runs_to_its_end() {
    let n = 10_000usize;
    let (m, g) = (0.01, 9.81);
    let path = super::model_path("bead_chain");
    let model = validate::load_with_defines(&path, &[("N".into(), n as i64)]).unwrap();
    let names = variables::variables(&model);
    let vr = |name: &str| names.iter().position(|v| v.name == name).unwrap() as u32;
    let velocities: Vec<u32> = (1..=n).map(|i| vr(&format!("v{i}"))).collect();
    let floor = vr("p1");
    let mut inst = super::initialized(model);
    let mut v = vec![0.0; n];
    let momentum = |inst: &mut lcsfmu::instance::Instance, v: &mut [f64]| {
        inst.get_reals(&velocities, v).unwrap();
        m * v.iter().sum::<f64>()
    };
    let start = momentum(&mut inst, &mut v);
    let (h, steps) = (1e-3, 1000);
    let mut floor_total = 0.0;
    for k in 0..steps {
        let t = k as f64 * h;
        if let Err(e) = inst.do_step(t, h) {
            panic!("step {k} (t = {t}) failed: {}", e.message);
        }
        let mut p = [0.0];
        inst.get_reals(&[floor], &mut p).unwrap();
        assert!(p[0] >= 0.0, "the floor pulls at t = {t}: {}", p[0]);
        floor_total += p[0];
    }
    let end = momentum(&mut inst, &mut v);
    assert!(v.iter().all(|x| x.is_finite()));
    // Gravity takes N m g h per step (981 N·s over the run) and the floor
    // gives nearly all of it back; the balance holds to rounding (5e-12 N·s),
    // the bound is 1e-9 of the column's weight.
    let want = floor_total - n as f64 * m * g * steps as f64 * h;
    assert!(
        (end - start - want).abs() <= 1e-9 * n as f64 * m * g,
        "momentum changed by {} where the impulses add up to {want}",
        end - start
    );
}
