//! The refusal of nonsmooth functions of variables in nonlinear programs.
//!
//! `abs`, `min`, `max`, `step`, `sign`, `floor` and `frac` of a variable would make
//! the Newton iteration's Jacobian jump, so a program may apply them to
//! parameters and `time` only. What the user writes instead depends on the
//! model's form ([`Form`]): the signal form has blocks (each step solves
//! their complementarity exactly), a mechanical model has none and states its
//! nonsmooth laws as contacts and Coulomb friction. The message names the
//! function and that remedy; the caller adds the file, field and text.

use super::{err, ExprError, Node, Operand};

/// The form of the model a program belongs to: which variables it reads and
/// where its nonsmooth laws are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// First-order models (states with `der`, blocks, or `[system]`).
    Signal,
    /// Models with `[[coordinates]]` and `[[contacts]]`.
    Mechanical,
}

impl Form {
    /// The variables a program of this form reads, as the message names them.
    fn variables(self) -> &'static str {
        match self {
            Form::Signal => "a state, input or block output",
            Form::Mechanical => "a coordinate, velocity or input",
        }
    }

    /// What to write instead of the nonsmooth function `name`.
    fn remedy(self, name: &str) -> String {
        match self {
            Form::Signal => {
                let block = match name {
                    "abs" => "an abs block",
                    "min" => "a min block",
                    "max" => "a max block",
                    "sign" => "a sign block",
                    _ => "a relay, pwa or saturation block (or a switch written as complementarity)",
                };
                format!("use {block} instead (nonsmoothness in the state belongs in complementarity, where each step solves it exactly)")
            }
            // Blocks are refused in mechanical models (validate.rs): the
            // nonsmooth laws there are the contacts' own.
            Form::Mechanical => "a mechanical model has no blocks: write a unilateral constraint as a [[contacts]] gap and dry friction as a contact's friction and slip, which each step solves exactly (forces, gaps and slips themselves stay smooth)".into(),
        }
    }
}

/// Whether `node` reads a variable (a name `lookup` maps to [`Operand::Var`]).
fn reads_variable(node: &Node, lookup: &dyn Fn(&str) -> Option<Operand>) -> bool {
    match node {
        Node::Num(_) => false,
        Node::Name(n) => matches!(lookup(n), Some(Operand::Var(_))),
        Node::Neg(a) | Node::Call(_, a) => reads_variable(a, lookup),
        Node::Bin(_, l, r) => reads_variable(l, lookup) || reads_variable(r, lookup),
    }
}

/// Refuses a nonsmooth function whose argument reads a variable.
pub(super) fn check(
    node: &Node,
    lookup: &dyn Fn(&str) -> Option<Operand>,
    form: Form,
) -> Result<(), ExprError> {
    let refuse = |name: &str| {
        err(
            0,
            format!(
                "{name}(...) of {} is not smooth: {}; {name} of parameters and time is allowed",
                form.variables(),
                form.remedy(name)
            ),
        )
    };
    match node {
        Node::Num(_) | Node::Name(_) => Ok(()),
        Node::Neg(a) => check(a, lookup, form),
        Node::Call(f, a) => {
            if f.nonsmooth() && reads_variable(a, lookup) {
                return refuse(f.name());
            }
            check(a, lookup, form)
        }
        Node::Bin(b, l, r) => {
            if b.nonsmooth() && (reads_variable(l, lookup) || reads_variable(r, lookup)) {
                return refuse(b.call_name().unwrap_or("?"));
            }
            check(l, lookup, form)?;
            check(r, lookup, form)
        }
    }
}
