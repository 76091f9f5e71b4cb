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
//!   a contact takes part when its predicted gap `g + (h/2) G v <= 0`, and then
//!   `G v⁺ + e G v` is complementary to its percussion (Newton's impact law,
//!   with `e = 1` for a closed contact that is already opening, so that no
//!   percussion ever adds energy);
//!   the others are pinned at zero through their bounds, so the LCP matrix stays
//!   the same from step to step and its factorizations stay cached.
//!
//! Friction (per contact, along its slip velocity `s = T v⁺ + Tw w + t0`) is the
//! Coulomb block of the notes with the contact's own normal reaction `λ`:
//! `0 <= s + β ⟂ λ+ >= 0`, `0 <= -s + β ⟂ λ- >= 0`, `0 <= μλ - λ+ - λ- ⟂ β >= 0`.
//!
//! The LCP matrix `H Ŵ⁻¹ Hᵀ` (scaled, with the friction rows) depends on h only:
//! it is built in `prepare`. When `Ŵ` is diagonal it is as sparse as the
//! contacts' coupling, and a chain's LCP is banded: long chains get the band
//! solver, whose cost per step grows linearly with the chain.

use super::{tidy, StepError, StepSize};
use crate::lcp::{self, Band, BandProblem, BandSolver, Bound, Problem, Solver};
use crate::lcs::Lcs;
use crate::linalg::Lu;
use crate::mechanics::MechSystem;
use crate::model::Method;
use nalgebra::{DMatrix, DVector};

/// Contact problems at least this large use the band solver when their band is
/// narrow; below it dense pivoting is as fast and more robust.
const BAND_MIN: usize = 48;

/// How `Ŵ⁻¹` is applied.
enum Inverse {
    /// `Ŵ` is diagonal: its inverse, and the entries of `H` by coordinate (CSR:
    /// entry indices as in [`h_entry`], those of coordinate `j` at
    /// `by_dof[start[j]..start[j + 1]]`) for forming `H Ŵ⁻¹ Hᵀ` sparsely.
    Diagonal {
        inv: Vec<f64>,
        start: Vec<usize>,
        by_dof: Vec<usize>,
    },
    /// A factorization of the dense `Ŵ` (built in `m`), and `Ŵ⁻¹Hᵀ` for
    /// building the LCP matrix.
    Dense {
        lu: Lu,
        m: DMatrix<f64>,
        w: DMatrix<f64>,
    },
}

/// Entry `i` of `H = [G; T]`: the gap entries, then the slip entries (rows
/// shifted by the number of contacts).
fn h_entry(sys: &MechSystem, i: usize) -> (usize, usize, f64) {
    let ng = sys.gap.entries.len();
    if i < ng {
        sys.gap.entries[i]
    } else {
        let (r, j, t) = sys.slip.entries[i - ng];
        (sys.contacts() + r, j, t)
    }
}

/// The LCP and its solver, dense or banded.
// One per instance, created once and never moved on the step path: the size
// difference between the variants costs nothing, boxing would cost a pointer
// chase per step.
#[allow(clippy::large_enum_variant)]
enum Contacts {
    Dense {
        problem: Problem,
        solver: Solver,
    },
    Band {
        problem: BandProblem,
        solver: BandSolver,
    },
}

/// Per-instance workspace of a mechanical scheme.
pub struct MechStepper {
    method: Method,
    /// θ of the smooth part (0 for semi-explicit).
    theta: f64,
    size: StepSize,
    dof: usize,
    inverse: Inverse,
    contacts: Contacts,
    /// Moreau–Jean's index set of the last step (which contacts took part).
    engaged: Vec<bool>,
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
    pub fn new(sys: &MechSystem, method: Method, theta: f64) -> Self {
        let (n, nc, nf) = (sys.dof, sys.contacts(), sys.mu.len());
        let nu = nc + 3 * nf;
        let inverse = if sys.lumped() {
            let entries = sys.gap.entries.len() + sys.slip.entries.len();
            let mut start = vec![0usize; n + 1];
            for i in 0..entries {
                start[h_entry(sys, i).1 + 1] += 1;
            }
            for j in 0..n {
                start[j + 1] += start[j];
            }
            let mut fill = start.clone();
            let mut by_dof = vec![0usize; entries];
            for i in 0..entries {
                let j = h_entry(sys, i).1;
                by_dof[fill[j]] = i;
                fill[j] += 1;
            }
            Inverse::Diagonal {
                inv: vec![0.0; n],
                start,
                by_dof,
            }
        } else {
            Inverse::Dense {
                lu: Lu::new(n),
                m: DMatrix::zeros(n, n),
                w: DMatrix::zeros(n, nc + nf),
            }
        };
        let b = band_width(sys);
        let contacts = match sys.lumped() && nu >= BAND_MIN && 4 * (2 * b + 1) < nu {
            true => Contacts::Band {
                problem: BandProblem::new(Band::zeros(nu, b, b)),
                solver: BandSolver::new(nu, b, b, lcp::Settings::default()),
            },
            false => Contacts::Dense {
                problem: Problem::lcp(DMatrix::zeros(nu, nu), DVector::zeros(nu)),
                solver: Solver::new(nu, lcp::Settings::default()),
            },
        };
        MechStepper {
            method,
            theta: if method == Method::SemiExplicit {
                0.0
            } else {
                theta
            },
            size: StepSize::new(),
            dof: n,
            inverse,
            contacts,
            engaged: vec![true; nc],
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
        }
    }

