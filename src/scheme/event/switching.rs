//! Mode changes of the event-driven scheme: what happens at a located
//! event (the fired guard's pair changes side, or the selection LCP decides,
//! and the state is projected onto the new mode), at a jump of a source in
//! time, and where an FMI 3.0 step stopped early for the importer. The step
//! loop that finds these moments is in `integration.rs`.

use crate::lcp::{self, Bound};
use crate::scheme::event::rk::{brent, hermite};
use crate::scheme::event::{EventStepper, SELECT_STEP};
use crate::scheme::mode::dynamics::{Fallback, ModeDynamics};
use crate::scheme::mode::linear::{Guard, SingularMode, DRIFT_TOL};
use crate::scheme::{tidy, StepError};
use crate::system::lcs::Lcs;

impl<M: ModeDynamics, B: Fallback> EventStepper<M, B> {
    /// Changes the mode at the event the last step stopped at, as the step
    /// would have done without stopping: the fired guard's pair changes side,
    /// or the selection LCP decides; the state is projected onto the new
    /// mode's constraints. The result (state and multipliers) is in `x_next`
    /// and `u_next`. False when no event was pending (nothing changes).
    pub fn update_mode(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        u: &[f64],
        w: &[f64],
        t0: f64,
    ) -> Result<bool, StepError> {
        let Some(guard) = self.pending.take() else {
            return Ok(false);
        };
        self.x.copy_from_slice(x);
        self.x_next.copy_from_slice(&self.x);
        self.mode.warm_start(u);
        // No time passes here: a mode that needs a selection step to describe
        // the motion keeps the selection's multipliers, and the next step
        // selects again with room to take it.
        if self.change_mode(lcs, w, guard, t0, &mut 0.0, 0.0)? {
            self.x_next.copy_from_slice(&self.x);
            self.mode.multipliers(lcs, t0, &self.x, &mut self.u_next);
            if let Some(why) = self.mode.take_failure() {
                return Err(why);
            }
        } else {
            self.u_next.copy_from_slice(&self.select_u);
        }
        if !tidy(&mut self.x_next) || !tidy(&mut self.u_next) {
            return Err(StepError::NotFinite);
        }
        Ok(true)
    }

    /// The mode after `guard` fired at `self.x`, built and entered (the state
    /// projected onto it); false when time-stepping must go on from here (the
    /// selected mode is singular, or needs a selection step that `big_h - t`
    /// has no room for; a step that starts here selects again).
    pub(super) fn change_mode(
        &mut self,
        lcs: &Lcs,
        w: &[f64],
        guard: Guard,
        t0: f64,
        t: &mut f64,
        big_h: f64,
    ) -> Result<bool, StepError> {
        // The guard that fired says which pair changes side; when that mode
        // does not describe the motion (several pairs change at once, or a
        // crossing rather than a release), the mode-selection LCP decides.
        self.flip(guard);
        let settings = self.settings;
        let now = t0 + *t;
        let follows = self.mode.build(lcs, &self.active, w, now, &self.x).is_ok()
            && self.mode.consistent(lcs, now, &self.x, settings.atol);
        if follows {
            self.log.remember(&self.active);
        } else {
            self.active.copy_from_slice(&self.previous_event_mode);
            if !self.enter_mode(lcs, w, t0, t, big_h)? {
                return Ok(false);
            }
        }
        let now = t0 + *t;
        self.mode.project(lcs, now, &mut self.x, settings.atol);
        self.mode.rhs(lcs, now, &self.x, &mut self.f0);
        self.log.report.rhs += 1;
        Ok(true)
    }

    /// Selects and builds the mode at the state `self.x` at time `t` with
    /// inputs `w`; false when that mode is not an ODE (its free pairs'
    /// equations are singular).
    pub(super) fn select_mode(&mut self, lcs: &Lcs, w: &[f64], t: f64) -> Result<bool, StepError> {
        self.select_step = self
            .mode
            .selection(lcs, t, &self.x, w, SELECT_STEP, &mut self.select);
        // The matrix is the same at every event of an assembly, but cheap to
        // factor next to an event; the warm start is the old mode.
        self.select_solver.matrix_changed();
        self.select_solver.set_active_set(&self.active);
        let info = self
            .select_solver
            .solve(&self.select, &mut self.select_u, &mut self.select_y);
        self.log.report.lcp_solves += 1;
        if info.status != lcp::Status::Solved {
            return Err(StepError::Lcp(info));
        }
        self.active.copy_from_slice(self.select_solver.active_set());
        self.log.remember(&self.active);
        match self.mode.build(lcs, &self.active, w, t, &self.x) {
            Ok(()) => Ok(true),
            Err(SingularMode) => Ok(false),
        }
    }

