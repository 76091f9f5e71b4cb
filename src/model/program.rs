//! Nonlinear programs: expressions over parameters, variables and `time`.
//!
//! A state's derivative, a block's input or a named output that is not linear
//! in the variables (`mu*(1 - x1^2)*x2`, `Vm*cos(w*time)`) is kept as the same
//! postfix program parameter expressions compile to, with two more operands:
//! [`Op::Var`] (states, then pairs, then inputs, the order of
//! `validate::variable_symbols`) and [`Op::Time`]. The step evaluates them at
//! run time, with parameters fixed at initialization:
//!
//! - [`Expr::eval_at`]: the value;
//! - [`Expr::eval_tangent`]: value and derivative along one variable, by
//!   forward-mode automatic differentiation with dual numbers `(v, dv)`
//!   pushed through the program (never finite differences). Written here
//!   rather than taken from `num-dual`: the program is our own postfix code,
//!   a dual here is two `f64` on a fixed stack, and every derivative rule sits
//!   beside its function in [`super::functions`];
//! - [`Expr::eval_magnitude`]: the value and the size of its terms (sums
//!   add magnitudes), which scales the Newton iteration's convergence test.
//!
//! All three run on a stack of [`MAX_STACK`] entries: no allocation.

mod fold;
mod smooth;

pub use smooth::Form;

use super::expr::{emit, err, BinOp, Expr, ExprError, Node, Op, MAX_STACK};
use serde::{Deserialize, Serialize};

/// Where a program is evaluated: the variables (states, pairs, inputs, read
/// in place rather than gathered into one vector) and the time.
#[derive(Clone, Copy, Debug)]
pub struct Point<'a> {
    pub x: &'a [f64],
    pub u: &'a [f64],
    pub w: &'a [f64],
    pub t: f64,
}

impl Point<'_> {
    /// Variable `j` of the order states, pairs, inputs (NaN when out of range).
    #[inline]
    pub fn var(&self, j: usize) -> f64 {
        let (nx, nu) = (self.x.len(), self.u.len());
        if j < nx {
            self.x[j]
        } else if j < nx + nu {
            self.u[j - nx]
        } else {
            self.w.get(j - nx - nu).copied().unwrap_or(f64::NAN)
        }
    }
}

/// The seed of [`Expr::eval_tangent`] that differentiates along `time`
/// (variables are numbered far below it).
pub const TIME_SEED: u32 = u32::MAX - 1;

/// What a name in a nonlinear program stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    Param(usize),
    Var(usize),
    Time,
}

/// The nonlinear parts of a first-order model, added to its linear rows:
/// `x' = A x + B u + E w + f + φ(x, u, w, t)`, `y = C x + D u + F w + g + ψ(...)`,
/// outputs `z = Hx x + ... + χ(...)`. Each entry is `(row, program)`, rows
/// increasing; a row without an entry is linear.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Nonlinear {
    pub der: Vec<(usize, Expr)>,
    pub y: Vec<(usize, Expr)>,
    pub outputs: Vec<(usize, Expr)>,
}

impl Nonlinear {
    /// Whether the dynamics (not only outputs) are nonlinear: the step then
    /// needs the Newton iteration.
    pub fn dynamics(&self) -> bool {
        !self.der.is_empty() || !self.y.is_empty()
    }

    /// Whether a remainder of the dynamics or of the relation reads one of
    /// the first `nxu` variables (the states and the pairs): the model is then
    /// not affine in them, and its step needs Newton's iteration.
    pub fn reads_unknowns(&self, nxu: usize) -> bool {
        self.der
            .iter()
            .chain(&self.y)
            .any(|(_, e)| e.variables().iter().any(|&j| j < nxu))
    }

    /// Whether every program is well formed over `np` parameters and `nv`
    /// variables and every row is below its bound.
    pub fn is_consistent(&self, np: usize, nv: usize, (nx, nu, no): (usize, usize, usize)) -> bool {
        let ok = |list: &[(usize, Expr)], rows: usize| {
            list.iter()
                .all(|(i, e)| *i < rows && e.is_well_formed_program(np, nv))
        };
        ok(&self.der, nx) && ok(&self.y, nu) && ok(&self.outputs, no)
    }
}

