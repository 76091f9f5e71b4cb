//! The mechanical schemes: semi-explicit (position level) and Moreau–Jean
//! (velocity level). One step is one LCP in the contact reactions.
//!
//! With `Ŵ = M - hθFv - (hθ)²Fq` (θ = 0 for semi-explicit) and the forces
//! `F(q, v) = Fq q + Fv v + F w + f` (inputs held over the step),
//!
//! - the free velocity is `v_f = v + Ŵ⁻¹ h (F(q, v) + θh Fq v)`, the new one
//!   `v⁺ = v_f + Ŵ⁻¹ Hᵀ r` with `H = [G; T]` and `r` the step's impulses;
//! - semi-explicit: `r = h (λ, λ+ - λ-)` are forces, `q⁺ = q + h v⁺`, and each
//!   gap at the step's end `G q⁺ + g0 = G q + g0 + h G v_f + h G Ŵ⁻¹ Hᵀ r` is
//!   complementary to its force (the notes' example 2; impacts are plastic);
//! - Moreau–Jean: `r = (P, P+ - P-)` are percussions, `q⁺ = q + h(θv⁺ + (1-θ)v)`;
//!   a contact takes part when its predicted gap `g + γ h G v <= 0` (γ = 1/2
//!   unless `gamma` says otherwise, as Siconos' default), and then
//!   `G v⁺ + e G v` is complementary to its percussion (Newton's impact law, for
//!   every active contact as the standard scheme has it; the energy-safe
//!   variant uses `e = 1` for an active contact that is already opening, so
//!   that no percussion ever adds energy);
//!   the others are pinned at zero through their bounds, so the LCP matrix stays
//!   the same from step to step and its factorizations stay cached.
//!   The projected variant then moves `q⁺` onto `G q + g0 >= 0` (see
//!   `projection`); the direct-projection variant keeps an index set
//!   with hysteresis and projects its contacts (see
//!   `direct_projection`).
//!
//! Friction (per contact, along its slip velocity `s = T v⁺ + Tw w + t0`) is the
//! Coulomb block of the notes with the contact's own normal reaction `λ`:
//! `0 <= s + β ⟂ λ+ >= 0`, `0 <= -s + β ⟂ λ- >= 0`, `0 <= μλ - λ+ - λ- ⟂ β >= 0`.
//!
//! The LCP matrix `H Ŵ⁻¹ Hᵀ` (scaled, with the friction rows) depends on h only:
//! it is built in `prepare`. When `Ŵ` is diagonal it is as sparse as the
//! contacts' coupling, and a chain's LCP is banded: long chains get the band
//! solver, whose cost per step grows linearly with the chain.

use crate::lcp::{self, Bound};
use crate::model::{Impact, Method, Scheme};
use crate::scheme::dims::{Dims, Dyn, Fixed, FIXED_LIMIT};
use crate::scheme::mechanical::contact::{Contacts, Inverse};
use crate::scheme::mechanical::direct_projection::{
    decode_index_set, encode_index_set, DirectProjector,
};
use crate::scheme::mechanical::projection::Projection;
use crate::scheme::{tidy, StepError, StepSize};
use crate::system::lcs::Lcs;
use crate::system::mechanics::MechSystem;
use nalgebra::DMatrix;

/// The step at run-time or compile-time sizes: [`MechStepper::step_in`] for one [`Dims`].
type StepFn =
    fn(&mut MechStepper, &MechSystem, &[f64], &[f64], f64) -> Result<lcp::Info, StepError>;

/// Per-instance workspace of a mechanical scheme.
pub struct MechStepper {
    method: Method,
    impact: Impact,
    /// θ of the smooth part (0 for semi-explicit).
    theta: f64,
    /// Moreau–Jean's activation parameter γ.
    gamma: f64,
    size: StepSize,
    dof: usize,
    /// Pairs, frictional contacts and inputs.
    nu: usize,
    nf: usize,
    nw: usize,
    step_fn: StepFn,
    /// Per contact, the index of its normal pair.
    pair: Vec<usize>,
    inverse: Inverse,
    contacts: Contacts,
    /// The position correction of `moreau-jean-projected`.
    projection: Option<Projection>,
    /// The index set and projection of `moreau-jean-direct-projection`.
    direct: Option<DirectProjector>,
    /// Moreau–Jean's index set of the last step (which contacts took part).
    engaged: Vec<bool>,
    /// The direct projection's index set as of the last committed step: its
    /// activation depends on it, where the others decide afresh each step.
    index_set: Vec<bool>,
    /// The direct projection's warm start as saved in FMU states, with the
    /// index set in it (see [`encode_index_set`]).
    reported: Vec<Bound>,
    /// Whether the dense solver has seen the bounds of `engaged`.
    bounds_fresh: bool,
    rhs: Vec<f64>,
    gap: Vec<f64>,
    gap_rate: Vec<f64>,
    free_rate: Vec<f64>,
    slip: Vec<f64>,
    normal_impulse: Vec<f64>,
    slip_impulse: Vec<f64>,
    pub x_next: Vec<f64>,
    pub u_next: Vec<f64>,
    pub y_next: Vec<f64>,
}

