//! The value, the magnitude of its terms and all first derivatives of a
//! nonlinear program in one pass.
//!
//! A Newton iteration needs every partial derivative of every nonlinear row.
//! [`Expr::eval_tangent`] gives one of them per pass over the program, which
//! recomputes the value (and every `sin`, `powf`, ...) once per variable the
//! program reads. [`Expr::eval_gradient_in`] carries `K` tangents beside the
//! value on each stack entry (a dual number with `K` directions), so the
//! program's operations run once and only the derivative rules run per
//! direction.
//!
//! Each direction's tangent is computed by exactly the operations, in exactly
//! the order, of [`Expr::eval_tangent`] seeded with that variable, including
//! its shortcut to zero where the incoming tangents are zero (which keeps a
//! derivative that does not exist, `sqrt` at 0 times a zero tangent, out of
//! the directions that do not pass through it): the two give the same
//! numbers, bit for bit (tested below), so a Jacobian does not depend on
//! which pass built it. Beside them it carries the magnitude of the terms
//! by [`Expr::eval_magnitude`]'s rules: where a Newton step needs both the
//! residual and the Jacobian at one point (the iterate it linearizes at),
//! one pass gives both, with the numbers of the two separate passes.
//!
//! [`Expr::is_affine_in`] tells, from the program's structure, whether those
//! derivatives depend on the point at all.

use super::expr::{BinOp, Expr, Op, MAX_STACK};
use super::functions::{pow_base_slope, pow_exponent_slope};
use super::program::{apply, Point};

/// Marks a variable that is not differentiated (an input, held over a step).
pub const NO_DIRECTION: u8 = u8::MAX;

impl Expr {
    /// The value at parameters `p` and point `at` and the magnitude of its
    /// terms, with its derivatives along up to `K` variables written to
    /// `grad`: the `k`-th [`Op::Var`] of the program (in program order) seeds
    /// direction `slots[k]`, or none when that is [`NO_DIRECTION`]. `N` must
    /// be at least [`Expr::depth`] and `slots` hold one entry per `Var` of
    /// the program, each below `K` or [`NO_DIRECTION`] (a program that breaks
    /// these gets NaN, never a panic). The value and the magnitude are those
    /// of [`Expr::eval_magnitude_in`], bit for bit (the same operations): a
    /// Newton step that needs the residual and the Jacobian at one point
    /// runs the program once.
    pub fn eval_gradient_in<const N: usize, const K: usize>(
        &self,
        p: &[f64],
        at: &Point,
        slots: &[u8],
        grad: &mut [f64; K],
    ) -> (f64, f64) {
        let failed = (f64::NAN, f64::NAN);
        let mut value = [0.0f64; N];
        let mut mag = [0.0f64; N];
        let mut tangent = [[0.0f64; K]; N];
        let mut top = 0usize;
        let mut var = 0usize;
        for op in self.ops() {
            let pushed = match *op {
                Op::Const(c) => Some(c),
                Op::Param(i) => Some(p.get(i as usize).copied().unwrap_or(f64::NAN)),
                Op::Var(j) => {
                    let slot = slots.get(var).copied().unwrap_or(NO_DIRECTION) as usize;
                    var += 1;
                    if top < N {
                        tangent[top] = [0.0; K];
                        if slot < K {
                            tangent[top][slot] = 1.0;
                        }
                    }
                    Some(at.var(j as usize))
                }
                Op::Time => Some(at.t),
                _ => None,
            };
            if let Some(v) = pushed {
                if top == N {
                    grad.fill(f64::NAN);
                    return failed;
                }
                if !matches!(op, Op::Var(_)) {
                    tangent[top] = [0.0; K];
                }
                value[top] = v;
                mag[top] = v.abs();
                top += 1;
                continue;
            }
            match *op {
                Op::Neg if top >= 1 => {
                    value[top - 1] = -value[top - 1];
                    for d in tangent[top - 1].iter_mut() {
                        *d = -*d;
                    }
                }
                Op::Call(f) if top >= 1 => {
                    let a = value[top - 1];
                    let v = f.apply(a);
                    let t = &mut tangent[top - 1];
                    // The derivative is needed only when some tangent moves.
                    if t.iter().any(|d| *d != 0.0) {
                        let slope = f.derivative(a, v);
                        for d in t.iter_mut() {
                            *d = if *d == 0.0 { 0.0 } else { slope * *d };
                        }
                    }
                    value[top - 1] = v;
                    mag[top - 1] = v.abs();
                }
                Op::Bin(b) if top >= 2 => {
                    top -= 1;
                    let (a, c) = (value[top - 1], value[top]);
                    let v = apply(b, a, c);
                    let dc = tangent[top];
                    let da = &mut tangent[top - 1];
                    if b == BinOp::Pow {
                        pow_tangents(a, c, v, da, &dc);
                    } else {
                        for (x, y) in da.iter_mut().zip(dc) {
                            *x = if *x == 0.0 && y == 0.0 {
                                0.0
                            } else {
                                b.derivative(a, c, v, *x, y)
                            };
                        }
                    }
                    let (ma, mc) = (mag[top - 1], mag[top]);
                    mag[top - 1] = match b {
                        BinOp::Add | BinOp::Sub => ma + mc,
                        BinOp::Mul => ma * mc,
                        BinOp::Div => ma / c.abs(),
                        _ => v.abs(),
                    };
                    value[top - 1] = v;
                }
                _ => {
                    grad.fill(f64::NAN);
                    return failed;
                }
            }
        }
        if top != 1 {
            grad.fill(f64::NAN);
            return failed;
        }
        *grad = tangent[0];
        (value[0], mag[0])
    }
}

