//! Checks of the band solver off the happy path: failures reported with NaN
//! and the active set kept, invalid and empty problems, the residual against
//! the dense problem's, a friction problem (not a P-matrix) that needs the
//! dense fallback, the iteration budget, and garbage input.

use super::tests_banded::{
    band_of, band_p_matrix, chain, chain_load, chain_mass, random_bounds, random_q, solve_fresh,
    INF,
};
use super::tests_random::Rng;
use super::{Band, BandProblem, BandSolver, Bound, Method, Problem, Settings, Status};
use nalgebra::DMatrix;

#[test]
fn failures_are_reported_with_nan_and_the_active_set_kept() {
    // M = -I with q = -1 has no solution; n = 300 has no dense fallback.
    for n in [300, 2] {
        let mut m = Band::zeros(n, 1, 1);
        for i in 0..n {
            m.set(i, i, -1.0);
        }
        let mut p = BandProblem::new(m);
        p.q.fill(-1.0);
        let mut s = BandSolver::new(n, 1, 1, Settings::default());
        let mut stored = vec![Bound::Lower; n];
        stored[1] = Bound::Free;
        s.set_active_set(&stored);
        let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
        let info = s.solve(&p, &mut u, &mut w);
        assert_ne!(info.status, Status::Solved, "n={n}");
        if n == 2 {
            // The dense fallback proves it (enumeration over all active sets).
            assert_eq!(info.status, Status::Infeasible);
        } else {
            assert_eq!(info.status, Status::MaxIterations);
            assert_eq!(info.iterations, 50 + 2 * n);
        }
        assert!(u.iter().chain(&w).all(|x| x.is_nan()), "n={n}");
        assert_eq!(s.active_set(), stored);
    }
}

#[test]
fn invalid_and_empty_problems() {
    let mut s = BandSolver::new(3, 1, 1, Settings::default());
    let (mut u, mut w) = ([0.0; 3], [0.0; 3]);
    // A band wider than the workspace, a wrong size, bad entries.
    let wide = BandProblem::new(Band::zeros(3, 2, 1));
    let mut nan_q = BandProblem::new(Band::zeros(3, 1, 1));
    nan_q.q[1] = f64::NAN;
    let mut crossed = BandProblem::new(Band::zeros(3, 0, 0));
    crossed.lo[2] = 1.0;
    crossed.hi[2] = 0.0;
    for p in [
        &wide,
        &BandProblem::new(Band::zeros(2, 1, 1)),
        &nan_q,
        &crossed,
    ] {
        let info = s.solve(p, &mut u, &mut w);
        assert_eq!(
            (info.status, info.method),
            (Status::InvalidProblem, Method::None)
        );
        assert!(u.iter().all(|x| x.is_nan()));
    }
    assert!(nan_q.validate().unwrap_err().contains("q[1]"));
    assert!(crossed.validate().unwrap_err().contains("lo[2]"));
    let mut bad_m = BandProblem::new(Band::zeros(3, 1, 1));
    bad_m.m.set(2, 1, f64::INFINITY);
    assert!(bad_m.validate().unwrap_err().contains("M(2,1)"));
    let mut short = BandProblem::new(Band::zeros(3, 1, 1));
    short.hi.pop();
    assert!(short.validate().unwrap_err().contains("lengths"));
    assert!(BandProblem::new(Band::zeros(3, 1, 1)).validate().is_ok());

    let empty = BandProblem::new(Band::zeros(0, 1, 1));
    let info = BandSolver::new(0, 1, 1, Settings::default()).solve(&empty, &mut [], &mut []);
    assert_eq!((info.status, info.iterations), (Status::Solved, 0));
}

#[test]
fn residual_agrees_with_the_dense_problem() {
    let mut rng = Rng::new(3);
    let mut p = BandProblem::new(band_p_matrix(&mut rng, 6, 2, 1, false));
    random_q(&mut rng, &mut p.q, 0);
    random_bounds(&mut rng, &mut p);
    let d: Problem = p.to_dense();
    let u = [0.5, -0.2, 0.0, 1.0, 0.3, -1.0];
    let w = [0.1, 0.0, -0.4, 0.2, 0.0, 0.7];
    let r = p.residual(&u, &w);
    assert!(r > 0.0);
    assert_eq!(r, super::residual(&d, &u, &w));
    assert!(p.residual(&u[..5], &w[..5]).is_nan());
}

/// A row of beads sliding on a floor, next to a wall, with Coulomb
/// friction in the Stewart–Trinkle LCP form. Per bead the unknowns are
/// `[c, λ, γ, β+, β-]`: the contact impulse with the left neighbour (or the
/// wall), the floor's normal impulse, the sliding-speed multiplier and the two
/// friction impulses. The `γ` rows (`μ λ - β+ - β-`) and columns make it a
/// band matrix (kl = ku = 5) that is not a P-matrix: its `γ` diagonal is zero,
/// so a free `γ` is a vanishing leading minor for the band LU.
fn friction_chain(beads: usize, rng: &mut Rng) -> BandProblem {
    let n = 5 * beads;
    let mu = 0.5;
    // Rows of J (velocity unknowns vx_i = 2i, vy_i = 2i + 1) per LCP row.
    let mut j = DMatrix::zeros(n, 2 * beads);
    let mut q = vec![0.0; n];
    let mut v = vec![0.0; 2 * beads];
    for b in 0..beads {
        // Moving away from the wall faster than friction can stop them.
        v[2 * b] = rng.uniform(1.0, 3.0);
        v[2 * b + 1] = -rng.uniform(0.5, 1.5);
        let r = 5 * b;
        j[(r, 2 * b)] = 1.0;
        if b > 0 {
            j[(r, 2 * b - 2)] = -1.0;
        }
        j[(r + 1, 2 * b + 1)] = 1.0;
        j[(r + 3, 2 * b)] = 1.0;
        j[(r + 4, 2 * b)] = -1.0;
    }
    let minv = DMatrix::from_fn(2 * beads, 2 * beads, |a, c| {
        if a == c {
            1.0 / chain_mass(a / 2)
        } else {
            0.0
        }
    });
    let mut d = &j * &minv * j.transpose();
    let jv = &j * nalgebra::DVector::from_column_slice(&v);
    for b in 0..beads {
        let (lam, gam) = (5 * b + 1, 5 * b + 2);
        d[(gam, lam)] = mu;
        for beta in [5 * b + 3, 5 * b + 4] {
            d[(beta, gam)] = 1.0;
            d[(gam, beta)] = -1.0;
        }
    }
    for i in 0..n {
        q[i] = jv[i];
    }
    let mut p = BandProblem::new(band_of(&d, 5, 5));
    p.q = q;
    p
}

