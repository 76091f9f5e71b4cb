//! The two kinds of mode the Model Exchange engine runs on, and what the
//! engine needs of a mode beyond [`ModeDynamics`]: a workspace of given
//! sizes, the linear mode for the capture rule, and the free pairs' iterate
//! that FMU states carry.
//!
//! The engine ([`Exchange`](super::Exchange)) is compiled once per kind, as
//! the event-driven stepper is: the linear [`ModeSystem`] runs the code it ran
//! before the engine became generic (its `t` and `x` arguments are dropped by
//! inlined wrappers), the [`NonlinearMode`] solves its free pairs at each state.
//!
//! The capture rule (`capture.rs`) applies to linear modes only. It locates
//! the crossing on the chord of the importer's step by one secant step, exact
//! because a linear mode's guards are affine in the state, and projects with
//! the pinned pairs it captures held at `y = 0` (`ModeSystem::project_holding`).
//! A nonlinear mode has neither: its guards are nonlinear along the chord,
//! and its projection holds only the pairs the mode itself holds. Its
//! stepped-over events go to the selection LCP directly, which for a pair of
//! relative degree one (the buck converter's diode at `iL = 0`) picks the
//! sliding mode from within one selection step and projects onto it.

use crate::scheme::mode::dynamics::ModeDynamics;
use crate::scheme::mode::linear::ModeSystem;
use crate::scheme::mode::nonlinear::NonlinearMode;

/// A mode the Model Exchange engine can run on (see the module's text).
pub trait ExchangeMode: ModeDynamics {
    /// A workspace for `nx` states, `nu` pairs and `nw` inputs.
    fn sized(nx: usize, nu: usize, nw: usize) -> Self;
    /// The linear mode, for the capture rule; `None` for a nonlinear one.
    fn linear(&mut self) -> Option<&mut ModeSystem>;
    /// Where the free pairs' iteration starts next (empty for a linear
    /// mode, which has no iteration).
    fn iterate(&self) -> &[f64];
    /// Whether the mode reads `time` (sources, time events).
    fn reads_time() -> bool;
    /// Keeps the mode as it is, for [`ExchangeMode::bring_back`].
    fn keep(&mut self);
    /// Makes the mode the kept one again; false for a kind that is built
    /// again instead (a linear mode, whose build depends only on the active
    /// set and the inputs: see `mode_nl/kept.rs` for why a nonlinear one is not).
    fn bring_back(&mut self) -> bool;
}

impl ExchangeMode for ModeSystem {
    fn sized(nx: usize, nu: usize, nw: usize) -> Self {
        ModeSystem::new(nx, nu, nw)
    }
    #[inline(always)]
    fn linear(&mut self) -> Option<&mut ModeSystem> {
        Some(self)
    }
    fn iterate(&self) -> &[f64] {
        &[]
    }
    #[inline(always)]
    fn reads_time() -> bool {
        false
    }
    #[inline(always)]
    fn keep(&mut self) {}
    #[inline(always)]
    fn bring_back(&mut self) -> bool {
        false
    }
}

impl ExchangeMode for NonlinearMode {
    fn sized(nx: usize, nu: usize, nw: usize) -> Self {
        NonlinearMode::new(nx, nu, nw)
    }
    fn linear(&mut self) -> Option<&mut ModeSystem> {
        None
    }
    fn iterate(&self) -> &[f64] {
        NonlinearMode::iterate(self)
    }
    fn reads_time() -> bool {
        true
    }
    fn keep(&mut self) {
        NonlinearMode::keep(self)
    }
    fn bring_back(&mut self) -> bool {
        NonlinearMode::bring_back(self);
        true
    }
}
