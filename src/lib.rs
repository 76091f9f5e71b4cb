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
//! Without the remainders `φ, ψ` it is a linear complementarity system
//! ([`lcs`]); with them (smooth expressions in the variables and `time`) a
//! nonlinear one ([`ncs`]). Time-stepping ([`scheme`]) discretizes the smooth
//! part with the theta-method and keeps the complementarity implicit, so every
//! step of a linear model is one box-constrained linear complementarity
//! problem ([`lcp`]) and events never need locating; a nonlinear model's step
//! is a Newton–Josephy iteration of such problems. An event-driven scheme
//! integrates each mode and locates the switches instead.
//!
//! A model may instead be mechanical ([`mechanics`], [`mech_nonlinear`]):
//! coordinates with a constant mass matrix, linear or nonlinear forces, and
//! unilateral contacts with restitution and Coulomb friction, stepped by the
//! semi-explicit scheme or Moreau–Jean (and its projected variants); each step
//! is again an LCP in the contact reactions (a Newton loop of them when the
//! forces, gaps or slips are nonlinear).
//!
//! Pipeline: a TOML file ([`model::raw`]) is validated into a [`model::Model`]
//! ([`model::validate`]); the model produces the XML of the FMI version and
//! interface types asked for ([`model_description`], [`model_description3`]),
//! the value-reference table ([`instance::variables`]) and the data compiled
//! into the `fmu-template` cdylib ([`export`]), or the FMU carries the prebuilt
//! runtime, which reads the model from its resources ([`runtimes`]); [`pack`]
//! zips it with its documentation page ([`docs`]).
//! Inside the FMU and in `lcsfmu simulate` ([`simulate`]) the same
//! version-neutral [`instance::Instance`] runs the steps (and, for Model
//! Exchange, reports modes and events to the importer's integrator:
//! [`instance::model_exchange`]).
//!
//! The C interfaces of the FMU (FMI 2.0 and 3.0) live in `fmu-template`. The
//! crate's only unsafe code is [`conformance::loader`], which loads an FMU's
//! binary in the child process of `lcsfmu check` (everywhere else `unsafe` is
//! denied). Without the default `tool` feature only the simulation core is
//! built (what the FMU links).

#![deny(unsafe_code)]

pub mod instance;
pub mod lcp;
pub mod lcs;
pub mod linalg;
pub mod mech_nonlinear;
pub mod mechanics;
pub mod model;
pub mod ncs;
pub mod scheme;

#[cfg(feature = "tool")]
pub mod archive;
#[cfg(feature = "tool")]
pub mod cli;
#[cfg(feature = "tool")]
pub mod compare;
#[cfg(feature = "tool")]
pub mod conformance;
#[cfg(feature = "tool")]
pub mod docs;
#[cfg(feature = "tool")]
pub mod error;
#[cfg(feature = "tool")]
pub mod export;
#[cfg(feature = "tool")]
pub mod fmi_version;
#[cfg(feature = "tool")]
pub mod model_description;
#[cfg(feature = "tool")]
pub mod model_description3;
#[cfg(feature = "tool")]
pub mod model_description3_me;
#[cfg(feature = "tool")]
pub mod model_description_me;
#[cfg(feature = "tool")]
pub mod pack;
#[cfg(feature = "tool")]
pub mod plot;
#[cfg(feature = "tool")]
pub mod runtimes;
#[cfg(feature = "tool")]
pub mod simulate;
