//! Second stage of reading a model file: from [`raw`] structs to a
//! [`Model`], or to a [`ModelError`] that names the file, the field and the problem.
//!
//! Checks: C-identifier names, unique across the whole model and distinct from
//! reserved words; finite numbers; theta in [0.5, 1]; matrix shapes against the
//! declared states, inputs and pairs; expressions that only mention parameters
//! (outputs may also mention variables, linearly); bounds with `lo <= hi`; and
//! that every entry is finite at the default parameter values, so a division by
//! a zero parameter is caught before anything is built.

use super::affine::{self, Symbol};
use super::expr::{self, Expr, Node};
use super::raw::{self, RawModel, Value};
use super::{Experiment, ExprMatrix, Model, Output, Pair, Parameter, Scheme, System, Variable};
use std::fmt;
use std::path::{Path, PathBuf};

/// A problem in a model file.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelError {
    pub file: PathBuf,
    /// Where in the file, as a key path (`system.A[1][0]`), or `(file)` for the whole text.
    pub field: String,
    pub message: String,
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {}",
            self.file.display(),
            self.field,
            self.message
        )
    }
}

impl std::error::Error for ModelError {}

/// Reads and validates a model file.
pub fn load(path: &Path) -> Result<Model, ModelError> {
    let text = std::fs::read_to_string(path).map_err(|e| ModelError {
        file: path.to_path_buf(),
        field: "(file)".into(),
        message: format!("cannot read: {e}"),
    })?;
    from_str(&text, path)
}

/// Validates model text; `path` is only used in messages.
pub fn from_str(text: &str, path: &Path) -> Result<Model, ModelError> {
    let raw = raw::parse(text).map_err(|(field, message)| ModelError {
        file: path.into(),
        field,
        message,
    })?;
    Validator { file: path }.model(raw)
}

/// Words that cannot be variable names: the FMU's independent variable and the
/// names the expression language gives a meaning.
const RESERVED: &[&str] = &[
    "time", "pi", "inf", "sqrt", "exp", "log", "sin", "cos", "tan", "abs",
];

struct Validator<'a> {
    file: &'a Path,
}

type Res<T> = Result<T, ModelError>;