impl Expr {
    /// Compiles a tree over parameters, variables and `time`, refusing
    /// nonsmooth functions of variables (the refusal points to what `form`
    /// writes such laws with).
    pub fn compile_program(
        node: &Node,
        lookup: &dyn Fn(&str) -> Option<Operand>,
        form: Form,
    ) -> Result<Expr, ExprError> {
        smooth::check(node, lookup, form)?;
        Self::compile_evaluated(node, lookup)
    }

    /// Compiles a tree that is only ever evaluated, never differentiated nor
    /// stepped through (a `[[discrete]]` update or held output, evaluated at
    /// sample instants): nonsmooth functions of variables (`min`, `max`,
    /// `abs`, `step`) are allowed, as a sampled controller's law is a plain
    /// function of what it reads.
    pub fn compile_evaluated(
        node: &Node,
        lookup: &dyn Fn(&str) -> Option<Operand>,
    ) -> Result<Expr, ExprError> {
        let mut ops = Vec::new();
        let operand = |name: &str| {
            lookup(name).map(|o| match o {
                Operand::Param(i) => Op::Param(i as u32),
                Operand::Var(j) => Op::Var(j as u32),
                Operand::Time => Op::Time,
            })
        };
        emit(node, &operand, &mut ops)?;
        let expr = Expr::from_ops(super::expr::fold_constants(ops));
        if expr.stack_depth() > MAX_STACK {
            return err(0, "expression too large");
        }
        Ok(expr)
    }

    /// Whether the program is well formed over `np` parameters and `nv` variables.
    pub fn is_well_formed_program(&self, np: usize, nv: usize) -> bool {
        let mut depth = 0usize;
        for op in self.ops() {
            match *op {
                Op::Const(_) | Op::Time => depth += 1,
                Op::Param(i) if (i as usize) < np => depth += 1,
                Op::Var(j) if (j as usize) < nv => depth += 1,
                Op::Neg | Op::Call(_) if depth >= 1 => {}
                Op::Bin(_) if depth >= 2 => depth -= 1,
                _ => return false,
            }
            if depth > MAX_STACK {
                return false;
            }
        }
        depth == 1
    }

