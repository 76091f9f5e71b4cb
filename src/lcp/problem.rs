//! The box MCP data, its validation, and the single acceptance test.
//!
//! Every stage of the solver (warm start, Lemke, polishing, enumeration) and
//! the test oracle hand their candidates to `verify`, so "solved" means the
//! same thing everywhere: `u` inside the box, `w = M u + q` recomputed from
//! that `u`, and a natural-map residual within `tol * scale`. Keeping this in
//! one place is what lets the solver promise that no unverified answer escapes.

use super::Bound;
use nalgebra::{DMatrix, DVector};

/// A box-constrained mixed complementarity problem: find `u` with
/// `lo <= u <= hi` and `w = M u + q` such that each component is either
/// strictly inside with `w_i = 0`, at `lo_i` with `w_i >= 0`, or at `hi_i`
/// with `w_i <= 0`.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Square matrix `M`.
    pub m: DMatrix<f64>,
    /// Offset `q`.
    pub q: DVector<f64>,
    /// Lower bounds (may be `-inf`).
    pub lo: DVector<f64>,
    /// Upper bounds (may be `+inf`).
    pub hi: DVector<f64>,
}

impl Problem {
    /// A standard LCP: `u >= 0`, `w >= 0`, `u'w = 0` (`lo = 0`, `hi = +inf`).
    pub fn lcp(m: DMatrix<f64>, q: DVector<f64>) -> Self {
        let n = q.len();
        Problem {
            m,
            q,
            lo: DVector::zeros(n),
            hi: DVector::from_element(n, f64::INFINITY),
        }
    }

    /// A box MCP with the given bounds.
    pub fn boxed(m: DMatrix<f64>, q: DVector<f64>, lo: DVector<f64>, hi: DVector<f64>) -> Self {
        Problem { m, q, lo, hi }
    }

    /// Number of unknowns (length of `q`).
    pub fn n(&self) -> usize {
        self.q.len()
    }

    /// Full setup-time check; the message names the first thing that is wrong.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.n();
        if self.m.nrows() != self.m.ncols() {
            return Err(format!(
                "M is not square ({}x{})",
                self.m.nrows(),
                self.m.ncols()
            ));
        }
        if self.m.nrows() != n {
            return Err(format!(
                "M is {0}x{0} but q has length {1}",
                self.m.nrows(),
                n
            ));
        }
        if self.lo.len() != n || self.hi.len() != n {
            return Err(format!(
                "bounds have lengths lo={} hi={} but q has length {}",
                self.lo.len(),
                self.hi.len(),
                n
            ));
        }
        if let Some(k) = self.m.iter().position(|x| !x.is_finite()) {
            return Err(format!(
                "M({},{}) is not finite",
                k % n.max(1),
                k / n.max(1)
            ));
        }
        for i in 0..n {
            check_entry(i, self.q[i], self.lo[i], self.hi[i])?;
        }
        Ok(())
    }

    /// Verification scale: `1 + max|q_i| + max(|lo_i|, |hi_i| over finite bounds)`.
    ///
    /// The residual mixes units of `u` and `w`, so both the load (`q`) and the
    /// box size enter; the `1` keeps the tolerance absolute for tiny data.
    /// Absurdly large finite bounds therefore loosen acceptance.
    pub fn scale(&self) -> f64 {
        let n = self.n();
        scale_of(
            &self.q.as_slice()[..n],
            &self.lo.as_slice()[..n],
            &self.hi.as_slice()[..n],
        )
    }
}

/// [`Problem::scale`] on plain slices (of one length), shared with the band solver.
#[inline(always)]
pub(super) fn scale_of(q: &[f64], lo: &[f64], hi: &[f64]) -> f64 {
    let n = q.len();
    scale_with(q, bound_scale(&lo[..n], &hi[..n]))
}

/// The bounds' part of [`scale_of`]: the largest finite bound in magnitude
/// (the solver keeps it between solves, as the bounds rarely change).
#[inline(always)]
pub(super) fn bound_scale(lo: &[f64], hi: &[f64]) -> f64 {
    // Index loops: this runs in every verification, on vectors of a few entries.
    let n = lo.len();
    let (lo, hi) = (&lo[..n], &hi[..n]);
    let mut b = 0.0f64;
    for i in 0..n {
        if lo[i].is_finite() {
            b = b.max(lo[i].abs());
        }
        if hi[i].is_finite() {
            b = b.max(hi[i].abs());
        }
    }
    b
}

/// [`scale_of`] with the bounds' part `b` given.
#[inline(always)]
pub(super) fn scale_with(q: &[f64], b: f64) -> f64 {
    let mut s = 0.0f64;
    for &x in q {
        s = s.max(x.abs());
    }
    1.0 + s + b
}