impl MechStepper {
    /// Buffers for `sys` (values need not be assembled yet).
    pub fn new(sys: &MechSystem, scheme: &Scheme) -> Self {
        let (n, nc, nf) = (sys.dof, sys.contacts(), sys.mu.len());
        let nu = nc + 3 * nf;
        let method = scheme.method;
        let inverse = Inverse::new(sys);
        let contacts = Contacts::new(sys);
        let mut s = MechStepper {
            method,
            impact: scheme.impact,
            theta: if method == Method::SemiExplicit {
                0.0
            } else {
                scheme.theta
            },
            size: StepSize::new(),
            dof: n,
            nu,
            nf,
            nw: sys.input_force.cols,
            step_fn: Self::step_in::<Dyn, false>,
            pair: sys.pair.clone(),
            inverse,
            contacts,
            gamma: scheme.gamma,
            projection: (method == Method::MoreauJeanProjected).then(|| Projection::new(sys)),
            direct: (method == Method::MoreauJeanDirectProjection)
                .then(|| DirectProjector::new(sys, scheme.projection)),
            engaged: vec![true; nc],
            // Siconos starts with an empty index set.
            index_set: vec![false; nc],
            reported: vec![Bound::Lower; nu],
            bounds_fresh: false,
            rhs: vec![0.0; n],
            gap: vec![0.0; nc],
            gap_rate: vec![0.0; nc],
            free_rate: vec![0.0; nc],
            slip: vec![0.0; nf],
            normal_impulse: vec![0.0; nc],
            slip_impulse: vec![0.0; nf],
            x_next: vec![0.0; 2 * n],
            u_next: vec![0.0; nu],
            y_next: vec![0.0; nu],
        };
        // A state saved before the first step carries the empty index set.
        s.report_index_set();
        s
    }

    pub fn invalidate(&mut self) {
        self.size.invalidate();
    }

    pub fn active_set(&self) -> &[Bound] {
        if self.direct.is_some() {
            &self.reported
        } else {
            self.contacts.active_set()
        }
    }

    pub fn reset_active_set(&mut self) {
        self.contacts.reset_active_set();
        self.size.forget();
        self.index_set.fill(false);
        self.report_index_set();
    }

    /// Writes the solver's warm start and the index set into `reported`.
    fn report_index_set(&mut self) {
        if self.direct.is_some() {
            let solver = self.contacts.active_set();
            encode_index_set(solver, &self.index_set, &self.pair, &mut self.reported);
        }
    }

    pub fn cached_step(&self) -> f64 {
        self.size.cached()
    }

    pub fn restore(&mut self, cached_step: f64, active_set: &[Bound]) {
        self.size.restore(cached_step);
        if self.direct.is_none() {
            self.contacts.set_active_set(active_set);
            return;
        }
        // `reported` is the scratch for the solver's part, then keeps the saved set.
        decode_index_set(
            active_set,
            &self.pair,
            &mut self.index_set,
            &mut self.reported,
        );
        self.contacts.set_active_set(&self.reported);
        self.reported.copy_from_slice(active_set);
    }

    /// Builds `Ŵ⁻¹` and the LCP matrix for step size `h` (without allocating:
    /// a master may change its step size at any communication point).
    fn prepare(&mut self, sys: &MechSystem, h: f64) -> Result<(), StepError> {
        self.size.invalidate();
        if !self.inverse.factor(sys, h * self.theta) {
            return Err(StepError::SingularIteration { h });
        }
        let c = impulse_scale(self.method, h);
        self.contacts.fill(sys, &self.inverse, c);
        if let Some(p) = &mut self.projection {
            if !p.prepare(sys) {
                return Err(StepError::SingularIteration { h });
            }
        }
        if let Some(d) = &mut self.direct {
            if !d.prepare(sys) {
                return Err(StepError::SingularIteration { h });
            }
        }
        self.bounds_fresh = false;
        self.size.set(h);
        Ok(())
    }

