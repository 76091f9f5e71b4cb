//! The position correction of `moreau-jean-projected` on a model with
//! nonlinear gaps: the linear correction of [`crate::scheme`]'s projection
//! (see `scheme/mechanical/projection.rs`) with a Newton loop for the curved constraints.
//!
//! After the converged velocity step, the positions `q⁺` are moved onto
//! `g(q) >= 0` by the smallest change in the mass norm: the point `q*` with
//! `M (q* - q⁺) = G(q*)ᵀ μ`, `0 <= g(q*) ⟂ μ >= 0` (the optimality conditions
//! of `min ½ |q - q⁺|²_M` over `g(q) >= 0`). Each iteration linearizes the gaps
//! at the iterate `q̄` and solves the linear projection's LCP there,
//!
//! `0 <= g(q̄) + G(q̄)(q⁺ - q̄) + G(q̄) M⁻¹ G(q̄)ᵀ μ ⟂ μ >= 0`,
//! `q̄ ← q⁺ + M⁻¹ G(q̄)ᵀ μ`,
//!
//! which from `q̄ = q⁺` is the linear correction itself (with linear gaps the
//! loop stops after that one solve). Left out, as in the velocity step: the
//! curvature of the gaps times `μ` (second derivatives); the loop converges
//! linearly instead of quadratically, fast all the same since `μ` is of the
//! size of a penetration. Convergence, scale-invariant: every gap's
//! linearization error `|g(q̄) - y|` (`y` the gaps the LCP predicted) below
//! `TOL` (1e-10) times the magnitude of the gap's terms, and every coordinate's
//! `|(G(q̄) - G(q_prev))ᵀ μ|` below `TOL` times `|G(q̄)ᵀ μ|₊ + |G(q_prev)ᵀ μ|₊`
//! (the stationarity residual, `M (q̄ - q⁺) = G(q_prev)ᵀ μ` holding exactly),
//! then taken to rounding as the velocity step is ([`super::polish`]). After
//! 50 solves above `TOL` the step is discarded.
//!
//! Then, as in the linear correction, a projected contact that still
//! approaches gets the impact the velocity step missed, with `G` at the
//! projected positions: `0 <= G (v⁺ + M⁻¹ Gᵀ ν) + e min(G(q) v, 0) ⟂ ν >= 0`.
//! A contact whose gap at the step's start is zero to the precision of the
//! contact problem (`64 ε` times the largest gap's term magnitude) takes part
//! in the velocity step, so that a resting body keeps bearing its weight.
//! The LCP warm start is the velocity step's index set, a function of the
//! step's data (nothing more in FMU states). Nothing here allocates per step.

// Several aligned buffers indexed together: indices read clearest.
#![allow(clippy::needless_range_loop)]

use crate::lcp::{self, Bound};
use crate::model::program::Point;
use crate::scheme::mechanical::contact::{Contacts, Inverse};
use crate::scheme::mechanical::nonlinear::polish::{Polish, Verdict};
use crate::scheme::mechanical::nonlinear::residual::scaled;
use crate::scheme::mechanical::projection::normal_rows;
use crate::scheme::StepError;
use crate::system::mech_nonlinear::MechPrograms;
use crate::system::mechanics::MechSystem;

/// Workspace of the nonlinear projection: the normal rows of the linearized
/// system with `M` as the iteration matrix, their LCP and buffers.
pub(super) struct NonlinearProjection {
    /// Mass and the linearized gap pattern, one pair per contact.
    normal: MechSystem,
    inverse: Inverse,
    contacts: Contacts,
    warm: Vec<Bound>,
    multiplier: Vec<f64>,
    impulse: Vec<f64>,
    /// The gaps the last LCP predicted.
    predicted: Vec<f64>,
    gap: Vec<f64>,
    terms: Vec<f64>,
    /// `q⁺` of the velocity step, and the iterate's previous push `G(q_prev)ᵀ μ`.
    target: Vec<f64>,
    push: Vec<f64>,
    push_mag: Vec<f64>,
    correction: Vec<f64>,
    /// The last iterate below `TOL` and its multipliers (see [`super::polish`]).
    kept_q: Vec<f64>,
    kept_multiplier: Vec<f64>,
    /// Gaps below this at the step's start are closed.
    precision: f64,
    /// LCP solves of the last projection (0 when nothing penetrated).
    pub iterations: usize,
}

