//! The box MCP data and its validation.
//!
//! What counts as a solution is decided in one place, `acceptance`; this file
//! states the problem and checks it is well formed.

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

/// Writes `w = M u + q` without allocating (column-major sweep).
pub(super) fn mul_add(p: &Problem, u: &[f64], w: &mut [f64]) {
    let n = p.n();
    crate::linalg::gemv_from(&mut w[..n], p.q.as_slice(), &p.m, &u[..n]);
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
}
