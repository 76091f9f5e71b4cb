//! Moreau–Jean on a model with nonlinear forces, gaps or slips: one step is
//! a converged Newton–Josephy loop, one contact LCP per iteration.
//!
//! The step (Siconos' MoreauJeanOSI with its Newton loop run to convergence),
//! unknowns `v⁺` and the percussions `p`, `q⁺ = q + h [θ v⁺ + (1-θ) v]`:
//! `M (v⁺ - v) = h [θ F(q⁺, v⁺, t+h) + (1-θ) F(q, v, t)] + G(q⁺)ᵀ p + T(q⁺)ᵀ p_t`;
//! a contact takes part when `g(q) + γ h G(q) v <= 0` (decided once, at the
//! step's start, as the linear scheme does), and then
//! `0 <= G(q⁺) v⁺ + e G(q) v ⟂ p >= 0`; friction is the linear scheme's
//! Coulomb block with the slip `s = T(q⁺) v⁺ + Tw w + t0`. An equality
//! constraint is a contact that always takes part, restitution zero, its
//! pair bounded by `(-inf, +inf)`: `G_e(q⁺) v⁺ = 0` with a free impulse, in
//! the same box problem (see `constraints.rs` for a failed step's report).
//!
//! Each iteration linearizes at the iterate `(q̄, v̄)`:
//! `Ŵ = M - hθ ∂F/∂v - (hθ)² ∂F/∂q` (both at the iterate, by forward-mode
//! AD), the free velocity `v_f = v̄ - Ŵ⁻¹ R₀(v̄)` with
//! `R₀ = M (v̄ - v) - h [θ F̄ + (1-θ) F₀]`, and solves the linear scheme's LCP
//! with `G(q̄)`, `T(q̄)` for `p` (Josephy: the complementarity stays exact),
//! then `v̄ ← v_f + Ŵ⁻¹ (Ḡᵀ p + T̄ᵀ p_t)`. The contact assembly is the linear
//! scheme's own ([`Inverse`], [`Contacts`]) run on a linearized copy of the
//! system. For linear forces and gaps the first iteration is the linear step,
//! so one LCP solve converges. Left out of the iteration matrix: the
//! curvature of the gaps and slips times the percussions,
//! `hθ ∂(G(q)ᵀ p)/∂q` (second derivatives; Siconos leaves it out too), which
//! makes the iteration converge linearly rather than quadratically in steps
//! with large percussions on curved gaps; the convergence test is on the full
//! residual, so the accepted step solves the scheme's equations all the same.
//! Full Newton steps (no line search).
//!
//! Convergence, scale-invariant (as [`crate::scheme::theta::newton`]): every component of
//! the residual `Φ` is below `TOL` (1e-10) times the magnitude of its terms,
//! and the iteration is then taken to rounding as the first-order loop's is
//! (see [`polish`]): it goes on while each iteration lowers the largest
//! scaled component by more than a factor 4, until that is below 8 ε, and
//! an iteration that makes it larger (or fails) gives the step the iterate
//! before it. The
//! momentum rows: `|M (v̄ - v)|₊ + h (θ |F̄|₊ + (1-θ) |F₀|₊) + |Ḡᵀ p|₊ + |T̄ᵀ p_t|₊`
//! (each `|·|₊` sums the absolute values of the terms); the contact rows use
//! before the first LCP solve the natural residual `p - mid(0, hi, p - y)`
//! with scale `|p| + |y|₊`, after it the difference between the contact
//! velocities `y` at the iterate and those of the LCP that produced it (the
//! LCP solver verified that `p` and its `y` are complementary, to its own
//! tolerance: what is left to the iteration is the linearization error), where a velocity `v_j` in `y` counts with the size of the terms it is made
//! of, its momentum row's scale divided by `M_jj` (a body at rest has tiny
//! velocities made of cancelling increments `h F / M` and `Gᵀp / M`).
//! Multiplying a coordinate, a mass or the time unit by any factor scales
//! both sides alike. The iteration starts from the step's start state with
//! zero percussions and the LCP solver's warm start (both held in FMU states),
//! so a restored run repeats bit for bit. Nothing here allocates per step.
//!
//! The same workspace steps `moreau-jean-projected` (this step, then the
//! Newton projection of [`projection`]) and `semi-explicit` (its own loop,
//! [`semi_explicit`]).
//!
//! This file holds the workspace and the step's loop; the step's start is in
//! `start.rs`, one iteration (linearization, LCP, new iterate) and the
//! acceptance in `iteration.rs`, the convergence test in `residual.rs`, the
//! verdict on each iterate below `TOL` and the kept iterate in `polish.rs`.

// Several aligned buffers indexed together: indices read clearest.
#![allow(clippy::needless_range_loop)]

mod constraints;
mod iteration;
mod polish;
mod projection;
mod residual;
mod semi_explicit;
mod start;

use crate::lcp::{self, Bound};
use crate::model::{Impact, Method, Scheme};
use crate::scheme::mechanical::contact::{Contacts, Inverse};
use crate::scheme::memo::PointMemo;
use crate::scheme::theta::newton::NewtonStats;
use crate::scheme::{StepError, StepSize};
use crate::system::lcs::Lcs;
use crate::system::mechanics::MechSystem;
use nalgebra::DMatrix;
use polish::{Kept, Polish};
use projection::NonlinearProjection;

