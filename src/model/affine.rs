//! Linear forms: output definitions such as `"F_plus - F_minus"`.
//!
//! A named output is linear in the model's variables (states, complementarity
//! variables, inputs) with coefficients that are parameter expressions. [`affine`]
//! splits a parsed tree into `constant + sum coeff_j * var_j`, keeping every
//! coefficient as a tree to be compiled like any matrix entry, and rejects
//! anything nonlinear with a message that says which construct is at fault.

use super::expr::{err, BinOp, ExprError, Node};

/// What a name in a linear expression stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symbol {
    Param(usize),
    Var(usize),
}

/// A linear form `constant + sum coeff_j * var_j` whose coefficients are parameter trees.
#[derive(Clone, Debug, PartialEq)]
pub struct Affine {
    pub constant: Node,
    pub terms: Vec<(usize, Node)>,
}

impl Affine {
    /// The form `0`.
    pub fn zero() -> Self {
        Affine {
            constant: Node::Num(0.0),
            terms: vec![],
        }
    }

    /// The variable `var_j` with coefficient 1.
    pub fn var(j: usize) -> Self {
        Affine {
            constant: Node::Num(0.0),
            terms: vec![(j, Node::Num(1.0))],
        }
    }

    /// A constant (a parameter tree).
    pub fn constant(node: Node) -> Self {
        Affine {
            constant: node,
            terms: vec![],
        }
    }

    /// `self + other`, merging the terms of a variable that occurs in both.
    pub fn plus(self, other: Affine) -> Self {
        self.join(BinOp::Add, other)
    }

    /// `self - other`.
    pub fn minus(self, other: Affine) -> Self {
        self.join(BinOp::Sub, other)
    }

    /// `c * self` for a parameter tree `c`.
    pub fn times(self, c: &Node) -> Self {
        scale(self, &|n| match (c, &n) {
            (Node::Num(one), _) if *one == 1.0 => n,
            (_, Node::Num(one)) if *one == 1.0 => c.clone(),
            _ => Node::Bin(BinOp::Mul, Box::new(c.clone()), Box::new(n)),
        })
    }

    /// `self ± other`. Sums with a literal zero are not written out (both
    /// are exact in floating point), so the forms blocks build stay as small
    /// as the ones users write.
    fn join(mut self, op: BinOp, other: Affine) -> Self {
        let zero = || Node::Num(0.0);
        let join = |a: Node, b: Node| match (&a, &b) {
            (_, Node::Num(z)) if *z == 0.0 => a,
            (Node::Num(z), _) if *z == 0.0 && op == BinOp::Add => b,
            (Node::Num(z), _) if *z == 0.0 => Node::Neg(Box::new(b)),
            _ => Node::Bin(op, Box::new(a), Box::new(b)),
        };
        self.constant = join(self.constant, other.constant);
        for (j, c) in other.terms {
            match self.terms.iter_mut().find(|(k, _)| *k == j) {
                Some((_, lc)) => *lc = join(std::mem::replace(lc, zero()), c),
                None => self.terms.push((
                    j,
                    if op == BinOp::Sub {
                        Node::Neg(Box::new(c))
                    } else {
                        c
                    },
                )),
            }
        }
        self
    }
}

/// Splits `node` into a linear form over variables; `lookup` classifies names.
pub fn affine(node: &Node, lookup: &dyn Fn(&str) -> Option<Symbol>) -> Result<Affine, ExprError> {
    let zero = || Node::Num(0.0);
    Ok(match node {
        Node::Num(_) => Affine {
            constant: node.clone(),
            terms: vec![],
        },
        Node::Name(name) => match lookup(name) {
            Some(Symbol::Param(_)) => Affine {
                constant: node.clone(),
                terms: vec![],
            },
            Some(Symbol::Var(j)) => Affine {
                constant: zero(),
                terms: vec![(j, Node::Num(1.0))],
            },
            None => return err(0, format!("unknown name '{name}'")),
        },
        Node::Neg(a) => scale(affine(a, lookup)?, &|n| Node::Neg(Box::new(n))),
        Node::Bin(op @ (BinOp::Add | BinOp::Sub), l, r) => {
            affine(l, lookup)?.join(*op, affine(r, lookup)?)
        }
        Node::Bin(BinOp::Mul, l, r) => {
            let (l, r) = (affine(l, lookup)?, affine(r, lookup)?);
            match (l.terms.is_empty(), r.terms.is_empty()) {
                (true, _) => scale(r, &|n| {
                    Node::Bin(BinOp::Mul, Box::new(l.constant.clone()), Box::new(n))
                }),
                (_, true) => scale(l, &|n| {
                    Node::Bin(BinOp::Mul, Box::new(n), Box::new(r.constant.clone()))
                }),
                _ => return err(0, "product of two variables is not linear"),
            }
        }
        Node::Bin(BinOp::Div, l, r) => {
            let (l, r) = (affine(l, lookup)?, affine(r, lookup)?);
            if !r.terms.is_empty() {
                return err(0, "division by a variable is not linear");
            }
            scale(l, &|n| {
                Node::Bin(BinOp::Div, Box::new(n), Box::new(r.constant.clone()))
            })
        }
        Node::Bin(BinOp::Pow, ..) | Node::Call(..) => {
            let whole = affine_free(node, lookup)?;
            Affine {
                constant: whole,
                terms: vec![],
            }
        }
    })
}

