//! The checks every field of a model file goes through: declared names (C
//! identifiers, not reserved, unique across the model, a repeat pointing at
//! the first declaration), finite numbers, start values, parameter
//! expressions, and the error that names the file, the field and what is
//! wrong.

use super::{ModelError, Res, Validator};
use crate::model::expr::{self, Expr};
use crate::model::raw::Value;
use std::collections::HashMap;

/// Words that cannot be variable names: the FMU's independent variable and the
/// names the expression language gives a meaning.
const RESERVED: &[&str] = &[
    "time", "pi", "inf", "sqrt", "exp", "log", "sin", "cos", "tan", "abs", "asin", "acos", "atan",
    "atan2", "sinh", "cosh", "tanh", "floor", "frac", "step", "min", "max",
];

/// Every declared name and where, so a second declaration can point at the first.
/// A map, not a list: a chain of 10,000 bodies declares 40,000 names.
#[derive(Default)]
pub(in crate::model) struct Names {
    seen: HashMap<String, String>,
}

impl Names {
    pub(in crate::model) fn contains(&self, name: &str) -> bool {
        self.seen.contains_key(name)
    }

    pub(in crate::model) fn declare(
        &mut self,
        v: &Validator,
        field: String,
        name: &str,
    ) -> Res<()> {
        let field = format!("{field}.name");
        self.declare_at(v, field, name)
    }

    /// Declares `name` found at exactly `field`.
    pub(in crate::model) fn declare_at(
        &mut self,
        v: &Validator,
        field: String,
        name: &str,
    ) -> Res<()> {
        v.identifier(&field, name)?;
        if let Some(other) = self.seen.get(name) {
            return v.fail(field, format!("'{name}' is already declared at {other}"));
        }
        self.seen.insert(name.to_string(), field);
        Ok(())
    }
}

impl Validator<'_> {
    pub(in crate::model) fn fail<T>(
        &self,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Res<T> {
        Err(ModelError {
            file: self.file.into(),
            field: field.into(),
            message: message.into(),
        })
    }

    pub(in crate::model) fn identifier(&self, field: &str, name: &str) -> Res<()> {
        let mut chars = name.chars();
        let first_ok = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
        if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return self.fail(field, format!("'{name}' is not a C identifier (letters, digits, '_', not starting with a digit)"));
        }
        if RESERVED.contains(&name) {
            return self.fail(field, format!("'{name}' is a reserved word"));
        }
        Ok(())
    }

    pub(in crate::model) fn finite(&self, field: &str, v: f64) -> Res<()> {
        if !v.is_finite() {
            return self.fail(field, format!("{v} is not a finite number"));
        }
        Ok(())
    }

    /// A start value (of a state, an input, a coordinate or a block) or a
    /// parameter's value: a number, or a constant expression such as
    /// `"0.1 * 3"` (0 when absent). Both are fixed before the simulation has
    /// a time, and a start value does not follow parameters set later.
    pub(in crate::model) fn constant(&self, field: &str, v: Option<&Value>) -> Res<f64> {
        let x = match v {
            None => 0.0,
            Some(Value::Number(x)) => *x,
            Some(Value::Text(t)) => {
                let node = expr::parse(t).map_err(|e| self.expr_error(field, t, e))?;
                let e = Expr::compile(&node, &|_| None).map_err(|mut e| {
                    e.message
                        .push_str(" (a start value or a parameter's value is a number or a constant expression)");
                    self.expr_error(field, t, e)
                })?;
                e.eval(&[])
            }
        };
        self.finite(field, x)?;
        Ok(x)
    }

    pub(in crate::model) fn parameter_expr(
        &self,
        field: &str,
        text: &str,
        param: &dyn Fn(&str) -> Option<usize>,
    ) -> Res<Expr> {
        let node = expr::parse(text).map_err(|e| self.expr_error(field, text, e))?;
        Expr::compile(&node, param).map_err(|e| {
            self.expr_error_hinted(field, text, e, " (only parameters may appear here)")
        })
    }

    /// [`Self::expr_error`], with `hint` (what the field may read) added
    /// when the expression names something unknown.
    pub(in crate::model) fn expr_error_hinted(
        &self,
        field: &str,
        text: &str,
        mut e: expr::ExprError,
        hint: &str,
    ) -> ModelError {
        if e.message.starts_with("unknown name") {
            e.message.push_str(hint);
        }
        self.expr_error(field, text, e)
    }

    pub(in crate::model) fn expr_error(
        &self,
        field: &str,
        text: &str,
        e: expr::ExprError,
    ) -> ModelError {
        let mut e = e;
        if e.message.starts_with("unknown name 'time'") {
            e.message = "time is not known here: start values, parameters and bounds are fixed before the simulation runs, and gaps and slips are functions of the state alone (time may appear in a first-order state's der, a block's input, a named output and a mechanical coordinate's force)".into();
        }
        ModelError {
            file: self.file.into(),
            field: field.into(),
            message: format!("in \"{text}\": {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::validate::from_str;
    use std::path::Path;

    /// Start values of every kind and parameter values take constant
    /// expressions, evaluated once.
    #[test]
    fn starts_and_parameter_values_are_constant_expressions() {
        let text = r#"
[model]
name = "m"
[[parameters]]
name = "k"
value = "2*pi"
[[inputs]]
name = "w"
start = "-1/4"
[[states]]
name = "x"
start = "3*0.01"
der = "-k*x + w"
"#;
        let m = from_str(text, Path::new("m.toml")).unwrap();
        assert_eq!(m.parameters[0].value, 2.0 * std::f64::consts::PI);
        assert_eq!(m.inputs[0].start, -0.25);
        assert_eq!(m.states[0].start, 3.0 * 0.01);
        let e = from_str(&text.replace("\"3*0.01\"", "\"k\""), Path::new("m.toml")).unwrap_err();
        assert_eq!(e.field, "states[0].start");
        assert!(e.message.contains("unknown name 'k'"), "{e}");
    }
}
