//! lcsfmu: complementarity dynamical systems as FMI 2.0 and 3.0 FMUs, for
//! Co-Simulation and Model Exchange.
//!
//! A first-order model is a complementarity system
//!
//! ```text
//! x' = A x + B u + E w + f + φ(x, u, w, t)        states x, inputs w
//! y  = C x + D u + F w + g + ψ(x, u, w, t)        lo <= u <= hi  ⟂  y
//! ```
//!
//! where `⟂` means, per component, `u = lo ⇒ y >= 0`, `u = hi ⇒ y <= 0`,
//! `lo < u < hi ⇒ y = 0` (with `lo = 0, hi = ∞` the classical `0 <= u ⟂ y >= 0`).
//! A mechanical model has coordinates with a constant mass matrix, linear or
//! nonlinear forces, and unilateral contacts with restitution and Coulomb
//! friction.
//!
//! The modules follow the pipeline:
//!
//! 1. [`model`]: the front end. A TOML file (matrices, signals and
//!    Simulink-style blocks, expressions, mechanical parts) is read and
//!    validated into one [`model::Model`].
//! 2. [`system`]: the numeric system for one set of parameters, first-order
//!    ([`system::lcs`], with the nonlinear remainders `φ, ψ` of [`system::ncs`])
//!    or mechanical ([`system::mechanics`], [`system::mech_nonlinear`]).
//! 3. [`lcp`] and [`linalg`]: the complementarity solvers and dense kernels the
//!    schemes call, every answer verified by its residual.
//! 4. [`scheme`]: the steppers. The theta-method keeps the complementarity
//!    implicit, so a step of a linear model (or of one whose nonlinear parts
//!    read only time, inputs and parameters) is one box-constrained LCP and a
//!    step of a nonlinear one a Newton–Josephy iteration of them; Moreau–Jean
//!    and its projected variants and the semi-explicit scheme step mechanical
//!    models; an event-driven scheme integrates each mode and locates switches.
//! 5. [`instance`]: the version-neutral simulation the FMU and `lcsfmu
//!    simulate` both run, bit for bit (with the Model Exchange side in
//!    [`instance::model_exchange`]).
//! 6. `fmi` (tool only): the model descriptions of FMI 2.0 and 3.0, CS and ME,
//!    the compiled or prebuilt binary, the archive, and reading hostile ones.
//! 7. `tool` (tool only): the command line (`build`, `check`, `simulate`,
//!    `compare`), plots and documentation pages.
//!
//! The C interfaces of the FMU (FMI 2.0 and 3.0) live in `template/`, a thin
//! shell over [`instance::Instance`]. The crate's only unsafe code is
//! `tool::conformance::loader`, which loads an FMU's binary in the child
//! process of `lcsfmu check` (everywhere else `unsafe` is denied). Without the
//! default `tool` feature only steps 1–5 are built (what the FMU links).

#![deny(unsafe_code)]

// The pipeline, in order: front ends, systems, solvers and schemes, the
// instance; then (tool only) the FMI side and the command-line tool.
pub mod instance;
pub mod lcp;
pub mod linalg;
pub mod model;
pub mod scheme;
pub mod system;

#[cfg(feature = "tool")]
pub mod error;
#[cfg(feature = "tool")]
pub mod fmi;
#[cfg(feature = "tool")]
pub mod tool;
