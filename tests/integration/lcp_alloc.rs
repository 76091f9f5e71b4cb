//! `Solver::solve` and `BandSolver::solve` never touch the heap, on every
//! path (warm start, Lemke, enumeration, block pivoting, the band solver's
//! dense fallback, restored active set, failed and invalid problems).

use super::alloc::allocations;
use lcsfmu::lcp::{
    Band, BandProblem, BandSolver, Bound, Method, Problem, Settings, Solver, Status,
};
use nalgebra::{DMatrix, DVector};

/// Diagonally dominant non-symmetric matrix (a P-matrix) of size `n`.
fn p_matrix(n: usize) -> DMatrix<f64> {
    DMatrix::from_fn(n, n, |i, j| {
        if i == j {
            2.0 * n as f64
        } else {
            ((3 * i + 7 * j) % 5) as f64 - 2.0
        }
    })
}

#[test]
fn solve_never_allocates() {
    let n = 6;
    let q = DVector::from_fn(n, |i, _| if i % 2 == 0 { -1.0 - i as f64 } else { 0.5 });
    let inf = f64::INFINITY;
    let lo = DVector::from_vec(vec![0.0, -1.0, -inf, -inf, 0.0, -0.5]);
    let hi = DVector::from_vec(vec![inf, 1.0, 0.2, inf, 0.0, inf]);
    let problems = [
        Problem::lcp(p_matrix(n), q.clone()),
        Problem::boxed(p_matrix(n), q, lo, hi),
    ];
    let mut u = vec![0.0; n];
    let mut w = vec![0.0; n];
    for p in &problems {
        let mut s = Solver::new(n, Settings::default());

        s.reset_active_set();
        let (count, info) = allocations(|| s.solve(p, &mut u, &mut w));
        // A P-matrix cold start: block pivoting (Lemke runs below, in the
        // infeasible case and in the band solver's dense fallback).
        assert_eq!(
            (info.status, info.method),
            (Status::Solved, Method::BlockPivot)
        );
        assert_eq!(count, 0, "block pivoting path allocated");

        let (count, info) = allocations(|| s.solve(p, &mut u, &mut w));
        assert_eq!(
            (info.status, info.method),
            (Status::Solved, Method::WarmStart)
        );
        assert_eq!(count, 0, "warm-start path allocated");

        // Force the enumeration fallback: no warm start, a one-pivot budget.
        s.set_settings(Settings {
            warm_start: false,
            max_pivots: 1,
            ..Settings::default()
        });
        let (count, info) = allocations(|| s.solve(p, &mut u, &mut w));
        assert_eq!(
            (info.status, info.method),
            (Status::Solved, Method::Enumeration)
        );
        assert_eq!(count, 0, "enumeration path allocated");

        s.set_active_set(&[Bound::Free; 6]);
        s.matrix_changed();
        let (count, _) = allocations(|| s.solve(p, &mut u, &mut w));
        assert_eq!(count, 0, "restored active set allocated");
    }

    // Failure paths: infeasible (Lemke ray + enumeration) and invalid input.
    let p = Problem::lcp(-DMatrix::identity(2, 2), DVector::from_element(2, -1.0));
    let mut s = Solver::new(2, Settings::default());
    let (mut u2, mut w2) = (vec![0.0; 2], vec![0.0; 2]);
    let (count, info) = allocations(|| s.solve(&p, &mut u2, &mut w2));
    assert_eq!(info.status, Status::Infeasible);
    assert_eq!(count, 0, "infeasible path allocated");
    let (count, info) = allocations(|| s.solve(&problems[0], &mut u2, &mut w2));
    assert_eq!(info.status, Status::InvalidProblem);
    assert_eq!(count, 0, "invalid path allocated");

    // The counter itself works.
    let (count, v) = allocations(|| vec![1u8; 3]);
    assert!(count >= 1 && v.len() == 3);
}

/// Tridiagonal chain `G diag(1/m) G^T` of `n` contacts (wall, then bead
/// pairs) with bead velocities `v(i)`: `q = G v`.
fn chain(n: usize, v: impl Fn(usize) -> f64) -> BandProblem {
    let mass = |i: usize| 1.0 + (i % 3) as f64 * 0.5;
    let mut m = Band::zeros(n, 1, 1);
    for i in 0..n {
        m.add(i, i, 1.0 / mass(i));
        if i > 0 {
            let c = 1.0 / mass(i - 1);
            m.add(i, i, c);
            m.set(i, i - 1, -c);
            m.set(i - 1, i, -c);
        }
    }
    let mut p = BandProblem::new(m);
    for i in 0..n {
        p.q[i] = v(i) - if i > 0 { v(i - 1) } else { 0.0 };
    }
    p
}