/// Non-allocating form of [`check_entry`] for the per-solve check.
#[inline(always)]
pub(super) fn entry_ok(q: f64, lo: f64, hi: f64) -> bool {
    // `lo <= hi` is false for NaN, so NaN bounds are rejected too.
    q.is_finite() && lo <= hi && lo != f64::INFINITY && hi != f64::NEG_INFINITY
}

/// Per-component part of [`Problem::validate`].
pub(super) fn check_entry(i: usize, q: f64, lo: f64, hi: f64) -> Result<(), String> {
    if !q.is_finite() {
        return Err(format!("q[{i}] = {q} is not finite"));
    }
    if lo.is_nan() || hi.is_nan() {
        return Err(format!("bound {i} is NaN (lo={lo}, hi={hi})"));
    }
    if lo == f64::INFINITY {
        return Err(format!("lo[{i}] = +inf"));
    }
    if hi == f64::NEG_INFINITY {
        return Err(format!("hi[{i}] = -inf"));
    }
    if lo > hi {
        return Err(format!("lo[{i}] = {lo} > hi[{i}] = {hi}"));
    }
    Ok(())
}

/// Natural-map residual `max_i |u_i - clamp(u_i - w_i, lo_i, hi_i)|`.
///
/// Zero exactly at solutions; NaN when any term is NaN or lengths disagree.
pub fn residual(p: &Problem, u: &[f64], w: &[f64]) -> f64 {
    let n = p.n();
    if u.len() != n || w.len() != n || p.lo.len() != n || p.hi.len() != n {
        return f64::NAN;
    }
    natural_residual(p.lo.as_slice(), p.hi.as_slice(), u, w)
}

/// [`residual`] on slices of one length (the caller checks the lengths).
pub(super) fn natural_residual(lo: &[f64], hi: &[f64], u: &[f64], w: &[f64]) -> f64 {
    let mut r = 0.0f64;
    for i in 0..u.len() {
        let x = u[i] - w[i];
        // max/min would silently replace a NaN by a bound, hiding it.
        if x.is_nan() {
            return f64::NAN;
        }
        // max/min instead of f64::clamp: clamp panics on NaN or lo > hi.
        let proj = x.max(lo[i]).min(hi[i]);
        let d = (u[i] - proj).abs();
        if d.is_nan() {
            return f64::NAN;
        }
        r = r.max(d);
    }
    r
}

/// Writes `w = M u + q` without allocating (column-major sweep).
pub(super) fn mul_add(p: &Problem, u: &[f64], w: &mut [f64]) {
    let n = p.n();
    crate::linalg::gemv_from(&mut w[..n], p.q.as_slice(), &p.m, &u[..n]);
}

/// Accepts or rejects a candidate. On return `u` is clamped into the box,
/// `w = M u + q` is recomputed from it, and the residual of that pair is
/// returned together with the verdict.
pub(super) fn verify(p: &Problem, u: &mut [f64], w: &mut [f64], tol: f64) -> (bool, f64) {
    let n = p.n();
    let b = bound_scale(&p.lo.as_slice()[..n], &p.hi.as_slice()[..n]);
    verify_sized(n, p, p.q.as_slice(), u, w, tol, b)
}

/// [`verify`] for a problem of size `n`, which the warm-started step may know at
/// compile time, with `q` given apart (the values of `p.q`, perhaps the caller's
/// local copy) and the bounds' part of the scale, `b = bound_scale(lo, hi)`,
/// kept by the caller (the same operations in the same order: only the loops
/// unroll and the bounds are not scanned again).
#[inline(always)]
pub(super) fn verify_sized(
    n: usize,
    p: &Problem,
    q: &[f64],
    u: &mut [f64],
    w: &mut [f64],
    tol: f64,
    b: f64,
) -> (bool, f64) {
    debug_assert_eq!(n, p.n());
    let (q, lo, hi) = (&q[..n], &p.lo.as_slice()[..n], &p.hi.as_slice()[..n]);
    let thr = tol * scale_with(q, b);
    let in_box = clamp_to_box(lo, hi, &mut u[..n], thr);
    crate::linalg::gemv_from(&mut w[..n], q, &p.m, &u[..n]);
    judge(lo, hi, &u[..n], &w[..n], thr, in_box)
}

/// `x` clamped into `[lo, hi]` (bounds not NaN, `lo <= hi`), as one compare and
/// select per side, which the processor does in one instruction each.
///
/// Equal to `x.max(lo).min(hi)` except for a NaN `x`, which stays NaN rather
/// than becoming `lo`. The verification rejects such a candidate either way
/// (`clamp_to_box` tests the box before clamping, `judge` tests for NaN), and
/// a rejected candidate's numbers are never used; the library's `max`/`min`
/// spend three more instructions per call on NaN, on the path to the verdict.
#[inline(always)]
pub(super) fn clamp_value(x: f64, lo: f64, hi: f64) -> f64 {
    let x = if lo > x { lo } else { x };
    if hi < x {
        hi
    } else {
        x
    }
}

