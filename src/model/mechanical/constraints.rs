//! Equality constraints of a mechanical model (`[[constraints]]`): each is a
//! smooth expression of the coordinates and parameters that the motion keeps
//! at zero, lowered as a bilateral contact after the unilateral ones (its gap
//! row is the value, its pair the multiplier, free in sign).
//!
//! Checked at the start values with the default parameters: the value must
//! read a coordinate and have a finite, nonzero Jacobian row there (the
//! contacts' own check), and the constraints' rows must be linearly
//! independent: a redundant set (two identical constraints, or one that is a
//! combination of others) has no unique multiplier, and the message names the
//! constraints involved. Constraints that read `time` (driven motions) are
//! refused: the step has no `∂value/∂t` term yet.

use crate::model::affine::Symbol;
use crate::model::expr::Expr;
use crate::model::mech_nonlinear::MechNonlinear;
use crate::model::mech_rows::RowRole;
use crate::model::raw::RawConstraint;
use crate::model::validate::{MatrixContext, Names, Res, Validator};
use crate::model::{Contact, Mechanics, Pair};
use nalgebra::DMatrix;

/// Smallest eigenvalue of the Gram matrix of the unit Jacobian rows below
/// which they count as dependent: a singular value below 1e-6 (the Gram
/// matrix squares it; its rounding is about 1e-16).
const GRAM_TOL: f64 = 1e-12;

impl Validator<'_> {
    /// Appends the constraints to `mech`'s contacts (gap rows `first..`),
    /// their programs to `nonlinear` and their multipliers to `pairs`.
    pub(super) fn constraints(
        &self,
        constraints: &[RawConstraint],
        position: &dyn Fn(&str) -> Option<Symbol>,
        (starts, coordinate_names): (&[f64], &[&str]),
        ctx: &MatrixContext,
        names: &mut Names,
        (mech, nonlinear, pairs): (&mut Mechanics, &mut MechNonlinear, &mut Vec<Pair>),
    ) -> Res<()> {
        let first = mech.contacts.len();
        let n = mech.dof;
        let mut rows = Vec::with_capacity(constraints.len());
        for (i, c) in constraints.iter().enumerate() {
            let field = format!("constraints[{i}]");
            names.declare(self, field.clone(), &c.name)?;
            let value_field = format!("{field}.value");
            let form = self
                .mech_form(
                    &value_field,
                    &c.value,
                    position,
                    ctx,
                    " (a constraint's value reads coordinates and parameters)",
                )
                .map_err(|mut e| {
                    if e.message.contains("time is not known here") {
                        e.message = e.message.replace(
                            "time is not known here",
                            "time is not known here (a constraint that reads time, a driven motion, is not supported yet: the step has no d(value)/dt term)",
                        );
                    }
                    e
                })?;
            let row = self.gap_acts(
                (&value_field, &c.value),
                &form,
                (starts, coordinate_names),
                ctx,
                RowRole::Constraint,
            )?;
            rows.push(row);
            let k = first + i;
            if let Some(program) = form.remainder {
                nonlinear.gap.push((k, program));
            }
            if !form.constant.is_zero() {
                mech.gap0.entries.push((k, 0, form.constant));
            }
            mech.gap
                .entries
                .extend(form.terms.into_iter().map(|(j, e)| (k, j, e)));
            mech.contacts.push(Contact {
                pair: pairs.len(),
                restitution: Expr::constant(0.0),
                friction: None,
                bilateral: true,
            });
            pairs.push(Pair {
                name: c.name.clone(),
                lo: Expr::constant(f64::NEG_INFINITY),
                hi: Expr::constant(f64::INFINITY),
                description: if c.description.is_empty() {
                    format!("impulse over the step keeping {} = 0", c.name)
                } else {
                    c.description.clone()
                },
                unit: c.unit.clone(),
                algebraic: false,
            });
        }
        if let Some((last, others)) = dependent(n, &rows) {
            let mut involved: Vec<String> = others
                .iter()
                .map(|&j| format!("constraints[{j}] ('{}')", constraints[j].name))
                .collect();
            involved.push(format!(
                "constraints[{last}] ('{}')",
                constraints[last].name
            ));
            return self.fail(
                format!("constraints[{last}].value"),
                format!(
                    "the constraints {} are redundant: their Jacobian rows d(value)/dq are linearly dependent at the start values with the default parameters, so their multipliers are not unique; remove one",
                    involved.join(" and ")
                ),
            );
        }
        Ok(())
    }
}

/// The first row (in order) that is a combination of the rows before it, and
/// those rows with a nonzero weight in the combination; `None` when the rows
/// (each scaled to unit length: constraints may have any units) are
/// independent.
fn dependent(n: usize, rows: &[Vec<(usize, f64)>]) -> Option<(usize, Vec<usize>)> {
    let mut a = DMatrix::<f64>::zeros(rows.len(), n);
    for (i, row) in rows.iter().enumerate() {
        let norm = row.iter().map(|(_, d)| d * d).sum::<f64>().sqrt();
        for &(j, d) in row {
            a[(i, j)] += d / norm;
        }
    }
    for last in 1..rows.len() {
        // The weights c with cᵀ A = 0 over rows 0..=last: the eigenvector of
        // the Gram matrix A Aᵀ (square whatever the number of coordinates)
        // for its smallest eigenvalue, the square of A's smallest singular
        // value.
        let block = a.rows(0, last + 1);
        let gram = block * block.transpose();
        let eig = gram.symmetric_eigen();
        let (k, &smallest) = eig
            .eigenvalues
            .iter()
            .enumerate()
            .min_by(|x, y| x.1.total_cmp(y.1))
            .expect("at least two rows");
        if smallest > GRAM_TOL {
            continue;
        }
        let c = eig.eigenvectors.column(k);
        let top = c.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let others = (0..last)
            .filter(|&j| c[j].abs() > 1e-6 * top)
            .collect::<Vec<_>>();
        return Some((last, others));
    }
    None
}