    /// The variables the program reads, increasing, each once.
    pub fn variables(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self
            .ops()
            .iter()
            .filter_map(|op| match op {
                Op::Var(j) => Some(*j as usize),
                _ => None,
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Whether the program reads `time`.
    pub fn reads_time(&self) -> bool {
        self.ops().iter().any(|op| matches!(op, Op::Time))
    }

    /// The deepest stack the program needs (callers that evaluate it often
    /// keep this and pick a small stack, see [`Expr::eval_tangent_in`]).
    pub fn depth(&self) -> usize {
        self.stack_depth()
    }

    /// The value at parameters `p` and point `at`; never allocates.
    pub fn eval_at(&self, p: &[f64], at: &Point) -> f64 {
        self.eval_tangent(p, at, u32::MAX).0
    }

    /// The value and its derivative with respect to variable `seed`
    /// ([`TIME_SEED`]: with respect to `time`)
    /// (forward mode: each stack entry is a dual number `(value, tangent)`).
    pub fn eval_tangent(&self, p: &[f64], at: &Point, seed: u32) -> (f64, f64) {
        self.eval_tangent_in::<MAX_STACK>(p, at, seed)
    }

    /// [`Expr::eval_tangent`] on a stack of `N` entries, which must be at
    /// least [`Expr::depth`]: a step evaluates its programs many times, and
    /// clearing a stack of [`MAX_STACK`] pairs would cost more than most
    /// programs.
    pub fn eval_tangent_in<const N: usize>(&self, p: &[f64], at: &Point, seed: u32) -> (f64, f64) {
        let mut stack = [(0.0f64, 0.0f64); N];
        let mut top = 0usize;
        for op in self.ops() {
            match *op {
                Op::Const(c) => {
                    stack[top] = (c, 0.0);
                    top += 1;
                }
                Op::Param(i) => {
                    stack[top] = (p.get(i as usize).copied().unwrap_or(f64::NAN), 0.0);
                    top += 1;
                }
                Op::Var(j) => {
                    let x = at.var(j as usize);
                    stack[top] = (x, if j == seed { 1.0 } else { 0.0 });
                    top += 1;
                }
                Op::Time => {
                    stack[top] = (at.t, if seed == TIME_SEED { 1.0 } else { 0.0 });
                    top += 1;
                }
                Op::Neg => {
                    let (a, da) = stack[top - 1];
                    stack[top - 1] = (-a, -da);
                }
                Op::Call(f) => {
                    let (a, da) = stack[top - 1];
                    let value = f.apply(a);
                    let d = if da == 0.0 {
                        0.0
                    } else {
                        f.derivative(a, value) * da
                    };
                    stack[top - 1] = (value, d);
                }
                Op::Bin(b) => {
                    top -= 1;
                    let ((a, da), (c, dc)) = (stack[top - 1], stack[top]);
                    let value = apply(b, a, c);
                    let d = if da == 0.0 && dc == 0.0 {
                        0.0
                    } else {
                        b.derivative(a, c, value, da, dc)
                    };
                    stack[top - 1] = (value, d);
                }
            }
        }
        stack[0]
    }

    /// The value and the magnitude of its terms: `|a| + |b|` for sums and
    /// differences, products and quotients of magnitudes, and the value's
    /// own size for functions. Rounding in the value is of the order of
    /// `eps` times this magnitude, which is what a scale-invariant
    /// convergence test compares residuals with.
    pub fn eval_magnitude(&self, p: &[f64], at: &Point) -> (f64, f64) {
        self.eval_magnitude_in::<MAX_STACK>(p, at)
    }

    /// [`Expr::eval_magnitude`] on a stack of `N >= depth` entries.
    // One match per operation, values and magnitudes on two stacks: the
    // step evaluates its programs several times, and a first match that
    // sorted pushes from operations cost a third of this function.
    pub fn eval_magnitude_in<const N: usize>(&self, p: &[f64], at: &Point) -> (f64, f64) {
        let mut value = [0.0f64; N];
        let mut mag = [0.0f64; N];
        let mut top = 0usize;
        for op in self.ops() {
            let x = match *op {
                Op::Const(c) => c,
                Op::Param(i) => p.get(i as usize).copied().unwrap_or(f64::NAN),
                Op::Var(j) => at.var(j as usize),
                Op::Time => at.t,
                Op::Neg => {
                    value[top - 1] = -value[top - 1];
                    continue;
                }
                Op::Call(f) => {
                    let v = f.apply(value[top - 1]);
                    value[top - 1] = v;
                    mag[top - 1] = v.abs();
                    continue;
                }
                Op::Bin(b) => {
                    top -= 1;
                    let (a, c) = (value[top - 1], value[top]);
                    let (ma, mc) = (mag[top - 1], mag[top]);
                    let v = apply(b, a, c);
                    mag[top - 1] = match b {
                        BinOp::Add | BinOp::Sub => ma + mc,
                        BinOp::Mul => ma * mc,
                        BinOp::Div => ma / c.abs(),
                        _ => v.abs(),
                    };
                    value[top - 1] = v;
                    continue;
                }
            };
            value[top] = x;
            mag[top] = x.abs();
            top += 1;
        }
        (value[0], mag[0])
    }
}

/// `a op b`, with the square as one product: `x^2` is the commonest power in
/// models and `powf` costs a hundred instructions for it (the product is the
/// correctly rounded square, as `powf` returns it).
#[inline]
pub(super) fn apply(b: BinOp, a: f64, c: f64) -> f64 {
    if b == BinOp::Pow && c == 2.0 {
        a * a
    } else {
        b.apply(a, c)
    }
}

#[cfg(test)]
mod tests;
