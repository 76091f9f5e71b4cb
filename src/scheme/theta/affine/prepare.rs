//! What a step of one size needs, computed when the step size changes: the
//! step maps of the linear part (the theta-method's, through the
//! factorization of `I - hθA`, or the zero-order hold's exact flow), the
//! LCP's `M`, and the per-step products
//! (with `C` folded in) stored in the stepper's `step_data` in the order of
//! [`Layout`].

use crate::linalg::{gemv_acc, store_product, store_rows};
use crate::scheme::theta::affine::products::Layout;
use crate::scheme::theta::affine::ThetaStepper;
use crate::scheme::StepError;
use crate::system::lcs::Lcs;
use nalgebra::DMatrix;

impl ThetaStepper {
    /// Recomputes everything that depends on h.
    pub(super) fn prepare(&mut self, lcs: &Lcs, h: f64) -> Result<(), StepError> {
        let (nx, nw, nu) = (self.nx, self.nw, self.nu);
        // The columns of the step's inputs: the model's, then the previous
        // multipliers' (γ < 1), then the sources of `f` and of `c`.
        let carried_at = nw;
        let sources_at = nw + if self.carries { nu } else { 0 };
        self.ew.fill(0.0);
        self.ew.columns_mut(0, nw).copy_from(&lcs.e);
        if let Some(src) = &self.sources {
            // A source of f's row i enters as E's column e_i would.
            for (k, &row) in src.f_rows().iter().enumerate() {
                self.ew[(row, sources_at + k)] = 1.0;
            }
        }
        if self.hold {
            self.discretize_held(lcs, h);
        } else {
            self.discretize_theta(lcs, h)?;
        }
        let (gm, gr) = (self.gammas.multipliers, self.gammas.relation);
        if self.carries {
            // The previous multipliers' columns, (1-γ) h W B, then γ h W B
            // (validation keeps γ = 1 under the zero-order hold).
            let carried = &self.gamma * (1.0 - gm);
            self.ew.columns_mut(carried_at, nu).copy_from(&carried);
            self.gamma *= gm;
        }
        // The relation's C: γ_r C when it holds inside the step.
        let c = if gr != 1.0 {
            self.c_rel.copy_from(&lcs.c);
            self.c_rel *= gr;
            &self.c_rel
        } else {
            &lcs.c
        };

        // M = D + C gamma, column by column.
        let p = &mut self.problem;
        p.m.copy_from(&lcs.d);
        for (j, mut col) in p.m.column_iter_mut().enumerate() {
            gemv_acc(col.as_mut_slice(), c, self.gamma.column(j).as_slice());
        }
        p.lo.copy_from(&lcs.lo);
        p.hi.copy_from(&lcs.hi);
        // The per-step products, with C folded in so that q needs no x_free.
        let o = Layout::of(self.nx, self.nu, self.nw_step);
        let data = &mut self.step_data;
        store_rows(&mut data[o.x..o.fx], &self.phi);
        data[o.fx..o.xw].copy_from_slice(self.fx.as_slice());
        store_rows(&mut data[o.xw..o.q], &self.ew);
        store_product(&mut data[o.q..o.q0], c, &self.phi);
        if gr != 1.0 {
            // (1-γ_r) C x: the relation's share of the step's start.
            let q = &mut data[o.q..o.q0];
            for i in 0..self.nu {
                for k in 0..nx {
                    q[i * nx + k] += (1.0 - gr) * lcs.c[(i, k)];
                }
            }
        }
        data[o.q0..o.qw].copy_from_slice(lcs.g.as_slice());
        gemv_acc(&mut data[o.q0..o.qw], c, self.fx.as_slice());
        store_product(&mut data[o.qw..o.gamma], c, &self.ew);
        // + F on the inputs' columns (the carried multipliers have none),
        // and a unit column per source of c (F's column e_j).
        let qw = &mut data[o.qw..o.gamma];
        for i in 0..self.nu {
            for k in 0..nw {
                qw[i * self.nw_step + k] += lcs.fw[(i, k)];
            }
        }
        if let Some(src) = &self.sources {
            let at = sources_at + src.f_rows().len();
            for (k, &row) in src.c_rows().iter().enumerate() {
                qw[row * self.nw_step + at + k] += 1.0;
            }
        }
        store_rows(&mut data[o.gamma..o.len], &self.gamma);
        self.solver.matrix_changed();
        self.size.set(h);
        Ok(())
    }

    /// The theta-method's step maps: `phi = W (I + h(1-θ)A)` and `h W` times
    /// `B`, the input columns (already in `ew`) and `f`, with
    /// `W = (I - hθA)⁻¹` factored.
    fn discretize_theta(&mut self, lcs: &Lcs, h: f64) -> Result<(), StepError> {
        let nx = lcs.a.nrows();
        // phi holds I - hθA while it is factored, then I + h(1-θ)A.
        self.phi.copy_from(&lcs.a);
        self.phi *= -h * self.theta;
        for i in 0..nx {
            self.phi[(i, i)] += 1.0;
        }
        if !self.lu.factor(&self.phi) {
            self.size.invalidate();
            return Err(StepError::SingularIteration { h });
        }
        self.phi.copy_from(&lcs.a);
        self.phi *= h * (1.0 - self.theta);
        for i in 0..nx {
            self.phi[(i, i)] += 1.0;
        }
        self.lu.solve_columns(&mut self.phi);
        self.gamma.copy_from(&lcs.b);
        self.gamma *= h;
        self.lu.solve_columns(&mut self.gamma);
        self.ew.scale_mut(h);
        self.lu.solve_columns(&mut self.ew);
        self.fx.copy_from(&lcs.f);
        self.fx *= h;
        self.lu.solve(self.fx.as_mut_slice());
        Ok(())
    }

    /// The zero-order hold's step maps (Siconos' `ZeroOrderHoldOSI`): the
    /// exact flow of the linear part over the step with the multipliers, the
    /// inputs and the sources held, `x⁺ = e^{hA} x + Ψ (B u⁺ + E w + f)`,
    /// `Ψ = ∫₀ʰ e^{sA} ds`. Both come from one exponential of the block
    /// matrix `h [[A, I], [0, 0]]`, whose top row is `[e^{hA}, Ψ]`
    /// (nalgebra's scaling-and-squaring Padé). The exponential allocates:
    /// this runs when the step size changes, not per step.
    fn discretize_held(&mut self, lcs: &Lcs, h: f64) {
        let nx = lcs.a.nrows();
        let mut block = DMatrix::zeros(2 * nx, 2 * nx);
        for i in 0..nx {
            for j in 0..nx {
                block[(i, j)] = h * lcs.a[(i, j)];
            }
            block[(i, nx + i)] = h;
        }
        let flow = block.exp();
        self.phi.copy_from(&flow.view((0, 0), (nx, nx)));
        let psi = flow.view((0, nx), (nx, nx));
        self.gamma.gemm(1.0, &psi, &lcs.b, 0.0);
        let inputs = self.ew.clone();
        self.ew.gemm(1.0, &psi, &inputs, 0.0);
        self.fx.gemv(1.0, &psi, &lcs.f, 0.0);
    }
}