    pub fn invalidate(&mut self) {
        self.size.invalidate();
    }

    pub fn active_set(&self) -> &[Bound] {
        match &self.contacts {
            Contacts::Dense { solver, .. } => solver.active_set(),
            Contacts::Band { solver, .. } => solver.active_set(),
        }
    }

    pub fn reset_active_set(&mut self) {
        match &mut self.contacts {
            Contacts::Dense { solver, .. } => solver.reset_active_set(),
            Contacts::Band { solver, .. } => solver.reset_active_set(),
        }
        self.size.forget();
    }

    pub fn cached_step(&self) -> f64 {
        self.size.cached()
    }

    pub fn restore(&mut self, cached_step: f64, active_set: &[Bound]) {
        self.size.restore(cached_step);
        match &mut self.contacts {
            Contacts::Dense { solver, .. } => solver.set_active_set(active_set),
            Contacts::Band { solver, .. } => solver.set_active_set(active_set),
        }
    }

    /// Builds `Ŵ⁻¹` and the LCP matrix for step size `h` (without allocating:
    /// a master may change its step size at any communication point).
    fn prepare(&mut self, sys: &MechSystem, h: f64) -> Result<(), StepError> {
        let ht = h * self.theta;
        let singular = Err(StepError::SingularIteration { h });
        self.size.invalidate();
        match &mut self.inverse {
            Inverse::Diagonal { inv: d, .. } => {
                d.fill(0.0);
                for &(i, _, m) in &sys.mass.entries {
                    d[i] += m;
                }
                for &(i, _, k) in &sys.position_force.entries {
                    d[i] -= ht * ht * k;
                }
                for &(i, _, c) in &sys.velocity_force.entries {
                    d[i] -= ht * c;
                }
                for x in d.iter_mut() {
                    *x = 1.0 / *x;
                    if !x.is_finite() || *x <= 0.0 {
                        return singular;
                    }
                }
            }
            Inverse::Dense { lu, m, w } => {
                m.fill(0.0);
                for &(i, j, v) in &sys.mass.entries {
                    m[(i, j)] += v;
                }
                for &(i, j, k) in &sys.position_force.entries {
                    m[(i, j)] -= ht * ht * k;
                }
                for &(i, j, c) in &sys.velocity_force.entries {
                    m[(i, j)] -= ht * c;
                }
                if !lu.factor(m) {
                    return singular;
                }
                // Columns of Hᵀ, then Ŵ⁻¹Hᵀ.
                w.fill(0.0);
                for i in 0..sys.gap.entries.len() + sys.slip.entries.len() {
                    let (a, j, v) = h_entry(sys, i);
                    w[(j, a)] += v;
                }
                lu.solve_columns(w);
            }
        }
        self.fill_matrix(sys, h);
        match &mut self.contacts {
            Contacts::Dense { solver, .. } => solver.matrix_changed(),
            Contacts::Band { solver, .. } => solver.matrix_changed(),
        }
        self.bounds_fresh = false;
        self.size.set(h);
        Ok(())
    }