impl NonlinearProjection {
    /// Buffers for the linearized system `lin` (patterns only).
    pub(super) fn new(lin: &MechSystem) -> Self {
        let (n, nc) = (lin.dof, lin.contacts());
        let normal = normal_rows(lin);
        NonlinearProjection {
            inverse: Inverse::new(&normal),
            contacts: Contacts::new(&normal),
            normal,
            warm: vec![Bound::Lower; nc],
            multiplier: vec![0.0; nc],
            impulse: vec![0.0; nc],
            predicted: vec![0.0; nc],
            gap: vec![0.0; nc],
            terms: vec![0.0; nc],
            target: vec![0.0; n],
            push: vec![0.0; n],
            push_mag: vec![0.0; n],
            correction: vec![0.0; n],
            kept_q: vec![0.0; n],
            kept_multiplier: vec![0.0; nc],
            precision: 0.0,
            iterations: 0,
        }
    }

    /// The precision of the gaps at the step's start `at`.
    pub(super) fn gap_precision(&mut self, nl: &MechPrograms, sys: &MechSystem, at: &Point) {
        nl.gap_magnitude(sys, at, &mut self.terms);
        let largest = self.terms.iter().fold(0.0, |m: f64, t| m.max(*t));
        self.precision = 64.0 * f64::EPSILON * largest;
    }

    /// Whether a contact with gap `gap` is closed to that precision.
    pub(super) fn touching(&self, gap: f64) -> bool {
        gap <= self.precision
    }

    /// `G(q)` at `x = (q, v)` into the normal rows and `M⁻¹` with it.
    fn jacobian(
        &mut self,
        nl: &MechPrograms,
        sys: &MechSystem,
        at: &Point,
        h: f64,
    ) -> Result<(), StepError> {
        nl.gap_jacobian(sys, at, &mut self.normal);
        // The dense inverse keeps M⁻¹Gᵀ: it is rebuilt with every G.
        if !self.inverse.factor(&self.normal, 0.0) {
            return Err(StepError::SingularIteration { h });
        }
        self.contacts.fill(&self.normal, &self.inverse, 1.0);
        Ok(())
    }

