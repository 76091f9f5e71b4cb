//! Brute-force active-set enumeration: the solver's last resort and the
//! tests' oracle.
//!
//! Every component is tried at its lower bound, its upper bound (each only if
//! finite) and free; the free block is solved and the candidate kept if it
//! verifies. That is up to `3^n` linear solves, so it is only for small `n`,
//! but it is exhaustive over nonsingular free blocks, which makes it a sound
//! judge of feasibility for P-matrices and a check on Lemke's ray termination.
//! The odometer works in place on a `[Bound]` so the solver can run it on its
//! preallocated buffers; the public functions allocate freely (test use).

use super::acceptance::Gauge;
use super::active::BlockSolver;
use super::scales::{dense_rates, dense_resolution, magnitudes};
use super::{Bound, Problem};
use nalgebra::DVector;

/// The option after `b` for a component with these bounds, in the order
/// Lower, Upper, Free. A fixed component (`lo == hi`) has one option, Lower:
/// Upper would repeat it, and Free would solve `w_i = 0` for a value the clamp
/// then sets back to the bound (and which, unclamped, no answer keeps).
fn next_option(b: Bound, lo: f64, hi: f64) -> Option<Bound> {
    if lo == hi {
        return None;
    }
    match b {
        Bound::Lower if hi.is_finite() => Some(Bound::Upper),
        Bound::Lower | Bound::Upper => Some(Bound::Free),
        Bound::Free => None,
    }
}

/// The components enumeration chooses for: those not fixed by `lo == hi`.
pub(super) fn unknowns(p: &Problem) -> usize {
    p.lo.iter()
        .zip(p.hi.iter())
        .filter(|(lo, hi)| lo != hi)
        .count()
}

/// Sets `a` to the first assignment.
pub(super) fn first(p: &Problem, a: &mut [Bound]) {
    for (i, b) in a.iter_mut().enumerate() {
        *b = Bound::default_for(p.lo[i], p.hi[i]);
    }
}

/// Steps `a` to the next assignment; false after the last one.
pub(super) fn advance(p: &Problem, a: &mut [Bound]) -> bool {
    for (i, b) in a.iter_mut().enumerate() {
        let (lo, hi) = (p.lo[i], p.hi[i]);
        match next_option(*b, lo, hi) {
            Some(nb) => {
                *b = nb;
                return true;
            }
            None => *b = Bound::default_for(lo, hi),
        }
    }
    false
}

/// Runs the enumeration on caller-provided buffers and stops at the first
/// verified solution, left in `u`/`w` (and its assignment in `a`). `solves`
/// counts the linear solves attempted. Returns the smallest residual seen
/// among candidates (NaN when no free block was solvable) and whether one
/// verified.
#[allow(clippy::too_many_arguments)]
pub(super) fn search(
    p: &Problem,
    gauge: &mut Gauge,
    bs: &mut BlockSolver,
    a: &mut [Bound],
    u: &mut [f64],
    w: &mut [f64],
    tol: f64,
    solves: &mut usize,
) -> (bool, f64) {
    let mut best = f64::NAN;
    first(p, a);
    loop {
        *solves += 1;
        if bs.solve(p, a, u) {
            let (ok, r) = gauge.verify(p, u, w, tol);
            if ok {
                return (true, r);
            }
            // f64::min skips NaN on either side.
            best = best.min(r);
        }
        if !advance(p, a) {
            return (false, best);
        }
    }
}

