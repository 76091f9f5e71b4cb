//! Tests of the acceptance test: the residual, the exchange rates, and that
//! the verdict does not depend on the units.

use super::acceptance::{residual, verify_fresh};
use super::scales::dense_rates;
use super::Problem;
use nalgebra::{DMatrix, DVector};

fn ok_problem() -> Problem {
    Problem::lcp(DMatrix::identity(2, 2), DVector::from_vec(vec![1.0, -1.0]))
}

#[test]
fn residual_is_zero_at_solution_and_positive_elsewhere() {
    let p = ok_problem();
    assert_eq!(residual(&p, &[0.0, 1.0], &[1.0, 0.0]), 0.0);
    // rho_1 = 1 against sigma_1 = |q_1| = 1: u_1, on its bound, is that
    // bound exactly and lends no scale (it did: |M_11| s_1 / d_1 = 1 more).
    assert_eq!(residual(&p, &[0.0, 0.0], &[1.0, -1.0]), 1.0);
    // Inside its box u_1 lends its own scale: s_1 = 1.5, sigma_1 = 1.5 + 1.5.
    assert_eq!(residual(&p, &[0.0, 0.5], &[1.0, -0.5]), 0.5 / 3.0);
    assert!(residual(&p, &[f64::NAN, 0.0], &[1.0, 0.0]).is_nan());
    assert!(residual(&p, &[0.0, 0.0], &[f64::NAN, 0.0]).is_nan());
    assert!(residual(&p, &[0.0], &[1.0]).is_nan());
    // Outside the box by 0.5 at rate 1, against s_0 = 1.5 = sigma_0 (u_0,
    // outside its box, lends no scale; it lent |M_00| s_0 / d_0 = 1.5).
    assert_eq!(residual(&p, &[-0.5, 1.0], &[0.5, 0.0]), 0.5 / 1.5);
}

#[test]
fn rates_take_the_diagonal_or_the_two_step_response() {
    // A friction cone's sliding-speed row: zero diagonal, coupled both
    // ways with the tangential rows (diagonal 4) and one way with the normal.
    let m = DMatrix::from_row_slice(
        3,
        3,
        &[
            2.0, 0.0, 0.0, //
            0.0, 4.0, 1.0, //
            0.5, -1.0, 0.0,
        ],
    );
    let inf = f64::INFINITY;
    let (lo, hi) = ([0.0; 3], [inf; 3]);
    let (mut d, mut pw) = ([0.0; 3], [0.0; 3]);
    dense_rates(&m, &lo, &hi, &mut d, &mut pw);
    assert_eq!((d, pw), ([2.0, 4.0, 0.25], [0.0; 3]));
    // Nothing to go by in the matrix (a sign block's multiplier, which its
    // own `y` does not read): the box's width is the scale, and without a
    // finite bound only an exact bound counts.
    let skew = DMatrix::from_row_slice(2, 2, &[0.0, 0.0, 0.0, 0.0]);
    dense_rates(&skew, &[-1.0, -inf], &[1.0, inf], &mut d[..2], &mut pw[..2]);
    assert_eq!((&d[..2], &pw[..2]), (&[0.0, f64::MAX][..], &[0.5, 0.0][..]));
}

#[test]
fn a_sign_multiplier_within_tolerance_of_its_bound_is_on_it() {
    // u in [-1, 1] with y = q = -0.5 (the sign block of a negative input):
    // u must be 1. Lemke's pivots leave it 1e-16 short; an exchange rate of
    // f64::MAX would call that free with y = -0.5 and reject it.
    let p = Problem::boxed(
        DMatrix::zeros(1, 1),
        DVector::from_vec(vec![-0.5]),
        DVector::from_vec(vec![-1.0]),
        DVector::from_vec(vec![1.0]),
    );
    let (mut u, mut w) = ([1.0 - 1e-16], [0.0]);
    assert!(verify_fresh(&p, &mut u, &mut w, 1e-9).0);
    let (mut u, mut w) = ([1.0 - 1e-6], [0.0]);
    assert!(!verify_fresh(&p, &mut u, &mut w, 1e-9).0);
}

/// The verdict on `(p, u)` with `p` rescaled by `r` (rows) and `c` (columns).
fn verdict(p: &Problem, u: &[f64], r: &[f64], c: &[f64]) -> (bool, f64) {
    let n = p.n();
    let m = DMatrix::from_fn(n, n, |i, j| r[i] * p.m[(i, j)] / c[j]);
    let q = DVector::from_fn(n, |i, _| r[i] * p.q[i]);
    let scaled = |v: &DVector<f64>| DVector::from_fn(n, |i, _| c[i] * v[i]);
    let s = Problem::boxed(m, q, scaled(&p.lo), scaled(&p.hi));
    let mut u: Vec<f64> = (0..n).map(|i| c[i] * u[i]).collect();
    let mut w = vec![0.0; n];
    verify_fresh(&s, &mut u, &mut w, 1e-9)
}

#[test]
fn the_verdict_does_not_depend_on_the_units() {
    // The equation `w_1 = u_0 / 2 - u_1 = 0` missed by 5e-7 of its terms,
    // on data of size 1e-6 (the old absolute test accepted it): rejected
    // in every unit system, and the exact answer accepted in every one.
    let p = Problem::lcp(
        DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.5, -1.0]),
        DVector::from_vec(vec![-1e-6, 0.0]),
    );
    let bad = [1e-6, 0.5e-6 * (1.0 + 1e-6)];
    let good = [1e-6, 0.5e-6];
    for (r, c) in [
        ([1.0, 1.0], [1.0, 1.0]),
        ([1e3, 1e-3], [1e6, 1.0]),
        ([1e-9, 7.0], [3.0, 1e12]),
    ] {
        let (ok, res) = verdict(&p, &bad, &r, &c);
        assert!(!ok, "accepted at rows {r:?}, columns {c:?}: {res:e}");
        // rho_1 = 5e-13 against sigma_1 = s_1 + s_0 / 2 + s_1 = 3e-6.
        assert!((res / (5e-13 / 3e-6) - 1.0).abs() < 1e-5, "{res:e}");
        let (ok, res) = verdict(&p, &good, &r, &c);
        assert!(
            ok && res < 1e-15,
            "rejected at rows {r:?}, columns {c:?}: {res:e}"
        );
    }
}