    /// The LCP matrix: `H Ŵ⁻¹ Hᵀ` scaled into the pairs' rows and columns, and
    /// the friction blocks.
    fn fill_matrix(&mut self, sys: &MechSystem, h: f64) {
        let nc = sys.contacts();
        // Impulse per unit of the unknown, and gap change per unit of velocity.
        let (c, s) = if self.method == Method::SemiExplicit {
            (h, h)
        } else {
            (1.0, 1.0)
        };
        // Where H-row a sits among the pairs, and its sign pattern: a normal row
        // is one pair; a friction row is the pairs +1 (λ+) and +2 (λ-).
        let slot = |a: usize| -> usize {
            if a < nc {
                sys.pair[a]
            } else {
                sys.pair[sys.friction_contact[a - nc]] + 1
            }
        };
        let add = |i: usize, j: usize, v: f64, m: &mut Contacts| match m {
            Contacts::Dense { problem, .. } => problem.m[(i, j)] += v,
            Contacts::Band { problem, .. } => problem.m.add(i, j, v),
        };
        match &mut self.contacts {
            Contacts::Dense { problem, .. } => problem.m.fill(0.0),
            Contacts::Band { problem, .. } => problem.m.fill_zero(),
        }
        let entry = |a: usize, b: usize, w: f64, m: &mut Contacts| {
            let (i, j) = (slot(a), slot(b));
            match (a < nc, b < nc) {
                (true, true) => add(i, j, s * c * w, m),
                (true, false) => {
                    add(i, j, s * c * w, m);
                    add(i, j + 1, -s * c * w, m);
                }
                (false, true) => {
                    add(i, j, c * w, m);
                    add(i + 1, j, -c * w, m);
                }
                (false, false) => {
                    add(i, j, c * w, m);
                    add(i, j + 1, -c * w, m);
                    add(i + 1, j, -c * w, m);
                    add(i + 1, j + 1, c * w, m);
                }
            }
        };
        match &self.inverse {
            Inverse::Diagonal { inv, start, by_dof } => {
                // W_ab = sum_k H_ak H_bk / Ŵ_kk over the coordinates k both rows touch.
                for k in 0..self.dof {
                    let rows = &by_dof[start[k]..start[k + 1]];
                    for &ea in rows {
                        let (a, _, ha) = h_entry(sys, ea);
                        for &eb in rows {
                            let (b, _, hb) = h_entry(sys, eb);
                            entry(a, b, ha * hb * inv[k], &mut self.contacts);
                        }
                    }
                }
            }
            Inverse::Dense { w, .. } => {
                // W = H (Ŵ⁻¹Hᵀ), one sparse row of H at a time.
                let nh = w.ncols();
                for i in 0..sys.gap.entries.len() + sys.slip.entries.len() {
                    let (a, j, ha) = h_entry(sys, i);
                    for b in 0..nh {
                        let v = ha * w[(j, b)];
                        if v != 0.0 {
                            entry(a, b, v, &mut self.contacts);
                        }
                    }
                }
            }
        }
        for (r, &k) in sys.friction_contact.iter().enumerate() {
            let p = sys.pair[k];
            let m = &mut self.contacts;
            add(p + 1, p + 3, 1.0, m);
            add(p + 2, p + 3, 1.0, m);
            add(p + 3, p, sys.mu[r], m);
            add(p + 3, p + 1, -1.0, m);
            add(p + 3, p + 2, -1.0, m);
        }
    }

    /// Applies `Ŵ⁻¹` to `v` in place.
    fn apply_inverse(inverse: &Inverse, v: &mut [f64]) {
        match inverse {
            Inverse::Diagonal { inv, .. } => {
                for (x, d) in v.iter_mut().zip(inv) {
                    *x *= d;
                }
            }
            Inverse::Dense { lu, .. } => lu.solve(v),
        }
    }

    /// One step of size `h` from `x = (q, v)` with inputs `w`.
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
        let key = self.size.key(h);
        if !self.size.holds(key) {
            self.prepare(sys, key)?;
        }
        let h = key;
        let n = self.dof;
        let (q, v) = x.split_at(n);

        // Free velocity into the second half of x_next.
        let rhs = &mut self.rhs;
        rhs.copy_from_slice(&sys.force);
        sys.input_force.mul_acc(rhs, w, 1.0);
        sys.position_force.mul_acc(rhs, q, 1.0);
        sys.velocity_force.mul_acc(rhs, v, 1.0);
        if self.theta > 0.0 {
            sys.position_force.mul_acc(rhs, v, self.theta * h);
        }
        for r in rhs.iter_mut() {
            *r *= h;
        }
        Self::apply_inverse(&self.inverse, rhs);
        let (q_next, v_free) = self.x_next.split_at_mut(n);
        for ((vf, v), dv) in v_free.iter_mut().zip(v).zip(rhs.iter()) {
            *vf = v + dv;
        }