#[test]
fn friction_chain_needs_and_gets_the_dense_fallback() {
    let mut rng = Rng::new(41);
    let p = friction_chain(10, &mut rng);
    let (info, u, w) = solve_fresh(&p, 0);
    assert_eq!(info.status, Status::Solved, "{info:?}");
    // Solved by the dense fallback: since dense block pivoting undoes a flip
    // that makes the free block singular it solves this chain itself
    // (68 solves, reported as BlockPivot like the band solver's own); that
    // the band solver alone cannot is the case of 60 beads below.
    assert_ne!(info.method, Method::WarmStart, "{info:?}");
    assert!(p.residual(&u, &w) <= 1e-9);
    // Beads are pressed into the floor and slide: some γ is positive.
    assert!((0..10).any(|b| u[5 * b + 2] > 1e-6));

    // Beyond the fallback limit the same physics is reported, not solved.
    let p = friction_chain(60, &mut rng);
    let (info, u, _) = solve_fresh(&p, 0);
    assert_eq!(info.status, Status::NumericalFailure, "{info:?}");
    assert!(u.iter().all(|x| x.is_nan()));
}

#[test]
fn iteration_budget_and_settings() {
    // A chain with random velocities needs several solves from all pinned.
    let mut rng = Rng::new(77);
    for n in [300, 10] {
        let mut p = BandProblem::new(chain(n, chain_mass));
        chain_load(&mut rng, &mut p.q);
        let mut s = BandSolver::new(n, 1, 1, Settings::default());
        s.set_settings(Settings {
            max_pivots: 1,
            ..Settings::default()
        });
        assert_eq!(s.settings().max_pivots, 1);
        let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
        let info = s.solve(&p, &mut u, &mut w);
        if n > 256 {
            assert_eq!(info.status, Status::MaxIterations, "{info:?}");
            assert_eq!(info.iterations, 1);
        } else {
            // The dense fallback keeps its own (automatic) budget; its cold
            // method on a P-matrix is block pivoting.
            assert_eq!(
                (info.status, info.method),
                (Status::Solved, Method::BlockPivot)
            );
        }
    }
}

/// Entries from a mix of ordinary, huge, tiny and non-finite values.
fn garbage(rng: &mut Rng) -> f64 {
    match rng.below(10) {
        0 => f64::NAN,
        1 => INF,
        2 => -INF,
        3 => 1e300,
        4 => 1e-300,
        5 => 0.0,
        _ => rng.uniform(-2.0, 2.0),
    }
}

#[test]
fn garbage_never_panics_and_never_lies() {
    let mut rng = Rng::new(99);
    let mut solved = [0usize; 2];
    for round in 0..400 {
        // Small sizes use the dense fallback, 300 does not have one.
        let n = if round % 8 == 0 {
            300
        } else {
            1 + rng.below(8)
        };
        let (kl, ku) = (rng.below(3), rng.below(3));
        let mut p = BandProblem::new(Band::zeros(n, kl, ku));
        for i in 0..n {
            for j in i.saturating_sub(kl)..(i + ku + 1).min(n) {
                let v = if rng.below(4) == 0 {
                    garbage(&mut rng)
                } else {
                    rng.uniform(-1.0, 1.0)
                };
                p.m.set(i, j, v + if i == j { 2.0 } else { 0.0 });
            }
            p.q[i] = if rng.below(8) == 0 {
                garbage(&mut rng)
            } else {
                rng.uniform(-1.0, 1.0)
            };
            let (a, b) = (garbage(&mut rng), garbage(&mut rng));
            (p.lo[i], p.hi[i]) = if rng.below(2) == 0 {
                (a.min(b), a.max(b))
            } else {
                (0.0, INF)
            };
        }
        let mut s = BandSolver::new(n, kl, ku, Settings::default());
        let before = s.active_set().to_vec();
        let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
        let info = s.solve(&p, &mut u, &mut w);
        solved[(info.status == Status::Solved) as usize] += 1;
        if info.status == Status::Solved {
            assert!(p.validate().is_ok(), "round {round}: solved invalid data");
            assert!(p.residual(&u, &w) <= 1e-9, "round {round}: {info:?}");
            let mut again = vec![0.0; n];
            p.m.mul_add(&u, &p.q, &mut again);
            assert_eq!(again, w, "round {round}: w is not M u + q");
        } else {
            assert!(u.iter().chain(&w).all(|x| x.is_nan()), "round {round}");
            assert_eq!(s.active_set(), before, "round {round}");
        }
    }
    // Both outcomes are exercised.
    assert!(solved[0] > 50 && solved[1] > 50, "{solved:?}");
}
