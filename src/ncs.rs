//! The nonlinear parts of a first-order model at run time.
//!
//! A model with nonlinear rows (see [`crate::model::program`]) keeps its linear
//! terms in the [`Lcs`] matrices and adds one compiled program per nonlinear
//! row: `f(x, u, w, t) = A x + B u + E w + f + φ(x, u, w, t)` and
//! `c(x, u, w, t) = C x + D u + F w + g + ψ(x, u, w, t)`. [`Ncs`] evaluates
//! both with the parameters the instance was initialized with, their
//! Jacobians (the matrices plus the programs' derivatives by forward-mode
//! automatic differentiation, one dual-number pass per variable a program
//! reads, so only the structurally nonzero entries cost anything), and the
//! magnitudes of their terms that scale the Newton iteration's convergence
//! test. Every buffer is the caller's or sized at instantiation.

use crate::lcs::Lcs;
use crate::model::expr::Expr;
use crate::model::program::{Nonlinear, Point, TIME_SEED};
use crate::model::{ExprMatrix, System};
use nalgebra::{DMatrix, DVector};

/// One nonlinear row: its index, program, and the variables it reads.
#[derive(Clone, Debug)]
struct Program {
    row: usize,
    expr: Expr,
    reads: Vec<usize>,
    /// Whether the program fits the small evaluation stack.
    small: bool,
}

/// The evaluation stack of programs no deeper than this (most are): clearing
/// it costs little, where the largest stack would cost more than the program.
const SMALL_STACK: usize = 8;

impl Program {
    #[inline]
    fn tangent(&self, p: &[f64], at: &Point, seed: u32) -> (f64, f64) {
        if self.small {
            self.expr.eval_tangent_in::<SMALL_STACK>(p, at, seed)
        } else {
            self.expr.eval_tangent(p, at, seed)
        }
    }

    #[inline]
    fn magnitude(&self, p: &[f64], at: &Point) -> (f64, f64) {
        if self.small {
            self.expr.eval_magnitude_in::<SMALL_STACK>(p, at)
        } else {
            self.expr.eval_magnitude(p, at)
        }
    }
}

fn programs(list: &[(usize, Expr)]) -> Vec<Program> {
    list.iter()
        .map(|(row, expr)| Program {
            row: *row,
            reads: expr.variables(),
            small: expr.depth() <= SMALL_STACK,
            expr: expr.clone(),
        })
        .collect()
}

/// The structurally nonzero entries `(row, column)` of the linear parts, in
/// the order `A B E` (for `f`) and `C D F` (for `c`): the dense matrices are
/// mostly zero, and the residual is evaluated several times per step.
#[derive(Clone, Debug, Default)]
struct Pattern {
    f: [Vec<(usize, usize)>; 3],
    c: [Vec<(usize, usize)>; 3],
}

fn pattern(m: &ExprMatrix) -> Vec<(usize, usize)> {
    m.entries.iter().map(|(i, j, _)| (*i, *j)).collect()
}

/// The compiled remainders of one model, with the parameters they run with.
#[derive(Clone, Debug)]
pub struct Ncs {
    der: Vec<Program>,
    y: Vec<Program>,
    outputs: Vec<Program>,
    params: Vec<f64>,
    pattern: Pattern,
}

impl Ncs {
    /// The remainders `nl` of a model with first-order system `s` and `np` parameters.
    pub fn new(nl: &Nonlinear, s: &System, np: usize) -> Self {
        Ncs {
            der: programs(&nl.der),
            y: programs(&nl.y),
            outputs: programs(&nl.outputs),
            params: vec![0.0; np],
            pattern: Pattern {
                f: [pattern(&s.a), pattern(&s.b), pattern(&s.e)],
                c: [pattern(&s.c), pattern(&s.d), pattern(&s.fw)],
            },
        }
    }

    /// Takes the parameters of a new assembly.
    pub fn set_params(&mut self, params: &[f64]) {
        self.params.copy_from_slice(params);
    }

    /// `f(at)` into `f` and the magnitudes of its terms into `mag`.
    pub fn rhs(&self, lcs: &Lcs, at: &Point, f: &mut [f64], mag: &mut [f64]) {
        let m = [&lcs.a, &lcs.b, &lcs.e];
        linear(m, &self.pattern.f, &lcs.f, at, f, mag);
        self.add(&self.der, at, f, mag);
    }

