//! Parameter-only subprograms of a nonlinear program, folded at assembly.
//!
//! A program such as `-m*g*l*sin(theta)` reads parameters that stay fixed
//! from one assembly to the next, yet every evaluation pushed `m`, `g`, `l`
//! and multiplied them again (five of its nine operations). When parameters
//! are fixed (at instantiation's assembly and whenever they change), the
//! step's owner calls [`Expr::fold_parameters_into`], which replaces each
//! subprogram that reads only parameters and constants by the one constant
//! it evaluates to; the evaluators then run the shorter program.
//!
//! Same numbers, bit for bit. The folded constant is computed by exactly the
//! operations, in exactly the order, of the evaluators on exactly the same
//! values (the same [`apply`] with its square as a product, the same
//! [`Func::apply`](crate::model::functions::Func::apply)): IEEE arithmetic is correctly rounded and a library
//! function is a fixed function of its argument within one binary, so the
//! value is the one each pass would compute, and the derivative of a
//! parameter-only subprogram is zero either way (a constant's tangent is 0,
//! and each rule's shortcut to zero sees zero tangents in both). The
//! magnitude pass ([`Expr::eval_magnitude_in`]) is the one place where a
//! constant behaves differently from the subprogram: a constant's magnitude
//! is `|v|`, the subprogram's is built by the magnitude rules (`|a| + |b|`
//! for a sum). A subprogram is therefore folded only when the magnitude its
//! rules give has the bits of `|v|`: always for negation, functions,
//! products and quotients of constants (`|a|·|b| = |a·b|` and `|a|/|b| =
//! |a/b|` exactly, rounding being symmetric), for a sum only when its terms
//! do not cancel; otherwise it stays as it was, and only its operands are
//! folded.
//!
//! The folded program lives in a buffer sized by the source program (never
//! longer than it), so folding allocates nothing after construction, and its
//! `Var` operations keep their order: the per-variable slot tables built
//! from the source program stay valid.

use super::super::expr::{Expr, Op};
use super::super::functions::BinOp;
use super::apply;

impl Expr {
    /// Writes into `out` this program with every parameter-only subprogram
    /// whose magnitude is its value's absolute value replaced by that value,
    /// at parameters `p` (see the module's text). `out` keeps its buffer:
    /// once it has held a program as long as this one, nothing is allocated.
    pub fn fold_parameters_into(&self, p: &[f64], out: &mut Expr) {
        let mut ops = std::mem::replace(out, Expr::from_ops(Vec::new())).into_ops();
        ops.clear();
        // Per output operation that is a foldable constant: its value; the
        // magnitude of such a constant is its absolute value (the invariant).
        for op in self.ops() {
            let folded = match *op {
                Op::Param(i) => Some(p.get(i as usize).copied().unwrap_or(f64::NAN)),
                Op::Neg => constant_at(&ops, 1).map(|a| -a),
                Op::Call(f) => constant_at(&ops, 1).map(|a| f.apply(a)),
                Op::Bin(b) => match (constant_at(&ops, 2), constant_at(&ops, 1)) {
                    (Some(a), Some(c)) => {
                        let v = apply(b, a, c);
                        let magnitude = match b {
                            BinOp::Add | BinOp::Sub => a.abs() + c.abs(),
                            BinOp::Mul => a.abs() * c.abs(),
                            BinOp::Div => a.abs() / c.abs(),
                            _ => v.abs(),
                        };
                        (magnitude.to_bits() == v.abs().to_bits()).then_some(v)
                    }
                    _ => None,
                },
                Op::Const(_) | Op::Var(_) | Op::Time => None,
            };
            match (folded, *op) {
                (Some(v), Op::Param(_)) => ops.push(Op::Const(v)),
                // The operand folded was the last constant (two for a binary
                // operation): replaced by the result.
                (Some(v), Op::Neg | Op::Call(_)) => {
                    ops.pop();
                    ops.push(Op::Const(v));
                }
                (Some(v), _) => {
                    ops.truncate(ops.len().saturating_sub(2));
                    ops.push(Op::Const(v));
                }
                (None, op) => ops.push(op),
            }
        }
        *out = Expr::from_ops(ops);
    }
}

