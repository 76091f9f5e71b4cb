//! Validation of `[[discrete]]` partitions (see `crate::model::sampled`).
//!
//! Two passes, as for blocks: [`Validator::sampled_columns`] declares every
//! held output and discrete state as a column of `w` after the declared
//! inputs, before the continuous part is lowered, so derivatives, blocks and
//! outputs read held outputs by name; [`Validator::sampled`] then compiles
//! periods, offsets, updates and values once every name is known.

use super::{MatrixContext, Names, Res, Validator};
use crate::model::affine::Symbol;
use crate::model::expr::{self, Expr};
use crate::model::raw::{RawDiscrete, Value};
use crate::model::rows::operands;
use crate::model::sampled::{DiscreteState, HeldOutput, Partition};
use crate::model::{Condition, Variable};

impl Validator<'_> {
    /// Refuses partitions where this slice does not run them, and appends
    /// their columns to `inputs` (held outputs then states, per partition).
    pub(super) fn sampled_columns(
        &self,
        raw: &[RawDiscrete],
        inputs: &mut Vec<Variable>,
        first_order_signals: bool,
        names: &mut Names,
    ) -> Res<()> {
        if raw.is_empty() {
            return Ok(());
        }
        if !first_order_signals {
            return self.fail(
                "discrete",
                "sampled-data partitions are supported only in first-order models of the signal form (states with der, blocks) for now; mechanical models, matrix-form files and netlists cannot have [[discrete]] yet",
            );
        }
        for (p, d) in raw.iter().enumerate() {
            let field = format!("discrete[{p}]");
            self.identifier(&format!("{field}.name"), &d.name)?;
            if d.states.is_empty() && d.outputs.is_empty() {
                return self.fail(field, "a partition needs at least one state or held output");
            }
            for (i, o) in d.outputs.iter().enumerate() {
                names.declare(self, format!("{field}.outputs[{i}]"), &o.name)?;
                inputs.push(Variable {
                    name: o.name.clone(),
                    start: 0.0,
                    description: o.description.clone(),
                    unit: o.unit.clone(),
                });
            }
            for (i, s) in d.states.iter().enumerate() {
                let f = format!("{field}.states[{i}]");
                names.declare(self, f.clone(), &s.name)?;
                let start = self.constant(&format!("{f}.start"), s.start.as_ref())?;
                inputs.push(Variable {
                    name: s.name.clone(),
                    start,
                    description: s.description.clone(),
                    unit: s.unit.clone(),
                });
            }
        }
        Ok(())
    }

    /// Compiles the partitions; `first` is the number of declared inputs
    /// (where the first partition's columns start in `w`).
    pub(super) fn sampled(
        &self,
        raw: Vec<RawDiscrete>,
        first: usize,
        lookup: &dyn Fn(&str) -> Option<Symbol>,
        ctx: &MatrixContext,
        conditions: &mut Vec<Condition>,
    ) -> Res<Vec<Partition>> {
        let program = |field: &str, text: &str| -> Res<Expr> {
            let node = expr::parse(text).map_err(|e| self.expr_error(field, text, e))?;
            Expr::compile_evaluated(&node, &operands(lookup)).map_err(|e| {
                self.expr_error_hinted(field, text, e, " (a discrete update or held output reads states, pairs, inputs, held outputs, discrete states, parameters and time)")
            })
        };
        let mut base = first;
        let mut out = Vec::with_capacity(raw.len());
        for (p, d) in raw.into_iter().enumerate() {
            let field = format!("discrete[{p}]");
            let period = self.timing(&format!("{field}.period"), Some(&d.period), ctx)?;
            let offset = self.timing(&format!("{field}.offset"), d.offset.as_ref(), ctx)?;
            let v = period.eval(ctx.defaults);
            if !(v > 0.0 && v.is_finite()) {
                return self.fail(
                    format!("{field}.period"),
                    format!("must be positive and finite; it is {v} (with the default parameters)"),
                );
            }
            let o = offset.eval(ctx.defaults);
            if !o.is_finite() {
                return self.fail(
                    format!("{field}.offset"),
                    format!("must be finite; it is {o}"),
                );
            }
            if period.as_constant().is_none() {
                conditions.push(Condition {
                    value: period.clone(),
                    strict: true,
                    what: format!("{field}.period > 0"),
                });
            }
            let mut outputs = Vec::new();
            for (i, h) in d.outputs.into_iter().enumerate() {
                let value = program(&format!("{field}.outputs[{i}].value"), &h.value)?;
                outputs.push(HeldOutput {
                    name: h.name,
                    value,
                    description: h.description,
                    unit: h.unit,
                });
            }
            let mut states = Vec::new();
            for (i, s) in d.states.into_iter().enumerate() {
                let update = program(&format!("{field}.states[{i}].update"), &s.update)?;
                let start =
                    self.constant(&format!("{field}.states[{i}].start"), s.start.as_ref())?;
                states.push(DiscreteState {
                    name: s.name,
                    start,
                    update,
                    description: s.description,
                    unit: s.unit,
                });
            }
            let partition = Partition {
                name: d.name,
                period,
                offset,
                outputs,
                states,
                base,
            };
            base += partition.width();
            out.push(partition);
        }
        Ok(out)
    }

    /// A period or an offset: a number or a parameter expression.
    fn timing(&self, field: &str, v: Option<&Value>, ctx: &MatrixContext) -> Res<Expr> {
        match v {
            None => Ok(Expr::constant(0.0)),
            Some(Value::Number(x)) => Ok(Expr::constant(*x)),
            Some(Value::Text(t)) => self.parameter_expr(field, t, ctx.param),
        }
    }
}