    /// Moves the time from the old side of a jump of a source in time to
    /// `right`, its first time on the new side (the state is continuous
    /// across it), and goes on in the mode that describes the motion there:
    /// the same one when it still does (a jump that moves no pair), else the
    /// selection LCP's. False when time-stepping must finish the step.
    pub(super) fn cross_time_jump(
        &mut self,
        lcs: &Lcs,
        w: &[f64],
        t0: f64,
        t: &mut f64,
        right: f64,
        big_h: f64,
    ) -> Result<bool, StepError> {
        // `t0 + t` must land on `right` or after it, never back on the old side.
        *t = right - t0;
        while t0 + *t < right {
            *t = t.next_up();
        }
        *t = t.min(big_h);
        self.log.report.time_events += 1;
        let atol = self.settings.atol;
        let now = t0 + *t;
        let kept = self.mode.build(lcs, &self.active, w, now, &self.x).is_ok()
            && self.mode.consistent(lcs, now, &self.x, atol);
        if !kept {
            self.previous_event_mode.copy_from_slice(&self.active);
            if !self.enter_mode(lcs, w, t0, t, big_h)? {
                return Ok(false);
            }
            if self.active != self.previous_event_mode {
                self.log.report.events += 1;
            }
        }
        let now = t0 + *t;
        self.mode.project(lcs, now, &mut self.x, atol);
        self.mode.rhs(lcs, now, &self.x, &mut self.f0);
        self.log.report.rhs += 1;
        Ok(true)
    }

    /// The mode after `guard` fired: its pair moves to the other side.
    pub(super) fn flip(&mut self, guard: Guard) {
        self.previous_event_mode.copy_from_slice(&self.active);
        match guard {
            Guard::LowerY(i) | Guard::UpperY(i) => self.active[i] = Bound::Free,
            Guard::AboveLo(i) => self.active[i] = Bound::Lower,
            Guard::BelowHi(i) => self.active[i] = Bound::Upper,
        }
    }

    /// Selects the mode at `self.x` and makes sure it describes the motion
    /// there: a mode that holds a pair at `y = 0` through its derivative while
    /// `y` is not yet 0 (the state is within one selection step of the
    /// constraint, as near the spiral's origin) is entered by taking that step.
    /// False when time-stepping must finish the communication step.
    pub(super) fn enter_mode(
        &mut self,
        lcs: &Lcs,
        w: &[f64],
        t0: f64,
        t: &mut f64,
        big_h: f64,
    ) -> Result<bool, StepError> {
        for attempt in 0..2 {
            if !self.select_mode(lcs, w, t0 + *t)? {
                self.log.report.singular_mode = true;
                return Ok(false);
            }
            if self.mode.drift(lcs, t0 + *t, &self.x) <= DRIFT_TOL {
                return Ok(true);
            }
            let step = self.select_step;
            if attempt == 1 || big_h - *t <= step {
                break;
            }
            // One explicit step of the selection's length with its multipliers.
            self.mode
                .rate(lcs, t0 + *t, &self.x, &self.select_u, w, &mut self.xe);
            for (x, v) in self.x.iter_mut().zip(&self.xe) {
                *x += step * v;
            }
            *t += step;
            self.log.report.steps += 1;
        }
        self.log.report.singular_mode = true;
        Ok(false)
    }

    /// The earliest guard crossing over the step of size `h` from time `ta`
    /// just taken, as a fraction of it, located on the Hermite interpolant;
    /// `None` when no guard changes sign.
    pub(super) fn earliest_crossing(
        &mut self,
        lcs: &Lcs,
        ta: f64,
        h: f64,
        tol_t: f64,
    ) -> Option<(f64, Guard)> {
        let mut earliest: Option<(f64, Guard)> = None;
        let tb = ta + h;
        for r in 0..self.mode.guard_list().len() {
            let ga = self.mode.guard(lcs, ta, r, &self.x);
            let gb = self.mode.guard(lcs, tb, r, &self.x1);
            if gb
                >= -self
                    .mode
                    .guard_tolerance(lcs, tb, r, &self.x1, self.settings.atol)
            {
                continue;
            }
            let s = if ga <= 0.0 {
                0.0
            } else {
                let (x0, f0, x1, f1) = (&self.x, &self.f0, &self.x1, &self.f1);
                let (xe, mode) = (&mut self.xe, &mut self.mode);
                let mut g = |s: f64| {
                    hermite(x0, f0, x1, f1, h, s, xe);
                    mode.guard(lcs, ta + s * h, r, xe)
                };
                brent(&mut g, 0.0, 1.0, ga, gb, tol_t / h)
            };
            if earliest.is_none_or(|(e, _)| s < e) {
                earliest = Some((s, self.mode.guard_list()[r]));
            }
        }
        earliest
    }
}