    /// One step of size `h` from `x = (q, v)` with inputs `w`.
    #[inline]
    pub fn step(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        w: &[f64],
        h: f64,
    ) -> Result<lcp::Info, StepError> {
        let sys = lcs
            .mech
            .as_ref()
            .expect("a mechanical stepper runs a mechanical model");
        (self.step_fn)(self, sys, x, w, h)
    }

    /// Runs the step at the compile-time sizes `NX` (twice the coordinates),
    /// `NU` (pairs) and `NW` (inputs) from now on, when they are this
    /// stepper's, within [`FIXED_LIMIT`], and its contact problem is small
    /// enough for the solver's warm path through constant positions; returns
    /// whether it does. The numbers are the same either way (see
    /// [`crate::scheme::dims`]).
    pub fn specialize<const NX: usize, const NU: usize, const NW: usize>(&mut self) -> bool {
        // A constant condition first: a large model's FMU never instantiates the step.
        if !Fixed::<NX, NU, NW>::SMALL
            || NU > lcp::SMALL
            || !Fixed::<NX, NU, NW>::fits(2 * self.dof, self.nu, self.nw)
        {
            return false;
        }
        // Plain: no friction, and contact k's pair is pair k. A frictional
        // contact takes four pairs: below four, only the plain step is
        // compiled (a constant condition), and a model that is not plain
        // (pairs out of the contacts' order) keeps run-time sizes.
        let plain = self.nf == 0 && self.pair.iter().enumerate().all(|(k, &p)| p == k);
        self.step_fn = if plain {
            Self::step_in::<Fixed<NX, NU, NW>, true>
        } else if NU >= 4 {
            Self::step_in::<Fixed<NX, NU, NW>, false>
        } else {
            return false;
        };
        true
    }

