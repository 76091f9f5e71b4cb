//! The parser of expressions: text into a syntax tree ([`Node`]).
//!
//! A recursive-descent parser over the grammar given in [`super`], with 1-based
//! columns in its errors ([`ExprError`]) and a nesting limit, so hostile text is an
//! error rather than a stack overflow. Names are kept as written; they are resolved
//! when the tree is compiled ([`super::Expr::compile`]) or split into coefficients
//! ([`crate::model::affine`]).

use super::{BinOp, Func};
use std::fmt;

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

pub(in crate::model) fn err<T>(column: usize, message: impl Into<String>) -> Result<T, ExprError> {
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
            let known: Vec<&str> = crate::model::functions::FUNCS
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