impl Validator<'_> {
    fn fail<T>(&self, field: impl Into<String>, message: impl Into<String>) -> Res<T> {
        Err(ModelError {
            file: self.file.into(),
            field: field.into(),
            message: message.into(),
        })
    }

    fn model(&self, raw: RawModel) -> Res<Model> {
        self.identifier("model.name", &raw.model.name)?;
        let mut names: Vec<(String, String)> = Vec::new();
        let mut declare = |v: &Self, field: String, name: &str| -> Res<()> {
            v.identifier(&format!("{field}.name"), name)?;
            if let Some((other, _)) = names.iter().find(|(_, n)| n == name) {
                return v.fail(
                    format!("{field}.name"),
                    format!("'{name}' is already declared at {other}"),
                );
            }
            names.push((format!("{field}.name"), name.to_string()));
            Ok(())
        };

        let mut parameters = Vec::new();
        for (i, p) in raw.parameters.into_iter().enumerate() {
            let field = format!("parameters[{i}]");
            declare(self, field.clone(), &p.name)?;
            self.finite(&format!("{field}.value"), p.value)?;
            parameters.push(Parameter {
                name: p.name,
                value: p.value,
                description: p.description,
                unit: p.unit,
            });
        }
        let mut variables = |list: Vec<raw::RawVariable>, kind: &str| -> Res<Vec<Variable>> {
            let mut out = Vec::new();
            for (i, v) in list.into_iter().enumerate() {
                let field = format!("{kind}[{i}]");
                declare(self, field.clone(), &v.name)?;
                self.finite(&format!("{field}.start"), v.start)?;
                out.push(Variable {
                    name: v.name,
                    start: v.start,
                    description: v.description,
                    unit: v.unit,
                });
            }
            Ok(out)
        };
        let inputs = variables(raw.inputs, "inputs")?;
        let states = variables(raw.states, "states")?;
        let defaults: Vec<f64> = parameters.iter().map(|p| p.value).collect();
        let param_index = |n: &str| parameters.iter().position(|p| p.name == n);

        let mut pairs = Vec::new();
        for (i, p) in raw.complementarity.iter().enumerate() {
            let field = format!("complementarity[{i}]");
            declare(self, field.clone(), &p.name)?;
            let lo = self.bound(&format!("{field}.lo"), p.lo.as_ref(), 0.0, &param_index)?;
            let hi = self.bound(
                &format!("{field}.hi"),
                p.hi.as_ref(),
                f64::INFINITY,
                &param_index,
            )?;
            let (l, h) = (lo.eval(&defaults), hi.eval(&defaults));
            if l.is_nan() || h.is_nan() || l > h || l == f64::INFINITY || h == f64::NEG_INFINITY {
                return self.fail(
                    field,
                    format!("bounds lo = {l}, hi = {h} are not an interval (need lo <= hi)"),
                );
            }
            pairs.push(Pair {
                name: p.name.clone(),
                lo,
                hi,
                description: p.description.clone(),
                unit: p.unit.clone(),
            });
        }
        for (i, o) in raw.outputs.iter().enumerate() {
            declare(self, format!("outputs[{i}]"), &o.name)?;
        }
        if states.is_empty() && pairs.is_empty() {
            return self.fail(
                "(file)",
                "the model declares no states and no complementarity pairs",
            );
        }

        let (nx, nu, nw) = (states.len(), pairs.len(), inputs.len());
        let rows_x: Vec<String> = states.iter().map(|s| format!("der({})", s.name)).collect();
        let rows_u: Vec<String> = pairs.iter().map(|p| format!("y of {}", p.name)).collect();
        let cols_x: Vec<&str> = states.iter().map(|s| s.name.as_str()).collect();
        let cols_u: Vec<&str> = pairs.iter().map(|p| p.name.as_str()).collect();
        let cols_w: Vec<&str> = inputs.iter().map(|w| w.name.as_str()).collect();
        let ctx = MatrixContext {
            param: &param_index,
            defaults: &defaults,
        };
        let s = raw.system;
        let system = System {
            a: self.matrix("system.A", s.a, &rows_x, &cols_x, &ctx)?,
            b: self.matrix("system.B", s.b, &rows_x, &cols_u, &ctx)?,
            e: self.matrix("system.E", s.e, &rows_x, &cols_w, &ctx)?,
            f: self.vector("system.f", s.f, &rows_x, &ctx)?,
            c: self.matrix("system.C", s.c, &rows_u, &cols_x, &ctx)?,
            d: self.matrix("system.D", s.d, &rows_u, &cols_u, &ctx)?,
            fw: self.matrix("system.F", s.fw, &rows_u, &cols_w, &ctx)?,
            g: self.vector("system.g", s.g, &rows_u, &ctx)?,
        };
        debug_assert_eq!((system.a.rows, system.b.cols, system.e.cols), (nx, nu, nw));

        let lookup = |n: &str| -> Option<Symbol> {
            if let Some(i) = param_index(n) {
                return Some(Symbol::Param(i));
            }
            let find = |list: &[&str]| list.iter().position(|k| *k == n);
            find(&cols_x)
                .map(Symbol::Var)
                .or_else(|| find(&cols_u).map(|j| Symbol::Var(nx + j)))
                .or_else(|| find(&cols_w).map(|j| Symbol::Var(nx + nu + j)))
        };
        let mut outputs = Vec::new();
        for (i, o) in raw.outputs.into_iter().enumerate() {
            outputs.push(self.output(
                &format!("outputs[{i}].value"),
                o,
                &lookup,
                &ctx,
                (nx, nu),
            )?);
        }

        let experiment = self.experiment(raw.experiment)?;
        let scheme = self.scheme(raw.scheme)?;
        Ok(Model {
            name: raw.model.name,
            description: raw.model.description,
            parameters,
            inputs,
            states,
            pairs,
            outputs,
            system,
            scheme,
            experiment,
        })
    }

    fn identifier(&self, field: &str, name: &str) -> Res<()> {
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

    fn finite(&self, field: &str, v: f64) -> Res<()> {
        if !v.is_finite() {
            return self.fail(field, format!("{v} is not a finite number"));
        }
        Ok(())
    }

    fn parameter_expr(
        &self,
        field: &str,
        text: &str,
        param: &dyn Fn(&str) -> Option<usize>,
    ) -> Res<Expr> {
        let node = expr::parse(text).map_err(|e| self.expr_error(field, text, e))?;
        Expr::compile(&node, param).map_err(|e| {
            let hint = if e.message.starts_with("unknown name") {
                " (only parameters may appear here)"
            } else {
                ""
            };
            self.expr_error(
                field,
                text,
                expr::ExprError {
                    column: e.column,
                    message: e.message + hint,
                },
            )
        })
    }

    fn expr_error(&self, field: &str, text: &str, e: expr::ExprError) -> ModelError {
        ModelError {
            file: self.file.into(),
            field: field.into(),
            message: format!("in \"{text}\": {e}"),
        }
    }

    fn bound(
        &self,
        field: &str,
        v: Option<&Value>,
        default: f64,
        param: &dyn Fn(&str) -> Option<usize>,
    ) -> Res<Expr> {
        match v {
            None => Ok(Expr::constant(default)),
            Some(Value::Number(x)) if x.is_nan() => self.fail(field, "a bound cannot be nan"),
            Some(Value::Number(x)) => Ok(Expr::constant(*x)),
            Some(Value::Text(t)) => self.parameter_expr(field, t, param),
        }
    }

    fn entry(&self, field: &str, v: &Value, ctx: &MatrixContext) -> Res<Expr> {
        let e = match v {
            Value::Number(x) => Expr::constant(*x),
            Value::Text(t) => self.parameter_expr(field, t, ctx.param)?,
        };
        let value = e.eval(ctx.defaults);
        if !value.is_finite() {
            return self.fail(
                field,
                format!(
                    "evaluates to {value} with the default parameters (entries must be finite)"
                ),
            );
        }
        Ok(e)
    }

    fn matrix(
        &self,
        field: &str,
        rows: Option<Vec<Vec<Value>>>,
        row_names: &[String],
        col_names: &[&str],
        ctx: &MatrixContext,
    ) -> Res<ExprMatrix> {
        let (nr, nc) = (row_names.len(), col_names.len());
        let mut m = ExprMatrix::zeros(nr, nc);
        let Some(rows) = rows else { return Ok(m) };
        if rows.len() != nr {
            let what = if nr == 0 {
                "must be omitted or empty: it has no rows".to_string()
            } else {
                format!(
                    "needs {nr} rows ({}), found {}",
                    row_names.join(", "),
                    rows.len()
                )
            };
            return self.fail(field, what);
        }
        for (i, row) in rows.iter().enumerate() {
            if row.len() != nc {
                return self.fail(
                    format!("{field}[{i}]"),
                    format!(
                        "row {} needs {nc} entries ({}), found {}",
                        row_names[i],
                        col_names.join(", "),
                        row.len()
                    ),
                );
            }
            for (j, v) in row.iter().enumerate() {
                let e = self.entry(&format!("{field}[{i}][{j}]"), v, ctx)?;
                if !e.is_zero() {
                    m.entries.push((i, j, e));
                }
            }
        }
        Ok(m)
    }

    fn vector(
        &self,
        field: &str,
        v: Option<Vec<Value>>,
        row_names: &[String],
        ctx: &MatrixContext,
    ) -> Res<ExprMatrix> {
        let mut m = ExprMatrix::zeros(row_names.len(), 1);
        let Some(v) = v else { return Ok(m) };
        if v.len() != row_names.len() {
            return self.fail(
                field,
                format!(
                    "needs {} entries ({}), found {}",
                    row_names.len(),
                    row_names.join(", "),
                    v.len()
                ),
            );
        }
        for (i, x) in v.iter().enumerate() {
            let e = self.entry(&format!("{field}[{i}]"), x, ctx)?;
            if !e.is_zero() {
                m.entries.push((i, 0, e));
            }
        }
        Ok(m)
    }

    fn output(
        &self,
        field: &str,
        o: raw::RawOutput,
        lookup: &dyn Fn(&str) -> Option<Symbol>,
        ctx: &MatrixContext,
        (nx, nu): (usize, usize),
    ) -> Res<Output> {
        let text = o.value.as_str();
        let err = |e| self.expr_error(field, text, e);
        let node = expr::parse(text).map_err(err)?;
        let form = affine::affine(&node, lookup).map_err(err)?;
        let compile = |n: &Node| -> Res<Expr> {
            let e = Expr::compile(n, ctx.param).map_err(err)?;
            let v = e.eval(ctx.defaults);
            if !v.is_finite() {
                return self.fail(
                    field,
                    format!(
                        "in \"{text}\": a coefficient evaluates to {v} with the default parameters"
                    ),
                );
            }
            Ok(e)
        };
        let mut out = Output {
            name: o.name,
            description: o.description,
            unit: o.unit,
            definition: o.value.clone(),
            constant: compile(&form.constant)?,
            states: vec![],
            pairs: vec![],
            inputs: vec![],
        };
        for (j, c) in &form.terms {
            let c = compile(c)?;
            if c.is_zero() {
                continue;
            }
            match *j {
                j if j < nx => out.states.push((j, c)),
                j if j < nx + nu => out.pairs.push((j - nx, c)),
                j => out.inputs.push((j - nx - nu, c)),
            }
        }
        Ok(out)
    }

    fn experiment(&self, e: Option<raw::RawExperiment>) -> Res<Experiment> {
        let (start, stop, step) = match e {
            Some(e) => (
                e.start.unwrap_or(0.0),
                e.stop.unwrap_or(1.0),
                e.step.unwrap_or(0.01),
            ),
            None => (0.0, 1.0, 0.01),
        };
        self.finite("experiment.start", start)?;
        self.finite("experiment.stop", stop)?;
        if !(stop > start) {
            return self.fail(
                "experiment.stop",
                format!("stop = {stop} must be after start = {start}"),
            );
        }
        if !(step > 0.0 && step.is_finite()) {
            return self.fail(
                "experiment.step",
                format!("step = {step} must be a positive finite number"),
            );
        }
        Ok(Experiment { start, stop, step })
    }

    fn scheme(&self, s: Option<raw::RawScheme>) -> Res<Scheme> {
        let (theta, max_step) = s.map_or((1.0, None), |s| (s.theta.unwrap_or(1.0), s.max_step));
        if !(0.5..=1.0).contains(&theta) {
            return self.fail(
                "scheme.theta",
                format!("theta = {theta} is outside [0.5, 1]"),
            );
        }
        if let Some(h) = max_step {
            if !(h > 0.0 && h.is_finite()) {
                return self.fail(
                    "scheme.max_step",
                    format!("max_step = {h} must be a positive finite number"),
                );
            }
        }
        Ok(Scheme { theta, max_step })
    }
}

struct MatrixContext<'a> {
    param: &'a dyn Fn(&str) -> Option<usize>,
    defaults: &'a [f64],
}
