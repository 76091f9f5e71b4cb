//! The mass matrix of a mechanical model: per coordinate (`coordinates[i].mass`,
//! diagonal) or the whole `mechanics.M`, never both.
//!
//! An entry is a number or an expression of the parameters (assembled into
//! [`ExprMatrix`] as before), or an expression that also reads coordinates:
//! then it is compiled into a program of `q` (kept in
//! [`MechNonlinear::mass`]) and the matrix holds a zero placeholder at its
//! place, so that the pattern (which entries exist, whether `M` is diagonal)
//! is the same as for a constant matrix and the run time writes `M(q)` into
//! it. Checked here, at the default parameters and the start values: every
//! entry finite, `M(q)` symmetric in its expressions (the same expression on
//! both sides of the diagonal, so it is symmetric at every `q`, not only at
//! the start) and positive definite, else refused naming the entry.

use std::collections::HashMap;

use super::super::affine::{is_parametric, Symbol};
use super::super::expr::{self, Expr};
use super::super::mech_nonlinear::MechNonlinear;
use super::super::program::Point;
use super::super::raw::{RawCoordinate, RawMechanics, Value};
use super::super::rows::operands;
use super::super::validate::{MatrixContext, Res, Validator};
use super::super::{ExprMatrix, Variable};
use crate::system::mechanics::{check_mass, cholesky_failure, DENSE_LIMIT};

/// One entry as written: its field, its place and its value.
struct Written<'a> {
    field: String,
    at: (usize, usize),
    value: &'a Value,
}