/// Per-instance workspace of the nonlinear Moreau–Jean step, sized once.
pub struct MechNewtonStepper {
    theta: f64,
    gamma: f64,
    impact: Impact,
    size: StepSize,
    dof: usize,
    /// The system with the Jacobians of the current iterate.
    lin: MechSystem,
    inverse: Inverse,
    contacts: Contacts,
    engaged: Vec<bool>,
    /// Per contact, the restitution this step applies (energy-safe may raise it).
    restitution: Vec<f64>,
    /// `G(q) v` at the step's start, and the magnitudes of its terms.
    rate0: Vec<f64>,
    rate0_mag: Vec<f64>,
    gap: Vec<f64>,
    /// The iterate `(q̄, v̄)`.
    xb: Vec<f64>,
    /// `F` where the last step converged: the next step's `F(q, v, t)` (see
    /// [`PointMemo`]).
    memo: PointMemo,
    /// Whether the force Jacobians in `lin` are those at the iterate.
    jacobian_at_iterate: bool,
    /// Whether the parts of `lin` that only an assembly changes (the mass
    /// matrix, the friction coefficients, `mass_diag`, and `G` when no gap
    /// has a program) hold the current assembly's values: taken at the first
    /// step after it (`take_assembly`), not at every step.
    assembly_taken: bool,
    f0: Vec<f64>,
    m0: Vec<f64>,
    f1: Vec<f64>,
    m1: Vec<f64>,
    rhs: Vec<f64>,
    v_free: Vec<f64>,
    /// The Cholesky workspace that checks `M(q)` at every iterate (`n²`,
    /// empty for a constant mass matrix).
    cholesky: Vec<f64>,
    /// The diagonal of `M` (of `M(q̄)` at the iterate), and the velocities'
    /// term sizes (see `residual`).
    mass_diag: Vec<f64>,
    sigma: Vec<f64>,
    slip_offset: Vec<f64>,
    normal: Vec<f64>,
    tangential: Vec<f64>,
    /// The percussions of the iterate (all pairs), and the contact
    /// velocities of the LCP that produced them.
    u_bar: Vec<f64>,
    y_lcp: Vec<f64>,
    /// The last iterate below `TOL` (see [`polish`]).
    kept: Kept,
    pub x_next: Vec<f64>,
    pub u_next: Vec<f64>,
    pub y_next: Vec<f64>,
    /// LCP solves of the last step.
    pub iterations: usize,
    pub stats: NewtonStats,
    /// The position correction of `moreau-jean-projected`.
    projection: Option<NonlinearProjection>,
    /// The position-level scheme (`semi-explicit`) instead of Moreau–Jean.
    semi_explicit: bool,
    /// Names two dependent equality constraints when a step fails.
    rank: constraints::RankCheck,
}

impl MechNewtonStepper {
    /// Buffers for `sys`, which must have nonlinear parts (values need not be
    /// assembled yet).
    pub fn new(sys: &MechSystem, scheme: &Scheme) -> Self {
        let lin = sys
            .nonlinear
            .as_ref()
            .expect("the Newton step runs a nonlinear mechanical model")
            .linearized();
        let (n, nc, nf) = (sys.dof, sys.contacts(), sys.mu.len());
        let nu = nc + 3 * nf;
        let v = |k| vec![0.0; k];
        let semi_explicit = scheme.method == Method::SemiExplicit;
        MechNewtonStepper {
            rank: constraints::RankCheck::new(sys),
            projection: (scheme.method == Method::MoreauJeanProjected)
                .then(|| NonlinearProjection::new(&lin)),
            semi_explicit,
            theta: if semi_explicit { 0.0 } else { scheme.theta },
            gamma: scheme.gamma,
            impact: scheme.impact,
            size: StepSize::new(),
            dof: n,
            inverse: Inverse::new(&lin),
            contacts: Contacts::new(&lin),
            lin,
            engaged: vec![false; nc],
            restitution: v(nc),
            rate0: v(nc),
            rate0_mag: v(nc),
            gap: v(nc),
            xb: v(2 * n),
            memo: PointMemo::new(2 * n + sys.input_force.cols, n),
            jacobian_at_iterate: false,
            assembly_taken: false,
            f0: v(n),
            m0: v(n),
            f1: v(n),
            m1: v(n),
            rhs: v(n),
            v_free: v(n),
            cholesky: v(
                if sys.nonlinear.as_ref().is_some_and(|nl| nl.mass_varies()) {
                    n * n
                } else {
                    0
                },
            ),
            mass_diag: v(n),
            sigma: v(n),
            slip_offset: v(nf),
            normal: v(nc),
            tangential: v(nf),
            u_bar: v(nu),
            y_lcp: v(nu),
            kept: Kept::new(n, nu),
            x_next: v(2 * n),
            u_next: v(nu),
            y_next: v(nu),
            iterations: 0,
            stats: NewtonStats::default(),
        }
    }

