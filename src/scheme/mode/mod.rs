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
