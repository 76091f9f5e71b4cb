//! The column of 10 beads with Coulomb friction (`tests/data/friction_column.toml`,
//! `benches/chain.rs`'s "friction column"): each bead slides sideways at its own
//! speed while the top one strikes the column. Beads that fall together have
//! contacts whose approach and slip speeds are round-off, and so are the forces
//! that solve them; since the LCP acceptance became unit-free those rows are
//! judged against their own terms, and the run stopped at its second step
//! (issue 28: Lemke's answer and its polish rejected, residual 0.29). It must
//! run through `simulate` to its end, every step's percussions within
//! Coulomb's cone (`lcp::solver` keeps that step's LCP).

use lcsfmu::fmi::description;
use lcsfmu::model::validate;
use lcsfmu::tool::simulate::{self, Options};
use std::path::Path;

#[test]
fn friction_column_runs_its_thousand_steps() {
    runs_to_its_end("tests/data/friction_column.toml", 10);
}

/// The column of 30 beads (`tests/data/friction_column_n30.toml`), which
/// stopped at t = 0.005: pivoting from Lemke's basis converged on a candidate
/// whose clamp spoiled a quieter neighbour's row (`lcp::pivoting`).
#[test]
fn friction_column_of_30_beads_runs_its_thousand_steps() {
    runs_to_its_end("tests/data/friction_column_n30.toml", 30);
}

/// Runs the column of `n` beads in `file` through `simulate` to t = 1 and
/// checks every contact's percussions against Coulomb's cone.
fn runs_to_its_end(file: &str, n: usize) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let model = validate::load(&path).unwrap();
    let guid = description::guid(&model);
    let run = simulate::run(model, &guid, &Options::default()).unwrap();
    if let Some(why) = &run.failure {
        panic!("the friction column stopped early: {why}");
    }
    assert_eq!(run.rows.len(), 1001);
    assert_eq!(run.rows.last().unwrap()[0], 1.0);
    let col = |name: &str| run.header.iter().position(|h| h == name).unwrap();
    // The weight of a bead over one step (m g h), the scale of the percussions.
    let (mu, weight) = (0.3, 0.01 * 9.81 * 1e-3);
    for row in &run.rows {
        assert!(row.iter().all(|x| x.is_finite()), "t = {}", row[0]);
        for i in 1..=n {
            let p = row[col(&format!("p{i}"))];
            let tp = row[col(&format!("p{i}_t_plus"))];
            let tm = row[col(&format!("p{i}_t_minus"))];
            assert!(
                p >= 0.0 && tp >= 0.0 && tm >= 0.0,
                "contact {i} at t = {}",
                row[0]
            );
            assert!(
                tp + tm <= mu * p + 1e-9 * weight,
                "contact {i} outside the cone at t = {}: {tp} + {tm} > {mu} * {p}",
                row[0]
            );
        }
    }
}