    /// The step, written once for run-time and compile-time sizes `D`
    /// (`nx` twice the coordinates, `nu` the pairs, `nw` the inputs). `PLAIN`:
    /// the model has no friction and contact `k`'s pair is pair `k`, so the
    /// contacts are `nu`, a constant at compile-time sizes, and their pairs
    /// need no look-up.
    fn step_in<D: Dims, const PLAIN: bool>(
        &mut self,
        sys: &MechSystem,
        x: &[f64],
        w: &[f64],
        h: f64,
    ) -> Result<lcp::Info, StepError> {
        let d = D::of(2 * self.dof, self.nu, self.nw);
        let (n, nu, nw) = (d.nx() / 2, d.nu(), d.nw());
        let (nc, nf) = if PLAIN {
            (nu, 0)
        } else {
            (sys.contacts(), sys.mu.len())
        };
        let key = self.size.key(h);
        if !self.size.holds(key) {
            self.prepare(sys, key)?;
        }
        let h = key;
        let (q, v) = (&x[..n], &x[n..2 * n]);
        let w = &w[..nw];

        // Small models keep the step's intermediate vectors on the stack (no
        // heap buffer to load and bounds-check, and at sizes fixed when
        // compiled no store the compiler must assume aliased), larger ones in
        // the stepper's buffers; the arithmetic is the same.
        let small = n <= FIXED_LIMIT && nc <= lcp::SMALL;
        let mut rhs_s = [0.0; FIXED_LIMIT];
        let (mut gap_s, mut rate_s) = ([0.0; lcp::SMALL], [0.0; lcp::SMALL]);
        let (mut free_s, mut impulse_s) = ([0.0; lcp::SMALL], [0.0; lcp::SMALL]);

        // Free velocity into the second half of x_next.
        let rhs: &mut [f64] = if small {
            &mut rhs_s[..n]
        } else {
            &mut self.rhs[..n]
        };
        rhs.copy_from_slice(&sys.force[..n]);
        sys.input_force.mul_acc(rhs, w, 1.0);
        sys.position_force.mul_acc(rhs, q, 1.0);
        sys.velocity_force.mul_acc(rhs, v, 1.0);
        if self.theta > 0.0 {
            sys.position_force.mul_acc(rhs, v, self.theta * h);
        }
        for r in rhs.iter_mut() {
            *r *= h;
        }
        self.inverse.apply_sized(n, rhs);
        let (q_next, v_free) = self.x_next[..2 * n].split_at_mut(n);
        for i in 0..n {
            v_free[i] = v[i] + rhs[i];
        }

        // The LCP's q and bounds: the contacts' gaps `G q + g0`, current rates
        // `G v` (read at velocity level only) and free rates `G v_free`, in one
        // pass over `G`'s entries: each is a sum started at its constant (or
        // zero) with the entries' terms added in their order, as `mul_acc` adds them.
        let (gap, gap_rate, free_rate): (&mut [f64], &mut [f64], &mut [f64]) = if small {
            (&mut gap_s[..nc], &mut rate_s[..nc], &mut free_s[..nc])
        } else {
            (
                &mut self.gap[..nc],
                &mut self.gap_rate[..nc],
                &mut self.free_rate[..nc],
            )
        };
        let velocity_level = self.method.velocity_level();
        for k in 0..nc {
            gap[k] = sys.gap0[k];
            gap_rate[k] = 0.0;
            free_rate[k] = 0.0;
        }
        for &(k, j, a) in &sys.gap.entries {
            gap[k] += a * q[j];
            gap_rate[k] += a * v[j];
            free_rate[k] += a * v_free[j];
        }
        if let Some(pr) = &mut self.projection {
            pr.gap_precision(sys, q);
        }
        let slip = &mut self.slip[..nf];
        if !PLAIN {
            slip.copy_from_slice(&sys.slip0[..nf]);
            sys.slip.mul_acc(slip, v_free, 1.0);
            sys.slip_inputs.mul_acc(slip, w, 1.0);
        }
        // Small dense problems are solved from the stack (see below); the
        // others in the problem's own vectors.
        let on_stack = nu <= lcp::SMALL && matches!(self.contacts, Contacts::Dense { .. });
        let mut qs = [0.0; lcp::SMALL];
        let (qv, hi) = self.contacts.q_and_hi();
        let (qv, hi) = (&mut qv[..nu], &mut hi[..nu]);
        let q_lcp: &mut [f64] = if on_stack { &mut qs[..nu] } else { qv };
        let mut changed = false;
        for k in 0..nc {
            let p = if PLAIN { k } else { sys.pair[k] };
            let engaged = if velocity_level {
                let u = gap_rate[k];
                // Energy-safe: an active contact that is already opening (after
                // a small penetration) gets e = 1, so its percussion does no
                // work (P (U⁺ + U) / 2 = 0), where Newton's e < 1 lets it push
                // the bodies apart and add energy.
                let e = if self.impact == Impact::EnergySafe && u > 0.0 {
                    1.0
                } else {
                    sys.restitution[k]
                };
                q_lcp[p] = free_rate[k] + e * u;
                let predicted = gap[k] + self.gamma * h * gap_rate[k];
                match (&self.projection, &self.direct) {
                    (_, Some(d)) => d.engaged(self.index_set[k], predicted, u),
                    (Some(pr), None) => predicted <= 0.0 || pr.touching(gap[k]),
                    (None, None) => predicted <= 0.0,
                }
            } else {
                q_lcp[p] = gap[k] + h * free_rate[k];
                true
            };
            changed |= engaged != self.engaged[k];
            self.engaged[k] = engaged;
            hi[p] = if engaged { f64::INFINITY } else { 0.0 };
        }
        if !PLAIN {
            for (r, &k) in sys.friction_contact.iter().enumerate() {
                let p = sys.pair[k];
                q_lcp[p + 1] = slip[r];
                q_lcp[p + 2] = -slip[r];
                q_lcp[p + 3] = 0.0;
                let top = hi[p];
                hi[p + 1] = top;
                hi[p + 2] = top;
                hi[p + 3] = top;
            }
        }
        let bounds_changed = changed || !self.bounds_fresh;
        self.bounds_fresh = true;
        let mut us = [0.0; lcp::SMALL];
        let info = match &mut self.contacts {
            Contacts::Dense { problem, solver } if on_stack => {
                // `q`, `u` and `y` on the stack: at sizes fixed when compiled the
                // warm start and its verification index them at constant
                // positions only (see `lcp::Solver::solve_with`). `y` is not
                // kept: nothing reads a mechanical step's `y`.
                problem.q.as_mut_slice()[..nu].copy_from_slice(&qs[..nu]);
                if bounds_changed {
                    solver.matrix_changed();
                }
                let mut ys = [0.0; lcp::SMALL];
                let info = solver.solve_with(nu, problem, &qs[..nu], &mut us[..nu], &mut ys[..nu]);
                self.u_next[..nu].copy_from_slice(&us[..nu]);
                info
            }
            contacts => contacts.solve(&mut self.u_next, &mut self.y_next, bounds_changed),
        };
        if info.status != lcp::Status::Solved {
            return Err(StepError::Lcp(info));
        }

        // Impulses back to velocities.
        let c = impulse_scale(self.method, h);
        let u_next = if on_stack {
            &us[..nu]
        } else {
            &self.u_next[..nu]
        };
        let normal_impulse: &mut [f64] = if small {
            &mut impulse_s[..nc]
        } else {
            &mut self.normal_impulse[..nc]
        };
        for (k, r) in normal_impulse.iter_mut().enumerate() {
            let p = if PLAIN { k } else { sys.pair[k] };
            *r = c * u_next[p];
        }
        let slip_impulse = &mut self.slip_impulse[..nf];
        if !PLAIN {
            for (r, &k) in slip_impulse.iter_mut().zip(&sys.friction_contact) {
                let p = sys.pair[k];
                *r = c * (u_next[p + 1] - u_next[p + 2]);
            }
        }
        let dv = rhs;
        for x in dv.iter_mut() {
            *x = 0.0;
        }
        sys.gap.mul_t_acc(dv, normal_impulse, 1.0);
        if !PLAIN {
            sys.slip.mul_t_acc(dv, slip_impulse, 1.0);
        }
        self.inverse.apply_sized(n, dv);
        let a = if self.method == Method::SemiExplicit {
            1.0
        } else {
            self.theta
        };
        for i in 0..n {
            let vn = v_free[i] + dv[i];
            v_free[i] = vn;
            q_next[i] = q[i] + h * (a * vn + (1.0 - a) * v[i]);
        }
        if let Some(p) = &mut self.projection {
            let info = p.project(sys, q_next, v_free, gap_rate, normal_impulse);
            if info.status != lcp::Status::Solved {
                return Err(StepError::Lcp(info));
            }
        }
        if let Some(d) = &mut self.direct {
            let info = d.project(sys, q_next, &self.engaged);
            if info.status != lcp::Status::Solved {
                return Err(StepError::Lcp(info));
            }
        }
        if !tidy(&mut self.x_next[..2 * n]) || !tidy(&mut self.u_next[..nu]) {
            return Err(StepError::NotFinite);
        }
        Ok(info)
    }