impl Expr {
    /// Whether the program is affine in the variables `j < n` (the others,
    /// `time` and parameters held constant): then its derivatives along them
    /// do not depend on the point, and a Newton iteration on it converges in
    /// one step. Structural: `x*x/x` counts as nonlinear.
    pub fn is_affine_in(&self, n: usize) -> bool {
        // Per stack entry: 0 constant, 1 affine, 2 nonlinear in the variables.
        let mut stack = [0u8; MAX_STACK];
        let mut top = 0usize;
        for op in self.ops() {
            let class = match *op {
                Op::Var(j) => u8::from((j as usize) < n),
                Op::Const(_) | Op::Param(_) | Op::Time => 0,
                Op::Neg if top >= 1 => stack[top - 1],
                Op::Call(_) if top >= 1 => 2 * u8::from(stack[top - 1] > 0),
                Op::Bin(b) if top >= 2 => {
                    top -= 1;
                    let (a, c) = (stack[top - 1], stack[top]);
                    match b {
                        BinOp::Add | BinOp::Sub => a.max(c),
                        BinOp::Mul if a == 0 || c == 0 => a.max(c),
                        BinOp::Div if c == 0 => a,
                        _ => 2 * u8::from(a.max(c) > 0),
                    }
                }
                _ => return false,
            };
            match op {
                Op::Neg | Op::Call(_) | Op::Bin(_) => stack[top - 1] = class,
                _ if top < MAX_STACK => {
                    stack[top] = class;
                    top += 1;
                }
                _ => return false,
            }
        }
        top == 1 && stack[0] < 2
    }
}

