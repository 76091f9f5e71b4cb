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

use serde::{Deserialize, Serialize};
use std::fmt;

/// Deepest operand stack an expression may need; keeps evaluation allocation free.
pub const MAX_STACK: usize = 64;

pub use super::functions::{BinOp, Func};

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Num(f64),
    Name(String),
    Neg(Box<Node>),
    Bin(BinOp, Box<Node>, Box<Node>),
    Call(Func, Box<Node>),
}

/// Why an expression was rejected; `column` is 1-based, 0 when it concerns the whole text.
#[derive(Clone, Debug, PartialEq)]
pub struct ExprError {
    pub column: usize,
    pub message: String,
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.column > 0 {
            write!(f, "{} (at column {})", self.message, self.column)
        } else {
            f.write_str(&self.message)
        }
    }
}

pub(super) fn err<T>(column: usize, message: impl Into<String>) -> Result<T, ExprError> {
    Err(ExprError {
        column,
        message: message.into(),
    })
}

/// Parses `src` into a syntax tree. Names are not resolved here.
pub fn parse(src: &str) -> Result<Node, ExprError> {
    let mut p = Parser {
        src: src.as_bytes(),
        pos: 0,
        depth: 0,
    };
    p.skip_ws();
    if p.pos == p.src.len() {
        return err(0, "empty expression");
    }
    let node = p.sum()?;
    p.skip_ws();
    if p.pos < p.src.len() {
        return err(p.pos + 1, format!("unexpected '{}'", p.rest_char()));
    }
    Ok(node)
}

/// Nesting deeper than this is rejected, so hostile input cannot exhaust the stack.
const MAX_DEPTH: usize = 48;