/// First half of a verification, on slices: clamps `u` into the box and
/// returns whether it was within `thr` of it before (NaN is not).
#[inline(always)]
pub(super) fn clamp_to_box(lo: &[f64], hi: &[f64], u: &mut [f64], thr: f64) -> bool {
    // This runs on every step (it is most of a warm-started solve): plain index
    // loops, the clamp and the residual each one pass around M u.
    let n = u.len();
    let (lo, hi) = (&lo[..n], &hi[..n]);
    let mut in_box = true;
    for i in 0..n {
        // Written so that NaN fails the test.
        // `&` rather than `&&`: the same truth value without a branch per entry.
        in_box &= (u[i] >= lo[i] - thr) & (u[i] <= hi[i] + thr);
        u[i] = clamp_value(u[i], lo[i], hi[i]);
    }
    in_box
}

/// Second half of a verification, once the caller has recomputed
/// `w = M u + q` from the clamped `u`: the verdict and the residual.
#[inline(always)]
pub(super) fn judge(
    lo: &[f64],
    hi: &[f64],
    u: &[f64],
    w: &[f64],
    thr: f64,
    in_box: bool,
) -> (bool, f64) {
    let n = u.len();
    let (lo, hi, w) = (&lo[..n], &hi[..n], &w[..n]);
    let mut r = 0.0f64;
    let mut sane = true;
    for i in 0..n {
        // A NaN `u_i - w_i` gives a NaN `d`, caught below.
        let d = (u[i] - clamp_value(u[i] - w[i], lo[i], hi[i])).abs();
        // An infinite w_i at a bound passes the residual but is no answer.
        // `abs() < inf`: `is_finite` in one comparison (NaN fails it).
        sane &= (w[i].abs() < f64::INFINITY) & !d.is_nan();
        r = r.max(d);
    }
    if !sane {
        let nan = u.iter().chain(w.iter()).any(|x| x.is_nan());
        r = if nan { f64::NAN } else { r };
        return (false, r);
    }
    (in_box && r <= thr, r)
}

/// Reads the active set off a verified solution: a component within the
/// tolerance of a finite bound is pinned there, everything else is free.
pub(super) fn classify(p: &Problem, u: &[f64], tol: f64, out: &mut [Bound]) {
    let n = p.n();
    let thr = tol * p.scale();
    classify_with(&p.lo.as_slice()[..n], &p.hi.as_slice()[..n], u, thr, out);
}

/// [`classify`] on slices with the threshold `thr = tol * scale` given.
pub(super) fn classify_with(lo: &[f64], hi: &[f64], u: &[f64], thr: f64, out: &mut [Bound]) {
    for (i, b) in out.iter_mut().enumerate() {
        let (lo, hi) = (lo[i], hi[i]);
        *b = if lo.is_finite() && u[i] - lo <= thr {
            Bound::Lower
        } else if hi.is_finite() && hi - u[i] <= thr {
            Bound::Upper
        } else {
            Bound::Free
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok_problem() -> Problem {
        Problem::lcp(DMatrix::identity(2, 2), DVector::from_vec(vec![1.0, -1.0]))
    }

    #[test]
    fn validate_accepts_and_rejects() {
        assert!(ok_problem().validate().is_ok());
        let mut p = ok_problem();
        p.m = DMatrix::zeros(2, 3);
        assert!(p.validate().unwrap_err().contains("square"));
        let mut p = ok_problem();
        p.q = DVector::from_vec(vec![1.0, f64::NAN]);
        assert!(p.validate().unwrap_err().contains("q[1]"));
        let mut p = ok_problem();
        p.m[(1, 0)] = f64::INFINITY;
        assert!(p.validate().unwrap_err().contains("M(1,0)"));
        let mut p = ok_problem();
        p.lo[0] = 2.0;
        p.hi[0] = 1.0;
        assert!(p.validate().unwrap_err().contains("lo[0]"));
        let mut p = ok_problem();
        p.hi[1] = f64::NEG_INFINITY;
        assert!(p.validate().unwrap_err().contains("hi[1]"));
        let mut p = ok_problem();
        p.lo = DVector::zeros(3);
        assert!(p.validate().unwrap_err().contains("lengths"));
    }

    #[test]
    fn residual_is_zero_at_solution_and_positive_elsewhere() {
        let p = ok_problem();
        assert_eq!(residual(&p, &[0.0, 1.0], &[1.0, 0.0]), 0.0);
        assert!(residual(&p, &[0.0, 0.0], &[1.0, -1.0]) > 0.5);
        assert!(residual(&p, &[f64::NAN, 0.0], &[1.0, 0.0]).is_nan());
        assert!(residual(&p, &[0.0, 0.0], &[f64::NAN, 0.0]).is_nan());
        assert!(residual(&p, &[0.0], &[1.0]).is_nan());
    }
}
