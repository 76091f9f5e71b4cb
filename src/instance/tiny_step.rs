//! What a step at the rounding level of the time reports.
//!
//! A master that accumulates its time (`t += h`, as OMSimulator does) ends a
//! run of 300 steps of 0.01 with a step of 2e-14 to land on 3.0. The FMU
//! integrates it as asked, and the states come out right, but the multipliers
//! of a first-order time-stepping step are forces averaged over the step, found
//! from `y(t + h)`: with `h` at the rounding level of `t`, the state's own
//! round-off divided by `h` is as large as the multiplier itself (relay
//! feedback: `u(3) = -0.0315972` where a step of 0.01 gives `-0.0314528`).
//!
//! Rule: a step with `h <= TINY_STEP * |t|` carries fewer than six significant
//! digits of `h` in `t + h`, so its multipliers say nothing the previous step
//! did not. When such a step ends in the mode it started in (the same active
//! set), the FMU reports the previous step's multipliers; a tiny step that
//! changes the mode reports its own, since the switch is news. The states are
//! always the step's own. The test is on `h / |t|`, a pure number, so it is the
//! same in any time unit. Mechanical schemes report percussions, impulses over
//! the step that vanish with it as they should, and the event-driven scheme
//! reports the multipliers of the mode at the step's end, not averages; both
//! are left alone.

use crate::lcp::Bound;

/// Steps at most this fraction of the time are at its rounding level.
pub const TINY_STEP: f64 = 1e-10;

/// The multipliers and mode before a tiny step, in buffers sized once.
#[derive(Clone, Debug)]
pub(super) struct HeldMultipliers {
    pairs: Vec<f64>,
    active: Vec<Bound>,
    held: bool,
}

impl HeldMultipliers {
    pub(super) fn new(nu: usize) -> Self {
        HeldMultipliers {
            pairs: vec![0.0; nu],
            active: vec![Bound::Free; nu],
            held: false,
        }
    }

    /// Whether a step of `h` from `t` is tiny in the sense above.
    #[inline(always)]
    pub(super) fn is_tiny(t: f64, h: f64) -> bool {
        h <= TINY_STEP * t.abs()
    }

    /// Keeps the multipliers and the mode before a tiny step.
    #[cold]
    pub(super) fn hold(&mut self, pairs: &[f64], active: &[Bound]) {
        // The active set may be shorter than the pairs (none for a scheme
        // without one): only a held mode of the same length is compared.
        self.held = pairs.len() == self.pairs.len() && active.len() == self.active.len();
        if self.held {
            self.pairs.copy_from_slice(pairs);
            self.active.copy_from_slice(active);
        }
    }

    /// After the tiny step: puts the held multipliers back into `pairs` when
    /// the step ended in the held mode; returns whether it did.
    #[cold]
    pub(super) fn restore_if_same_mode(&mut self, pairs: &mut [f64], active: &[Bound]) -> bool {
        let same = self.held && active == self.active.as_slice();
        if same {
            pairs.copy_from_slice(&self.pairs);
        }
        self.held = false;
        same
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_is_relative_to_the_time_and_never_at_zero() {
        assert!(HeldMultipliers::is_tiny(3.0, 2e-14));
        assert!(!HeldMultipliers::is_tiny(3.0, 1e-6));
        assert!(!HeldMultipliers::is_tiny(0.0, 1e-300));
        // The same step in milliseconds.
        assert!(HeldMultipliers::is_tiny(3000.0, 2e-11));
    }

    #[test]
    fn held_multipliers_return_only_in_the_same_mode() {
        let mut h = HeldMultipliers::new(2);
        let mode = [Bound::Free, Bound::Lower];
        h.hold(&[0.5, 0.0], &mode);
        let mut pairs = [0.7, 0.0];
        assert!(h.restore_if_same_mode(&mut pairs, &mode));
        assert_eq!(pairs, [0.5, 0.0]);
        h.hold(&[0.5, 0.0], &mode);
        let mut pairs = [1.0, 0.0];
        assert!(!h.restore_if_same_mode(&mut pairs, &[Bound::Upper, Bound::Lower]));
        assert_eq!(pairs, [1.0, 0.0]);
        // Nothing held: nothing restored.
        assert!(!h.restore_if_same_mode(&mut pairs, &mode));
    }
}