/// The value of the `k`-th last operation of `ops` when it is a constant
/// (pushed by itself, so a whole operand: an operation after a constant
/// consumes it).
fn constant_at(ops: &[Op], k: usize) -> Option<f64> {
    match ops.len().checked_sub(k).map(|i| ops[i]) {
        Some(Op::Const(v)) => Some(v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Form, Operand, Point};
    use crate::model::expr::{parse, Expr};

    fn program(src: &str) -> Expr {
        let lookup = |n: &str| match n {
            "x" => Some(Operand::Var(0)),
            "y" => Some(Operand::Var(1)),
            "m" => Some(Operand::Param(0)),
            "g" => Some(Operand::Param(1)),
            "l" => Some(Operand::Param(2)),
            "time" => Some(Operand::Time),
            _ => None,
        };
        Expr::compile_program(&parse(src).unwrap(), &lookup, Form::Signal).unwrap()
    }

    /// Every evaluator gives the bits of the unfolded program, over
    /// parameters of both signs (sums that cancel and sums that do not).
    #[test]
    fn folded_programs_give_the_same_bits() {
        let sources = [
            "-m*g*l*sin(x)",
            "(m + g)*x - l*y^2",
            "(m - g)/(l*l)*x*y + sqrt(abs(m))*cos(time*g)",
            "x^2*m^2 + exp(-m/l)*y - (g - m)^3",
            "atan2(m, g)*x + m^l*y",
        ];
        let params = [
            [1.0, 9.81, 0.7],
            [-2.5, 3.0, -0.3],
            [0.1, -0.1, 4.0],
            [1e-300, 1e300, -7.0],
        ];
        let (v, w) = ([0.37, -1.3], [0.5]);
        let at = Point {
            x: &v,
            u: &[],
            w: &w,
            t: 0.25,
        };
        let slots = [0u8, 1, 0, 1, 0, 1];
        let same = |a: (f64, f64), b: (f64, f64), what: &str| {
            assert_eq!(a.0.to_bits(), b.0.to_bits(), "{what}: value");
            assert_eq!(a.1.to_bits(), b.1.to_bits(), "{what}: second");
        };
        let mut folded = Expr::constant(0.0);
        for src in sources {
            let e = program(src);
            for p in &params {
                e.fold_parameters_into(p, &mut folded);
                let what = format!("{src} at {p:?}");
                assert!(folded.ops().len() <= e.ops().len(), "{what}");
                assert!(folded.depth() <= e.depth(), "{what}");
                same(
                    e.eval_magnitude(p, &at),
                    folded.eval_magnitude(p, &at),
                    &what,
                );
                for seed in [0, 1, u32::MAX] {
                    same(
                        e.eval_tangent(p, &at, seed),
                        folded.eval_tangent(p, &at, seed),
                        &what,
                    );
                }
                let slots = &slots[..e.variables().len().max(1)];
                let slots: Vec<u8> = e
                    .ops()
                    .iter()
                    .filter(|op| matches!(op, crate::model::expr::Op::Var(_)))
                    .zip(slots.iter().cycle())
                    .map(|(_, s)| *s)
                    .collect();
                let (mut ga, mut gb) = ([0.0; 2], [0.0; 2]);
                let a = e.eval_gradient_in::<16, 2>(p, &at, &slots, &mut ga);
                let b = folded.eval_gradient_in::<16, 2>(p, &at, &slots, &mut gb);
                same(a, b, &what);
                assert_eq!(ga.map(f64::to_bits), gb.map(f64::to_bits), "{what}");
            }
        }
    }

    /// The gravity torque loses its parameter product; a sum whose terms
    /// cancel keeps its operation (its magnitude is not its value's).
    #[test]
    fn what_is_folded() {
        let mut folded = Expr::constant(0.0);
        let e = program("-m*g*l*sin(x)");
        e.fold_parameters_into(&[1.0, 9.81, 0.5], &mut folded);
        assert_eq!(e.ops().len(), 9);
        assert_eq!(folded.ops().len(), 4);
        let e = program("(m + g)*x");
        e.fold_parameters_into(&[1.0, 2.0, 0.0], &mut folded);
        assert_eq!(folded.ops().len(), 3);
        e.fold_parameters_into(&[1.0, -2.0, 0.0], &mut folded);
        assert_eq!(folded.ops().len(), 5);
    }
}