    /// Moves `x = (q⁺, v⁺)` onto `g(q) >= 0` and applies the missed impacts;
    /// `start_rate` is `G(q) v` at the step's start, `percussion` (per pair)
    /// the velocity step's, the warm start. `h` only names the step in errors.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn project(
        &mut self,
        nl: &MechPrograms,
        sys: &MechSystem,
        x: &mut [f64],
        w: &[f64],
        start_rate: &[f64],
        percussion: &[f64],
        h: f64,
    ) -> Result<lcp::Info, StepError> {
        let n = sys.dof;
        let nc = sys.contacts();
        self.iterations = 0;
        nl.gap(sys, &at(x, w), &mut self.gap);
        let mut info = lcp::Info {
            status: lcp::Status::Solved,
            method: lcp::Method::None,
            residual: 0.0,
            iterations: 0,
        };
        if self.gap.iter().all(|g| *g >= 0.0) {
            return Ok(info);
        }
        for (l, m) in self.normal.mass.entries.iter_mut().zip(&sys.mass.entries) {
            l.2 = m.2;
        }
        for k in 0..nc {
            self.warm[k] = if percussion[sys.pair[k]] > 0.0 {
                Bound::Free
            } else {
                Bound::Lower
            };
        }
        self.target.copy_from_slice(&x[..n]);
        self.jacobian(nl, sys, &at(x, w), h)?;
        let mut polish = Polish::new();
        let mut kept_info = info;
        loop {
            // The LCP at q̄: gaps g(q̄) + G(q̄)(q⁺ - q̄).
            let (qv, hi) = self.contacts.q_and_hi();
            qv.copy_from_slice(&self.gap);
            hi.fill(f64::INFINITY);
            for &(k, j, a) in &self.normal.gap.entries {
                qv[k] += a * (self.target[j] - x[j]);
            }
            self.contacts.set_active_set(&self.warm);
            info = self
                .contacts
                .solve(&mut self.multiplier, &mut self.predicted, true);
            self.iterations += 1;
            if info.status != lcp::Status::Solved {
                if polish.polishing() {
                    // The kept iterate met TOL; rounding could not be had.
                    info = kept_info;
                    self.back_to_kept(nl, sys, x, w, h)?;
                    break;
                }
                return Err(StepError::Lcp(info));
            }
            self.push.fill(0.0);
            self.push_mag.fill(0.0);
            for &(k, j, a) in &self.normal.gap.entries {
                let t = a * self.multiplier[k];
                self.push[j] += t;
                self.push_mag[j] += t.abs();
            }
            self.correction.copy_from_slice(&self.push);
            self.inverse.apply(&mut self.correction);
            for j in 0..n {
                x[j] = self.target[j] + self.correction[j];
            }
            for k in 0..nc {
                self.warm[k] = if self.multiplier[k] > 0.0 {
                    Bound::Free
                } else {
                    Bound::Lower
                };
            }
            // The residual at the new iterate (infinite where `M` cannot be
            // factored with its `G`).
            nl.gap(sys, &at(x, w), &mut self.gap);
            nl.gap_magnitude(sys, &at(x, w), &mut self.terms);
            let mut worst = 0.0f64;
            match self.jacobian(nl, sys, &at(x, w), h) {
                Ok(()) => {}
                Err(_) if polish.polishing() => worst = f64::INFINITY,
                Err(e) => return Err(e),
            }
            for k in 0..nc {
                worst = worst.max(scaled(self.gap[k] - self.predicted[k], self.terms[k]));
            }
            for &(k, j, a) in &self.normal.gap.entries {
                let t = a * self.multiplier[k];
                self.push[j] -= t;
                self.push_mag[j] += t.abs();
            }
            for j in 0..n {
                worst = worst.max(scaled(self.push[j], self.push_mag[j]));
            }
            match polish.judge(worst, self.iterations) {
                Verdict::Accept => break,
                Verdict::BackToKept => {
                    info = kept_info;
                    self.back_to_kept(nl, sys, x, w, h)?;
                    break;
                }
                Verdict::GiveUp => {
                    return Err(StepError::Newton {
                        iterations: self.iterations,
                        residual: worst,
                        line_search: false,
                    })
                }
                Verdict::Keep => {
                    self.kept_q.copy_from_slice(&x[..n]);
                    self.kept_multiplier.copy_from_slice(&self.multiplier);
                    kept_info = info;
                }
                Verdict::Iterate => {}
            }
        }
        self.missed_impacts(sys, x, start_rate)?;
        Ok(info)
    }

    /// Returns to the kept iterate: its positions into `x`, its multipliers,
    /// and `G` and `M⁻¹` at it for the missed impacts.
    fn back_to_kept(
        &mut self,
        nl: &MechPrograms,
        sys: &MechSystem,
        x: &mut [f64],
        w: &[f64],
        h: f64,
    ) -> Result<(), StepError> {
        x[..sys.dof].copy_from_slice(&self.kept_q);
        self.multiplier.copy_from_slice(&self.kept_multiplier);
        self.jacobian(nl, sys, &at(x, w), h)
    }

    /// The impact the velocity step missed, on the projected contacts that
    /// still approach (see the linear correction), with `G` at the projected
    /// positions (already in the normal rows).
    fn missed_impacts(
        &mut self,
        sys: &MechSystem,
        x: &mut [f64],
        start_rate: &[f64],
    ) -> Result<(), StepError> {
        let v = &mut x[sys.dof..];
        let (rate, hi) = self.contacts.q_and_hi();
        rate.fill(0.0);
        self.normal.gap.mul_acc(rate, v, 1.0);
        let mut approaching = false;
        for k in 0..rate.len() {
            let on = self.multiplier[k] > 0.0;
            rate[k] += sys.restitution[k] * start_rate[k].min(0.0);
            hi[k] = if on { f64::INFINITY } else { 0.0 };
            self.warm[k] = if on && rate[k] < 0.0 {
                Bound::Free
            } else {
                Bound::Lower
            };
            approaching |= on && rate[k] < 0.0;
        }
        if !approaching {
            return Ok(());
        }
        self.contacts.set_active_set(&self.warm);
        let stop = self
            .contacts
            .solve(&mut self.impulse, &mut self.predicted, true);
        if stop.status != lcp::Status::Solved {
            return Err(StepError::Lcp(stop));
        }
        self.correction.fill(0.0);
        self.normal
            .gap
            .mul_t_acc(&mut self.correction, &self.impulse, 1.0);
        self.inverse.apply(&mut self.correction);
        for (x, dx) in v.iter_mut().zip(&self.correction) {
            *x += dx;
        }
        Ok(())
    }
}

/// The positions `x` as a point of the gap programs (gaps read neither
/// time nor pairs; `w` for completeness).
fn at<'a>(x: &'a [f64], w: &'a [f64]) -> Point<'a> {
    Point {
        x,
        u: &[],
        w,
        t: 0.0,
    }
}
