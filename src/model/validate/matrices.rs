//! The matrix form of a model file: the complementarity pairs and their
//! bounds, the system matrices and vectors entry by entry (each a parameter
//! expression, checked finite at the defaults), and named outputs split into
//! a linear form over the variables plus a nonlinear remainder. Blocks and
//! `der` rows (see `signals`) compile their linear forms here too.

use super::{Names, Res, Validator};
use crate::model::affine::{self, Symbol};
use crate::model::expr::{self, Expr, Node};
use crate::model::raw::{self, Value};
use crate::model::{ExprMatrix, Output, Pair, System, Variable};
use std::collections::HashMap;

impl Validator<'_> {
    pub(super) fn pairs(
        &self,
        list: &[raw::RawPair],
        names: &mut Names,
        ctx: &MatrixContext,
    ) -> Res<Vec<Pair>> {
        let mut pairs = Vec::new();
        for (i, p) in list.iter().enumerate() {
            let field = format!("complementarity[{i}]");
            names.declare(self, field.clone(), &p.name)?;
            let lo = self.bound(&format!("{field}.lo"), p.lo.as_ref(), 0.0, ctx.param)?;
            let hi = self.bound(
                &format!("{field}.hi"),
                p.hi.as_ref(),
                f64::INFINITY,
                ctx.param,
            )?;
            let (l, h) = (lo.eval(ctx.defaults), hi.eval(ctx.defaults));
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
                algebraic: false,
            });
        }
        Ok(pairs)
    }

    pub(super) fn system(
        &self,
        s: raw::RawSystem,
        states: &[Variable],
        pairs: &[Pair],
        inputs: &[Variable],
        ctx: &MatrixContext,
    ) -> Res<System> {
        let rows_x: Vec<String> = states.iter().map(|s| format!("der({})", s.name)).collect();
        let rows_u: Vec<String> = pairs.iter().map(|p| format!("y of {}", p.name)).collect();
        let cols_x: Vec<&str> = states.iter().map(|s| s.name.as_str()).collect();
        let cols_u: Vec<&str> = pairs.iter().map(|p| p.name.as_str()).collect();
        let cols_w: Vec<&str> = inputs.iter().map(|w| w.name.as_str()).collect();
        Ok(System {
            a: self.matrix("system.A", s.a, &rows_x, &cols_x, ctx)?,
            b: self.matrix("system.B", s.b, &rows_x, &cols_u, ctx)?,
            e: self.matrix("system.E", s.e, &rows_x, &cols_w, ctx)?,
            f: self.vector("system.f", s.f, &rows_x, ctx)?,
            c: self.matrix("system.C", s.c, &rows_u, &cols_x, ctx)?,
            d: self.matrix("system.D", s.d, &rows_u, &cols_u, ctx)?,
            fw: self.matrix("system.F", s.fw, &rows_u, &cols_w, ctx)?,
            g: self.vector("system.g", s.g, &rows_u, ctx)?,
        })
    }

    pub(super) fn bound(
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

    pub(in crate::model) fn entry(&self, field: &str, v: &Value, ctx: &MatrixContext) -> Res<Expr> {
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

    pub(in crate::model) fn matrix(
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

    pub(super) fn vector(
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

    /// A named output and its nonlinear remainder, if any.
    pub(super) fn output(
        &self,
        field: &str,
        o: raw::RawOutput,
        lookup: &dyn Fn(&str) -> Option<Symbol>,
        ctx: &MatrixContext,
        (nx, nu): (usize, usize),
    ) -> Res<(Output, Option<Expr>)> {
        let node = expr::parse(&o.value).map_err(|e| self.expr_error(field, &o.value, e))?;
        let form = affine::split(&node, lookup).map_err(|e| self.expr_error(field, &o.value, e))?;
        let row = self.compile_row(field, &o.value, &form, lookup, ctx)?;
        let (constant, terms, remainder) = (row.constant, row.terms, row.remainder);
        let mut out = Output {
            name: o.name,
            description: o.description,
            unit: o.unit,
            definition: o.value,
            constant,
            states: vec![],
            pairs: vec![],
            inputs: vec![],
        };
        for (j, c) in terms {
            match j {
                j if j < nx => out.states.push((j, c)),
                j if j < nx + nu => out.pairs.push((j - nx, c)),
                j => out.inputs.push((j - nx - nu, c)),
            }
        }
        Ok((out, remainder))
    }

    /// Compiles the coefficients of `form` (written as `text`, for messages),
    /// each finite at the default parameters; terms that fold to zero are dropped.
    pub(in crate::model) fn compile_form(
        &self,
        field: &str,
        text: &str,
        form: &affine::Affine,
        ctx: &MatrixContext,
    ) -> Res<(Expr, Vec<(usize, Expr)>)> {
        let compile = |n: &Node| -> Res<Expr> {
            let e = Expr::compile(n, ctx.param).map_err(|e| self.expr_error(field, text, e))?;
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
        let constant = compile(&form.constant)?;
        let mut terms = Vec::with_capacity(form.terms.len());
        for (j, c) in &form.terms {
            let c = compile(c)?;
            if !c.is_zero() {
                terms.push((*j, c));
            }
        }
        Ok((constant, terms))
    }
}

/// The variables of linear forms by name: the states, then the pairs, then
/// the inputs (`Symbol::Var` indices in that order).
pub(in crate::model) fn variable_symbols<'m>(
    states: &'m [Variable],
    pairs: &'m [Pair],
    inputs: &'m [Variable],
) -> HashMap<&'m str, Symbol> {
    let (nx, nu) = (states.len(), pairs.len());
    let mut symbols = HashMap::new();
    for (i, v) in states.iter().enumerate() {
        symbols.insert(v.name.as_str(), Symbol::Var(i));
    }
    for (j, p) in pairs.iter().enumerate() {
        symbols.insert(p.name.as_str(), Symbol::Var(nx + j));
    }
    for (j, w) in inputs.iter().enumerate() {
        symbols.insert(w.name.as_str(), Symbol::Var(nx + nu + j));
    }
    symbols
}

/// How entries are compiled: parameter names and their default values.
pub(in crate::model) struct MatrixContext<'a> {
    pub(in crate::model) param: &'a dyn Fn(&str) -> Option<usize>,
    pub(in crate::model) defaults: &'a [f64],
}