struct Parser<'a> {
    src: &'a [u8],
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.pos < self.src.len() && self.src[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.src.get(self.pos).copied()
    }

    fn rest_char(&self) -> char {
        std::str::from_utf8(&self.src[self.pos..])
            .ok()
            .and_then(|s| s.chars().next())
            .unwrap_or('?')
    }

    fn enter(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return err(self.pos + 1, "expression nested too deeply");
        }
        Ok(())
    }

    fn sum(&mut self) -> Result<Node, ExprError> {
        self.enter()?;
        let mut lhs = self.product()?;
        while let Some(c @ (b'+' | b'-')) = self.peek() {
            self.pos += 1;
            let rhs = self.product()?;
            let op = if c == b'+' { BinOp::Add } else { BinOp::Sub };
            lhs = Node::Bin(op, Box::new(lhs), Box::new(rhs));
        }
        self.depth -= 1;
        Ok(lhs)
    }

    fn product(&mut self) -> Result<Node, ExprError> {
        let mut lhs = self.unary()?;
        while let Some(c @ (b'*' | b'/')) = self.peek() {
            self.pos += 1;
            let rhs = self.unary()?;
            let op = if c == b'*' { BinOp::Mul } else { BinOp::Div };
            lhs = Node::Bin(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Node, ExprError> {
        self.enter()?;
        let node = match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                Node::Neg(Box::new(self.unary()?))
            }
            Some(b'+') => {
                self.pos += 1;
                self.unary()?
            }
            _ => self.power()?,
        };
        self.depth -= 1;
        Ok(node)
    }

    fn power(&mut self) -> Result<Node, ExprError> {
        let base = self.atom()?;
        if self.peek() == Some(b'^') {
            self.pos += 1;
            let exponent = self.unary()?;
            return Ok(Node::Bin(BinOp::Pow, Box::new(base), Box::new(exponent)));
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Node, ExprError> {
        let start = self.pos;
        match self.peek() {
            None => err(self.pos + 1, "expression ends where a value was expected"),
            Some(b'(') => {
                self.pos += 1;
                let inner = self.sum()?;
                if self.peek() != Some(b')') {
                    return err(start + 1, "'(' is never closed");
                }
                self.pos += 1;
                Ok(inner)
            }
            Some(c) if c.is_ascii_digit() || c == b'.' => self.number(),
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                let begin = self.pos;
                while self.pos < self.src.len()
                    && (self.src[self.pos].is_ascii_alphanumeric() || self.src[self.pos] == b'_')
                {
                    self.pos += 1;
                }
                let name = std::str::from_utf8(&self.src[begin..self.pos]).unwrap_or("");
                if self.peek() == Some(b'(') {
                    return self.call(name, begin);
                }
                Ok(match name {
                    "pi" => Node::Num(std::f64::consts::PI),
                    "inf" => Node::Num(f64::INFINITY),
                    _ => Node::Name(name.to_string()),
                })
            }
            Some(_) => err(self.pos + 1, format!("unexpected '{}'", self.rest_char())),
        }
    }

    /// `name(arg)` or `name(a, b)`, the name read and `(` next.
    fn call(&mut self, name: &str, begin: usize) -> Result<Node, ExprError> {
        let func = Func::from_name(name);
        let bin = BinOp::from_call_name(name);
        if func.is_none() && bin.is_none() {
            let known: Vec<&str> = super::functions::FUNCS
                .iter()
                .map(|(n, _)| *n)
                .chain(["atan2", "min", "max"])
                .collect();
            return err(
                begin + 1,
                format!("unknown function '{name}' (known: {})", known.join(" ")),
            );
        }
        self.pos += 1;
        let arg = self.sum()?;
        let node = match (func, bin) {
            (Some(f), _) => Node::Call(f, Box::new(arg)),
            (None, Some(b)) => {
                if self.peek() != Some(b',') {
                    return err(begin + 1, format!("'{name}' takes two arguments"));
                }
                self.pos += 1;
                let second = self.sum()?;
                Node::Bin(b, Box::new(arg), Box::new(second))
            }
            (None, None) => unreachable!("refused above"),
        };
        if self.peek() != Some(b')') {
            return err(begin + 1, format!("'{name}(' is never closed"));
        }
        self.pos += 1;
        Ok(node)
    }

    fn number(&mut self) -> Result<Node, ExprError> {
        let begin = self.pos;
        let digits = |p: &mut Self| {
            while p.pos < p.src.len() && p.src[p.pos].is_ascii_digit() {
                p.pos += 1;
            }
        };
        digits(self);
        if self.src.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            digits(self);
        }
        if matches!(self.src.get(self.pos), Some(b'e' | b'E')) {
            let mark = self.pos;
            self.pos += 1;
            if matches!(self.src.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            let exp_start = self.pos;
            digits(self);
            if self.pos == exp_start {
                self.pos = mark;
                return err(mark + 1, "exponent without digits");
            }
        }
        let text = std::str::from_utf8(&self.src[begin..self.pos]).unwrap_or("");
        match text.parse::<f64>() {
            Ok(v) => Ok(Node::Num(v)),
            Err(_) => err(begin + 1, format!("malformed number '{text}'")),
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::affine::{affine, Symbol};

    fn eval(src: &str, names: &[(&str, f64)]) -> Result<f64, ExprError> {
        let node = parse(src)?;
        let expr = Expr::compile(&node, &|n| names.iter().position(|(k, _)| *k == n))?;
        let values: Vec<f64> = names.iter().map(|(_, v)| *v).collect();
        Ok(expr.eval(&values))
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(eval("1 + 2 * 3", &[]).unwrap(), 7.0);
        assert_eq!(eval("(1 + 2) * 3", &[]).unwrap(), 9.0);
        assert_eq!(eval("-2^2", &[]).unwrap(), -4.0);
        assert_eq!(eval("2^3^2", &[]).unwrap(), 512.0);
        assert_eq!(eval("2^-1", &[]).unwrap(), 0.5);
        assert_eq!(eval("8 / 4 / 2", &[]).unwrap(), 1.0);
        assert_eq!(eval("10 - 4 - 3", &[]).unwrap(), 3.0);
        assert_eq!(eval("1.5e3 + .5 + 2E-1", &[]).unwrap(), 1500.7);
        assert_eq!(eval("--3", &[]).unwrap(), 3.0);
    }

    #[test]
    fn parameters_and_functions() {
        let p = [("k1", 2.0), ("k2", 3.0), ("m1", 5.0)];
        assert_eq!(eval("-(k1+k2)/m1", &p).unwrap(), -1.0);
        assert_eq!(eval("sqrt(k1*8)", &p).unwrap(), 4.0);
        assert_eq!(eval("exp(0) + sin(0) + cos(0)", &p).unwrap(), 2.0);
        assert_eq!(eval("cos(pi)", &p).unwrap(), -1.0);
        assert!((eval("sin(pi/6)", &p).unwrap() - 0.5).abs() < 1e-15);
        assert_eq!(eval("abs(-k2) + log(exp(1))", &p).unwrap(), 4.0);
        assert_eq!(eval("inf", &p).unwrap(), f64::INFINITY);
    }

    #[test]
    fn constants_are_folded() {
        let node = parse("-(1+2)*4/8").unwrap();
        let e = Expr::compile(&node, &|_| None).unwrap();
        assert_eq!(e.as_constant(), Some(-1.5));
        let node = parse("2*m").unwrap();
        let e = Expr::compile(&node, &|_| Some(0)).unwrap();
        assert_eq!(e.as_constant(), None);
        assert!(e.is_well_formed(1));
        assert!(!e.is_well_formed(0));
    }

    #[test]
    fn errors_say_where() {
        let cases = [
            ("", "empty expression"),
            ("1 +", "value was expected"),
            ("(1 + 2", "never closed"),
            ("foo(1)", "unknown function 'foo'"),
            ("2 ** 3", "unexpected '*'"),
            ("1e", "exponent without digits"),
            ("3 4", "unexpected '4'"),
            ("a + #", "unexpected '#'"),
            ("sqrt(2", "never closed"),
            ("1..2", "unexpected '.'"),
        ];
        for (src, want) in cases {
            let e = parse(src).expect_err(src);
            assert!(e.message.contains(want), "{src:?}: {e}");
        }
        let e = eval("k + zz", &[("k", 1.0)]).unwrap_err();
        assert_eq!(e.message, "unknown name 'zz'");
        assert_eq!(parse("1 + )").unwrap_err().column, 5);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let src = "(".repeat(10_000) + "1" + &")".repeat(10_000);
        assert!(parse(&src)
            .unwrap_err()
            .message
            .contains("nested too deeply"));
        let src = "-".repeat(10_000) + "1";
        assert!(parse(&src).is_err());
    }

    #[test]
    fn random_input_never_panics() {
        let alphabet = b"0123456789.eE+-*/^() abkpisqrtxnc_,#\xc3\xa9";
        let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            let mut text = Vec::new();
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            for k in 0..(s % 24) {
                let r = s.rotate_left(k as u32 * 5);
                text.push(alphabet[(r % alphabet.len() as u64) as usize]);
            }
            let text = String::from_utf8_lossy(&text).into_owned();
            if let Ok(node) = parse(&text) {
                if let Ok(e) = Expr::compile(&node, &|n| (n == "a" || n == "b").then_some(0)) {
                    assert!(e.is_well_formed(1));
                    let _ = e.eval(&[1.0]);
                }
                let _ = affine(&node, &|n| {
                    Some(if n == "a" {
                        Symbol::Var(0)
                    } else {
                        Symbol::Param(0)
                    })
                });
            }
        }
    }
}
