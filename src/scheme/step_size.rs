//! The step size a stepper's cached matrices belong to ([`StepSize`]), and
//! [`SAME_STEP`], the relative difference under which two step sizes share
//! those matrices.

/// Relative difference below which two step sizes are treated as one (see
/// `StepSize::key`); far below any accuracy a time-stepping scheme offers, far
/// above the rounding of communication points (about 2e-16 per step taken).
pub const SAME_STEP: f64 = 1e-9;
/// The step size the cached matrices belong to.
///
/// Masters compute step sizes as differences of communication points, which
/// jitter in the last bits, and a refactorization per step for a change of one
/// ulp would cost more than the step: sizes within [`SAME_STEP`] (relative)
/// share one set of matrices. The hint survives invalidation so that a restored
/// FMU state rebuilds the matrices for the very step size it was saved with.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StepSize {
    /// NaN when nothing is cached.
    current: f64,
    hint: f64,
}

impl StepSize {
    pub(crate) fn new() -> Self {
        StepSize {
            current: f64::NAN,
            hint: f64::NAN,
        }
    }

    /// The step size to build matrices for when asked for `h`.
    pub(crate) fn key(&self, h: f64) -> f64 {
        let close = |c: f64| (h - c).abs() <= SAME_STEP * c;
        if close(self.current) {
            self.current
        } else if close(self.hint) {
            self.hint
        } else {
            h
        }
    }

    /// Whether the cache holds matrices for `key`.
    pub(crate) fn holds(&self, key: f64) -> bool {
        key.to_bits() == self.current.to_bits()
    }

    pub(crate) fn set(&mut self, h: f64) {
        self.current = h;
        self.hint = h;
    }

    pub(crate) fn invalidate(&mut self) {
        self.current = f64::NAN;
    }

    pub(crate) fn forget(&mut self) {
        self.current = f64::NAN;
        self.hint = f64::NAN;
    }

    /// The cached step size (NaN when none), for FMU states.
    pub(crate) fn cached(&self) -> f64 {
        if self.current.is_nan() {
            self.hint
        } else {
            self.current
        }
    }

    pub(crate) fn restore(&mut self, h: f64) {
        self.current = f64::NAN;
        self.hint = h;
    }
}
