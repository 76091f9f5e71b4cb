//! The trend of the right-hand side along a run of nonlinear θ-steps, which
//! the first-order Newton step's predictor extrapolates.
//!
//! The θ-step's unknown end point is `x⁺ = x + h [θ f⁺ + (1-θ) f]`. The
//! explicit predictor takes `f⁺ ≈ f(x, ū)`, an error of `O(h)` in `f⁺` and
//! so of `O(h²)` in `x⁺`; one Newton–Josephy iteration from it leaves a
//! residual of the order of that error squared, which at `h = 10 ms` on
//! `vdp_saturation` is just above the convergence test in a third of the
//! steps, each of which then pays a second linearization and LCP. The
//! secant through the last accepted step's start, `f⁺ ≈ f + (h / h₋)(f -
//! f₋)`, has an error of `O(h²)` in `f⁺`, `O(h³)` in `x⁺`: the predictor
//! adds `hθ (h / h₋)(f - f₋)` (see `NewtonStepper::predict`, whose merit test
//! still falls back to the step's start when the prediction is worse).
//!
//! `RhsTrend` keeps `f₋` (the right-hand side at the start of the last
//! accepted step, as that step's predictor evaluated it), the step's size
//! and the time it ended at; a step uses it only when it starts where that
//! one ended, with a size within a factor of 2. It is part of FMU states
//! ([`Trend`]), so a restored run predicts, and so computes, bit for bit
//! what the original did.

/// The saved form of a trend: the right-hand side `rhs` at the start of an
/// accepted step of size `h` that ended at time `t`.
#[derive(Clone, Debug, PartialEq)]
pub struct Trend {
    pub h: f64,
    pub t: f64,
    pub rhs: Vec<f64>,
}

/// The trend of one Newton stepper, sized once.
pub(crate) struct RhsTrend {
    /// The last accepted step's (`h` NaN: none).
    last: Trend,
    /// The current step's start value, kept until the step is accepted.
    pending: Vec<f64>,
    proposed: bool,
}

impl RhsTrend {
    pub(crate) fn new(nx: usize) -> Self {
        RhsTrend {
            last: Trend {
                h: f64::NAN,
                t: f64::NAN,
                rhs: vec![0.0; nx],
            },
            pending: vec![0.0; nx],
            proposed: false,
        }
    }

    /// Drops the trend (a new assembly, a new run: the last step's right-hand
    /// side no longer continues into the next).
    pub(crate) fn forget(&mut self) {
        self.last.h = f64::NAN;
        self.proposed = false;
    }

    /// The factor `h / h₋` of the secant for a step of size `h` from time
    /// `t`, with `f₋`: `None` unless the last accepted step ended at `t` (to
    /// a thousandth of the step: the master's clock may differ from ours by
    /// rounding) and `h / h₋` is within `[1/2, 2]`.
    pub(crate) fn secant(&self, t: f64, h: f64) -> Option<(f64, &[f64])> {
        let ratio = h / self.last.h;
        let continues = (t - self.last.t).abs() <= 1e-3 * h;
        ((0.5..=2.0).contains(&ratio) && continues).then_some((ratio, &self.last.rhs[..]))
    }

    /// Keeps `f` at the current step's start for [`RhsTrend::accept`].
    pub(crate) fn propose(&mut self, f: &[f64]) {
        self.pending.copy_from_slice(f);
        self.proposed = true;
    }

    /// The step of size `h` from `t` was accepted: its start value becomes
    /// the trend (none when the step proposed none). A solve with `h = 0`
    /// (consistent multipliers) moves no state and leaves the trend as it was.
    pub(crate) fn accept(&mut self, t: f64, h: f64) {
        if h > 0.0 {
            if self.proposed {
                std::mem::swap(&mut self.last.rhs, &mut self.pending);
                (self.last.h, self.last.t) = (h, t + h);
            } else {
                self.last.h = f64::NAN;
            }
        }
        self.proposed = false;
    }

    /// The trend to save with an FMU state.
    pub(crate) fn saved(&self) -> Option<Trend> {
        self.last.h.is_finite().then(|| self.last.clone())
    }

    /// Returns to a saved trend (`None`: none); one of another size is ignored.
    pub(crate) fn restore(&mut self, saved: Option<&Trend>) {
        self.forget();
        if let Some(s) = saved.filter(|s| s.rhs.len() == self.last.rhs.len()) {
            self.last.rhs.copy_from_slice(&s.rhs);
            (self.last.h, self.last.t) = (s.h, s.t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_continues_the_trend_of_the_step_it_follows() {
        let mut trend = RhsTrend::new(2);
        assert_eq!(trend.secant(0.0, 0.1), None);
        trend.propose(&[1.0, 2.0]);
        trend.accept(0.0, 0.1);
        let (ratio, rhs) = trend.secant(0.1, 0.05).expect("continues");
        assert_eq!((ratio, rhs), (0.5, &[1.0, 2.0][..]));
        // Elsewhere, or with a size more than twice apart: no secant.
        assert_eq!(trend.secant(0.2, 0.1), None);
        assert_eq!(trend.secant(0.1, 0.3), None);
        // The master's clock within rounding of ours continues it.
        assert!(trend.secant(0.1 + 1e-15, 0.1).is_some());
        // A solve at h = 0 keeps it; a step accepted without a proposal (no
        // predictor ran) ends it.
        trend.accept(0.1, 0.0);
        assert!(trend.secant(0.1, 0.1).is_some());
        trend.accept(0.1, 0.1);
        assert_eq!(trend.secant(0.2, 0.1), None);
    }

    #[test]
    fn a_saved_trend_comes_back_and_forget_drops_it() {
        let mut trend = RhsTrend::new(1);
        assert_eq!(trend.saved(), None);
        trend.propose(&[3.0]);
        trend.accept(1.0, 0.5);
        let saved = trend.saved().expect("kept");
        assert_eq!(
            saved,
            Trend {
                h: 0.5,
                t: 1.5,
                rhs: vec![3.0]
            }
        );
        trend.forget();
        assert_eq!(trend.secant(1.5, 0.5), None);
        trend.restore(Some(&saved));
        assert_eq!(trend.secant(1.5, 0.5), Some((1.0, &[3.0][..])));
        // A trend of another size is not this stepper's.
        trend.restore(Some(&Trend {
            h: 0.5,
            t: 1.5,
            rhs: vec![3.0, 4.0],
        }));
        assert_eq!(trend.saved(), None);
    }
}
