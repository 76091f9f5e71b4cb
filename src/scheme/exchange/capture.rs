//! Sliding capture: an event whose state a fixed-step integrator has already
//! carried past a sliding surface enters the sliding mode instead of the
//! other side (no chattering with the importer's step).
//!
//! An integrator that does not locate events (FMPy's Euler) reports the event
//! at the end of the step that crossed the surface, with the state past it.
//! The sliding mode's `y = 0` is then off by the overshoot, so that mode
//! does not describe the motion at the state, and the selection LCP picks the
//! other side; that side's field points back, the next step crosses again,
//! and so on (the relay chattered with 162 events for Euler's 0.01). The
//! capture rule, tried at an event the importer stepped over (a fired guard
//! is below its tolerance) when the mode of the fired pairs does not
//! describe the motion at the state, before the selection LCP:
//!
//! 1. The candidate is the mode the selection LCP picks where the step
//!    crossed: at the point of the chord from `x_s` (below) to the state at
//!    which the first fired guard of the old mode reads zero, as an
//!    event-locating integrator would have stopped (a secant step, exact for
//!    a straight step since the guards are affine). It must free a pair that
//!    was pinned before and hold it at `y = 0` through its derivative (a
//!    sliding entry, relative degree one: a relay's surface, a stuck mass).
//! 2. The state is projected onto the constraints the candidate holds (the
//!    least-norm move, `ModeSystem::project`); the move must be no longer
//!    than the importer's last step, `|x - x_s|` with `x_s` the state where
//!    that step started (the last completed integrator step at which no guard
//!    was violated, or the last event), plus the state tolerance times
//!    `√nx`. A step that crossed a surface explains a move back onto it; a
//!    state the importer set far off any surface does not.
//! 3. At the projected state the candidate describes the motion: its
//!    multipliers are within their bounds and no guard at zero decreases.
//!    For one pair this is Filippov's sliding condition: the equivalent
//!    control lies between the bounds exactly when the vector fields of both
//!    sides point toward the surface. A crossing whose far side's field
//!    points away (a diode that must conduct, the spiral crossing an axis)
//!    fails here and switches as before.
//!
//! When that fails, the rule is tried once more with the mode in which the
//! fired pairs and the pairs that changed side at the event before are
//! freed (relative degree one only) as the candidate: Euler crossing the two axes of the sign spiral in consecutive
//! steps near its origin is a back-and-forth crossing of a set where both
//! slide, as in Aljarbouh and Caillaud's chattering detection, and step 2
//! bounds the move onto it by the last step.

use crate::lcp::Bound;
use crate::scheme::exchange::{Exchange, ExchangeMode};
use crate::system::lcs::Lcs;

/// The most steps an importer may complete between two stepped-over events
/// for them to count as a back-and-forth crossing (the second try of the
/// rule): FMPy's Euler circles the sign spiral's origin crossing an axis
/// every second step.
pub const CHATTER_STEPS: u64 = 1;

impl<M: ExchangeMode> Exchange<M> {
    /// Applies the capture rule at an event at `x` whose fired guards were
    /// flipped into `self.active` (`self.previous` is the mode before, and
    /// `self.crossing` the fraction of the step where the first of them read
    /// zero). `Some(moved)` when the state was projected onto a sliding mode
    /// that is now current; on `None`, `x` is unchanged and the mode must be
    /// chosen again.
    pub(super) fn capture(&mut self, lcs: &Lcs, x: &mut [f64], w: &[f64]) -> Option<bool> {
        self.flipped.copy_from_slice(&self.active);
        let mut crossed = std::mem::take(&mut self.crossed);
        for ((c, s), e) in crossed.iter_mut().zip(&self.step_start).zip(x.iter()) {
            *c = s + self.crossing * (e - s);
        }
        self.active.copy_from_slice(&self.previous);
        let selected = self.select(lcs, &crossed, w).is_ok();
        self.crossed = crossed;
        if selected {
            let reach = distance(x, &self.step_start) + self.atol * (x.len() as f64).sqrt();
            if let Some(moved) = self.capture_candidate(x, reach) {
                return Some(moved);
            }
        }
        if !(self.overshoot && self.overshoot_before && self.steps_between_events <= CHATTER_STEPS)
        {
            return None;
        }
        self.active.copy_from_slice(&self.flipped);
        let before = self.events - 1;
        let mut widened = false;
        for i in 0..self.active.len() {
            let relative_degree_one = lcs.d.row(i).iter().all(|v| *v == 0.0);
            if self.changed_at[i] == before && self.active[i] != Bound::Free && relative_degree_one
            {
                self.active[i] = Bound::Free;
                widened = true;
            }
        }
        if !widened || self.build(lcs, x, w).is_err() {
            return None;
        }
        let reach = self.path_since_event_before + self.atol * (x.len() as f64).sqrt();
        self.capture_candidate(x, reach)
    }

    /// Steps 1 (the mode keeps a crossed surface) to 3 of the rule for the
    /// built mode (a linear one: `None` for a nonlinear mode, see `kind.rs`).
    fn capture_candidate(&mut self, x: &mut [f64], reach: f64) -> Option<bool> {
        let mode = self.mode.linear()?;
        let mut hold = std::mem::take(&mut self.hold);
        for (i, h) in hold.iter_mut().enumerate() {
            *h = self.fired[i] && mode.keeps_y(i, &self.crossed);
        }
        let keeps = hold.contains(&true);
        let mut trial = std::mem::take(&mut self.trial);
        trial.copy_from_slice(x);
        if keeps {
            mode.project_holding(&mut trial, self.atol, &hold);
        }
        self.hold = hold;
        let captured = keeps && distance(&trial, x) <= reach && mode.consistent(&trial, self.atol);
        let moved = captured && trial.as_slice() != &*x;
        if captured {
            x.copy_from_slice(&trial);
        }
        self.trial = trial;
        captured.then_some(moved)
    }
}

/// The Euclidean distance of two states.
pub(super) fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (p - q) * (p - q))
        .sum::<f64>()
        .sqrt()
}
