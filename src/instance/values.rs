//! Variables of the [`Instance`] by value reference: reading (states,
//! multipliers, outputs, and for Model Exchange derivatives and indicators) and
//! setting (parameters, inputs, start values, states under Model Exchange),
//! each checked against the variable's kind and the life-cycle phase.
//!
//! A refused set changes nothing: every value is checked before any is
//! written. Outputs that depend on inputs directly (block feedthrough) follow
//! an input set at once.

use super::state::{Call, Phase};
use super::variables::{self, Kind};
use super::{FmiError, FmiResult, Instance, Severity};

impl Instance {
    fn kind(&self, vr: u32) -> FmiResult<Kind> {
        self.kinds.get(vr as usize).copied().ok_or_else(|| {
            FmiError::error(format!(
                "unknown value reference {vr} (this FMU has 0..{})",
                self.kinds.len()
            ))
        })
    }

    /// Name of a value reference, for messages.
    pub fn name(&self, vr: u32) -> &str {
        let vars = variables::variables(&self.model);
        match vars.get(vr as usize) {
            Some(v) => v.name,
            // A Model Exchange FMU's derivatives and indicators follow the variables.
            None => match self.kinds.get(vr as usize) {
                Some(Kind::Derivative(_)) => "der(...)",
                Some(Kind::Indicator(_)) => "an event indicator",
                _ => "?",
            },
        }
    }

    pub fn get_reals(&mut self, vrs: &[u32], values: &mut [f64]) -> FmiResult<()> {
        self.check(Call::GetValues)?;
        if vrs.len() != values.len() {
            return Err(FmiError::error(
                "value references and values differ in length",
            ));
        }
        // Only during initialization can multipliers be stale (start values or
        // inputs changed); after it every step leaves them consistent.
        if self.phase == Phase::InitializationMode
            && vrs
                .iter()
                .any(|&vr| matches!(self.kind(vr), Ok(Kind::Pair(_) | Kind::Output(_))))
        {
            match self.make_consistent() {
                Ok(()) => {}
                Err(e) if e.severity == Severity::Warning => {}
                Err(e) => return Err(e),
            }
        }
        self.refresh_pairs(vrs)?;
        for (&vr, v) in vrs.iter().zip(values.iter_mut()) {
            *v = match self.kind(vr)? {
                Kind::Time => self.time,
                Kind::Parameter(i) => self.params[i],
                Kind::Input(i) | Kind::Held(i) | Kind::Discrete(i) => self.inputs[i],
                Kind::State(i) => self.states[i],
                Kind::Pair(i) => self.pairs[i],
                Kind::Output(k) => self.output(k),
                Kind::Derivative(i) => self.derivative(i),
                Kind::Indicator(k) => self.indicator(k),
            };
        }
        Ok(())
    }

    fn output(&self, k: usize) -> f64 {
        let row = |m: &nalgebra::DMatrix<f64>, v: &[f64]| {
            m.row(k).iter().zip(v).map(|(a, b)| a * b).sum::<f64>()
        };
        let linear = self.lcs.h0[k]
            + row(&self.lcs.hx, &self.states)
            + row(&self.lcs.hu, &self.pairs)
            + row(&self.lcs.hw, &self.inputs);
        match &self.lcs.nl {
            Some(nl) if nl.has_outputs() => {
                let at = crate::model::program::Point {
                    x: &self.states,
                    u: &self.pairs,
                    w: &self.inputs,
                    t: self.time,
                };
                linear + nl.output(k, &at)
            }
            _ => linear,
        }
    }

    /// Sets values; all are checked before any is written, so a refused call changes nothing.
    pub fn set_reals(&mut self, vrs: &[u32], values: &[f64]) -> FmiResult<()> {
        self.check(Call::SetValues)?;
        if vrs.len() != values.len() {
            return Err(FmiError::error(
                "value references and values differ in length",
            ));
        }
        let before_init = matches!(self.phase, Phase::Instantiated | Phase::InitializationMode);
        for (&vr, &v) in vrs.iter().zip(values) {
            let kind = self.kind(vr)?;
            let name = || self.name(vr);
            let settable = match kind {
                Kind::Parameter(_) | Kind::State(_) | Kind::Discrete(_) => before_init,
                Kind::Input(_) => true,
                Kind::Time
                | Kind::Pair(_)
                | Kind::Output(_)
                | Kind::Held(_)
                | Kind::Derivative(_)
                | Kind::Indicator(_) => {
                    return Err(FmiError::error(format!(
                        "{} (value reference {vr}) is calculated and cannot be set",
                        name()
                    )))
                }
            };
            if !settable {
                return Err(FmiError::error(format!(
                    "{} (value reference {vr}) can only be set before initialization ends (phase is {:?})",
                    name(),
                    self.phase
                )));
            }
            if !v.is_finite() {
                return Err(FmiError::error(format!(
                    "{} (value reference {vr}): {v} is not a finite number",
                    name()
                )));
            }
        }
        let mut moved = false;
        for (&vr, &v) in vrs.iter().zip(values) {
            match self.kind(vr)? {
                Kind::Parameter(i) => self.params[i] = v,
                Kind::Input(i) => {
                    moved |= self.feedthrough.moved_by(i);
                    self.inputs[i] = v;
                }
                Kind::State(i) => self.states[i] = v,
                Kind::Discrete(j) => self.inputs[j] = v,
                Kind::Time
                | Kind::Pair(_)
                | Kind::Output(_)
                | Kind::Held(_)
                | Kind::Derivative(_)
                | Kind::Indicator(_) => {
                    unreachable!("refused above")
                }
            }
        }
        if before_init {
            self.consistent = false;
        } else if self.exchange.is_some() {
            self.inputs_changed_model_exchange();
        } else if moved {
            self.follow_inputs()?;
        }
        Ok(())
    }

    /// Re-solves the block outputs that depend on inputs at once (see
    /// [`feedthrough`](super::feedthrough)). When they have no solution for the new inputs the
    /// values stay set, the outputs keep their last values, and the warning
    /// says why (the next step will tell whether the inputs can be followed).
    fn follow_inputs(&mut self) -> FmiResult<()> {
        let active = self.stepper.active_set();
        match self.feedthrough.solve(
            &self.lcs,
            &self.states,
            &self.inputs,
            &mut self.pairs,
            active,
        ) {
            Ok(_) => Ok(()),
            Err(info) => Err(FmiError {
                severity: Severity::Warning,
                message: format!(
                    "the inputs were set, but the block outputs that follow them have no solution for these values at t = {} (LCP status {:?}, method {:?}, residual {:e}); they keep their last values",
                    self.time, info.status, info.method, info.residual
                ),
            }),
        }
    }
}
