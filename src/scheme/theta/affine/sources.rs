//! Sources in time of an affine time-varying LCS, taken by the theta step as
//! inputs held over the step.
//!
//! A first-order model whose nonlinear remainders read no state and no pair
//! (`der = "0.5*sin(2*time) - u"`: the remainder `0.5*sin(2*time)` reads only
//! `time`, inputs and parameters) is linear in its unknowns: one LCP solves
//! its step exactly, with no Newton iteration and no line search. Each row of
//! `f` with a remainder `φ_i` gains an input column `e_i` in `E` and each row
//! of `c` with a remainder `ψ_j` an input column `e_j` in `F`, and the step
//! reads them at the scheme's evaluation points:
//! `s_i = θ φ_i(t+h) + (1-θ) φ_i(t)` (the θ-weighted right-hand side, as
//! the Newton step weights it) and `r_j = ψ_j(t+h)` (the relation at the
//! step's end). Driven by the same values through a model input, a model
//! gives the same numbers bit for bit (`tests/integration/sources.rs`).

use crate::model::program::Point;
use crate::system::ncs::Ncs;

/// Which rows of `f` and `c` have a source, in the order of their columns.
#[derive(Clone, Debug)]
pub(in crate::scheme) struct Sources {
    f_rows: Vec<usize>,
    c_rows: Vec<usize>,
}

impl Sources {
    /// The sources of `ncs`, when its remainders read no state and no pair.
    pub(in crate::scheme) fn of(ncs: &Ncs) -> Option<Self> {
        let (f_rows, c_rows) = ncs.source_rows()?;
        Some(Sources { f_rows, c_rows })
    }

    /// The rows of `f` with a source.
    pub(super) fn f_rows(&self) -> &[usize] {
        &self.f_rows
    }

    /// The rows of `c` with a source.
    pub(super) fn c_rows(&self) -> &[usize] {
        &self.c_rows
    }

    /// The number of input columns the sources add.
    pub(super) fn len(&self) -> usize {
        self.f_rows.len() + self.c_rows.len()
    }

    /// The sources of a step of method `theta` from `t` to `t + h` into
    /// `out` (`f`'s first, then `c`'s); `x`, `u` and `w` are the step's
    /// start values (only `w` is read).
    pub(super) fn eval(
        &self,
        ncs: &Ncs,
        theta: f64,
        (x, u, w): (&[f64], &[f64], &[f64]),
        t: f64,
        h: f64,
        out: &mut [f64],
    ) {
        out.fill(0.0);
        let (sf, sc) = out.split_at_mut(self.f_rows.len());
        let end = Point { x, u, w, t: t + h };
        ncs.add_rhs_sources(&end, &self.f_rows, theta, sf);
        if theta < 1.0 {
            let start = Point { x, u, w, t };
            ncs.add_rhs_sources(&start, &self.f_rows, 1.0 - theta, sf);
        }
        ncs.add_relation_sources(&end, &self.c_rows, 1.0, sc);
    }

    /// The sources of the relation at time `t` into `out` (`len(c_rows)`
    /// entries): what the multipliers consistent with a state at `t` see.
    pub(super) fn relation_at(
        &self,
        ncs: &Ncs,
        (x, u, w): (&[f64], &[f64], &[f64]),
        t: f64,
        out: &mut [f64],
    ) {
        out.fill(0.0);
        ncs.add_relation_sources(&Point { x, u, w, t }, &self.c_rows, 1.0, out);
    }
}
