//! The band box MCP: its data, validation, residual and dense copy.

use super::super::band::Band;
use super::super::problem::check_entry;
use super::super::{acceptance, Problem};
use nalgebra::DVector;

/// Box MCP with a band matrix: find `u` with `lo <= u <= hi` and
/// `w = M u + q`, each component strictly inside with `w_i = 0`, at `lo_i`
/// with `w_i >= 0` or at `hi_i` with `w_i <= 0` (as [`Problem`]).
/// `lo[i] == hi[i]` is allowed and fixes `u_i`.
#[derive(Clone, Debug, PartialEq)]
pub struct BandProblem {
    /// Square band matrix `M`.
    pub m: Band,
    /// Offset `q`.
    pub q: Vec<f64>,
    /// Lower bounds (may be `-inf`).
    pub lo: Vec<f64>,
    /// Upper bounds (may be `+inf`).
    pub hi: Vec<f64>,
}

impl BandProblem {
    /// A standard LCP on `m`: `q = 0`, `lo = 0`, `hi = +inf`.
    pub fn new(m: Band) -> Self {
        let n = m.n();
        BandProblem {
            m,
            q: vec![0.0; n],
            lo: vec![0.0; n],
            hi: vec![f64::INFINITY; n],
        }
    }

    /// Number of unknowns (length of `q`).
    pub fn n(&self) -> usize {
        self.q.len()
    }

    /// Full setup-time check; the message names the first thing that is wrong.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.n();
        if self.m.n() != n || self.lo.len() != n || self.hi.len() != n {
            return Err(format!(
                "M is {0}x{0}, lo and hi have lengths {1} and {2}, but q has length {n}",
                self.m.n(),
                self.lo.len(),
                self.hi.len()
            ));
        }
        for i in 0..n {
            if let Some(d) = self.m.row(i).iter().position(|x| !x.is_finite()) {
                return Err(format!("M({i},{}) is not finite", i + d - self.m.kl()));
            }
            check_entry(i, self.q[i], self.lo[i], self.hi[i])?;
        }
        Ok(())
    }

    /// Unit-free residual of `(u, w)`, as [`crate::lcp::residual`] (allocates; NaN
    /// when a length disagrees or a term is NaN).
    pub fn residual(&self, u: &[f64], w: &[f64]) -> f64 {
        let n = self.n();
        if u.len() != n || w.len() != n || self.lo.len() != n || self.hi.len() != n {
            return f64::NAN;
        }
        let (mut d, mut s, mut sigma) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        self.m.rates(&mut d);
        self.m.magnitudes(u, &self.q, &mut s);
        self.m
            .resolution(&d, &s, (&self.lo, &self.hi, u), &mut sigma);
        let per_width = vec![0.0; n];
        acceptance::residual_with(&self.lo, &self.hi, (&d, &per_width), u, w, &sigma)
    }

    /// The same problem with a dense matrix (tests, the dense fallback).
    pub fn to_dense(&self) -> Problem {
        Problem::boxed(
            self.m.to_dense(),
            DVector::from_column_slice(&self.q),
            DVector::from_column_slice(&self.lo),
            DVector::from_column_slice(&self.hi),
        )
    }
}
