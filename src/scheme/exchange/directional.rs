//! Directional derivatives of the current mode's ODE for
//! `fmi2GetDirectionalDerivative`. A linear mode is affine in the states and
//! the inputs, so a difference of its constant terms is exact (to rounding),
//! and the mode is rebuilt for the importer's inputs afterwards, the same
//! bits. A nonlinear mode is differentiated by the gradient pass of its
//! programs (`mode_nl/directional.rs`); along inputs it is refused, since the
//! gradient pass of a nonlinear model does not differentiate its inputs.

use crate::scheme::exchange::Exchange;
use crate::scheme::mode::linear::{ModeSystem, SingularMode};
use crate::scheme::mode::nonlinear::NonlinearMode;
use crate::scheme::StepError;
use crate::system::lcs::Lcs;

impl Exchange<ModeSystem> {
    /// The directional derivative of the mode's ODE `x' = a x + b(w)`:
    /// `a dx + b(w + dw) - b(w)` (the mode is affine in the inputs, so the
    /// difference is the derivative, to rounding). The mode stays the one for
    /// `w`; nothing allocates.
    #[allow(clippy::too_many_arguments)]
    pub fn directional(
        &mut self,
        lcs: &Lcs,
        _t: f64,
        x: &[f64],
        w: &[f64],
        dx: &[f64],
        dw: &[f64],
        out: &mut [f64],
    ) -> Result<(), StepError> {
        self.follow_inputs(lcs, x, w)?;
        self.b_saved.fill(0.0);
        crate::linalg::gemv_from(out, &self.b_saved, &self.mode.a, dx);
        if dw.iter().all(|v| *v == 0.0) {
            return Ok(());
        }
        self.b_saved.copy_from_slice(self.mode.b.as_slice());
        for ((s, a), d) in self.w_seeded.iter_mut().zip(w).zip(dw) {
            *s = a + d;
        }
        let seeded = std::mem::take(&mut self.w_seeded);
        let built = self.build(lcs, x, &seeded);
        if built.is_ok() {
            for ((o, b1), b0) in out.iter_mut().zip(self.mode.b.iter()).zip(&self.b_saved) {
                *o += b1 - b0;
            }
        }
        self.w_seeded = seeded;
        // Back to the mode for `w` (the same bits: a rebuild is deterministic).
        self.build(lcs, x, w)
            .and(built)
            .map_err(|SingularMode| StepError::SingularMode)
    }
}

impl Exchange<NonlinearMode> {
    /// The directional derivative of the mode's ODE at `(t, x)` along `dx`
    /// (see `NonlinearMode::directional`); `dw` must be zero (see the
    /// module's text), which the caller checks with its names.
    #[allow(clippy::too_many_arguments)]
    pub fn directional(
        &mut self,
        lcs: &Lcs,
        t: f64,
        x: &[f64],
        w: &[f64],
        dx: &[f64],
        dw: &[f64],
        out: &mut [f64],
    ) -> Result<(), StepError> {
        debug_assert!(dw.iter().all(|v| *v == 0.0));
        self.save_iterate();
        self.at_time(t);
        let now = self.now;
        let done = self
            .follow_inputs(lcs, x, w)
            .and_then(|()| self.mode.directional(lcs, now, x, dx, out));
        if done.is_err() {
            self.restore_iterate();
        }
        done
    }
}
