//! Choosing the mode at an event: the fired guards' pairs change side, the
//! capture rule (linear modes) or the selection LCP decides when that mode
//! does not describe the motion, and the state is projected onto the
//! constraints of the mode chosen (see the parent module). Also the building
//! of a mode for the current inputs, which assigns the indicator slots.

use crate::lcp::{self, Bound};
use crate::scheme::event::SELECT_STEP;
use crate::scheme::exchange::{EventOutcome, Exchange, ExchangeMode};
use crate::scheme::mode::linear::{Guard, SingularMode};
use crate::scheme::StepError;
use crate::system::lcs::Lcs;

impl<M: ExchangeMode> Exchange<M> {
    /// The next mode at a regular event, and the projection onto it.
    pub(super) fn switch(
        &mut self,
        lcs: &Lcs,
        x: &mut [f64],
        w: &[f64],
    ) -> Result<EventOutcome, StepError> {
        // The fired guards' pairs change side; the selection LCP decides when
        // that is not the motion. The first fired guard's zero on the chord of
        // the importer's step is where the step crossed (for the capture rule).
        self.crossing = 1.0;
        self.fired.fill(false);
        let now = self.now;
        for r in 0..self.mode.guard_list().len() {
            let (g, tol) = (
                self.mode.guard(lcs, now, r, x),
                self.mode.guard_tolerance(lcs, now, r, x, self.atol),
            );
            self.overshoot |= g < -tol;
            if g <= tol {
                let g_start = self.mode.guard(lcs, now, r, &self.step_start);
                if g_start > g {
                    self.crossing = self.crossing.min((g_start / (g_start - g)).clamp(0.0, 1.0));
                }
                match self.mode.guard_list()[r] {
                    Guard::LowerY(i) | Guard::UpperY(i) => {
                        self.active[i] = Bound::Free;
                        self.fired[i] = true;
                    }
                    Guard::AboveLo(i) => self.active[i] = Bound::Lower,
                    Guard::BelowHi(i) => self.active[i] = Bound::Upper,
                }
            }
        }
        let follows = self.build(lcs, x, w).is_ok() && self.mode.consistent(lcs, now, x, self.atol);
        // Only an event the importer stepped over (a fired guard below its
        // tolerance) is captured, and only in a linear mode (`kind.rs`): a
        // located one takes the regular path.
        if !follows && self.overshoot && self.mode.linear().is_some() {
            if let Some(projected) = self.capture(lcs, x, w) {
                self.mark_changes();
                return Ok(EventOutcome::Switched { projected });
            }
        }
        if !follows {
            self.active.copy_from_slice(&self.previous);
            self.select(lcs, x, w)?;
        }
        self.mark_changes();
        Ok(EventOutcome::Switched {
            projected: self.project(lcs, x),
        })
    }

    pub(super) fn mark_changes(&mut self) {
        for i in 0..self.active.len() {
            if self.active[i] != self.previous[i] {
                self.changed_at[i] = self.events;
            }
        }
    }

    /// The mode the selection LCP picks at `x`, warm-started from the current one.
    pub(super) fn select(&mut self, lcs: &Lcs, x: &[f64], w: &[f64]) -> Result<(), StepError> {
        // The step it took matters only to the event-driven scheme's entry step.
        let _ = self
            .mode
            .selection(lcs, self.now, x, w, SELECT_STEP, &mut self.select);
        self.select_solver.matrix_changed();
        self.select_solver.set_active_set(&self.active);
        let info = self
            .select_solver
            .solve(&self.select, &mut self.select_u, &mut self.select_y);
        if info.status != lcp::Status::Solved {
            return Err(StepError::Lcp(info));
        }
        self.active.copy_from_slice(self.select_solver.active_set());
        self.build(lcs, x, w)
            .map_err(|SingularMode| StepError::SingularMode)
    }

    /// Builds the current mode for inputs `w` (a nonlinear one solved at
    /// `x`) and assigns the indicator slots.
    pub(super) fn build(&mut self, lcs: &Lcs, x: &[f64], w: &[f64]) -> Result<(), SingularMode> {
        self.built = false;
        self.mode.build(lcs, &self.active, w, self.now, x)?;
        self.built = true;
        self.built_for.copy_from_slice(w);
        self.assign_slots();
        Ok(())
    }

    /// Assigns each guard of the mode its indicator slot.
    pub(super) fn assign_slots(&mut self) {
        self.slots.fill(None);
        for (r, g) in self.mode.guard_list().iter().enumerate() {
            let slot = match *g {
                Guard::LowerY(i) | Guard::AboveLo(i) => 2 * i,
                Guard::UpperY(i) | Guard::BelowHi(i) => 2 * i + 1,
            };
            self.slots[slot] = Some(r);
        }
    }

    /// Rebuilds the mode when the inputs differ from those it was built for
    /// (bit for bit: a rebuild for the same inputs gives the same mode).
    pub(super) fn follow_inputs(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        w: &[f64],
    ) -> Result<(), StepError> {
        let same = self.built
            && self
                .built_for
                .iter()
                .zip(w)
                .all(|(a, b)| a.to_bits() == b.to_bits());
        if same {
            return Ok(());
        }
        self.build(lcs, x, w)
            .map_err(|SingularMode| StepError::SingularMode)
    }

    /// Projects `x` onto the constraints the mode holds; true when it moved.
    pub(super) fn project(&mut self, lcs: &Lcs, x: &mut [f64]) -> bool {
        self.x_before.copy_from_slice(x);
        self.mode.project(lcs, self.now, x, self.atol);
        x.iter().zip(&self.x_before).any(|(a, b)| a != b)
    }
}