        // The LCP's q and bounds.
        self.gap.copy_from_slice(&sys.gap0);
        sys.gap.mul_acc(&mut self.gap, q, 1.0);
        self.gap_rate.fill(0.0);
        sys.gap.mul_acc(&mut self.gap_rate, v, 1.0);
        self.free_rate.fill(0.0);
        sys.gap.mul_acc(&mut self.free_rate, v_free, 1.0);
        self.slip.copy_from_slice(&sys.slip0);
        sys.slip.mul_acc(&mut self.slip, v_free, 1.0);
        sys.slip_inputs.mul_acc(&mut self.slip, w, 1.0);
        let (qv, hi) = match &mut self.contacts {
            Contacts::Dense { problem, .. } => {
                (problem.q.as_mut_slice(), problem.hi.as_mut_slice())
            }
            Contacts::Band { problem, .. } => (problem.q.as_mut_slice(), problem.hi.as_mut_slice()),
        };
        let mut changed = false;
        for k in 0..sys.contacts() {
            let p = sys.pair[k];
            let engaged = match self.method {
                Method::MoreauJean => {
                    // A closed contact that is already opening (after a small
                    // penetration) gets e = 1: the percussion then does no work
                    // (P (U⁺ + U) / 2 = 0), where Newton's e < 1 would let it
                    // push the bodies apart and add energy.
                    let u = self.gap_rate[k];
                    let e = if u <= 0.0 { sys.restitution[k] } else { 1.0 };
                    qv[p] = self.free_rate[k] + e * u;
                    self.gap[k] + 0.5 * h * self.gap_rate[k] <= 0.0
                }
                _ => {
                    qv[p] = self.gap[k] + h * self.free_rate[k];
                    true
                }
            };
            changed |= engaged != self.engaged[k];
            self.engaged[k] = engaged;
            hi[p] = if engaged { f64::INFINITY } else { 0.0 };
        }
        for (r, &k) in sys.friction_contact.iter().enumerate() {
            let p = sys.pair[k];
            qv[p + 1] = self.slip[r];
            qv[p + 2] = -self.slip[r];
            qv[p + 3] = 0.0;
            let top = hi[p];
            hi[p + 1] = top;
            hi[p + 2] = top;
            hi[p + 3] = top;
        }
        let info = match &mut self.contacts {
            Contacts::Dense { problem, solver } => {
                if changed || !self.bounds_fresh {
                    solver.matrix_changed();
                    self.bounds_fresh = true;
                }
                solver.solve(problem, &mut self.u_next, &mut self.y_next)
            }
            Contacts::Band { problem, solver } => {
                solver.solve(problem, &mut self.u_next, &mut self.y_next)
            }
        };
        if info.status != lcp::Status::Solved {
            return Err(StepError::Lcp(info));
        }

        // Impulses back to velocities.
        let c = if self.method == Method::SemiExplicit {
            h
        } else {
            1.0
        };
        for (k, r) in self.normal_impulse.iter_mut().enumerate() {
            *r = c * self.u_next[sys.pair[k]];
        }
        for (r, &k) in self.slip_impulse.iter_mut().zip(&sys.friction_contact) {
            let p = sys.pair[k];
            *r = c * (self.u_next[p + 1] - self.u_next[p + 2]);
        }
        let dv = &mut self.rhs;
        dv.fill(0.0);
        sys.gap.mul_t_acc(dv, &self.normal_impulse, 1.0);
        sys.slip.mul_t_acc(dv, &self.slip_impulse, 1.0);
        Self::apply_inverse(&self.inverse, dv);
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
        if !tidy(&mut self.x_next) || !tidy(&mut self.u_next) {
            return Err(StepError::NotFinite);
        }
        Ok(info)
    }

    pub fn take_result(&mut self, x: &mut Vec<f64>, u: &mut Vec<f64>) {
        std::mem::swap(x, &mut self.x_next);
        std::mem::swap(u, &mut self.u_next);
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
        Ok(match &self.contacts {
            Contacts::Dense { problem, .. } => problem.m.clone(),
            Contacts::Band { problem, .. } => problem.m.to_dense(),
        })
    }
}

/// Half-bandwidth of the LCP matrix when `Ŵ` is diagonal: the largest distance
/// between two pairs whose contacts share a coordinate, or within a contact's
/// friction block.
fn band_width(sys: &MechSystem) -> usize {
    let mut span: Vec<(usize, usize)> = vec![(usize::MAX, 0); sys.dof];
    let mut touch = |j: usize, lo: usize, hi: usize| {
        let s = &mut span[j];
        s.0 = s.0.min(lo);
        s.1 = s.1.max(hi);
    };
    for &(k, j, _) in &sys.gap.entries {
        let p = sys.pair[k];
        touch(j, p, p);
    }
    for &(r, j, _) in &sys.slip.entries {
        let p = sys.pair[sys.friction_contact[r]];
        touch(j, p + 1, p + 2);
    }
    let mut b = if sys.friction_contact.is_empty() {
        0
    } else {
        3
    };
    for &(lo, hi) in &span {
        if lo != usize::MAX {
            b = b.max(hi - lo);
        }
    }
    b
}