impl Validator<'_> {
    /// The mass matrix (constant entries, placeholders where an entry reads
    /// coordinates) and the programs of those entries into `nonlinear.mass`.
    pub(super) fn mass(
        &self,
        coords: &[RawCoordinate],
        raw_m: Option<RawMechanics>,
        positions: &[Variable],
        ctx: &MatrixContext,
        nonlinear: &mut MechNonlinear,
    ) -> Res<ExprMatrix> {
        let n = coords.len();
        let rows = raw_m.and_then(|m| m.m);
        let field = if rows.is_some() {
            "mechanics.M"
        } else {
            "coordinates"
        };
        let written = self.written(coords, rows.as_deref(), positions)?;
        let position = |name: &str| match positions.iter().position(|p| p.name == name) {
            Some(i) => Some(Symbol::Var(i)),
            None => (ctx.param)(name).map(Symbol::Param),
        };
        let mut mass = ExprMatrix::zeros(n, n);
        // Only the entries that read coordinates (a per-coordinate mass may
        // have 10⁵ coordinates: nothing here is n²).
        let mut texts: HashMap<(usize, usize), &str> = HashMap::new();
        for w in &written {
            let (i, j) = w.at;
            let text = match w.value {
                Value::Text(t) => t,
                Value::Number(_) => {
                    let e = self.entry(&w.field, w.value, ctx)?;
                    if !e.is_zero() {
                        mass.entries.push((i, j, e));
                    }
                    continue;
                }
            };
            let node = expr::parse(text).map_err(|e| self.expr_error(&w.field, text, e))?;
            if is_parametric(&node, &position) {
                let e = self.entry(&w.field, w.value, ctx)?;
                if !e.is_zero() {
                    mass.entries.push((i, j, e));
                }
                continue;
            }
            // The mechanical form refuses a nonsmooth function of a coordinate
            // (M(q) is differentiated for the gyroscopic forces).
            let program = Expr::compile_program(&node, &operands(&position), self.form).map_err(
                |e| {
                    let hint = " (a mass entry reads coordinates and parameters: not velocities, inputs or time)";
                    self.expr_error_hinted(&w.field, text, e, hint)
                },
            )?;
            texts.insert((i, j), text.as_str());
            mass.entries.push((i, j, Expr::constant(0.0)));
            nonlinear.mass.push((i, j, program));
        }
        self.mass_symmetric(&written, &texts, nonlinear)?;
        // At the default parameters and the start values.
        let q: Vec<f64> = positions.iter().map(|p| p.start).collect();
        let at = Point {
            x: &q,
            u: &[],
            w: &[],
            t: 0.0,
        };
        let mut values: Vec<(usize, usize, f64)> = Vec::new();
        for (i, j, e) in &mass.entries {
            values.push((*i, *j, e.eval(ctx.defaults)));
        }
        for (i, j, p) in &nonlinear.mass {
            let v = p.eval_at(ctx.defaults, &at);
            let w = written.iter().find(|w| w.at == (*i, *j)).expect("written");
            if !v.is_finite() {
                return self.fail(
                    &w.field,
                    format!("evaluates to {v} at the start values and default parameters (entries must be finite)"),
                );
            }
            values.push((*i, *j, v));
        }
        if let Err(mut message) = check_mass(n, &values) {
            // A coupled matrix: name the diagonal entry where it fails.
            let named = message.contains("M[");
            if let Some((row, pivot)) = (!named)
                .then(|| cholesky_failure(n, &values, &mut vec![0.0; n * n]))
                .flatten()
            {
                message.push_str(&format!(
                    ": its leading block up to M[{row}][{row}] is not (Cholesky pivot {pivot:e})"
                ));
            }
            let when = if nonlinear.mass.is_empty() {
                "at the default parameters"
            } else {
                "at the start values and default parameters"
            };
            return self.fail(field, format!("{message} ({when})"));
        }
        Ok(mass)
    }

    /// Every entry as written, with its field; the matrix's shape checked.
    fn written<'a>(
        &self,
        coords: &'a [RawCoordinate],
        rows: Option<&'a [Vec<Value>]>,
        positions: &[Variable],
    ) -> Res<Vec<Written<'a>>> {
        let n = coords.len();
        let Some(rows) = rows else {
            let mut out = Vec::with_capacity(n);
            for (i, c) in coords.iter().enumerate() {
                let field = format!("coordinates[{i}].mass");
                let Some(value) = &c.mass else {
                    return self.fail(
                        field,
                        "missing: give the coordinate's mass, or the whole matrix mechanics.M",
                    );
                };
                out.push(Written {
                    field,
                    at: (i, i),
                    value,
                });
            }
            return Ok(out);
        };
        if let Some(i) = coords.iter().position(|c| c.mass.is_some()) {
            return self.fail(
                format!("coordinates[{i}].mass"),
                "masses are given either per coordinate or as the matrix mechanics.M, not both",
            );
        }
        if n > DENSE_LIMIT {
            return self.fail(
                "mechanics.M",
                format!("a full mass matrix is supported up to {DENSE_LIMIT} coordinates; give masses per coordinate"),
            );
        }
        let names: Vec<&str> = positions.iter().map(|p| p.name.as_str()).collect();
        if rows.len() != n {
            return self.fail(
                "mechanics.M",
                format!(
                    "needs {n} rows (one per coordinate: {}), found {}",
                    names.join(", "),
                    rows.len()
                ),
            );
        }
        let mut out = Vec::with_capacity(n * n);
        for (i, row) in rows.iter().enumerate() {
            if row.len() != n {
                return self.fail(
                    format!("mechanics.M[{i}]"),
                    format!(
                        "row {} needs {n} entries ({}), found {}",
                        names[i],
                        names.join(", "),
                        row.len()
                    ),
                );
            }
            for (j, value) in row.iter().enumerate() {
                out.push(Written {
                    field: format!("mechanics.M[{i}][{j}]"),
                    at: (i, j),
                    value,
                });
            }
        }
        Ok(out)
    }

    /// An entry that reads coordinates has its mirror image written with the
    /// same expression: then `M(q)` is symmetric at every `q`, which a check
    /// at the start values alone could not tell.
    fn mass_symmetric(
        &self,
        written: &[Written],
        texts: &HashMap<(usize, usize), &str>,
        nonlinear: &MechNonlinear,
    ) -> Res<()> {
        let program = |i: usize, j: usize| {
            nonlinear
                .mass
                .iter()
                .find(|(a, b, _)| (*a, *b) == (i, j))
                .map(|p| &p.2)
        };
        for (i, j, p) in &nonlinear.mass {
            let (i, j) = (*i, *j);
            if i == j || program(j, i) == Some(p) {
                continue;
            }
            let field = &written
                .iter()
                .find(|w| w.at == (i, j))
                .expect("written")
                .field;
            let mirror = match texts.get(&(j, i)) {
                Some(t) => format!("\"{t}\""),
                None => "an expression of the parameters only".to_string(),
            };
            return self.fail(
                field,
                format!(
                    "M[{i}][{j}] = \"{}\" reads coordinates but M[{j}][{i}] is {mirror}: the mass matrix must be symmetric at every configuration; write the same expression in both",
                    texts.get(&(i, j)).copied().unwrap_or_default()
                ),
            );
        }
        Ok(())
    }
}