    /// `c(at)` into `y` and the magnitudes of its terms into `mag`.
    pub fn relation(&self, lcs: &Lcs, at: &Point, y: &mut [f64], mag: &mut [f64]) {
        let m = [&lcs.c, &lcs.d, &lcs.fw];
        linear(m, &self.pattern.c, &lcs.g, at, y, mag);
        self.add(&self.y, at, y, mag);
    }

    fn add(&self, list: &[Program], at: &Point, out: &mut [f64], mag: &mut [f64]) {
        for p in list {
            let (v, m) = p.magnitude(&self.params, at);
            out[p.row] += v;
            mag[p.row] += m;
        }
    }

    /// `∂f/∂x` into `fx` (skipped when `None`) and `∂f/∂u` into `fu`, at `at`.
    pub fn rhs_jacobian(
        &self,
        lcs: &Lcs,
        at: &Point,
        fx: Option<&mut DMatrix<f64>>,
        fu: &mut DMatrix<f64>,
    ) {
        fu.copy_from(&lcs.b);
        let nx = at.x.len();
        match fx {
            Some(fx) => {
                fx.copy_from(&lcs.a);
                self.differentiate(&self.der, at, Some(fx), fu, nx);
            }
            None => self.differentiate(&self.der, at, None, fu, nx),
        }
    }

    /// `∂c/∂x` into `cx` and `∂c/∂u` into `cu`, at `at`.
    pub fn relation_jacobian(
        &self,
        lcs: &Lcs,
        at: &Point,
        cx: &mut DMatrix<f64>,
        cu: &mut DMatrix<f64>,
    ) {
        cx.copy_from(&lcs.c);
        cu.copy_from(&lcs.d);
        self.differentiate(&self.y, at, Some(cx), cu, at.x.len());
    }

    /// Adds the programs' derivatives along the states (into `dx`) and the
    /// pairs (into `du`); inputs are held over a step and need none.
    fn differentiate(
        &self,
        list: &[Program],
        at: &Point,
        mut dx: Option<&mut DMatrix<f64>>,
        du: &mut DMatrix<f64>,
        nx: usize,
    ) {
        let nu = at.u.len();
        for p in list {
            for &j in &p.reads {
                if j >= nx + nu || (j < nx && dx.is_none()) {
                    continue;
                }
                let (_, d) = p.tangent(&self.params, at, j as u32);
                if j < nx {
                    if let Some(dx) = dx.as_deref_mut() {
                        dx[(p.row, j)] += d;
                    }
                } else {
                    du[(p.row, j - nx)] += d;
                }
            }
        }
    }

    /// `∂c/∂t` at `at` into `ct` (the linear part does not read time).
    pub fn relation_time_derivative(&self, at: &Point, ct: &mut [f64]) {
        ct.fill(0.0);
        for p in &self.y {
            ct[p.row] += p.tangent(&self.params, at, TIME_SEED).1;
        }
    }

    /// Whether the remainder of relation row `row` reads variable `var`
    /// (states, then pairs, then inputs).
    pub fn relation_reads(&self, row: usize, var: usize) -> bool {
        self.y
            .iter()
            .any(|p| p.row == row && p.reads.binary_search(&var).is_ok())
    }

    /// The nonlinear remainder of named output `k` at `at` (0 when it is linear).
    pub fn output(&self, k: usize, at: &Point) -> f64 {
        self.outputs
            .iter()
            .filter(|p| p.row == k)
            .map(|p| p.expr.eval_at(&self.params, at))
            .sum()
    }

    /// Whether any output has a remainder.
    pub fn has_outputs(&self) -> bool {
        !self.outputs.is_empty()
    }
}

/// The linear part `M0 x + M1 u + M2 w + c` of every row, with magnitudes,
/// over the entries of `pattern` only.
fn linear(
    m: [&DMatrix<f64>; 3],
    pattern: &[Vec<(usize, usize)>; 3],
    c: &DVector<f64>,
    at: &Point,
    out: &mut [f64],
    mag: &mut [f64],
) {
    for (i, (o, g)) in out.iter_mut().zip(mag.iter_mut()).enumerate() {
        *o = c[i];
        *g = c[i].abs();
    }
    for ((m, entries), v) in m.iter().zip(pattern).zip([at.x, at.u, at.w]) {
        for &(i, j) in entries {
            let t = m[(i, j)] * v[j];
            out[i] += t;
            mag[i] += t.abs();
        }
    }
}
