//! Block outputs that follow a newly set input at once.
//!
//! After a step, every pair satisfies its law at the new state with the inputs
//! held over the step. When the importer then sets an input, the static maps of
//! blocks (`abs(w)`, a saturation of `kp (r - x)`) must show the new input's
//! value when read, as the XML's `dependencies` promise; states and the pairs
//! acting on them keep their step values until the next step. The pairs an
//! input reaches (see [`Model::pair_feedthrough`]) form a closed sub-problem
//! whose other entries are fixed: `D_SS u_S + q_S ⟂ u_S` with
//! `q_S = C_S x + F_S w + g_S + D_S,rest u_rest`, the step LCP with `h = 0`
//! restricted to them. [`Feedthrough::solve`] solves it on buffers sized once,
//! warm-started from the step's active set, so its answer is a function of the
//! FMU state and a restored run repeats bit for bit.
//!
//! [`Model::pair_feedthrough`]: crate::model::Model::pair_feedthrough

use crate::lcp::{self, Bound, Problem, Solver};
use crate::model::Model;
use crate::system::lcs::Lcs;
use nalgebra::{DMatrix, DVector};

/// Workspace of the input-driven re-solve of an instance.
pub struct Feedthrough {
    /// The pairs an input reaches, in increasing order.
    set: Vec<usize>,
    /// Per pair of the model: whether it is in `set`.
    in_set: Vec<bool>,
    /// Per input: whether setting it moves any pair of `set`.
    moves: Vec<bool>,
    problem: Problem,
    solver: Solver,
    u: Vec<f64>,
    y: Vec<f64>,
    warm: Vec<Bound>,
    /// Whether `problem` holds `D_SS` and the bounds of the current assembly.
    ready: bool,
}

impl Feedthrough {
    pub fn new(model: &Model) -> Self {
        let deps = model.pair_feedthrough();
        let set: Vec<usize> = (0..model.nu()).filter(|&i| !deps[i].is_empty()).collect();
        let mut in_set = vec![false; model.nu()];
        let mut moves = vec![false; model.nw()];
        for &i in &set {
            in_set[i] = true;
            for &j in &deps[i] {
                moves[j] = true;
            }
        }
        let n = set.len();
        Feedthrough {
            problem: Problem::boxed(
                DMatrix::zeros(n, n),
                DVector::zeros(n),
                DVector::zeros(n),
                DVector::zeros(n),
            ),
            solver: Solver::new(n, lcp::Settings::default()),
            u: vec![0.0; n],
            y: vec![0.0; n],
            warm: vec![Bound::Free; n],
            ready: false,
            set,
            in_set,
            moves,
        }
    }

    /// Forgets the matrix; call after the LCS was assembled again.
    pub fn invalidate(&mut self) {
        self.ready = false;
    }

    /// Whether setting input `j` changes some pair at once.
    pub fn moved_by(&self, j: usize) -> bool {
        self.moves.get(j).copied().unwrap_or(false)
    }

    /// Solves the pairs inputs reach at states `x` and inputs `w`, the other
    /// pairs held at their values in `u`, and writes them into `u`. `active`
    /// is the step's active set (the warm start). On failure `u` is untouched.
    pub fn solve(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        w: &[f64],
        u: &mut [f64],
        active: &[Bound],
    ) -> Result<lcp::Info, lcp::Info> {
        let p = &mut self.problem;
        if !self.ready {
            // D_SS and the bounds change only with the parameters.
            for (a, &i) in self.set.iter().enumerate() {
                p.lo[a] = lcs.lo[i];
                p.hi[a] = lcs.hi[i];
                for (b, &k) in self.set.iter().enumerate() {
                    p.m[(a, b)] = lcs.d[(i, k)];
                }
            }
            self.solver.matrix_changed();
            self.ready = true;
        }
        for (a, &i) in self.set.iter().enumerate() {
            let mut q = lcs.g[i];
            q += dot(lcs.c.row(i).iter(), x);
            q += dot(lcs.fw.row(i).iter(), w);
            for (k, &uk) in u.iter().enumerate() {
                if !self.in_set[k] {
                    q += lcs.d[(i, k)] * uk;
                }
            }
            p.q[a] = q;
            self.warm[a] = active.get(i).copied().unwrap_or(Bound::Free);
        }
        self.solver.set_active_set(&self.warm);
        let info = self.solver.solve(&self.problem, &mut self.u, &mut self.y);
        if info.status != lcp::Status::Solved {
            return Err(info);
        }
        for (a, &i) in self.set.iter().enumerate() {
            u[i] = self.u[a];
        }
        Ok(info)
    }
}

fn dot<'a>(row: impl Iterator<Item = &'a f64>, v: &[f64]) -> f64 {
    row.zip(v).map(|(a, b)| a * b).sum()
}
