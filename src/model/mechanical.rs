//! Second stage for mechanical models: coordinates, masses, forces and contacts
//! lowered into [`Mechanics`].
//!
//! A coordinate declares its position and velocity names, start values, its
//! mass (or the file gives the whole matrix `mechanics.M`) and its applied force
//! in coordinates, velocities, inputs and `time`; a contact declares its gap
//! (in coordinates), restitution and optionally Coulomb friction with its slip
//! velocity (linear in velocities, coefficients in coordinates, plus inputs).
//! Linear terms go into the matrices, the rest into programs (see
//! [`super::mech_nonlinear`]). The states are the
//! positions then the velocities; the pairs are, per contact, the normal
//! reaction and, with friction, the two friction parts and the slip speed.
//! Everything is checked at the default parameters, including that the mass
//! matrix is symmetric positive definite; a mechanical file has no states,
//! pairs or `[system]` of the first-order form.

mod friction;
mod mass;

use super::affine::Symbol;
use super::expr::Expr;
use super::mech_nonlinear::MechNonlinear;
use super::raw::{RawContact, RawCoordinate, RawMechanics, RawModel};
use super::validate::{MatrixContext, Names, Res, Validator};
use super::{Contact, ExprMatrix, Mechanics, Pair, Variable};
use crate::system::mechanics::DENSE_LIMIT;
use std::collections::HashMap;

/// Names of the pairs a frictional contact adds after its normal pair.
pub const FRICTION_PAIRS: [(&str, &str); 3] = [
    (
        "_t_plus",
        "friction part acting along +slip (while slipping backwards)",
    ),
    (
        "_t_minus",
        "friction part acting along -slip (while slipping forwards)",
    ),
    (
        "_slip",
        "slip speed |slip velocity| while the contact carries load, zero while sticking",
    ),
];

