//! Lowering nonlinear forces, gaps and slips of mechanical models (see
//! [`super::mech_nonlinear`]): each written row is split into its linear terms
//! and a compiled remainder; a slip must be `T(q) v + Tw w + t0` (linear in
//! the velocities, coordinates only in their coefficients), and a gap must
//! push somewhere at the start values.

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

/// The part of a tree free of velocities (the tree with every velocity set
/// to zero), for a tree at most linear in them: identically zero, free of
/// coordinates, or reading the coordinate named.
#[derive(Debug, PartialEq)]
enum Free<'a> {
    Zero,
    Plain,
    Reads(&'a str),
}

/// A sum's part free of velocities from its terms'.
fn either<'a>(a: Free<'a>, b: Free<'a>) -> Free<'a> {
    match (a, b) {
        (Free::Reads(q), _) | (_, Free::Reads(q)) => Free::Reads(q),
        (Free::Zero, Free::Zero) => Free::Zero,
        _ => Free::Plain,
    }
}

/// [`Free`] of `node`, structurally (`x*v - x*v` is zero, `x - x` reads `x`).
fn free_part<'a>(
    node: &'a Node,
    is_velocity: &dyn Fn(&str) -> bool,
    is_coordinate: &dyn Fn(&str) -> bool,
) -> Free<'a> {
    let f = |n: &'a Node| free_part(n, is_velocity, is_coordinate);
    match node {
        Node::Num(_) => Free::Plain,
        Node::Name(n) if is_velocity(n) => Free::Zero,
        Node::Name(n) if is_coordinate(n) => Free::Reads(n),
        Node::Name(_) => Free::Plain,
        Node::Neg(a) => f(a),
        // Linear in the velocities: their product with anything, and a
        // quotient of them, vanishes with them.
        Node::Bin(BinOp::Mul, l, r) => match (f(l), f(r)) {
            (Free::Zero, _) | (_, Free::Zero) => Free::Zero,
            (a, b) => either(a, b),
        },
        Node::Bin(BinOp::Div, l, r) => match f(l) {
            Free::Zero => Free::Zero,
            a => either(a, f(r)),
        },
        Node::Bin(BinOp::Add | BinOp::Sub, l, r) => either(f(l), f(r)),
        // Calls and the other operators read no velocity (the degree check
        // comes first): zero arguments make a constant (cos(0) = 1).
        Node::Call(_, a) => either(f(a), Free::Plain),
        Node::Bin(_, l, r) => either(either(f(l), f(r)), Free::Plain),
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
        // M(q): only plain Moreau–Jean has its gyroscopic forces and the
        // mass at the iterate so far; the projections measure in a constant
        // mass norm and semi-explicit inverts a constant M.
        if !nl.mass.is_empty() && method != super::Method::MoreauJean {
            return self.fail(
                "scheme.method",
                format!(
                    "the mass matrix of this model depends on the coordinates: '{}' does not step such models yet (its projection or explicit forces assume a constant M); use \"moreau-jean\"",
                    method.file_name()
                ),
            );
        }
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

    /// Refuses a slip that is not `T(q) v + Tw w + t0`: not linear in the
    /// velocities, or with a term that reads a coordinate without
    /// multiplying a velocity (`v + x`, `v + sin(x)`: the runtime would take
    /// it as an offset, but the friction force acts along `T = ds/dv` and
    /// the Newton step does not differentiate an offset in `q`). The whole
    /// text is checked before the split, so linear and nonlinear terms
    /// follow one rule.
    pub(super) fn slip_form(
        &self,
        field: &str,
        v: &Value,
        is_velocity: &dyn Fn(&str) -> bool,
        is_coordinate: &dyn Fn(&str) -> bool,
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
        if let Free::Reads(q) = free_part(&node, is_velocity, is_coordinate) {
            return self.fail(
                field,
                format!(
                    "in \"{text}\": a term reads coordinate {q} without multiplying a velocity: a slip velocity is T(q) v + Tw w + t0, with coordinates only in the coefficients T(q) of the velocities (the part free of velocities reads inputs and parameters)"
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

    #[test]
    fn parts_free_of_velocities() {
        let v = |n: &str| n.starts_with('v');
        let q = |n: &str| n.starts_with('q');
        for (src, free) in [
            ("v1 * cos(q)", Free::Zero),
            ("v1/(2 + q) - v2*q", Free::Zero),
            ("v1 - w + 1", Free::Plain),
            ("cos(0*v1)", Free::Plain),
            ("v1 + q", Free::Reads("q")),
            ("v1 + sin(q2)", Free::Reads("q2")),
            ("(v1 + 1)*q", Free::Reads("q")),
            ("v1 + q*w", Free::Reads("q")),
            ("q*v1 - q*v1", Free::Zero),
        ] {
            let node = expr::parse(src).unwrap();
            assert_eq!(free_part(&node, &v, &q), free, "{src}");
        }
    }
}
