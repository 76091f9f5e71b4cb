//! One communication step of the event-driven scheme: the embedded
//! Runge–Kutta pair with step-size control over the current mode, the guard
//! check after each accepted step, the stops at time jumps and at events (the
//! mode changes themselves are in `switching.rs`), the early return of FMI 3.0,
//! and the time-stepping that finishes a step events cannot (accumulation, a
//! mode that is not an ODE).

use crate::lcp;
use crate::scheme::event::rk::{error_norm, hermite, next_step};
use crate::scheme::event::{solved, EventStepper, StepReport, EVENT_FLOOR, EVENT_TOL};
use crate::scheme::mode::dynamics::{Fallback, ModeDynamics};
use crate::scheme::{tidy, StepError};
use crate::system::lcs::Lcs;

impl<M: ModeDynamics, B: Fallback> EventStepper<M, B> {
    /// Integrates from `x` (multipliers `u`, which a nonlinear mode's
    /// iteration starts from) at time `t0` over a communication step of size
    /// `big_h` with the inputs `w` held; the result is in `x_next`, `u_next`
    /// and the log's report.
    pub fn step(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        u: &[f64],
        w: &[f64],
        t0: f64,
        big_h: f64,
    ) -> Result<lcp::Info, StepError> {
        self.log.report = StepReport::default();
        self.log.stopped_at = None;
        self.x.copy_from_slice(x);
        self.mode.warm_start(u);
        let settings = self.settings;
        if let Some(guard) = self.pending.take() {
            // The importer stepped on without handling the event the last
            // step stopped at: the mode changes here, as it would have there.
            self.change_mode(lcs, w, guard, t0, &mut 0.0, big_h)?;
        }
        let order = settings.integrator.order();
        let tol_t = EVENT_TOL * big_h.max(1.0);
        let floor = EVENT_FLOOR * big_h.max(1.0);
        let mut t = 0.0;
        let mut last_event = f64::NEG_INFINITY;
        // Consecutive events each closer to the last than the one before: the
        // signature of an accumulation point, also when what stops the
        // integration is a mode near it that cannot be followed.
        let (mut spacing, mut shrinking) = (f64::INFINITY, 0usize);
        let mut h = self.h_next;
        // The mode of the last step goes on unless it no longer describes the
        // motion (new inputs, or the end of a fallback): then the LCP decides.
        self.previous.copy_from_slice(&self.active);
        let kept = self.mode.build(lcs, &self.active, w, t0, &self.x).is_ok()
            && self.mode.consistent(lcs, t0, &self.x, settings.atol);
        let mut finish_by_stepping = !kept && !self.enter_mode(lcs, w, t0, &mut t, big_h)?;
        if self.active != self.previous {
            // A switch exactly at the communication point.
            self.log.report.events += 1;
        }
        if !finish_by_stepping {
            self.mode.project(lcs, t0 + t, &mut self.x, settings.atol);
            self.mode.rhs(lcs, t0 + t, &self.x, &mut self.f0);
            self.log.report.rhs += 1;
            if !(h > 0.0 && h.is_finite()) {
                h = self.initial_step(big_h);
            }
        }
        while !finish_by_stepping && big_h - t > 4.0 * f64::EPSILON * big_h {
            let remaining = big_h - t;
            let clipped = h >= remaining;
            let mut h_try = if clipped { remaining } else { h };
            // A jump of a source in time ends the step on its old side (every
            // stage time at most `left`); the jump is crossed after the step.
            let jump = self.mode.next_time_jump(lcs, t0 + t, t0 + t + h_try);
            if let Some((left, right)) = jump {
                h_try = left - (t0 + t);
                while h_try > 0.0 && (t0 + t) + h_try > left {
                    h_try = h_try.next_down();
                }
                if h_try <= 0.0 {
                    // The jump is right here: no time to integrate over.
                    if !self.cross_time_jump(lcs, w, t0, &mut t, right, big_h)? {
                        finish_by_stepping = true;
                    }
                    continue;
                }
            }
            self.stages.set_first(&self.f0);
            let mode = &mut self.mode;
            self.log.report.rhs += settings.integrator.step(
                &mut |s, x, out| mode.rhs(lcs, s, x, out),
                t0 + t,
                &self.x,
                h_try,
                &mut self.stages,
                &mut self.x1,
                &mut self.f1,
            );
            if let Some(why) = self.mode.take_failure() {
                return Err(why);
            }
            let norm = error_norm(
                &self.stages.err,
                &self.x,
                &self.x1,
                settings.rtol,
                settings.atol,
            );
            if !norm.is_finite() {
                return Err(StepError::NotFinite);
            }
            if norm > 1.0 {
                self.log.report.rejected += 1;
                h = next_step(h_try, norm, order);
                if h < 1e-14 * big_h.max(1.0) {
                    return Err(StepError::StepTooSmall { h });
                }
                continue;
            }
            self.log.report.steps += 1;
            let proposal = next_step(h_try, norm, order);
            // Only a step that was not cut short by the communication point
            // or a jump says how large the next one may be.
            h = if clipped || jump.is_some() {
                h.max(proposal)
            } else {
                proposal
            };
            let crossing = self.earliest_crossing(lcs, t0 + t, h_try, tol_t);
            if let Some(why) = self.mode.take_failure() {
                return Err(why);
            }
            match crossing {
                None => {
                    std::mem::swap(&mut self.x, &mut self.x1);
                    std::mem::swap(&mut self.f0, &mut self.f1);
                    if let Some((_, right)) = jump {
                        t += h_try;
                        if !self.cross_time_jump(lcs, w, t0, &mut t, right, big_h)? {
                            finish_by_stepping = true;
                        }
                    } else {
                        t = if clipped { big_h } else { t + h_try };
                    }
                }
                Some((s, guard)) => {
                    self.log.report.events += 1;
                    let t_event = if s >= 1.0 && clipped {
                        big_h
                    } else {
                        t + s * h_try
                    };
                    hermite(
                        &self.x,
                        &self.f0,
                        &self.x1,
                        &self.f1,
                        h_try,
                        s,
                        &mut self.xe,
                    );
                    std::mem::swap(&mut self.x, &mut self.xe);
                    t = t_event;
                    let gap = t_event - last_event;
                    let crowded = gap < floor;
                    shrinking = if gap < spacing { shrinking + 1 } else { 0 };
                    (spacing, last_event) = (gap, t_event);
                    // Stopping is for events apart from the step's start: one
                    // there follows the event just handled (a cascade, or an
                    // accumulation), and is handled inside the step as always,
                    // so an importer is never asked to step by nothing.
                    if self.stop_at_events && t_event > floor {
                        self.pending = Some(guard);
                        self.log.stopped_at = Some(t_event);
                        break;
                    }
                    if crowded || self.log.report.events > settings.max_events_per_step {
                        self.log.report.accumulation = Some(t);
                        finish_by_stepping = true;
                        break;
                    }
                    if !self.change_mode(lcs, w, guard, t0, &mut t, big_h)? {
                        finish_by_stepping = true;
                        break;
                    }
                }
            }
        }
        self.h_next = h;
        if finish_by_stepping && shrinking >= 3 {
            self.log.report.accumulation.get_or_insert(t);
        }
        if finish_by_stepping && big_h - t <= 1e-12 * big_h.max(1.0) {
            // Nothing left to step over: the state stands, with the
            // multipliers of the last selection.
            self.x_next.copy_from_slice(&self.x);
            self.u_next.copy_from_slice(&self.select_u);
            return Ok(solved());
        }
        if finish_by_stepping {
            let info = self
                .fallback
                .finish(lcs, &self.x, &self.select_u, w, t0 + t, big_h - t)?;
            self.log.report.lcp_solves += 1;
            let (x_end, u_end) = self.fallback.result();
            self.x_next.copy_from_slice(x_end);
            self.u_next.copy_from_slice(u_end);
            self.active.copy_from_slice(self.fallback.active_set());
            if !tidy(&mut self.x_next) || !tidy(&mut self.u_next) {
                return Err(StepError::NotFinite);
            }
            return Ok(info);
        }
        self.x_next.copy_from_slice(&self.x);
        self.mode
            .multipliers(lcs, t0 + big_h, &self.x, &mut self.u_next);
        if let Some(why) = self.mode.take_failure() {
            return Err(why);
        }
        if !tidy(&mut self.x_next) || !tidy(&mut self.u_next) {
            return Err(StepError::NotFinite);
        }
        Ok(solved())
    }

    /// A first step from the size of the state and of its derivative.
    fn initial_step(&self, big_h: f64) -> f64 {
        let (rtol, atol) = (self.settings.rtol, self.settings.atol);
        let (mut d0, mut d1) = (0.0f64, 0.0f64);
        for (x, f) in self.x.iter().zip(&self.f0) {
            let sc = atol + rtol * x.abs();
            d0 = d0.max(x.abs() / sc);
            d1 = d1.max(f.abs() / sc);
        }
        let h = if d0 < 1e-5 || d1 < 1e-5 {
            1e-3 * big_h
        } else {
            0.01 * d0 / d1
        };
        h.min(big_h)
    }
}
