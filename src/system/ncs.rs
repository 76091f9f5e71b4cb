//! The nonlinear parts of a first-order model at run time.
//!
//! A model with nonlinear rows (see [`crate::model::program`]) keeps its linear
//! terms in the [`Lcs`] matrices and adds one compiled program per nonlinear
//! row: `f(x, u, w, t) = A x + B u + E w + f + φ(x, u, w, t)` and
//! `c(x, u, w, t) = C x + D u + F w + g + ψ(x, u, w, t)`. [`Ncs`] evaluates
//! both with the parameters the instance was initialized with, their
//! Jacobians (the matrices plus the programs' derivatives by forward-mode
//! automatic differentiation: one pass per program carrying a tangent for
//! each state and pair it reads, see [`crate::model::gradient`], so only the
//! structurally nonzero entries cost anything), and the magnitudes of their
//! terms that scale the Newton iteration's convergence test. The linear
//! terms are read from a list of the structurally nonzero coefficients taken
//! at assembly ([`Ncs::set_linear`], `linear`), not from the dense matrices.
//! Every buffer is the caller's or sized at instantiation.

use crate::model::expr::{Expr, Op};
use crate::model::gradient::NO_DIRECTION;
use crate::model::program::{Nonlinear, Point, TIME_SEED};
use crate::model::time_jumps::TimeJumps;
use crate::model::System;
use crate::system::lcs::Lcs;
use linear::Linear;
use nalgebra::{DMatrix, DVector};

mod linear;

/// One nonlinear row: its index, its program, and what to differentiate.
#[derive(Clone, Debug)]
struct Program {
    row: usize,
    /// The program as compiled.
    source: Expr,
    /// `source` with its parameter-only subprograms folded at the last
    /// assembly's parameters (see [`Expr::fold_parameters_into`]): what runs.
    expr: Expr,
    /// The states and pairs it reads (inputs are held over a step and need no
    /// derivative): the directions of its gradient pass, in this order.
    dirs: Vec<usize>,
    /// The direction of each `Var` of the program in program order
    /// ([`NO_DIRECTION`] for an input).
    slots: Vec<u8>,
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

    /// The value and the magnitude of its terms, with the derivatives along
    /// `dirs` into `grad`, in one pass when there are at most `K` directions
    /// and the program fits the small stack (None, and nothing written,
    /// otherwise).
    #[inline]
    fn gradient<const K: usize>(
        &self,
        p: &[f64],
        at: &Point,
        grad: &mut [f64; K],
    ) -> Option<(f64, f64)> {
        if !self.small || self.dirs.len() > K {
            return None;
        }
        Some(
            self.expr
                .eval_gradient_in::<SMALL_STACK, K>(p, at, &self.slots, grad),
        )
    }