#[test]
fn band_solve_never_allocates() {
    let n = 1000;
    let mut p = chain(n, |i| ((i * 37 % 101) as f64 / 50.0) - 1.0);
    let mut s = BandSolver::new(n, 1, 1, Settings::default());
    let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);

    let (count, info) = allocations(|| s.solve(&p, &mut u, &mut w));
    assert_eq!(
        (info.status, info.method),
        (Status::Solved, Method::BlockPivot)
    );
    assert_eq!(count, 0, "cold block pivoting allocated");

    let (count, info) = allocations(|| s.solve(&p, &mut u, &mut w));
    assert_eq!(
        (info.status, info.method),
        (Status::Solved, Method::WarmStart)
    );
    assert_eq!(count, 0, "warm band solve allocated");

    p.q[0] += 1e-9;
    let (count, info) = allocations(|| s.solve(&p, &mut u, &mut w));
    assert_eq!(info.method, Method::WarmStart);
    assert_eq!(count, 0, "warm band solve with a new q allocated");

    s.reset_active_set();
    s.matrix_changed();
    let (count, info) = allocations(|| s.solve(&p, &mut u, &mut w));
    assert_eq!(info.method, Method::BlockPivot);
    assert_eq!(count, 0, "reset band solve allocated");

    // A chain pressed together from all pinned: the monotone sweep.
    let mut pressed = chain(n, |_| -1.0);
    s.reset_active_set();
    let (count, info) = allocations(|| s.solve(&pressed, &mut u, &mut w));
    assert_eq!((info.status, info.iterations), (Status::Solved, 2));
    assert_eq!(count, 0, "swept band solve allocated");

    // With a (never active) upper bound the sweep does not apply: block
    // pivoting frees one contact per solve and takes the restart from all free.
    pressed.hi[n - 1] = 1e9;
    s.reset_active_set();
    let (count, info) = allocations(|| s.solve(&pressed, &mut u, &mut w));
    assert!(
        info.status == Status::Solved && info.iterations > 16,
        "{info:?}"
    );
    assert_eq!(count, 0, "restarted band solve allocated");

    // Failure without a dense fallback: M = -I has no solution for q = -1.
    let m = 300;
    let mut neg = BandProblem::new(Band::zeros(m, 1, 1));
    for i in 0..m {
        neg.m.set(i, i, -1.0);
        neg.q[i] = -1.0;
    }
    let mut s = BandSolver::new(m, 1, 1, Settings::default());
    let (mut u, mut w) = (vec![0.0; m], vec![0.0; m]);
    let (count, info) = allocations(|| s.solve(&neg, &mut u, &mut w));
    assert_eq!(info.status, Status::MaxIterations);
    assert_eq!(count, 0, "failed band solve allocated");
    let (count, info) = allocations(|| s.solve(&p, &mut u, &mut w));
    assert_eq!(info.status, Status::InvalidProblem);
    assert_eq!(count, 0, "invalid band problem allocated");

    // The dense fallback: 2x2 blocks [[0, 1], [-1, 0]] (positive
    // semidefinite, not P) whose free block {0} has a zero pivot.
    let m = 50;
    let mut skew = BandProblem::new(Band::zeros(m, 1, 1));
    for k in 0..m / 2 {
        skew.m.set(2 * k, 2 * k + 1, 1.0);
        skew.m.set(2 * k + 1, 2 * k, -1.0);
        skew.q[2 * k] = -1.0;
        skew.q[2 * k + 1] = 1.0;
    }
    let mut s = BandSolver::new(m, 1, 1, Settings::default());
    let (mut u, mut w) = (vec![0.0; m], vec![0.0; m]);
    let (count, info) = allocations(|| s.solve(&skew, &mut u, &mut w));
    assert_eq!((info.status, info.method), (Status::Solved, Method::Lemke));
    assert_eq!(count, 0, "dense fallback allocated");
    assert!(u.iter().all(|x| (x - 1.0).abs() < 1e-12), "{u:?}");
}