fn scale(mut a: Affine, f: &dyn Fn(Node) -> Node) -> Affine {
    a.constant = f(a.constant);
    for (_, c) in &mut a.terms {
        *c = f(std::mem::replace(c, Node::Num(0.0)));
    }
    a
}

/// Powers and functions are linear only when no variable occurs inside them.
fn affine_free(node: &Node, lookup: &dyn Fn(&str) -> Option<Symbol>) -> Result<Node, ExprError> {
    match node {
        Node::Bin(_, l, r) => {
            affine_free_part(l, lookup)?;
            affine_free_part(r, lookup)?;
        }
        Node::Call(_, x) => affine_free_part(x, lookup)?,
        _ => {}
    }
    Ok(node.clone())
}

fn affine_free_part(node: &Node, lookup: &dyn Fn(&str) -> Option<Symbol>) -> Result<(), ExprError> {
    if affine(node, lookup)?.terms.is_empty() {
        Ok(())
    } else {
        err(0, "a variable inside a power or a function is not linear")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::expr::{parse, Expr};

    fn lin(src: &str) -> Result<Vec<(usize, f64)>, ExprError> {
        let names = ["x", "v", "m", "k"];
        let lookup = |n: &str| {
            names.iter().position(|k| *k == n).map(|i| {
                if i < 2 {
                    Symbol::Var(i)
                } else {
                    Symbol::Param(i - 2)
                }
            })
        };
        let a = affine(&parse(src)?, &lookup)?;
        let pidx = |n: &str| {
            names
                .iter()
                .position(|k| *k == n)
                .filter(|i| *i >= 2)
                .map(|i| i - 2)
        };
        let p = [4.0, 3.0];
        let mut out = vec![(usize::MAX, Expr::compile(&a.constant, &pidx)?.eval(&p))];
        for (j, c) in &a.terms {
            out.push((*j, Expr::compile(c, &pidx)?.eval(&p)));
        }
        Ok(out)
    }

    #[test]
    fn affine_forms() {
        assert_eq!(
            lin("x - v").unwrap(),
            vec![(usize::MAX, 0.0), (0, 1.0), (1, -1.0)]
        );
        assert_eq!(
            lin("(x + 2*v)/m + k").unwrap(),
            vec![(usize::MAX, 3.0), (0, 0.25), (1, 0.5)]
        );
        assert_eq!(
            lin("-(x - k*x)").unwrap(),
            vec![(usize::MAX, 0.0), (0, 2.0)]
        );
        assert_eq!(
            lin("x - (v - x)").unwrap(),
            vec![(usize::MAX, 0.0), (0, 2.0), (1, -1.0)]
        );
        assert_eq!(
            lin("sqrt(m) * v").unwrap(),
            vec![(usize::MAX, 0.0), (1, 2.0)]
        );
        assert!(lin("x*v").unwrap_err().message.contains("not linear"));
        assert!(lin("k/x").unwrap_err().message.contains("not linear"));
        assert!(lin("x^2").unwrap_err().message.contains("not linear"));
        assert!(lin("sin(v)").unwrap_err().message.contains("not linear"));
        assert!(lin("q + x")
            .unwrap_err()
            .message
            .contains("unknown name 'q'"));
    }
}
