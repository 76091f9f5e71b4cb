//! The contact problem of a mechanical step: `Ŵ⁻¹` and the LCP matrix.
//!
//! `Ŵ = M - hθFv - (hθ)²Fq` is inverted once per step size, either as a
//! diagonal (lumped masses, no coupling springs or dampers) or by a dense LU.
//! The LCP matrix is the Delassus matrix `H Ŵ⁻¹ Hᵀ` of the contact rows
//! `H = [G; T]`, scaled and spread over the pairs (a normal row is its contact's
//! pair; a friction row feeds `λ+` and `λ-` with opposite signs) plus the
//! friction blocks. With a diagonal `Ŵ` it is formed entry by entry over the
//! coordinates each contact touches, so a chain's matrix is banded and costs
//! `O(N)` to build; long banded problems then go to the band LCP solver.

use crate::lcp::{self, Band, BandProblem, BandSolver, Bound, Info, Problem, Solver};
use crate::linalg::Lu;
use crate::system::mechanics::MechSystem;
use nalgebra::{DMatrix, DVector};

/// Contact problems at least this large use the band solver when their band is
/// narrow; below it dense pivoting is as fast and more robust.
const BAND_MIN: usize = 48;

/// How `Ŵ⁻¹` is applied.
pub(super) enum Inverse {
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
        w_hat: DMatrix<f64>,
        w: DMatrix<f64>,
    },
}

impl Inverse {
    /// Buffers for `sys`; with a diagonal `Ŵ` also the entries of `H` by coordinate.
    pub(super) fn new(sys: &MechSystem) -> Self {
        let n = sys.dof;
        if !sys.lumped() {
            return Inverse::Dense {
                lu: Lu::new(n),
                w_hat: DMatrix::zeros(n, n),
                w: DMatrix::zeros(n, sys.contacts() + sys.mu.len()),
            };
        }
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
    }

    /// Inverts (or factors) `Ŵ = M - ht Fv - ht² Fq`; false when it is singular
    /// (or, diagonal, not positive).
    pub(super) fn factor(&mut self, sys: &MechSystem, ht: f64) -> bool {
        match self {
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
                        return false;
                    }
                }
                true
            }
            Inverse::Dense { lu, w_hat, w } => {
                w_hat.fill(0.0);
                for &(i, j, v) in &sys.mass.entries {
                    w_hat[(i, j)] += v;
                }
                for &(i, j, k) in &sys.position_force.entries {
                    w_hat[(i, j)] -= ht * ht * k;
                }
                for &(i, j, c) in &sys.velocity_force.entries {
                    w_hat[(i, j)] -= ht * c;
                }
                if !lu.factor(w_hat) {
                    return false;
                }
                // Columns of Hᵀ, then Ŵ⁻¹Hᵀ.
                w.fill(0.0);
                for i in 0..sys.gap.entries.len() + sys.slip.entries.len() {
                    let (a, j, v) = h_entry(sys, i);
                    w[(j, a)] += v;
                }
                lu.solve_columns(w);
                true
            }
        }
    }

    /// Applies `Ŵ⁻¹` to `v` in place.
    pub(super) fn apply(&self, v: &mut [f64]) {
        match self {
            Inverse::Diagonal { inv, .. } => {
                for (x, d) in v.iter_mut().zip(inv) {
                    *x *= d;
                }
            }
            Inverse::Dense { lu, .. } => lu.solve(v),
        }
    }

    /// [`Inverse::apply`] to the first `n` entries of `v`, `n` the coordinates
    /// (a constant at compile-time sizes: the diagonal's loop then unrolls).
    #[inline(always)]
    pub(super) fn apply_sized(&self, n: usize, v: &mut [f64]) {
        match self {
            Inverse::Diagonal { inv, .. } => {
                let (v, inv) = (&mut v[..n], &inv[..n]);
                for i in 0..n {
                    v[i] *= inv[i];
                }
            }
            Inverse::Dense { lu, .. } => lu.solve(&mut v[..n]),
        }
    }
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
pub(super) enum Contacts {
    Dense {
        problem: Problem,
        solver: Solver,
    },
    Band {
        problem: BandProblem,
        solver: BandSolver,
    },
}

impl Contacts {
    /// The dense or the band problem for `sys`, whichever suits its structure.
    pub(super) fn new(sys: &MechSystem) -> Self {
        let nu = sys.contacts() + 3 * sys.mu.len();
        let b = band_width(sys);
        // Friction blocks are not P-matrices, which the band solver's LU without
        // row exchanges needs: frictional models stay on the dense path (Lemke).
        // Equality constraints' multipliers are free in sign: the dense box
        // solver takes `lo = -inf` (the band solver's pairs start at zero).
        if sys.lumped()
            && sys.mu.is_empty()
            && !sys.constrained()
            && nu >= BAND_MIN
            && 4 * (2 * b + 1) < nu
        {
            Contacts::Band {
                problem: BandProblem::new(Band::zeros(nu, b, b)),
                solver: BandSolver::new(nu, b, b, lcp::Settings::default()),
            }
        } else {
            let mut problem = Problem::lcp(DMatrix::zeros(nu, nu), DVector::zeros(nu));
            for (k, _) in sys.bilateral.iter().enumerate().filter(|(_, &b)| b) {
                problem.lo[sys.pair[k]] = f64::NEG_INFINITY;
            }
            Contacts::Dense {
                problem,
                solver: Solver::new(nu, lcp::Settings::default()),
            }
        }
    }

