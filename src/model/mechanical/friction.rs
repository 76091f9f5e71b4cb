//! A contact's Coulomb friction: the friction coefficient and the slip
//! velocity along one tangential direction (linear in velocities with
//! coefficients in coordinates, plus inputs), split into its linear rows and a
//! nonlinear remainder; and the bounded coefficients (restitution, `mu`)
//! checked at the default parameters.

use crate::model::affine::Symbol;
use crate::model::expr::Expr;
use crate::model::mech_nonlinear::MechNonlinear;
use crate::model::raw::{RawContact, Value};
use crate::model::validate::{MatrixContext, Res, Validator};
use crate::model::Friction;
use std::collections::HashMap;

impl Validator<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn friction(
        &self,
        field: &str,
        c: &RawContact,
        symbols: &HashMap<&str, Symbol>,
        n: usize,
        ctx: &MatrixContext,
        k: usize,
        nonlinear: &mut MechNonlinear,
    ) -> Res<Option<Friction>> {
        let (mu, slip) = match (&c.friction, &c.slip) {
            (None, None) => return Ok(None),
            (Some(_), None) => {
                return self.fail(
                    format!("{field}.slip"),
                    "missing: a contact with friction needs its slip (tangential) velocity",
                )
            }
            (None, Some(_)) => {
                return self.fail(
                    format!("{field}.friction"),
                    "missing: slip is given but no friction coefficient",
                )
            }
            (Some(mu), Some(slip)) => (mu, slip),
        };
        let mu = self.coefficient(
            &format!("{field}.friction"),
            Some(mu),
            ctx,
            (0.0, f64::INFINITY),
        )?;
        // Coordinates are read by the coefficients only (slip_form checks
        // the text first); the split keeps a product with a coordinate in
        // the remainder.
        let variable = |name: &str| match symbols.get(name) {
            Some(s) => Some(*s),
            None => (ctx.param)(name).map(Symbol::Param),
        };
        let field_slip = format!("{field}.slip");
        let is_velocity = |name: &str| matches!(symbols.get(name), Some(Symbol::Var(j)) if (n..2 * n).contains(j));
        let is_coordinate =
            |name: &str| matches!(symbols.get(name), Some(Symbol::Var(j)) if *j < n);
        self.slip_form(&field_slip, slip, &is_velocity, &is_coordinate)?;
        let form = self.mech_form(
            &field_slip,
            slip,
            &variable,
            ctx,
            " (a slip velocity reads velocities, inputs, coordinates in its coefficients, and parameters)",
        )?;
        let (slip0, terms) = (form.constant, form.terms);
        let slip_reads_velocity = form
            .remainder
            .as_ref()
            .is_some_and(|e| e.variables().iter().any(|j| (n..2 * n).contains(j)));
        if let Some(program) = form.remainder {
            nonlinear.slip.push((k, program));
        }
        let mut f = Friction {
            mu,
            slip: vec![],
            slip_inputs: vec![],
            slip0,
        };
        for (j, e) in terms {
            match j {
                j if j < n => unreachable!("slip_form refused a coordinate outside T(q)"),
                j if j < 2 * n => f.slip.push((j - n, e)),
                j => f.slip_inputs.push((j - 2 * n, e)),
            }
        }
        if f.slip.is_empty() && !slip_reads_velocity {
            return self.fail(
                format!("{field}.slip"),
                "the slip velocity does not depend on any velocity",
            );
        }
        Ok(Some(f))
    }

    /// A parameter expression whose default value lies in `[lo, hi]` (default 0).
    pub(super) fn coefficient(
        &self,
        field: &str,
        v: Option<&Value>,
        ctx: &MatrixContext,
        (lo, hi): (f64, f64),
    ) -> Res<Expr> {
        let Some(v) = v else {
            return Ok(Expr::constant(0.0));
        };
        let e = self.entry(field, v, ctx)?;
        let x = e.eval(ctx.defaults);
        if !(x >= lo && x <= hi) {
            return self.fail(
                field,
                format!("{x} at the default parameters is outside [{lo}, {hi}]"),
            );
        }
        Ok(e)
    }
}
