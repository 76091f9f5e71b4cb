//! The event engine of a Model Exchange instance, of the kind its model
//! needs: the linear mode's for a first-order LCS, the nonlinear mode's for
//! a model with nonlinear rows or sources in `time` (one generic engine,
//! `scheme::exchange::Exchange`, compiled for each). Each call dispatches once on the kind;
//! the engine's code is that of its kind alone.

use crate::lcp::Bound;
use crate::model::Model;
use crate::scheme::exchange::{EventOutcome, History, LinearExchange, NonlinearExchange};
use crate::scheme::StepError;
use crate::system::lcs::Lcs;

/// The engine of one kind. Both variants are large and unboxed: the engine
/// is made once per instance inside its boxed Model Exchange part, and a box
/// would add an indirection to every call of the per-call path.
#[allow(clippy::large_enum_variant)]
pub enum Engine {
    Linear(LinearExchange),
    Nonlinear(NonlinearExchange),
}

/// Runs `$body` with `$e` bound to the engine, whichever its kind.
macro_rules! each {
    ($engine:expr, $e:ident => $body:expr) => {
        match $engine {
            Engine::Linear($e) => $body,
            Engine::Nonlinear($e) => $body,
        }
    };
}

impl Engine {
    /// The engine `model` needs, with the state tolerance `atol`.
    pub fn new(model: &Model, atol: f64) -> Self {
        let (nx, nu, nw) = (model.nx(), model.nu(), model.nw());
        if model.nonlinear_dynamics() {
            Engine::Nonlinear(NonlinearExchange::new(nx, nu, nw, atol))
        } else {
            Engine::Linear(LinearExchange::new(nx, nu, nw, atol))
        }
    }

    pub fn enter(
        &mut self,
        lcs: &Lcs,
        t: f64,
        x: &mut [f64],
        w: &[f64],
    ) -> Result<bool, StepError> {
        each!(self, e => e.enter(lcs, t, x, w))
    }

    pub fn derivatives(
        &mut self,
        lcs: &Lcs,
        t: f64,
        x: &[f64],
        w: &[f64],
        out: &mut [f64],
    ) -> Result<(), StepError> {
        each!(self, e => e.derivatives(lcs, t, x, w, out))
    }

    pub fn multipliers(
        &mut self,
        lcs: &Lcs,
        t: f64,
        x: &[f64],
        w: &[f64],
        u: &mut [f64],
    ) -> Result<(), StepError> {
        each!(self, e => e.multipliers(lcs, t, x, w, u))
    }

    pub fn indicators(
        &mut self,
        lcs: &Lcs,
        t: f64,
        x: &[f64],
        w: &[f64],
        out: &mut [f64],
    ) -> Result<(), StepError> {
        each!(self, e => e.indicators(lcs, t, x, w, out))
    }

    pub fn completed_step(
        &mut self,
        lcs: &Lcs,
        t: f64,
        x: &[f64],
        w: &[f64],
    ) -> Result<bool, StepError> {
        each!(self, e => e.completed_step(lcs, t, x, w))
    }

    pub fn event(
        &mut self,
        lcs: &Lcs,
        x: &mut [f64],
        w: &[f64],
        t: f64,
    ) -> Result<EventOutcome, StepError> {
        each!(self, e => e.event(lcs, x, w, t))
    }

    /// See `Exchange::next_time_event`.
    pub fn next_time_event(&mut self, lcs: &Lcs, t: f64, horizon: f64, window: f64) -> Option<f64> {
        each!(self, e => e.next_time_event(lcs, t, horizon, window))
    }

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
        each!(self, e => e.directional(lcs, t, x, w, dx, dw, out))
    }

    /// Whether directional derivatives along inputs are provided (a linear
    /// mode's; see `exchange/directional.rs`).
    pub fn differentiates_inputs(&self) -> bool {
        self.is_linear()
    }

    pub fn is_linear(&self) -> bool {
        matches!(self, Engine::Linear(_))
    }

    pub fn active_set(&self) -> &[Bound] {
        each!(self, e => e.active_set())
    }

    pub fn events(&self) -> u64 {
        each!(self, e => e.events())
    }

    pub fn history(&self) -> History {
        each!(self, e => e.history())
    }

    pub fn restore(&mut self, h: &History) {
        each!(self, e => e.restore(h))
    }
}
