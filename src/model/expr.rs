//! Arithmetic expressions in model files.
//!
//! Matrix entries, bounds and outputs may be written as expressions over the
//! model's parameters (`"-(k1+k2)/m1"`, `"mu*m*g"`). They are parsed once into a
//! syntax tree, checked against the model's names, and compiled into a small
//! postfix program ([`Expr`]) that is stored in the validated model and in the FMU.
//! Parameters may change between instantiation and initialization, so
//! expressions are kept symbolic and evaluated when the FMU assembles its matrices.
//!
//! Output definitions are linear in the model's variables; [`super::affine`]
//! splits their trees into coefficients.
//!
//! Grammar (usual precedence, `^` binds tighter than unary minus and is right
//! associative, so `-2^2 = -4` and `2^3^2 = 512`):
//! `sum := product (('+'|'-') product)*`, `product := unary (('*'|'/') unary)*`,
//! `unary := '-' unary | '+' unary | power`, `power := atom ('^' unary)?`,
//! `atom := number | name | name '(' sum ')' | '(' sum ')'`.
//!
//! The parser (text into [`Node`]) lives in `expr/parse.rs`, re-exported here; this
//! file holds the compiled form ([`Op`], [`Expr`]) and the compiler's helpers; the
//! unit tests are in `expr/tests.rs`.

use serde::{Deserialize, Serialize};

mod parse;
#[cfg(test)]
mod tests;

pub(super) use parse::err;
pub use parse::{parse, ExprError, Node};

/// Deepest operand stack an expression may need; keeps evaluation allocation free.
pub const MAX_STACK: usize = 64;

pub use super::functions::{BinOp, Func};

/// One instruction of a compiled expression (postfix order).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Op {
    Const(#[serde(with = "any_f64")] f64),
    Param(u32),
    /// A variable of a nonlinear program: states, then pairs, then inputs
    /// (see [`super::program`]); never in a parameter expression.
    Var(u32),
    /// The simulation time (nonlinear programs only).
    Time,
    Neg,
    Bin(BinOp),
    Call(Func),
}

/// JSON has no infinities (serde_json writes them as `null`), and bounds are
/// often infinite: non-finite constants travel as the strings `inf`, `-inf`, `nan`.
mod any_f64 {
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        match *v {
            v if v.is_finite() => s.serialize_f64(v),
            v if v.is_nan() => s.serialize_str("nan"),
            v if v > 0.0 => s.serialize_str("inf"),
            _ => s.serialize_str("-inf"),
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Repr {
        Number(f64),
        Text(String),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        match Repr::deserialize(d)? {
            Repr::Number(v) => Ok(v),
            Repr::Text(t) => match t.as_str() {
                "inf" => Ok(f64::INFINITY),
                "-inf" => Ok(f64::NEG_INFINITY),
                "nan" => Ok(f64::NAN),
                _ => Err(D::Error::custom(format!("'{t}' is not a number"))),
            },
        }
    }
}

/// A compiled expression over the model's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expr {
    ops: Vec<Op>,
}

impl Expr {
    /// The constant `value`.
    pub fn constant(value: f64) -> Expr {
        Expr {
            ops: vec![Op::Const(value)],
        }
    }

    /// Compiles a tree whose names are all parameters; `param` maps a name to its index.
    pub fn compile(node: &Node, param: &dyn Fn(&str) -> Option<usize>) -> Result<Expr, ExprError> {
        let mut ops = Vec::new();
        emit(
            node,
            &|name| param(name).map(|i| Op::Param(i as u32)),
            &mut ops,
        )?;
        let expr = Expr {
            ops: fold_constants(ops),
        };
        if expr.stack_depth() > MAX_STACK {
            return err(0, "expression too large");
        }
        Ok(expr)
    }

    /// The value when the expression does not depend on parameters.
    pub fn as_constant(&self) -> Option<f64> {
        match self.ops.as_slice() {
            [Op::Const(v)] => Some(*v),
            _ => None,
        }
    }

    /// A program from its instructions (the compilers of [`super::program`]).
    pub(super) fn from_ops(ops: Vec<Op>) -> Expr {
        Expr { ops }
    }

    /// The instructions, handed back (to be refilled without allocating, see
    /// [`super::program`]'s parameter folding).
    pub(super) fn into_ops(self) -> Vec<Op> {
        self.ops
    }