    // Inlined into the FMU's step: without the hint the compiler stopped
    // inlining it when the nonlinear steppers grew (+22 instructions per
    // bouncing_ball step, callgrind).
    #[inline]
    pub fn take_result(&mut self, x: &mut Vec<f64>, u: &mut Vec<f64>) {
        std::mem::swap(x, &mut self.x_next);
        std::mem::swap(u, &mut self.u_next);
        // The step is committed: its index set becomes the next one's history.
        if self.direct.is_some() {
            self.index_set.copy_from_slice(&self.engaged);
            self.report_index_set();
        }
    }

    /// Reactions before the first step are zero: forces and percussions are
    /// step quantities, defined by the step that produces them.
    pub fn consistent_multipliers(
        &mut self,
        _lcs: &Lcs,
        _x: &[f64],
        _w: &[f64],
    ) -> Result<lcp::Info, StepError> {
        self.u_next.fill(0.0);
        self.y_next.fill(0.0);
        Ok(lcp::Info {
            status: lcp::Status::Solved,
            method: lcp::Method::None,
            residual: 0.0,
            iterations: 0,
        })
    }

    /// The LCP matrix of a step of size `h`, dense (for inspection).
    pub fn lcp_matrix(&mut self, lcs: &Lcs, h: f64) -> Result<DMatrix<f64>, StepError> {
        let sys = lcs
            .mech
            .as_ref()
            .expect("a mechanical stepper runs a mechanical model");
        self.prepare(sys, h)?;
        Ok(self.contacts.to_dense())
    }
}

/// Impulse per unit of a reaction: the pairs are forces (semi-explicit) or
/// percussions (Moreau–Jean). The same factor turns a velocity into a gap
/// change at position level, and is 1 at velocity level.
fn impulse_scale(method: Method, h: f64) -> f64 {
    if method == Method::SemiExplicit {
        h
    } else {
        1.0
    }
}
