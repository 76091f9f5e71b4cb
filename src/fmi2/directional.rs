//! Directional derivatives of a Model Exchange instance's current mode
//! (`fmi2GetDirectionalDerivative`, `providesDirectionalDerivative="true"`).
//!
//! In Continuous-Time Mode the mode is frozen and its ODE is affine in the
//! states and the inputs, `x' = a x + b(w)`: the derivative of the state
//! derivatives along a seed `(dx, dw)` is `a dx + b(w + dw) - b(w)`, exact for
//! the mode to rounding (see `Exchange::directional`). Only state derivatives
//! are unknowns and only states and inputs knowns; anything else is refused
//! with its name. Nothing allocates: the seeds live in the instance's Model
//! Exchange workspace.

use super::model_exchange::mode_failed;
use super::state::Call;
use super::variables::Kind;
use super::{FmiError, FmiResult, Instance};
use crate::model::Model;

impl Instance {
    /// `fmi2GetDirectionalDerivative` of the current mode's ODE: the
    /// derivatives of the `unknowns` (state derivatives) along the seed `seed`
    /// of the `knowns` (states and inputs). Exact for the mode: its ODE is
    /// affine in both. Other unknowns or knowns are refused with their names.
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
        let me = self.exchange.as_deref_mut().expect("checked");
        me.seed_x.fill(0.0);
        me.seed_w.fill(0.0);
        for (&vr, &v) in knowns.iter().zip(seed) {
            match self.kinds.get(vr as usize) {
                Some(Kind::State(i)) => me.seed_x[*i] += v,
                Some(Kind::Input(i)) => me.seed_w[*i] += v,
                _ => {
                    return Err(not_directional(
                        &self.model,
                        vr,
                        "known: a state or an input",
                    ))
                }
            }
        }
        for &vr in unknowns {
            if !matches!(self.kinds.get(vr as usize), Some(Kind::Derivative(_))) {
                return Err(not_directional(
                    &self.model,
                    vr,
                    "unknown: a state derivative",
                ));
            }
        }
        let (x, w) = (&me.seed_x, &me.seed_w);
        me.engine
            .directional(&self.lcs, &self.inputs, x, w, &mut me.xdot)
            .map_err(|why| mode_failed(self.time, why))?;
        for (o, &vr) in out.iter_mut().zip(unknowns) {
            if let Some(Kind::Derivative(i)) = self.kinds.get(vr as usize) {
                *o = me.xdot[*i];
            }
        }
        // `xdot` now holds the directional derivative, not der(x).
        me.pairs_current = false;
        Ok(())
    }
}

#[cold]
fn not_directional(model: &Model, vr: u32, what: &str) -> FmiError {
    let vars = super::variables::variables(model);
    let name = vars
        .get(vr as usize)
        .map_or("a state derivative", |v| v.name);
    FmiError::error(format!(
        "value reference {vr} ({name}) cannot be a directional derivative's {what}"
    ))
}