impl Validator<'_> {
    pub(super) fn mechanics(
        &self,
        coords: Vec<RawCoordinate>,
        contacts: Vec<RawContact>,
        raw_m: Option<RawMechanics>,
        inputs: &[Variable],
        names: &mut Names,
        ctx: &MatrixContext,
    ) -> Res<(Vec<Variable>, Vec<Pair>, Mechanics)> {
        let n = coords.len();
        if n == 0 {
            return self.fail(
                "coordinates",
                "a mechanical model needs at least one [[coordinates]] entry",
            );
        }
        let mut positions = Vec::with_capacity(n);
        let mut velocities = Vec::with_capacity(n);
        for (i, c) in coords.iter().enumerate() {
            let field = format!("coordinates[{i}]");
            names.declare(self, field.clone(), &c.name)?;
            names.declare_at(self, format!("{field}.velocity"), &c.velocity)?;
            positions.push(Variable {
                name: c.name.clone(),
                start: self.constant(&format!("{field}.start"), c.start.as_ref())?,
                description: c.description.clone(),
                unit: c.unit.clone(),
            });
            let unit = match (&c.velocity_unit, c.unit.as_str()) {
                (Some(u), _) => u.clone(),
                (None, "") => String::new(),
                (None, u) => format!("{u}/s"),
            };
            velocities.push(Variable {
                name: c.velocity.clone(),
                start: self.constant(
                    &format!("{field}.velocity_start"),
                    c.velocity_start.as_ref(),
                )?,
                description: format!("velocity of {}", c.name),
                unit,
            });
        }

        let mut nonlinear = MechNonlinear::default();
        let mass = self.mass(&coords, raw_m, &positions, ctx, &mut nonlinear)?;
        let mut symbols: HashMap<&str, Symbol> = HashMap::new();
        for (i, (p, v)) in positions.iter().zip(&velocities).enumerate() {
            symbols.insert(&p.name, Symbol::Var(i));
            symbols.insert(&v.name, Symbol::Var(n + i));
        }
        for (j, w) in inputs.iter().enumerate() {
            symbols.insert(&w.name, Symbol::Var(2 * n + j));
        }
        let param = |name: &str| (ctx.param)(name).map(Symbol::Param);
        let any = |name: &str| symbols.get(name).copied().or_else(|| param(name));

        let nw = inputs.len();
        let mut mech = Mechanics {
            dof: n,
            mass,
            position_force: ExprMatrix::zeros(n, n),
            velocity_force: ExprMatrix::zeros(n, n),
            force: ExprMatrix::zeros(n, 1),
            input_force: ExprMatrix::zeros(n, nw),
            gap: ExprMatrix::zeros(contacts.len(), n),
            gap0: ExprMatrix::zeros(contacts.len(), 1),
            contacts: Vec::with_capacity(contacts.len()),
            nonlinear: None,
        };
        let any_or_time =
            |name: &str| any(name).or_else(|| (name == "time").then_some(Symbol::Time));
        for (i, c) in coords.iter().enumerate() {
            let Some(force) = &c.force else { continue };
            let field = format!("coordinates[{i}].force");
            let form = self.mech_form(
                &field,
                force,
                &any_or_time,
                ctx,
                " (a force reads coordinates, velocities, inputs, parameters and time; contact reactions act through the gaps and slips)",
            )?;
            let (constant, terms) = (form.constant, form.terms);
            if let Some(program) = form.remainder {
                nonlinear.force.push((i, program));
            }
            if !constant.is_zero() {
                mech.force.entries.push((i, 0, constant));
            }
            for (j, e) in terms {
                match j {
                    j if j < n => mech.position_force.entries.push((i, j, e)),
                    j if j < 2 * n => mech.velocity_force.entries.push((i, j - n, e)),
                    j => mech.input_force.entries.push((i, j - 2 * n, e)),
                }
            }
        }

        let starts: Vec<f64> = positions.iter().map(|p| p.start).collect();
        let coordinate_names: Vec<&str> = positions.iter().map(|p| p.name.as_str()).collect();
        let mut pairs = Vec::with_capacity(contacts.len());
        for (k, c) in contacts.iter().enumerate() {
            let field = format!("contacts[{k}]");
            names.declare(self, field.clone(), &c.name)?;
            let position = |name: &str| match symbols.get(name) {
                Some(Symbol::Var(j)) if *j < n => Some(Symbol::Var(*j)),
                Some(_) => None,
                None => param(name),
            };
            let form = self.mech_form(
                &format!("{field}.gap"),
                &c.gap,
                &position,
                ctx,
                " (a gap reads coordinates and parameters)",
            )?;
            self.gap_acts(
                (&format!("{field}.gap"), &c.gap),
                &form,
                (&starts, &coordinate_names),
                ctx,
            )?;
            let (g0, terms) = (form.constant, form.terms);
            if let Some(program) = form.remainder {
                nonlinear.gap.push((k, program));
            }
            if !g0.is_zero() {
                mech.gap0.entries.push((k, 0, g0));
            }
            mech.gap
                .entries
                .extend(terms.into_iter().map(|(j, e)| (k, j, e)));
            let restitution = self.coefficient(
                &format!("{field}.restitution"),
                c.restitution.as_ref(),
                ctx,
                (0.0, 1.0),
            )?;
            let friction = self.friction(&field, c, &symbols, n, ctx, k, &mut nonlinear)?;
            mech.contacts.push(Contact {
                pair: pairs.len(),
                restitution,
                friction: friction.clone(),
            });
            let pair = |name: String, description: String| Pair {
                name,
                lo: Expr::constant(0.0),
                hi: Expr::constant(f64::INFINITY),
                description,
                unit: c.unit.clone(),
                algebraic: false,
            };
            pairs.push(pair(c.name.clone(), c.description.clone()));
            if friction.is_some() {
                for (suffix, what) in FRICTION_PAIRS {
                    let name = format!("{}{suffix}", c.name);
                    names.declare_at(self, format!("{field}.friction"), &name)?;
                    let mut p = pair(name, format!("{}: {what}", c.name));
                    if suffix == "_slip" {
                        p.unit = String::new();
                    }
                    pairs.push(p);
                }
            }
        }

        let diagonal = |m: &ExprMatrix| m.entries.iter().all(|(i, j, _)| i == j);
        let lumped = diagonal(&mech.mass)
            && diagonal(&mech.position_force)
            && diagonal(&mech.velocity_force);
        if !lumped && n > DENSE_LIMIT {
            return self.fail(
                "coordinates",
                format!(
                    "{n} coordinates with a coupled (non-diagonal) mass, stiffness or damping matrix: it is factored densely, which is supported up to {DENSE_LIMIT} coordinates"
                ),
            );
        }
        let frictional = mech.contacts.iter().any(|c| c.friction.is_some());
        if (!lumped || frictional) && pairs.len() > DENSE_LIMIT {
            let why = if frictional {
                "friction"
            } else {
                "a coupled (non-diagonal) mass, stiffness or damping matrix"
            };
            return self.fail(
                "contacts",
                format!(
                    "{} contact unknowns with {why}: the contact problem is dense, which is supported up to {DENSE_LIMIT} unknowns (frictionless contacts on lumped bodies have no such limit)",
                    pairs.len()
                ),
            );
        }
        if !nonlinear.is_empty() {
            mech.nonlinear = Some(nonlinear);
        }
        let mut states = positions;
        states.extend(velocities);
        Ok((states, pairs, mech))
    }

    /// A mechanical model states its dynamics with coordinates and contacts only.
    pub(super) fn first_order_absent(&self, raw: &RawModel) -> Res<()> {
        let system_given = raw.system.any_given();
        let clash = if !raw.states.is_empty() {
            Some("states")
        } else if !raw.complementarity.is_empty() {
            Some("complementarity")
        } else if system_given {
            Some("system")
        } else {
            None
        };
        match clash {
            Some(field) => self.fail(
                field,
                "a mechanical model (one with [[coordinates]] or [[contacts]]) takes its states from the coordinates and its pairs from the contacts; remove this section",
            ),
            None => Ok(()),
        }
    }
}
