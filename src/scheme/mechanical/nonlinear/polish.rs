//! Taking a converged mechanical Newton iteration to rounding, as the
//! first-order one does ([`crate::scheme::theta::newton`]): what each of the
//! mechanical loops (the Moreau–Jean step, the semi-explicit step, the
//! position projection) does with an iterate once its residual is known.
//!
//! An iterate is accepted when its largest scaled component is below
//! [`ROUNDING`]. One below [`TOL`] is kept (its owner saves it) and the
//! iteration goes on while each iteration lowers the largest component by
//! more than the factor [`STALLED`]: an iteration that lowers it less has met
//! the rounding of the residual's own evaluation and its iterate is
//! accepted; one that makes it larger (or fails) sends the loop back to the
//! kept iterate, which is accepted. An iterate below `TOL` is accepted too
//! when the iterations run out. The loops take full Newton steps, so unlike
//! the first-order loop's line search a polishing iteration can make things
//! worse: hence the kept copy.

use crate::lcp;
use crate::scheme::mechanical::nonlinear::MechNewtonStepper;
use crate::scheme::theta::newton::{MAX_ITERATIONS, ROUNDING, STALLED, TOL};
use crate::scheme::StepError;

/// What a loop does with an iterate (see the module's text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Accept the iterate.
    Accept,
    /// Accept the kept iterate instead (restore it first).
    BackToKept,
    /// Save the iterate (below `TOL`) and iterate again.
    Keep,
    /// Iterate again.
    Iterate,
    /// Give the step up: the iterations ran out above `TOL`, or the residual
    /// is not finite.
    GiveUp,
}

/// The largest scaled component of the kept iterate, across one step's
/// iterations.
#[derive(Clone, Copy, Debug)]
pub(super) struct Polish {
    kept: f64,
}

impl Polish {
    /// Nothing kept yet.
    pub(super) fn new() -> Self {
        Polish {
            kept: f64::INFINITY,
        }
    }

    /// Whether an iterate below `TOL` is kept: a failure of the next
    /// iteration then sends the loop back to it.
    pub(super) fn polishing(&self) -> bool {
        self.kept <= TOL
    }

    /// The largest scaled component of the kept iterate.
    pub(super) fn kept(&self) -> f64 {
        self.kept
    }

    /// The verdict on an iterate whose largest scaled component is `worst`,
    /// reached after `solves` LCP solves.
    pub(super) fn judge(&mut self, worst: f64, solves: usize) -> Verdict {
        if self.polishing() {
            // NaN compares false: back to the kept iterate too.
            if !(worst <= self.kept) {
                return Verdict::BackToKept;
            }
            if worst > STALLED * self.kept {
                return Verdict::Accept;
            }
        }
        if worst <= ROUNDING || (worst <= TOL && solves == MAX_ITERATIONS) {
            return Verdict::Accept;
        }
        if solves == MAX_ITERATIONS || !worst.is_finite() {
            return Verdict::GiveUp;
        }
        if worst <= TOL {
            self.kept = worst;
            return Verdict::Keep;
        }
        Verdict::Iterate
    }
}

/// The step's iterate as [`Verdict::Keep`] saves it: what acceptance and
/// the memo of `F` read.
pub(super) struct Kept {
    x: Vec<f64>,
    u: Vec<f64>,
    y: Vec<f64>,
    f: Vec<f64>,
    m: Vec<f64>,
}

impl Kept {
    /// Buffers for `dof` coordinates and `pairs` contact pairs.
    pub(super) fn new(dof: usize, pairs: usize) -> Self {
        Kept {
            x: vec![0.0; 2 * dof],
            u: vec![0.0; pairs],
            y: vec![0.0; pairs],
            f: vec![0.0; dof],
            m: vec![0.0; dof],
        }
    }
}

impl MechNewtonStepper {
    /// Saves the iterate `(q̄, v̄)`, its percussions, contact velocities
    /// and forces.
    pub(super) fn keep(&mut self) {
        let k = &mut self.kept;
        k.x.copy_from_slice(&self.xb);
        k.u.copy_from_slice(&self.u_bar);
        k.y.copy_from_slice(&self.y_next);
        k.f.copy_from_slice(&self.f1);
        k.m.copy_from_slice(&self.m1);
    }

    /// Returns to the iterate [`Self::keep`] saved.
    pub(super) fn back_to_kept(&mut self) {
        let k = &self.kept;
        self.xb.copy_from_slice(&k.x);
        self.u_bar.copy_from_slice(&k.u);
        self.y_next.copy_from_slice(&k.y);
        self.f1.copy_from_slice(&k.f);
        self.m1.copy_from_slice(&k.m);
    }
    /// Acts on `polish`'s verdict on the iterate of largest scaled component
    /// `worst` after `solves` LCP solves, whose LCP ended with `info`: the
    /// residual and LCP report the step ends with (the iterate's, or the kept
    /// one's after restoring it), `None` to iterate again (saving the
    /// iterate and its `info` in `kept_info` when it is kept), or the error
    /// that gives the step up. The Moreau–Jean and the semi-explicit loops
    /// share it; each ends an accepted step its own way.
    pub(super) fn settle(
        &mut self,
        polish: &mut Polish,
        worst: f64,
        solves: usize,
        info: lcp::Info,
        kept_info: &mut lcp::Info,
    ) -> Result<Option<(f64, lcp::Info)>, StepError> {
        match polish.judge(worst, solves) {
            Verdict::Accept => Ok(Some((worst, info))),
            Verdict::BackToKept => {
                self.back_to_kept();
                Ok(Some((polish.kept(), *kept_info)))
            }
            Verdict::GiveUp => Err(StepError::Newton {
                iterations: solves,
                residual: worst,
                line_search: false,
            }),
            Verdict::Keep => {
                self.keep();
                *kept_info = info;
                Ok(None)
            }
            Verdict::Iterate => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_at_rounding_and_iterates_above_tol() {
        let mut p = Polish::new();
        assert_eq!(p.judge(1e-3, 1), Verdict::Iterate);
        assert_eq!(p.judge(ROUNDING, 2), Verdict::Accept);
        assert_eq!(Polish::new().judge(0.0, 0), Verdict::Accept);
    }

    #[test]
    fn keeps_below_tol_until_stalled() {
        let mut p = Polish::new();
        assert_eq!(p.judge(1e-11, 1), Verdict::Keep);
        assert!(p.polishing());
        assert_eq!(p.judge(1e-13, 2), Verdict::Keep);
        assert_eq!(p.kept(), 1e-13);
        // Lowered by less than STALLED: accepted as it is.
        assert_eq!(p.judge(0.5e-13, 3), Verdict::Accept);
    }

    #[test]
    fn goes_back_when_an_iteration_makes_things_worse() {
        let mut p = Polish::new();
        assert_eq!(p.judge(1e-12, 1), Verdict::Keep);
        assert_eq!(p.judge(2e-12, 2), Verdict::BackToKept);
        assert_eq!(p.judge(f64::NAN, 2), Verdict::BackToKept);
        assert_eq!(p.kept(), 1e-12);
    }

    #[test]
    fn running_out_accepts_below_tol_and_gives_up_above() {
        let mut p = Polish::new();
        assert_eq!(p.judge(1e-11, MAX_ITERATIONS), Verdict::Accept);
        assert_eq!(p.judge(1e-9, MAX_ITERATIONS), Verdict::GiveUp);
        assert_eq!(p.judge(f64::INFINITY, 3), Verdict::GiveUp);
    }
}
