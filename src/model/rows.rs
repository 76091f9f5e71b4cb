//! Compiling a lowered row: linear terms into matrix entries, the rest into
//! a nonlinear program.
//!
//! The signal form splits every derivative, block input and named output with
//! [`affine::split`]: linear terms with parameter coefficients, plus a
//! constant that is either a parameter tree (the row is linear, exactly as
//! before nonlinear expressions existed) or an expression reading variables
//! or `time` (the row's nonlinear remainder). [`Validator::compile_row`]
//! compiles both halves, checks coefficients at the default parameters, and
//! refuses nonsmooth functions of the state with the field and the text.

use super::affine::{self, Affine, Symbol};
use super::expr::{Expr, Node};
use super::program::Operand;
use super::validate::{MatrixContext, Res, Validator};

/// A compiled row: `constant + sum coeff_j var_j` or `remainder + sum ...`.
pub(super) struct Row {
    /// The parameter constant; zero when there is a remainder.
    pub constant: Expr,
    /// The nonlinear remainder, when the row has one.
    pub remainder: Option<Expr>,
    pub terms: Vec<(usize, Expr)>,
}

/// The lookup of nonlinear programs, from the lookup of linear forms.
pub(super) fn operands(
    lookup: &dyn Fn(&str) -> Option<Symbol>,
) -> impl Fn(&str) -> Option<Operand> + '_ {
    move |n: &str| {
        lookup(n).map(|s| match s {
            Symbol::Param(i) => Operand::Param(i),
            Symbol::Var(j) => Operand::Var(j),
            Symbol::Time => Operand::Time,
        })
    }
}

impl Validator<'_> {
    /// Compiles `form` (written as `text` at `field`); `lookup` knows every
    /// name of the row, `time` included.
    pub(super) fn compile_row(
        &self,
        field: &str,
        text: &str,
        form: &Affine,
        lookup: &dyn Fn(&str) -> Option<Symbol>,
        ctx: &MatrixContext,
    ) -> Res<Row> {
        if affine::is_parametric(&form.constant, lookup) {
            let (constant, terms) = self.compile_form(field, text, form, ctx)?;
            return Ok(Row {
                constant,
                remainder: None,
                terms,
            });
        }
        let linear = Affine {
            constant: Node::Num(0.0),
            terms: form.terms.clone(),
        };
        let (_, terms) = self.compile_form(field, text, &linear, ctx)?;
        let remainder = Expr::compile_program(&form.constant, &operands(lookup), self.form)
            .map_err(|e| self.expr_error(field, text, e))?;
        Ok(Row {
            constant: Expr::constant(0.0),
            remainder: Some(remainder),
            terms,
        })
    }

    /// Checks an expression that will be compiled as part of rows (a block's
    /// input): its coefficients finite, its nonlinear part smooth.
    pub(super) fn check_row(
        &self,
        field: &str,
        text: &str,
        form: &Affine,
        lookup: &dyn Fn(&str) -> Option<Symbol>,
        ctx: &MatrixContext,
    ) -> Res<()> {
        self.compile_row(field, text, form, lookup, ctx).map(|_| ())
    }
}
