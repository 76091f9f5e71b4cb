//! Lowering nonlinear forces, gaps and slips of mechanical models (see
//! [`super::mech_nonlinear`]): each written row is split into its linear terms
//! and a compiled remainder; a slip's remainder must stay linear in the
//! velocities, and a gap must push somewhere at the start values.

use super::affine::{self, Symbol};
use super::expr::{self, Expr, Node};
use super::functions::BinOp;
use super::program::Point;
use super::raw::Value;
use super::validate::{MatrixContext, Res, Validator};

/// A lowered mechanical form: the parameter constant, the linear terms, and
/// the nonlinear remainder when there is one.
pub(super) struct MechForm {
    pub constant: Expr,
    pub terms: Vec<(usize, Expr)>,
    pub remainder: Option<Expr>,
}

/// How far a tree is from linear in the velocities: 0 (does not read one),
/// 1 (linear, coefficients free of velocities), 2 (anything else).
fn velocity_degree(node: &Node, is_velocity: &dyn Fn(&str) -> bool) -> u8 {
    let d = |n: &Node| velocity_degree(n, is_velocity);
    match node {
        Node::Num(_) => 0,
        Node::Name(n) => u8::from(is_velocity(n)),
        Node::Neg(a) => d(a),
        Node::Call(_, a) => 2 * u8::from(d(a) > 0),
        Node::Bin(op, l, r) => {
            let (a, b) = (d(l), d(r));
            match op {
                BinOp::Add | BinOp::Sub => a.max(b),
                BinOp::Mul => (a + b).min(2),
                BinOp::Div if b == 0 => a,
                _ => 2 * u8::from(a + b > 0),
            }
        }
    }
}

impl Validator<'_> {
    /// Refuses a scheme that has no Newton iteration for a nonlinear model.
    pub(super) fn nonlinear_mechanics_scheme(
        &self,
        m: &super::Mechanics,
        method: super::Method,
    ) -> Res<()> {
        let Some(nl) = &m.nonlinear else {
            return Ok(());
        };
        if method != super::Method::MoreauJeanDirectProjection {
            return Ok(());
        }
        let what = if !nl.force.is_empty() {
            "a force"
        } else if !nl.gap.is_empty() {
            "a gap"
        } else {
            "a slip velocity"
        };
        self.fail(
            "scheme.method",
            format!(
                "{what} of this model is nonlinear (or reads time): '{}' does not step such models yet (its index set and Euclidean projection have no Newton iteration); use \"moreau-jean-projected\", \"moreau-jean\" or \"semi-explicit\"",
                method.file_name()
            ),
        )
    }

    /// Lowers a force, gap or slip written as `v` at `field`; `lookup`
    /// classifies every name the row may read (`time` included where allowed).
    pub(super) fn mech_form(
        &self,
        field: &str,
        v: &Value,
        lookup: &dyn Fn(&str) -> Option<Symbol>,
        ctx: &MatrixContext,
        hint: &str,
    ) -> Res<MechForm> {
        let text = match v {
            Value::Number(x) => {
                self.finite(field, *x)?;
                return Ok(MechForm {
                    constant: Expr::constant(*x),
                    terms: vec![],
                    remainder: None,
                });
            }
            Value::Text(t) => t,
        };
        let err = |e: expr::ExprError| {
            let mut e = e;
            if e.message.starts_with("unknown name") && !e.message.contains("'time'") {
                e.message.push_str(hint);
            }
            self.expr_error(field, text, e)
        };
        let node = expr::parse(text).map_err(err)?;
        let form = affine::split(&node, lookup).map_err(err)?;
        let row = self.compile_row(field, text, &form, lookup, ctx)?;
        Ok(MechForm {
            constant: row.constant,
            terms: row.terms,
            remainder: row.remainder,
        })
    }

    /// Refuses a slip remainder that is not linear in the velocities.
    pub(super) fn slip_linear_in_velocity(
        &self,
        field: &str,
        v: &Value,
        is_velocity: &dyn Fn(&str) -> bool,
    ) -> Res<()> {
        let Value::Text(text) = v else { return Ok(()) };
        let node = expr::parse(text).map_err(|e| self.expr_error(field, text, e))?;
        if velocity_degree(&node, is_velocity) > 1 {
            return self.fail(
                field,
                format!(
                    "in \"{text}\": a slip velocity is linear in the velocities (its coefficients may depend on coordinates and parameters): Coulomb's law needs T(q) v"
                ),
            );
        }
        Ok(())
    }

    /// Refuses a gap whose Jacobian row `∂g/∂q` (linear coefficients plus
    /// the program's derivatives) vanishes or is not finite at the start
    /// values: the contact could not push on the coordinates there, and the
    /// first step's Newton iteration would fail on it. Both halves count: the
    /// linear `x` and the nonlinear `-sin(x)` of `x - sin(x)` cancel at 0.
    pub(super) fn gap_acts(
        &self,
        (field, written): (&str, &Value),
        form: &MechForm,
        (start, names): (&[f64], &[&str]),
        ctx: &MatrixContext,
    ) -> Res<()> {
        let text = match written {
            Value::Text(t) => format!("in \"{t}\": "),
            Value::Number(_) => String::new(),
        };
        let mut row: Vec<(usize, f64)> = form
            .terms
            .iter()
            .map(|(j, e)| (*j, e.eval(ctx.defaults)))
            .collect();
        if let Some(program) = &form.remainder {
            let at = Point {
                x: start,
                u: &[],
                w: &[],
                t: 0.0,
            };
            for j in program.variables() {
                let d = program.eval_tangent(ctx.defaults, &at, j as u32).1;
                match row.iter_mut().find(|(k, _)| *k == j) {
                    Some((_, entry)) => *entry += d,
                    None => row.push((j, d)),
                }
            }
        }
        if row.is_empty() {
            return self.fail(
                field,
                format!("{text}the gap does not depend on any coordinate"),
            );
        }
        row.sort_unstable_by_key(|(j, _)| *j);
        let at = row
            .iter()
            .map(|&(j, _)| format!("{} = {}", names[j], start[j]))
            .collect::<Vec<_>>()
            .join(", ");
        if let Some((j, d)) = row.iter().find(|(_, d)| !d.is_finite()) {
            return self.fail(
                field,
                format!(
                    "{text}the gap's derivative along {} is {d} at the start values ({at}) with the default parameters: the gap must be differentiable there",
                    names[*j]
                ),
            );
        }
        if row.iter().all(|(_, d)| *d == 0.0) {
            return self.fail(
                field,
                format!(
                    "{text}the gap's Jacobian dg/dq vanishes at the start values ({at}) with the default parameters: the contact would have no direction to push in"
                ),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn velocity_degrees() {
        let v = |n: &str| n.starts_with('v');
        for (src, d) in [
            ("v1 * cos(q)", 1),
            ("q^2 + 3", 0),
            ("v1 + v2/q - w", 1),
            ("v1*v2", 2),
            ("v1^2", 2),
            ("sin(v1)", 2),
            ("q/v1", 2),
            ("-(L/2)*sin(q)*v1 + v2", 1),
        ] {
            let node = expr::parse(src).unwrap();
            assert_eq!(velocity_degree(&node, &v), d, "{src}");
        }
    }
}