    /// The postfix program (the documentation page prints it back as infix text).
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    /// Whether the expression is the literal zero (used to keep sparse matrices sparse).
    pub fn is_zero(&self) -> bool {
        self.as_constant() == Some(0.0)
    }

    /// Evaluates with the given parameter values; never allocates.
    pub fn eval(&self, params: &[f64]) -> f64 {
        let mut stack = [0.0f64; MAX_STACK];
        let mut top = 0usize;
        for op in &self.ops {
            match *op {
                Op::Const(v) => {
                    stack[top] = v;
                    top += 1;
                }
                Op::Param(i) => {
                    stack[top] = params.get(i as usize).copied().unwrap_or(f64::NAN);
                    top += 1;
                }
                // Parameter expressions never hold these (is_well_formed refuses them).
                Op::Var(_) | Op::Time => {
                    stack[top] = f64::NAN;
                    top += 1;
                }
                Op::Neg => stack[top - 1] = -stack[top - 1],
                Op::Call(f) => stack[top - 1] = f.apply(stack[top - 1]),
                Op::Bin(b) => {
                    top -= 1;
                    stack[top - 1] = b.apply(stack[top - 1], stack[top]);
                }
            }
        }
        stack[0]
    }

    /// Indices of the parameters the expression reads.
    pub fn params(&self) -> impl Iterator<Item = usize> + '_ {
        self.ops.iter().filter_map(|op| match op {
            Op::Param(i) => Some(*i as usize),
            _ => None,
        })
    }

    pub(super) fn stack_depth(&self) -> usize {
        let (mut depth, mut max) = (0usize, 0usize);
        for op in &self.ops {
            match op {
                Op::Const(_) | Op::Param(_) | Op::Var(_) | Op::Time => depth += 1,
                Op::Bin(_) => depth -= 1,
                Op::Neg | Op::Call(_) => {}
            }
            max = max.max(depth);
        }
        max
    }

    /// Whether the program is well formed (it came from a file or an FMU that could be corrupt).
    pub fn is_well_formed(&self, n_params: usize) -> bool {
        let mut depth = 0usize;
        for op in &self.ops {
            match op {
                Op::Const(_) => depth += 1,
                Op::Param(i) if (*i as usize) < n_params => depth += 1,
                Op::Param(_) => return false,
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
}

/// Appends the postfix program of `node` to `ops`; `name` gives the operand a
/// name stands for (a parameter here, also a variable or the time in
/// `program`), or None for an unknown name.
pub(super) fn emit(
    node: &Node,
    name: &dyn Fn(&str) -> Option<Op>,
    ops: &mut Vec<Op>,
) -> Result<(), ExprError> {
    match node {
        Node::Num(v) => ops.push(Op::Const(*v)),
        Node::Name(n) => match name(n) {
            Some(op) => ops.push(op),
            None => return err(0, format!("unknown name '{n}'")),
        },
        Node::Neg(a) => {
            emit(a, name, ops)?;
            ops.push(Op::Neg);
        }
        Node::Call(f, a) => {
            emit(a, name, ops)?;
            ops.push(Op::Call(*f));
        }
        Node::Bin(b, l, r) => {
            emit(l, name, ops)?;
            emit(r, name, ops)?;
            ops.push(Op::Bin(*b));
        }
    }
    Ok(())
}

/// Evaluates parameter-free subprograms once, so constant entries are stored as plain numbers.
pub(super) fn fold_constants(ops: Vec<Op>) -> Vec<Op> {
    let mut out: Vec<Op> = Vec::with_capacity(ops.len());
    for op in ops {
        match op {
            Op::Neg | Op::Call(_) => {
                if let Some(Op::Const(a)) = out.last().copied() {
                    let v = if let Op::Call(f) = op { f.apply(a) } else { -a };
                    *out.last_mut().expect("checked above") = Op::Const(v);
                    continue;
                }
            }
            Op::Bin(b) => {
                if let [.., Op::Const(a), Op::Const(c)] = out.as_slice() {
                    let v = b.apply(*a, *c);
                    out.truncate(out.len() - 2);
                    out.push(Op::Const(v));
                    continue;
                }
            }
            Op::Const(_) | Op::Param(_) | Op::Var(_) | Op::Time => {}
        }
        out.push(op);
    }
    out
}