    /// Also forgets the memo of `F` (the model may have been assembled again).
    pub fn invalidate(&mut self) {
        self.size.invalidate();
        self.memo.forget();
        self.assembly_taken = false;
    }

    pub fn active_set(&self) -> &[Bound] {
        self.contacts.active_set()
    }

    pub fn reset_active_set(&mut self) {
        self.contacts.reset_active_set();
        self.size.forget();
        self.memo.forget();
        self.assembly_taken = false;
        self.stats = NewtonStats::default();
    }

    pub fn cached_step(&self) -> f64 {
        self.size.cached()
    }

    pub fn restore(&mut self, cached_step: f64, active_set: &[Bound]) {
        self.size.restore(cached_step);
        self.memo.forget();
        self.assembly_taken = false;
        self.contacts.set_active_set(active_set);
    }

    pub fn take_result(&mut self, x: &mut Vec<f64>, u: &mut Vec<f64>) {
        std::mem::swap(x, &mut self.x_next);
        std::mem::swap(u, &mut self.u_next);
    }

    /// Reactions before the first step are zero (as in the linear scheme).
    pub fn consistent_multipliers(&mut self) -> Result<lcp::Info, StepError> {
        self.u_next.fill(0.0);
        self.y_next.fill(0.0);
        Ok(lcp::Info {
            status: lcp::Status::Solved,
            method: lcp::Method::None,
            residual: 0.0,
            iterations: 0,
        })
    }

    /// One step of size `h` from `x = (q, v)` at time `t` with inputs `w`.
    pub fn step(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        w: &[f64],
        t: f64,
        h: f64,
    ) -> Result<lcp::Info, StepError> {
        let sys = lcs
            .mech
            .as_ref()
            .expect("a mechanical stepper runs a mechanical model");
        self.size.set(h);
        if self.semi_explicit {
            return self.step_semi_explicit(sys, x, w, t, h);
        }
        self.begin(sys, x, w, t, h);
        let mut info = lcp::Info {
            status: lcp::Status::Solved,
            method: lcp::Method::None,
            residual: 0.0,
            iterations: 0,
        };
        let mut solves = 0;
        let mut polish = Polish::new();
        let mut kept_info = info;
        loop {
            // The first iterate (the step's start) is hardly ever the
            // solution: its force Jacobians come from the same pass. An
            // iterate the forces or the mass cannot be evaluated at is
            // infinitely far from the solution.
            let worst = match self.linearize(sys, w, t + h, solves == 0) {
                Ok(()) => self.residual(sys, x, h, solves > 0),
                Err(_) if polish.polishing() => f64::INFINITY,
                Err(e) => return Err(e),
            };
            if let Some((residual, info)) =
                self.settle(&mut polish, worst, solves, info, &mut kept_info)?
            {
                return self.finish(sys, w, t + h, h, solves, residual, info);
            }
            if !self.jacobian_at_iterate {
                self.force_jacobian(sys, w, t + h);
            }
            match self.iterate(x, h) {
                Ok(solved) => info = solved,
                // The kept iterate met TOL; rounding could not be had.
                Err(_) if polish.polishing() => {
                    self.back_to_kept();
                    let kept = polish.kept();
                    return self.finish(sys, w, t + h, h, solves + 1, kept, kept_info);
                }
                Err(e) => return Err(e),
            }
            solves += 1;
        }
    }

    /// Accepts the iterate (after `solves` LCP solves, largest scaled
    /// residual `worst`, the last LCP's `info`): `F` there is the next
    /// step's start, then `moreau-jean-projected`'s projection moves it.
    #[allow(clippy::too_many_arguments)]
    fn finish(
        &mut self,
        sys: &MechSystem,
        w: &[f64],
        t1: f64,
        h: f64,
        solves: usize,
        worst: f64,
        info: lcp::Info,
    ) -> Result<lcp::Info, StepError> {
        let (f, m) = (&self.f1, &self.m1);
        self.memo.store([&self.xb, &[], w], t1, f, m);
        if let Some(pr) = &mut self.projection {
            let nl = sys.nonlinear.as_ref().expect("nonlinear mechanics");
            pr.project(nl, sys, &mut self.xb, w, &self.rate0, &self.u_bar, h)?;
        }
        self.accept(solves, worst, info)
    }

    /// The LCP matrix of the first iteration from `x` at `t = 0` (for `check`).
    pub fn lcp_matrix(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        w: &[f64],
        h: f64,
    ) -> Result<DMatrix<f64>, StepError> {
        let sys = lcs
            .mech
            .as_ref()
            .expect("a mechanical stepper runs a mechanical model");
        self.begin(sys, x, w, 0.0, h);
        self.linearize(sys, w, h, true)?;
        if !self.inverse.factor(&self.lin, h * self.theta) {
            return Err(StepError::SingularIteration { h });
        }
        // Semi-explicit pairs are forces: impulses and gap changes scale by h.
        let c = if self.semi_explicit { h } else { 1.0 };
        self.contacts.fill(&self.lin, &self.inverse, c);
        Ok(self.contacts.to_dense())
    }
}
