//! Directional derivatives of a nonlinear mode's ODE, for Model Exchange's
//! `fmi2GetDirectionalDerivative`: by automatic differentiation of the
//! model's programs (the gradient pass), never by differences.
//!
//! Along the states the mode's ODE is `x' = f(x, u_F(x), t)` with the free
//! pairs solved at each state, so its derivative along `dx` is
//! `∂f/∂x dx + ∂f/∂u_F du_F` with `du_F = ∂u_F/∂x dx` from the mode's
//! linearization (`free_pairs::linearize`: `-J⁻¹ ∂G/∂x`). That linearization
//! leaves out the second derivatives of `c` that a pair held through its
//! derivative would need, so the result is exact when the relations are
//! linear in the state (all bundled nonlinear models) and a first-order
//! approximation otherwise; `lcsfmu check` compares it with central
//! differences.

use crate::scheme::mode::nonlinear::free_pairs::Jacobians;
use crate::scheme::mode::nonlinear::NonlinearMode;
use crate::scheme::StepError;
use crate::system::lcs::Lcs;

impl NonlinearMode {
    /// `d x'/dx · dx` of the mode at `(t, x)` into `out`. The iterate the
    /// next evaluation starts from is left as it was.
    pub fn directional(
        &mut self,
        lcs: &Lcs,
        t: f64,
        x: &[f64],
        dx: &[f64],
        out: &mut [f64],
    ) -> Result<(), StepError> {
        let k = self.evaluate(lcs, t, x, true)?;
        self.u_held.copy_from_slice(&self.u);
        self.u.copy_from_slice(&self.slots[k].u);
        self.functions(lcs, t, x, Jacobians::WithStates);
        self.u.copy_from_slice(&self.u_held);
        let s = &self.slots[k];
        // du = ∂u/∂x dx (pinned rows of `gu` are zero), into `sol`.
        for (i, d) in self.sol.iter_mut().enumerate() {
            *d = (0..dx.len()).map(|c| s.gu[(i, c)] * dx[c]).sum();
        }
        for (r, o) in out.iter_mut().enumerate() {
            let along_x: f64 = (0..dx.len()).map(|c| self.fx[(r, c)] * dx[c]).sum();
            let along_u: f64 = (0..self.sol.len())
                .map(|j| self.fu[(r, j)] * self.sol[j])
                .sum();
            *o = along_x + along_u;
        }
        Ok(())
    }
}