/// The tangents of `v = a^c` along every direction, into `da`: those of
/// [`BinOp::derivative`], with its two slopes computed once for all
/// directions (and `2 a^1` of the square as `2 a`, the same number, since
/// `powf(a, 1)` is `a` exactly).
fn pow_tangents<const K: usize>(a: f64, c: f64, v: f64, da: &mut [f64; K], dc: &[f64; K]) {
    let moves = |t: &[f64; K]| t.iter().any(|d| *d != 0.0);
    let base_slope = if c == 2.0 {
        2.0 * a
    } else if moves(da) {
        pow_base_slope(a, c)
    } else {
        0.0
    };
    let exponent_slope = if moves(dc) {
        pow_exponent_slope(a, v)
    } else {
        0.0
    };
    for (x, y) in da.iter_mut().zip(dc) {
        let base = if *x == 0.0 { 0.0 } else { base_slope * *x };
        *x = if *y == 0.0 {
            base
        } else {
            base + exponent_slope * *y
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::expr::parse;
    use crate::model::program::{Form, Operand};

    fn program(src: &str) -> Expr {
        let lookup = |n: &str| match n {
            "x" => Some(Operand::Var(0)),
            "y" => Some(Operand::Var(1)),
            "u" => Some(Operand::Var(2)),
            "w" => Some(Operand::Var(3)),
            "k" => Some(Operand::Param(0)),
            "time" => Some(Operand::Time),
            _ => None,
        };
        Expr::compile_program(&parse(src).unwrap(), &lookup, Form::Signal).unwrap()
    }

    /// The slots of a program differentiated along variables 0..3 (not the input 3).
    fn slots(e: &Expr) -> Vec<u8> {
        e.ops()
            .iter()
            .filter_map(|op| match op {
                Op::Var(j) if *j < 3 => Some(*j as u8),
                Op::Var(_) => Some(NO_DIRECTION),
                _ => None,
            })
            .collect()
    }

    /// Every direction of the one-pass gradient equals the tangent pass seeded
    /// with that variable, bit for bit, at points where derivatives vanish,
    /// blow up or are undefined too; its value and magnitude are those of
    /// the magnitude pass.
    #[test]
    fn gradient_equals_the_tangent_passes_bit_for_bit() {
        let sources = [
            "k*(1 - x^2)*y - x + u",
            "sin(x)*cos(y) + exp(u*k)/(1 + x^2)",
            "sqrt(x) + y",
            "x^3 - y^2.5 + u^x",
            "atan2(y, x) + log(u) - tanh(x*y)",
            "w*x + step(time - 0.5)*y + frac(time)",
            "-(x/y)/u + k^2",
            "asin(x) + acos(y) + sinh(u) + cosh(x) + tan(y)",
        ];
        let points: [[f64; 4]; 5] = [
            [0.3, -1.7, 0.9, 2.0],
            [0.0, 0.0, 0.0, 0.0],
            [-2.0, 0.5, 1e-300, -1.0],
            [1.0, -1.0, 3.0, 0.5],
            [f64::INFINITY, 1.0, -0.0, 1.0],
        ];
        for src in sources {
            let e = program(src);
            let slots = slots(&e);
            for v in points {
                let at = Point {
                    x: &v[..2],
                    u: &v[2..3],
                    w: &v[3..],
                    t: 0.75,
                };
                let mut g4 = [0.0; 4];
                let (value, magnitude) = e.eval_gradient_in::<8, 4>(&[1.5], &at, &slots, &mut g4);
                let mut g2 = [0.0; 2];
                let two: Vec<u8> = slots
                    .iter()
                    .map(|s| if *s < 2 { *s } else { NO_DIRECTION })
                    .collect();
                let (value2, magnitude2) = e.eval_gradient_in::<8, 2>(&[1.5], &at, &two, &mut g2);
                let (v0, _) = e.eval_tangent(&[1.5], &at, u32::MAX);
                assert_eq!(value.to_bits(), v0.to_bits(), "{src} at {v:?}");
                assert_eq!(value2.to_bits(), v0.to_bits(), "{src} at {v:?}");
                let (v1, m1) = e.eval_magnitude(&[1.5], &at);
                assert_eq!(v1.to_bits(), v0.to_bits(), "{src} at {v:?}");
                assert_eq!(magnitude.to_bits(), m1.to_bits(), "{src} at {v:?}");
                assert_eq!(magnitude2.to_bits(), m1.to_bits(), "{src} at {v:?}");
                for j in 0..3 {
                    let (_, d) = e.eval_tangent(&[1.5], &at, j as u32);
                    assert_eq!(g4[j].to_bits(), d.to_bits(), "{src} at {v:?}, d/dv{j}");
                    if j < 2 {
                        assert_eq!(g2[j].to_bits(), d.to_bits(), "{src} at {v:?}, d/dv{j}");
                    }
                }
                assert_eq!(g4[3], 0.0, "{src}: the unused direction stays zero");
            }
        }
    }

    #[test]
    fn affine_programs_are_told_from_nonlinear_ones() {
        // Over the states and pairs x, y, u (n = 3); w is an input.
        for src in [
            "x + 2*y - u/k",
            "step(k - frac(time/k))*x + (1 - step(k - frac(time/k)))*y",
            "w*x + sin(w)*u - cos(time)",
            "-(x - y)/(k + w^2)",
        ] {
            assert!(program(src).is_affine_in(3), "{src}");
        }
        for src in [
            "x*y",
            "k*(1 - x^2)*y",
            "sin(x)",
            "1/u",
            "x^1",
            "atan2(y, 1)",
        ] {
            assert!(!program(src).is_affine_in(3), "{src}");
        }
        assert!(program("x*w").is_affine_in(3));
        assert!(!program("x*w").is_affine_in(4));
    }

    /// A stack too small or slots that do not fit give NaN, not a panic.
    #[test]
    fn malformed_calls_give_nan() {
        let e = program("x*y + (x - y)*(x + y)");
        let mut g = [0.0; 2];
        let at = Point {
            x: &[1.0, 2.0],
            u: &[],
            w: &[],
            t: 0.0,
        };
        let (v, m) = e.eval_gradient_in::<1, 2>(&[], &at, &[0, 1, 0, 1, 0, 1], &mut g);
        assert!(v.is_nan() && m.is_nan());
        assert!(g.iter().all(|d| d.is_nan()));
        let (v, _) = e.eval_gradient_in::<8, 2>(&[], &at, &[0, 1, 0, 1, 0, 1], &mut g);
        assert_eq!((v, g), (-1.0, [2.0 + 2.0 * 1.0, 1.0 - 2.0 * 2.0]));
        // Too few slots: the variables past them are held (no direction).
        let (v, _) = e.eval_gradient_in::<8, 2>(&[], &at, &[], &mut g);
        assert_eq!((v, g), (-1.0, [0.0, 0.0]));
    }
}
