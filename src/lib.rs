//! lcsfmu: linear complementarity systems as FMI 2.0 Co-Simulation FMUs.
//!
//! A model is a first-order linear complementarity system (LCS)
//!
//! ```text
//! x' = A x + B u + E w + f          states x, inputs w
//! y  = C x + D u + F w + g          lo <= u <= hi  ⟂  y
//! ```
//!
//! where `⟂` means, per component, `u = lo ⇒ y >= 0`, `u = hi ⇒ y <= 0`,
//! `lo < u < hi ⇒ y = 0` (with `lo = 0, hi = ∞` the classical `0 <= u ⟂ y >= 0`).
//! Time-stepping ([`scheme`]) discretizes the smooth part with the theta-method
//! and keeps the complementarity implicit, so every step is one box-constrained
//! linear complementarity problem ([`lcp`]) and events never need locating.
//!
//! A model may instead be mechanical ([`mechanics`]): coordinates with a mass
//! matrix and linear forces, and unilateral contacts with restitution and
//! Coulomb friction, stepped by the semi-explicit or the Moreau–Jean scheme;
//! each step is again one LCP, in the contact reactions.
//!
//! Pipeline: a TOML file ([`model::raw`]) is validated into a [`model::Model`]
//! ([`model::validate`]); the model produces the XML ([`model_description`]), the
//! value-reference table ([`instance::variables`]) and the data compiled into the
//! `fmu-template` cdylib ([`export`]), which is packed into an `.fmu` ([`pack`])
//! with its documentation page ([`docs`]).
//! Inside the FMU and in `lcsfmu simulate` ([`simulate`]) the same
//! [`instance::Instance`] runs the steps.
//!
//! The C interface of the FMU lives in `fmu-template`. The crate's only unsafe
//! code is [`conformance::loader`], which loads an FMU's binary in the child
//! process of `lcsfmu check` (everywhere else `unsafe` is denied).
//! Without the default `tool` feature only the simulation core is built (what
//! the FMU links).

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
