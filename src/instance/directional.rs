//! Directional and adjoint derivatives of a Model Exchange instance's current
//! mode (`fmi2GetDirectionalDerivative`, `fmi3GetDirectionalDerivative`,
//! `fmi3GetAdjointDerivative`).
//!
//! In Continuous-Time Mode the mode is frozen. A linear model's mode is
//! affine in the states and the inputs, `x' = a x + b(w)`: the derivative of
//! the state derivatives along a seed `(dx, dw)` is `a dx + b(w + dw) - b(w)`,
//! exact for the mode to rounding (see `Exchange::directional`). A nonlinear
//! model's comes from the gradient pass of its programs, along states (inputs
//! as knowns are refused with the reason). The adjoint derivative
//! `seed^T J` is the transpose: one directional derivative per known, each
//! along that known alone. Only state derivatives are unknowns and only states
//! and inputs knowns; anything else is refused with its name. Nothing
//! allocates: the seeds live in the instance's Model Exchange workspace.

use super::model_exchange::mode_failed;
use super::state::Call;
use super::variables::Kind;
use super::{FmiError, FmiResult, Instance};

impl Instance {
    /// `fmi2GetDirectionalDerivative` of the current mode's ODE: the
    /// derivatives of the `unknowns` (state derivatives) along the seed `seed`
    /// of the `knowns` (states and inputs). Exact for a linear model's mode,
    /// whose ODE is affine in both; a nonlinear model's by automatic
    /// differentiation, along states only (see `scheme::exchange::directional`).
    /// Other unknowns or knowns are refused with their names.
    pub fn directional_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        out: &mut [f64],
    ) -> FmiResult<()> {
        self.exchange_for(Call::GetDirectionalDerivative)?;
        if knowns.len() != seed.len() || unknowns.len() != out.len() {
            return Err(FmiError::error(
                "value references and values differ in length",
            ));
        }
        self.check_directional(unknowns, knowns)?;
        let me = self.exchange.as_deref_mut().expect("checked");
        me.seed_x.fill(0.0);
        me.seed_w.fill(0.0);
        for (&vr, &v) in knowns.iter().zip(seed) {
            match self.kinds[vr as usize] {
                Kind::State(i) => me.seed_x[i] += v,
                Kind::Input(i) => me.seed_w[i] += v,
                _ => unreachable!("checked"),
            }
        }
        self.along_seed()?;
        let me = self.exchange.as_deref().expect("checked");
        for (o, &vr) in out.iter_mut().zip(unknowns) {
            if let Kind::Derivative(i) = self.kinds[vr as usize] {
                *o = me.xdot[i];
            }
        }
        Ok(())
    }

    /// `fmi3GetAdjointDerivative`: `out_j = sum_i seed_i d(unknown_i)/d(known_j)`,
    /// the transpose of [`Instance::directional_derivative`] (`seed` has one
    /// value per unknown, `out` one per known).
    pub fn adjoint_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        out: &mut [f64],
    ) -> FmiResult<()> {
        self.exchange_for(Call::GetDirectionalDerivative)?;
        if unknowns.len() != seed.len() || knowns.len() != out.len() {
            return Err(FmiError::error(
                "value references and values differ in length",
            ));
        }
        self.check_directional(unknowns, knowns)?;
        for (o, &known) in out.iter_mut().zip(knowns) {
            let me = self.exchange.as_deref_mut().expect("checked");
            me.seed_x.fill(0.0);
            me.seed_w.fill(0.0);
            match self.kinds[known as usize] {
                Kind::State(i) => me.seed_x[i] = 1.0,
                Kind::Input(i) => me.seed_w[i] = 1.0,
                _ => unreachable!("checked"),
            }
            self.along_seed()?;
            let me = self.exchange.as_deref().expect("checked");
            *o = unknowns
                .iter()
                .zip(seed)
                .map(|(&vr, s)| match self.kinds[vr as usize] {
                    Kind::Derivative(i) => s * me.xdot[i],
                    _ => unreachable!("checked"),
                })
                .sum();
        }
        Ok(())
    }

    /// Refuses unknowns that are not state derivatives and knowns that are
    /// neither states nor inputs, by name.
    fn check_directional(&self, unknowns: &[u32], knowns: &[u32]) -> FmiResult<()> {
        let inputs = self
            .exchange
            .as_ref()
            .is_some_and(|me| me.engine.differentiates_inputs());
        for &vr in knowns {
            match self.kinds.get(vr as usize) {
                Some(Kind::State(_)) => {}
                Some(Kind::Input(_)) if inputs => {}
                Some(Kind::Input(_)) => {
                    return Err(not_directional(
                        self,
                        vr,
                        "known: the gradient pass of a model with nonlinear rows does not differentiate its inputs; a state",
                    ))
                }
                _ => return Err(not_directional(self, vr, "known: a state or an input")),
            }
        }
        for &vr in unknowns {
            if !matches!(self.kinds.get(vr as usize), Some(Kind::Derivative(_))) {
                return Err(not_directional(self, vr, "unknown: a state derivative"));
            }
        }
        Ok(())
    }

    /// The mode's derivative along the seeds in the workspace, into `xdot`.
    fn along_seed(&mut self) -> FmiResult<()> {
        let me = self.exchange.as_deref_mut().expect("checked");
        let (dx, dw) = (&me.seed_x, &me.seed_w);
        let (t, x, w) = (self.time, &self.states, &self.inputs);
        let done = me
            .engine
            .directional(&self.lcs, t, x, w, dx, dw, &mut me.xdot)
            .map_err(|why| mode_failed(self.time, why));
        // `xdot` then holds the directional derivative, not der(x). A refused
        // call of a nonlinear mode wrote nothing (a linear one may have).
        if done.is_ok() || me.engine.is_linear() {
            me.pairs_current = false;
        }
        done
    }
}

#[cold]
fn not_directional(instance: &Instance, vr: u32, what: &str) -> FmiError {
    let name = instance.name(vr);
    FmiError::error(format!(
        "value reference {vr} ({name}) cannot be a directional derivative's {what}"
    ))
}