/// Every distinct verified solution of `p` found by enumeration (cost `3^n`
/// linear solves; meant for `n` up to about 10). Solutions that need a
/// singular free block are not found. Returns nothing for invalid problems.
/// Two candidates are the same solution when moving each component from one
/// to the other changes its `w` by at most the acceptance tolerance (the
/// exchange rate times the distance, against `tol` times the larger magnitude;
/// see `acceptance`), so a degenerate component found both free and pinned
/// counts once, in any units.
pub fn all_solutions(p: &Problem, tol: f64) -> Vec<DVector<f64>> {
    let n = p.n();
    let (mut rate, mut per_width) = (vec![0.0; n], vec![0.0; n]);
    if p.validate().is_ok() {
        let (lo, hi) = (p.lo.as_slice(), p.hi.as_slice());
        dense_rates(&p.m, lo, hi, &mut rate, &mut per_width);
    }
    // Each solution with its resolved magnitudes.
    let mut out: Vec<(DVector<f64>, Vec<f64>)> = Vec::new();
    let (mut s, mut mag) = (vec![0.0; n], vec![0.0; n]);
    collect(p, tol, &mut |u| {
        magnitudes(p, u, &mut s);
        let box_u = (p.lo.as_slice(), p.hi.as_slice(), u);
        dense_resolution(&p.m, (&rate, &per_width), &s, box_u, &mut mag);
        let same = |(v, s): &(DVector<f64>, Vec<f64>)| {
            (0..n).all(|i| {
                let m = s[i].max(mag[i]);
                (rate[i] + m * per_width[i]) * (v[i] - u[i]).abs() <= tol * m
            })
        };
        if !out.iter().any(same) {
            out.push((DVector::from_column_slice(u), mag.clone()));
        }
        true
    });
    out.into_iter().map(|(u, _)| u).collect()
}

/// The first verified solution found by enumeration, if any.
pub fn first_solution(p: &Problem, tol: f64) -> Option<DVector<f64>> {
    let mut found = None;
    collect(p, tol, &mut |u| {
        found = Some(DVector::from_column_slice(u));
        false
    });
    found
}

/// Feeds each verified candidate to `keep`, which returns whether to go on.
fn collect(p: &Problem, tol: f64, keep: &mut dyn FnMut(&[f64]) -> bool) {
    if p.validate().is_err() {
        return;
    }
    let n = p.n();
    let mut bs = BlockSolver::new(n);
    let mut a = vec![Bound::Free; n];
    let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
    let mut gauge = Gauge::new(n);
    gauge.set_problem(p);
    first(p, &mut a);
    loop {
        if bs.solve(p, &a, &mut u) && gauge.verify(p, &mut u, &mut w, tol).0 && !keep(&u) {
            return;
        }
        if !advance(p, &mut a) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DMatrix;

    #[test]
    fn odometer_visits_each_assignment_once() {
        let inf = f64::INFINITY;
        // Options per component: {L,U,F}, {L,F}, {U,F}, {F}, {L} (fixed).
        let p = Problem::boxed(
            DMatrix::identity(5, 5),
            DVector::zeros(5),
            DVector::from_vec(vec![0.0, 0.0, -inf, -inf, 1.0]),
            DVector::from_vec(vec![1.0, inf, 1.0, inf, 1.0]),
        );
        let mut a = vec![Bound::Free; 5];
        first(&p, &mut a);
        let mut seen = std::collections::HashSet::new();
        loop {
            assert!(seen.insert(a.iter().map(|&b| b as u8).collect::<Vec<u8>>()));
            if !advance(&p, &mut a) {
                break;
            }
        }
        assert_eq!(seen.len(), 3 * 2 * 2);
    }

    #[test]
    fn lists_all_solutions_of_a_degenerate_lcp() {
        // M = [[0,1],[1,0]], q = (-1,-1): solutions (1,1) only with both positive,
        // plus none with a zero (w = (z2-1, z1-1) needs both >= 1 then = 1).
        let p = Problem::lcp(
            DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 1.0, 0.0]),
            DVector::from_vec(vec![-1.0, -1.0]),
        );
        let s = all_solutions(&p, 1e-9);
        assert_eq!(s.len(), 1);
        assert!((s[0][0] - 1.0).abs() < 1e-12 && (s[0][1] - 1.0).abs() < 1e-12);
        // M = -I, q = -1: infeasible.
        let p = Problem::lcp(
            -DMatrix::identity(2, 2),
            DVector::from_vec(vec![-1.0, -1.0]),
        );
        assert!(first_solution(&p, 1e-9).is_none());
        // M = I, q = (-1, 2): unique (1, 0).
        let p = Problem::lcp(DMatrix::identity(2, 2), DVector::from_vec(vec![-1.0, 2.0]));
        assert_eq!(first_solution(&p, 1e-9).unwrap().as_slice(), &[1.0, 0.0]);
    }
}
