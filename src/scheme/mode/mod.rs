//! Modes: a first-order model with its active set fixed, which is an ODE
//! (its free pairs solved from `y = 0`, the others at their bounds). The
//! event-driven scheme integrates modes and the Model Exchange engine hands
//! them to the importer's integrator.
//!
//! [`linear::ModeSystem`] is the mode of a linear model (a linear ODE, its
//! equations factorized once per mode); [`nonlinear::NonlinearMode`] that of
//! a nonlinear one or one with sources in time (its free pairs solved by
//! Newton at every evaluation). [`dynamics`] is what both offer the
//! integrators, which are compiled once per kind.

pub mod dynamics;
pub mod linear;
pub mod nonlinear;

/// How far one selection step may reach into a mode's fastest dynamics:
/// `delta ||∂f/∂x||∞` at most this.
const SELECTION_REACH: f64 = 0.1;

/// The step of a selection LCP: `delta`, shortened on a stiff model to
/// `SELECTION_REACH / stiffness` (`stiffness` the infinity norm of `∂f/∂x`).
/// The selection LCP is the step LCP to first order in the step, and that
/// expansion holds only while the step is short against the fastest time
/// constant: a buck converter's inductor behind its open switch (L = 100 µH,
/// ROFF = 1 MΩ) relaxes in 1e-10 s, and over a step of 1e-8 s its `delta C B`
/// term is a hundred times the diode's own `D`, of the other sign, and
/// makes the LCP infeasible at t = 0.
pub fn selection_step(delta: f64, stiffness: f64) -> f64 {
    if stiffness * delta > SELECTION_REACH {
        SELECTION_REACH / stiffness
    } else {
        delta
    }
}

/// The infinity norm of a matrix (its largest absolute row sum).
pub(crate) fn infinity_norm(a: &nalgebra::DMatrix<f64>) -> f64 {
    (0..a.nrows())
        .map(|i| a.row(i).iter().map(|v| v.abs()).sum::<f64>())
        .fold(0.0, f64::max)
}
