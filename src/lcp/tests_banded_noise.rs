//! Checks of the band solver on rows whose terms are all rounding noise (the
//! beads of a resting column have relative velocities of 1e-16): the sweep
//! decides such rows in their own scale, and block pivoting stops only on a
//! candidate that the acceptance test accepts, in any units.

use super::banded::DENSE_FALLBACK_LIMIT;
use super::tests_banded::{chain, chain_load, chain_mass};
use super::tests_random::Rng;
use super::{Band, BandProblem, BandSolver, Bound, Method, Settings, Status};

/// `p` with its rows scaled by `r` and its columns by `c` (the same problem
/// in other units: `u_j` becomes `c_j u_j`, `w_i` becomes `r_i w_i`).
fn rescaled(p: &BandProblem, r: &[f64], c: &[f64]) -> BandProblem {
    let n = p.n();
    let (kl, ku) = (p.m.kl(), p.m.ku());
    let mut m = Band::zeros(n, kl, ku);
    for (i, ri) in r.iter().enumerate() {
        let cols = i.saturating_sub(kl)..(i + ku + 1).min(n);
        for (j, cj) in cols.clone().zip(&c[cols]) {
            m.set(i, j, ri * p.m.get(i, j) / cj);
        }
    }
    BandProblem {
        m,
        q: (0..n).map(|i| r[i] * p.q[i]).collect(),
        lo: (0..n).map(|i| c[i] * p.lo[i]).collect(),
        hi: (0..n).map(|i| c[i] * p.hi[i]).collect(),
    }
}

/// Unit systems for `n` components: none, and two that change every row and
/// column by factors of up to 1e9 (positive, so a Z-matrix stays one), so
/// that neighbouring columns can be 1e18 apart.
fn unit_systems(n: usize) -> Vec<(Vec<f64>, Vec<f64>)> {
    let mut rng = Rng::new(17);
    let mut factor = || 10f64.powf(rng.uniform(-9.0, 9.0));
    let mut systems = vec![(vec![1.0; n], vec![1.0; n])];
    for _ in 0..2 {
        let r = (0..n).map(|_| factor()).collect();
        let c = (0..n).map(|_| factor()).collect();
        systems.push((r, c));
    }
    systems
}

#[test]
fn rows_of_rounding_noise_are_swept_in_their_own_scale() {
    // The left half of a chain at rest (approach speeds of rounding size,
    // some exactly zero), the right half loaded by random bead velocities,
    // from all pinned. The sweep used to free a pinned row only when its
    // `w` was below 1e-12 of the largest load: the noisy rows, negative in
    // their own scale, were left to block flips, which then moved along the
    // quiet half about one contact per solve (154 solves in one step of the
    // struck 1,000-bead column).
    let n = 3000;
    let mut rng = Rng::new(23);
    let mut p = BandProblem::new(chain(n, chain_mass));
    chain_load(&mut rng, &mut p.q[n / 2..]);
    for x in &mut p.q[..n / 2] {
        *x = match rng.below(4) {
            0 => 0.0,
            _ => rng.uniform(-1.0, 1.0) * 1e-16,
        };
    }
    let mut answers = Vec::new();
    for (r, c) in unit_systems(n) {
        let p = rescaled(&p, &r, &c);
        let mut s = BandSolver::new(n, 1, 1, Settings::default());
        s.set_active_set(&vec![Bound::Lower; n]);
        let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
        let info = s.solve(&p, &mut u, &mut w);
        assert_eq!(
            (info.status, info.method, info.iterations),
            (Status::Solved, Method::BlockPivot, 2),
            "{info:?}"
        );
        assert!(info.residual <= 1e-9, "{info:?}");
        // Some quiet rows are freed (their percussions are noise too).
        let quiet_free = s.active_set()[..n / 2]
            .iter()
            .filter(|b| **b == Bound::Free)
            .count();
        assert!(quiet_free > 100, "{quiet_free}");
        answers.push(s.active_set().to_vec());
    }
    // The same active set in every unit system.
    assert!(answers.iter().all(|a| *a == answers[0]));
}

/// Rows 0..4 of a chain (diagonal 200, neighbours -100): rows 0 and 1 at
/// rest (approach speeds of rounding size), row 2 an open contact (fixed at
/// zero), row 3 pressed by a load of 200; the rest of `n` fixed open.
fn quiet_rows_beside_a_blow(n: usize) -> BandProblem {
    let mut m = Band::zeros(n, 1, 1);
    for i in 0..n {
        m.set(i, i, 200.0);
        if i > 0 {
            m.set(i, i - 1, -100.0);
            m.set(i - 1, i, -100.0);
        }
    }
    let mut p = BandProblem::new(m);
    p.q[..4].copy_from_slice(&[-3e-16, 1.6e-16, 0.0, -200.0]);
    p.hi[2] = 0.0;
    p.hi[4..].fill(0.0);
    p
}

#[test]
fn pivoting_stops_only_on_a_candidate_that_verifies() {
    // From the stored active set (rows 0, 1 and 3 free), row 1 comes out
    // 7e-20 below its bound. In its own scale that is nothing: its resolved
    // magnitude is 50, from row 3's load through the open contact. But the
    // acceptance test clamps it onto the bound, which moves row 0's `w` by
    // 7e-18 where row 0's terms are 6e-16: rejected. Block pivoting used to
    // stop there, and without the dense fallback (n > 256) the step failed
    // (the 3,000-bead column at t = 0.158). Row 1 belongs on its bound: it is
    // pinned, and the answer verifies, in any units.
    let n = DENSE_FALLBACK_LIMIT + 44;
    let p = quiet_rows_beside_a_blow(n);
    let mut stored = vec![Bound::Lower; n];
    for i in [0, 1, 3] {
        stored[i] = Bound::Free;
    }
    for (r, c) in unit_systems(n) {
        let p = rescaled(&p, &r, &c);
        let mut s = BandSolver::new(n, 1, 1, Settings::default());
        s.set_active_set(&stored);
        let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
        let info = s.solve(&p, &mut u, &mut w);
        assert_eq!(
            (info.status, info.method, info.iterations),
            (Status::Solved, Method::BlockPivot, 2),
            "{info:?}"
        );
        assert!(info.residual <= 1e-9, "{info:?}");
        assert_eq!(
            &s.active_set()[..4],
            &[Bound::Free, Bound::Lower, Bound::Lower, Bound::Free]
        );
        assert_eq!(u[1], 0.0);
        assert!(w[1] > 0.0 && u[0] > 0.0, "{:?} {:?}", &u[..4], &w[..4]);
        // Row 3 holds the load: u_3 = 1 in the first units.
        assert!((u[3] / c[3] - 1.0).abs() < 1e-12, "{}", u[3] / c[3]);
    }
}