    /// The value and the magnitude of its terms (those of
    /// [`Program::magnitude`]), handing each derivative along `dirs` to
    /// `add(variable, derivative)`: one pass for most programs, a magnitude
    /// pass and one tangent pass per direction for the rest.
    #[inline]
    fn value_and_gradient(
        &self,
        p: &[f64],
        at: &Point,
        mut add: impl FnMut(usize, f64),
    ) -> (f64, f64) {
        let (mut g2, mut g4, mut g8) = ([0.0; 2], [0.0; 4], [0.0; 8]);
        let (vm, grad): ((f64, f64), &[f64]) = if let Some(vm) = self.gradient(p, at, &mut g2) {
            (vm, &g2)
        } else if let Some(vm) = self.gradient(p, at, &mut g4) {
            (vm, &g4)
        } else if let Some(vm) = self.gradient(p, at, &mut g8) {
            (vm, &g8)
        } else {
            for &j in &self.dirs {
                add(j, self.tangent(p, at, j as u32).1);
            }
            return self.magnitude(p, at);
        };
        for (&j, &d) in self.dirs.iter().zip(grad) {
            add(j, d);
        }
        vm
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

/// The programs of `list` over `nxu` states and pairs.
fn programs(list: &[(usize, Expr)], nxu: usize) -> Vec<Program> {
    list.iter()
        .map(|(row, expr)| {
            let mut dirs = expr.variables();
            dirs.retain(|&j| j < nxu);
            let slots = expr
                .ops()
                .iter()
                .filter_map(|op| match op {
                    Op::Var(j) => Some(
                        dirs.iter()
                            .position(|&d| d == *j as usize)
                            .and_then(|k| u8::try_from(k).ok())
                            .unwrap_or(NO_DIRECTION),
                    ),
                    _ => None,
                })
                .collect();
            Program {
                row: *row,
                dirs,
                slots,
                small: expr.depth() <= SMALL_STACK,
                source: expr.clone(),
                expr: expr.clone(),
            }
        })
        .collect()
}

/// The compiled remainders of one model, with the parameters they run with.
#[derive(Clone, Debug)]
pub struct Ncs {
    der: Vec<Program>,
    y: Vec<Program>,
    outputs: Vec<Program>,
    params: Vec<f64>,
    f: Linear,
    c: Linear,
    nonlinear_in_unknowns: bool,
    rhs_reads_time: bool,
    /// Where sources in time jump (`step`, `floor`, `frac` of `time`).
    time_jumps: TimeJumps,
}

impl Ncs {
    /// The remainders `nl` of a model with first-order system `s` and `np` parameters.
    pub fn new(nl: &Nonlinear, s: &System, np: usize) -> Self {
        let nxu = s.a.rows + s.b.cols;
        Ncs {
            der: programs(&nl.der, nxu),
            y: programs(&nl.y, nxu),
            outputs: programs(&nl.outputs, nxu),
            params: vec![0.0; np],
            f: Linear::new([&s.a, &s.b, &s.e], s.a.rows),
            c: Linear::new([&s.c, &s.d, &s.fw], s.c.rows),
            nonlinear_in_unknowns: nl
                .der
                .iter()
                .chain(&nl.y)
                .any(|(_, e)| !e.is_affine_in(nxu)),
            rhs_reads_time: nl.der.iter().any(|(_, e)| e.reads_time()),
            time_jumps: TimeJumps::of(nl.der.iter().chain(&nl.y).map(|(_, e)| e)),
        }
    }

    /// The first jump of a source in time after `ta` up to `tb`, bracketed
    /// by adjacent times (see [`TimeJumps::next`]).
    pub fn next_time_jump(&self, ta: f64, tb: f64) -> Option<(f64, f64)> {
        self.time_jumps.next(&self.params, ta, tb)
    }

    /// Takes the parameters of a new assembly, folding the programs'
    /// parameter-only subprograms at them (the same numbers, fewer operations
    /// per evaluation).
    pub fn set_params(&mut self, params: &[f64]) {
        self.params.copy_from_slice(params);
        for p in self
            .der
            .iter_mut()
            .chain(&mut self.y)
            .chain(&mut self.outputs)
        {
            p.source.fold_parameters_into(params, &mut p.expr);
        }
    }

    /// Takes the linear parts of a new assembly: `A B E f` and `C D F g`
    /// (called by [`Lcs::assemble`] after it filled them).
    pub fn set_linear(
        &mut self,
        f: [&DMatrix<f64>; 3],
        f0: &DVector<f64>,
        c: [&DMatrix<f64>; 3],
        c0: &DVector<f64>,
    ) {
        self.f.set(f, f0);
        self.c.set(c, c0);
    }

    /// `f(at)` into `f` and the magnitudes of its terms into `mag`.
    pub fn rhs(&self, at: &Point, f: &mut [f64], mag: &mut [f64]) {
        self.f.eval(at, f, mag);
        self.add(&self.der, at, f, mag);
    }

    /// `c(at)` into `y` and the magnitudes of its terms into `mag`.
    pub fn relation(&self, at: &Point, y: &mut [f64], mag: &mut [f64]) {
        self.c.eval(at, y, mag);
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
                self.differentiate(&self.der, at, Some(fx), fu, nx, None);
            }
            None => self.differentiate(&self.der, at, None, fu, nx, None),
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
        self.differentiate(&self.y, at, Some(cx), cu, at.x.len(), None);
    }

    /// [`Ncs::rhs`] and [`Ncs::rhs_jacobian`] (with `∂f/∂x`) at one point,
    /// from one pass over each program: the same numbers as the two calls.
    pub fn rhs_and_jacobian(
        &self,
        lcs: &Lcs,
        at: &Point,
        (f, mag): (&mut [f64], &mut [f64]),
        fx: &mut DMatrix<f64>,
        fu: &mut DMatrix<f64>,
    ) {
        self.f.eval(at, f, mag);
        fu.copy_from(&lcs.b);
        fx.copy_from(&lcs.a);
        let nx = at.x.len();
        self.differentiate(&self.der, at, Some(fx), fu, nx, Some((f, mag)));
    }

    /// [`Ncs::relation`] and [`Ncs::relation_jacobian`] at one point, from
    /// one pass over each program: the same numbers as the two calls.
    pub fn relation_and_jacobian(
        &self,
        lcs: &Lcs,
        at: &Point,
        (y, mag): (&mut [f64], &mut [f64]),
        cx: &mut DMatrix<f64>,
        cu: &mut DMatrix<f64>,
    ) {
        self.c.eval(at, y, mag);
        cx.copy_from(&lcs.c);
        cu.copy_from(&lcs.d);
        let nx = at.x.len();
        self.differentiate(&self.y, at, Some(cx), cu, nx, Some((y, mag)));
    }

    /// Adds the programs' derivatives along the states (into `dx`, skipped
    /// when `None`) and the pairs (into `du`); inputs are held over a step
    /// and need none. With `values`, also adds each program's value and
    /// magnitude to its row (as [`Ncs::rhs`] and [`Ncs::relation`] do, from
    /// the same pass).
    fn differentiate(
        &self,
        list: &[Program],
        at: &Point,
        mut dx: Option<&mut DMatrix<f64>>,
        du: &mut DMatrix<f64>,
        nx: usize,
        mut values: Option<(&mut [f64], &mut [f64])>,
    ) {
        for p in list {
            let add = |j: usize, d: f64| {
                if j < nx {
                    if let Some(dx) = dx.as_deref_mut() {
                        dx[(p.row, j)] += d;
                    }
                } else {
                    du[(p.row, j - nx)] += d;
                }
            };
            let (v, m) = p.value_and_gradient(&self.params, at, add);
            if let Some((out, mag)) = values.as_mut() {
                out[p.row] += v;
                mag[p.row] += m;
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
    /// (states, then pairs; inputs are not differentiated and not asked for).
    pub fn relation_reads(&self, row: usize, var: usize) -> bool {
        self.y.iter().any(|p| p.row == row && p.dirs.contains(&var))
    }

    /// The nonlinear remainder of named output `k` at `at` (0 when it is linear).
    pub fn output(&self, k: usize, at: &Point) -> f64 {
        self.outputs
            .iter()
            .filter(|p| p.row == k)
            .map(|p| p.expr.eval_at(&self.params, at))
            .sum()
    }

    /// Whether a program of `f` or `c` is nonlinear in the states and pairs
    /// (otherwise only `time` and inputs enter nonlinearly, and one Newton
    /// iteration solves the step from any start).
    pub fn nonlinear_in_unknowns(&self) -> bool {
        self.nonlinear_in_unknowns
    }

    /// Whether `f` reads `time` (only its programs can: the linear part does
    /// not), so that its value at one point depends on the time too.
    pub fn rhs_reads_time(&self) -> bool {
        self.rhs_reads_time
    }

    /// Whether any output has a remainder.
    pub fn has_outputs(&self) -> bool {
        !self.outputs.is_empty()
    }

    /// The rows of `f` and of `c` with a remainder, each once and in order,
    /// when no remainder reads a state or a pair (only `time`, inputs and
    /// parameters): the model is then an affine time-varying LCS whose
    /// remainders are sources the theta step takes as inputs (see
    /// `scheme::theta::sources`). None otherwise.
    pub fn source_rows(&self) -> Option<(Vec<usize>, Vec<usize>)> {
        let reads_unknowns = self.der.iter().chain(&self.y).any(|p| !p.dirs.is_empty());
        if reads_unknowns {
            return None;
        }
        let rows = |list: &[Program]| {
            let mut r: Vec<usize> = list.iter().map(|p| p.row).collect();
            r.sort_unstable();
            r.dedup();
            r
        };
        Some((rows(&self.der), rows(&self.y)))
    }

    /// Adds `weight` times each remainder of `f` at `at` to `out[k]`, where
    /// `rows[k]` is its row (`rows` from [`Ncs::source_rows`]).
    pub fn add_rhs_sources(&self, at: &Point, rows: &[usize], weight: f64, out: &mut [f64]) {
        Self::add_sources(&self.der, &self.params, at, rows, weight, out);
    }

    /// [`Ncs::add_rhs_sources`] for the remainders of `c`.
    pub fn add_relation_sources(&self, at: &Point, rows: &[usize], weight: f64, out: &mut [f64]) {
        Self::add_sources(&self.y, &self.params, at, rows, weight, out);
    }

    fn add_sources(
        list: &[Program],
        params: &[f64],
        at: &Point,
        rows: &[usize],
        weight: f64,
        out: &mut [f64],
    ) {
        for p in list {
            if let Ok(k) = rows.binary_search(&p.row) {
                out[k] += weight * p.magnitude(params, at).0;
            }
        }
    }
}