    /// The LCP's bounds: `lo` is `-inf` at an equality constraint's pair,
    /// else 0; `hi` as the step set it.
    pub(super) fn bounds(&self) -> (&[f64], &[f64]) {
        match self {
            Contacts::Dense { problem, .. } => (problem.lo.as_slice(), problem.hi.as_slice()),
            Contacts::Band { problem, .. } => (problem.lo.as_slice(), problem.hi.as_slice()),
        }
    }

    pub(super) fn active_set(&self) -> &[Bound] {
        match self {
            Contacts::Dense { solver, .. } => solver.active_set(),
            Contacts::Band { solver, .. } => solver.active_set(),
        }
    }

    pub(super) fn reset_active_set(&mut self) {
        match self {
            Contacts::Dense { solver, .. } => solver.reset_active_set(),
            Contacts::Band { solver, .. } => solver.reset_active_set(),
        }
    }

    pub(super) fn set_active_set(&mut self, s: &[Bound]) {
        match self {
            Contacts::Dense { solver, .. } => solver.set_active_set(s),
            Contacts::Band { solver, .. } => solver.set_active_set(s),
        }
    }

    /// The LCP's `q` and upper bounds, which each step sets.
    pub(super) fn q_and_hi(&mut self) -> (&mut [f64], &mut [f64]) {
        match self {
            Contacts::Dense { problem, .. } => {
                (problem.q.as_mut_slice(), problem.hi.as_mut_slice())
            }
            Contacts::Band { problem, .. } => (problem.q.as_mut_slice(), problem.hi.as_mut_slice()),
        }
    }

    /// Solves into `u` and `y`. `bounds_changed` tells the dense solver, whose
    /// cached factorization depends on which components are pinned; the band
    /// solver keys its cache on the active set itself.
    pub(super) fn solve(&mut self, u: &mut [f64], y: &mut [f64], bounds_changed: bool) -> Info {
        match self {
            Contacts::Dense { problem, solver } => {
                if bounds_changed {
                    solver.matrix_changed();
                }
                solver.solve(problem, u, y)
            }
            Contacts::Band { problem, solver } => solver.solve(problem, u, y),
        }
    }

    pub(super) fn to_dense(&self) -> DMatrix<f64> {
        match self {
            Contacts::Dense { problem, .. } => problem.m.clone(),
            Contacts::Band { problem, .. } => problem.m.to_dense(),
        }
    }

    /// The LCP matrix: `H Ŵ⁻¹ Hᵀ` scaled into the pairs' rows and columns, and
    /// the friction blocks.
    /// `c` is the impulse per unit of a reaction (h for forces, 1 for
    /// percussions) and also the gap change per unit of normal velocity (h at
    /// position level, 1 at velocity level): normal rows scale by `c²`.
    pub(super) fn fill(&mut self, sys: &MechSystem, inverse: &Inverse, c: f64) {
        let s = c;
        let nc = sys.contacts();
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
        match self {
            Contacts::Dense { problem, .. } => problem.m.fill(0.0),
            Contacts::Band { problem, .. } => problem.m.fill_zero(),
        }
        solver_matrix_changed(self);
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
        match inverse {
            Inverse::Diagonal { inv, start, by_dof } => {
                // W_ab = sum_k H_ak H_bk / Ŵ_kk over the coordinates k both rows touch.
                for k in 0..sys.dof {
                    let rows = &by_dof[start[k]..start[k + 1]];
                    for &ea in rows {
                        let (a, _, ha) = h_entry(sys, ea);
                        for &eb in rows {
                            let (b, _, hb) = h_entry(sys, eb);
                            entry(a, b, ha * hb * inv[k], self);
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
                            entry(a, b, v, self);
                        }
                    }
                }
            }
        }
        for (r, &k) in sys.friction_contact.iter().enumerate() {
            let p = sys.pair[k];
            let m = &mut *self;
            add(p + 1, p + 3, 1.0, m);
            add(p + 2, p + 3, 1.0, m);
            add(p + 3, p, sys.mu[r], m);
            add(p + 3, p + 1, -1.0, m);
            add(p + 3, p + 2, -1.0, m);
        }
    }
}

/// Half-bandwidth of the LCP matrix when `Ŵ` is diagonal: the largest distance
/// between two pairs whose contacts share a coordinate, or within a contact's
/// friction block.
// Friction rows are counted although frictional models stay dense today: the
// width is a property of the matrix, whichever solver gets it.
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

fn solver_matrix_changed(c: &mut Contacts) {
    match c {
        Contacts::Dense { solver, .. } => solver.matrix_changed(),
        Contacts::Band { solver, .. } => solver.matrix_changed(),
    }
}
