//! Box-constrained linear complementarity solver used once per FMU time step.
//!
//! Every `fmi2DoStep` of a complementarity FMU solves one small box MCP
//! (`w = M u + q`, `lo <= u <= hi`, sign conditions on `w` at the bounds). The
//! solver therefore has to be exact, verified and allocation-free per call, so
//! the module is split by concept: [`problem`] states and checks the problem,
//! `acceptance` decides, in one place and in any units, what counts as a solution,
//! `active` solves the linear system of one active set on [`crate::linalg::Lu`] (the warm start
//! that hits in the common case), `transform` and `lemke` give the robust
//! pivoting path, [`enumerate`] is the exhaustive fallback and test oracle, and
//! `solver` strings them together on preallocated workspace. For long chains
//! with a narrow band, [`band`] holds the band matrix and its LU and
//! [`banded`] the block principal pivoting solver that uses them (falling
//! back to the dense `Solver` for small problems). The small shared value
//! types live here so every file can name them without cycles.

mod acceptance;
mod active;
mod acyclic;
pub mod band;
pub mod banded;
pub mod enumerate;
mod lemke;
mod pivoting;
pub mod problem;
mod scales;
mod solver;
mod sweep;
mod transform;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_acceptance;
#[cfg(test)]
mod tests_banded;
#[cfg(test)]
mod tests_banded_failures;
#[cfg(test)]
mod tests_banded_noise;
#[cfg(test)]
mod tests_random;
#[cfg(test)]
mod tests_sweep;

pub use acceptance::residual;
pub use band::Band;
pub use banded::{BandProblem, BandSolver};
pub use problem::Problem;
pub use solver::Solver;

/// Tuning knobs of [`Solver`]; the defaults suit FMU steps of up to ~50 unknowns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Relative verification tolerance: a candidate is accepted when each
    /// component's complementarity residual, in the units of its `w`, is at
    /// most `tol` times the size of the terms that `w` sums (see
    /// [`residual`]; the same verdict in any units).
    pub tol: f64,
    /// Pivot budget for Lemke's method; `0` selects `50 + 20 * N` where `N` is
    /// the size of the reformulated LCP (between `n` and `2 n`). The same
    /// number bounds the active-set solves of [`Solver`]'s block pivoting,
    /// tried before Lemke (`0`: `10 + 2 n`). For
    /// [`BandSolver`] it is the budget of active-set solves instead (`0`:
    /// `50 + 2 n`); its dense fallback then uses the automatic Lemke budget.
    pub max_pivots: usize,
    /// Try the stored active set before pivoting.
    pub warm_start: bool,
    /// Exhaustive enumeration (up to `3^n` linear solves) is used as a fallback
    /// only when at most `enumeration_limit` components are not fixed by
    /// `lo == hi` (a contact problem pins its open contacts that way).
    pub enumeration_limit: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            tol: 1e-9,
            max_pivots: 0,
            warm_start: true,
            enumeration_limit: 10,
        }
    }
}

/// Outcome of one [`Solver::solve`] call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// A solution was found and verified; `u` is inside the box and `w = M u + q`.
    Solved,
    /// No solution exists. Lemke ray-terminated, which proves infeasibility
    /// only when the reformulated LCP is copositive-plus (e.g. positive
    /// semidefinite `M`, for any bounds); when `n <= enumeration_limit`,
    /// enumeration also found no solution with a nonsingular free block, which
    /// settles it for P-matrices too. Never reported when every bound is
    /// finite: such a problem always has a solution, and a Lemke ray there is
    /// reported as [`Status::NumericalFailure`].
    Infeasible,
    /// Lemke's pivot budget ran out and the fallback (if any) found nothing.
    MaxIterations,
    /// Singular pivots or factorizations, non-finite numbers, a candidate
    /// that failed verification, or a Lemke ray on an all-finite box (Lemke
    /// cannot process every indefinite `M`), with nothing better found.
    NumericalFailure,
    /// Sizes disagree with the solver or the problem, or `q`/bounds are invalid.
    InvalidProblem,
}

/// Problems up to this size take the warm path through constant indices only
/// (`Solver::solve_with`), so that a caller compiled for one size keeps the
/// candidate, `q` and `w` in registers from the solve through the verification.
pub const SMALL: usize = 8;

/// Which stage produced the reported result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The stored active set verified directly (one linear solve).
    WarmStart,
    /// Lexicographic Lemke on the LCP reformulation (plus polishing).
    Lemke,
    /// Exhaustive active-set enumeration (fallback for small `n`).
    Enumeration,
    /// No stage ran (invalid input or an empty problem).
    None,
    /// Block principal pivoting ([`Solver`]'s first cold method, and
    /// [`BandSolver`]'s): the stored active set needed flipping before a
    /// candidate verified. (Last, so the
    /// other variants keep their discriminants.)
    BlockPivot,
    /// Substitution in dependency order: the matrix couples its components
    /// without a cycle (triangular up to a permutation), so the solution
    /// follows one component at a time.
    Substitution,
}

/// Summary of one solve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Info {
    /// What happened.
    pub status: Status,
    /// The last stage that ran (the one that produced `u` when solved).
    pub method: Method,
    /// Unit-free residual of the returned candidate ([`residual`]; NaN when
    /// there was none).
    pub residual: f64,
    /// Lemke pivots, or linear solves for warm start, block pivoting and
    /// enumeration.
    pub iterations: usize,
}

/// Which side of its box one component sits on (the active set of a component).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Bound {
    /// Strictly inside the box: its row of `w` is zero.
    Free = 0,
    /// Pinned at `lo`: `w >= 0`.
    Lower = 1,
    /// Pinned at `hi`: `w <= 0`.
    Upper = 2,
}

impl Bound {
    /// The default choice for a component with these bounds: `Lower` where `lo`
    /// is finite, else `Upper` where `hi` is finite, else `Free`.
    pub fn default_for(lo: f64, hi: f64) -> Bound {
        if lo.is_finite() {
            Bound::Lower
        } else if hi.is_finite() {
            Bound::Upper
        } else {
            Bound::Free
        }
    }

    /// Whether this choice is meaningful for the given bounds (a pinned side
    /// must be finite).
    pub fn allowed(self, lo: f64, hi: f64) -> bool {
        match self {
            Bound::Free => true,
            Bound::Lower => lo.is_finite(),
            Bound::Upper => hi.is_finite(),
        }
    }
}
