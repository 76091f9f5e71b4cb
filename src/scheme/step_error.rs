//! Why a step could not be taken ([`StepError`]), one variant per way a
//! scheme fails, and the sentence each one is reported with.

use crate::lcp;
use crate::scheme::mode::nonlinear as mode_nl;
use crate::scheme::theta::newton;

/// Why a step could not be taken.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StepError {
    /// The scheme's iteration matrix (`I - hθA`, or `M - hθFv - (hθ)²Fq`) is
    /// singular for this step size.
    SingularIteration { h: f64 },
    /// The step's LCP was not solved; the report says how it failed.
    Lcp(lcp::Info),
    /// The new state or multipliers are not finite (an overflow).
    NotFinite,
    /// The event-driven step size control asked for a step below this.
    StepTooSmall { h: f64 },
    /// The mode at the start is not an ODE (its free pairs' equations are singular).
    SingularMode,
    /// The free pairs of a nonlinear mode (event-driven scheme) could not be
    /// solved for at time `t`: after `iterations` Newton iterations the
    /// largest scaled residual was `residual`, or (`singular`) their
    /// Jacobian was singular.
    ModeNewton {
        iterations: usize,
        residual: f64,
        singular: bool,
        t: f64,
    },
    /// The Newton iteration of a nonlinear step did not converge: after
    /// `iterations` LCP solves the largest scaled residual was `residual`;
    /// `line_search` when no step length decreased the residual.
    Newton {
        iterations: usize,
        residual: f64,
        line_search: bool,
    },
    /// A configuration-dependent mass matrix `M(q)` is not positive definite
    /// at an iterate of the step: its Cholesky factorization fails at
    /// diagonal entry `row` (the leading block up to it is not positive
    /// definite there; `value` is that pivot).
    MassNotPositiveDefinite { row: usize, value: f64 },
}

impl std::fmt::Display for StepError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StepError::NotFinite => write!(f, "the new state is not finite"),
            StepError::Newton {
                iterations,
                residual,
                line_search,
            } => write!(
                f,
                "the Newton iteration did not converge: {} after {iterations} iterations (LCP solves), largest scaled residual {residual:e} (tolerance {:e})",
                if *line_search {
                    "the line search found no decrease of the residual"
                } else {
                    "no convergence"
                },
                newton::TOL
            ),
            StepError::ModeNewton {
                iterations,
                residual,
                singular,
                t,
            } => {
                if *singular {
                    write!(f, "the mode's free pairs cannot be solved for at t = {t}: the Jacobian of their equations is singular (after {iterations} Newton iterations)")
                } else {
                    write!(f, "the mode's free pairs cannot be solved for at t = {t}: their Newton iteration did not converge in {iterations} iterations (largest scaled residual {residual:e}, tolerance {:e})", mode_nl::FREE_TOL)
                }
            }
            StepError::StepTooSmall { h } => write!(
                f,
                "the event-driven step size fell to {h:e}: the tolerances cannot be met"
            ),
            StepError::SingularMode => write!(
                f,
                "the mode at this instant is not an ODE: the equations of its free pairs are singular"
            ),
            StepError::MassNotPositiveDefinite { row, value } => write!(
                f,
                "the mass matrix M(q) is not positive definite at an iterate of the step (its Cholesky pivot at M[{row}][{row}] is {value:e}): the configuration left the region where the model's M(q) is a mass matrix"
            ),
            StepError::SingularIteration { h } => {
                write!(
                    f,
                    "the iteration matrix is singular (or, for lumped bodies, not positive) for h = {h:e}"
                )
            }
            StepError::Lcp(info) => write!(
                f,
                "LCP not solved: status {:?} (method {:?}, residual {:e}, {} iterations)",
                info.status, info.method, info.residual, info.iterations
            ),
        }
    }
}
