//! `Solver::solve` never touches the heap, on every path (warm start, Lemke,
//! enumeration, restored active set, infeasible and invalid problems).

use super::alloc::allocations;
use lcsfmu::lcp::{Bound, Method, Problem, Settings, Solver, Status};
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
        assert_eq!((info.status, info.method), (Status::Solved, Method::Lemke));
        assert_eq!(count, 0, "Lemke path allocated");

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
