//! Linear forms: output definitions such as `"F_plus - F_minus"`.
//!
//! A named output is linear in the model's variables (states, complementarity
//! variables, inputs) with coefficients that are parameter expressions. [`affine`]
//! splits a parsed tree into `constant + sum coeff_j * var_j`, keeping every
//! coefficient as a tree to be compiled like any matrix entry, and rejects
//! anything nonlinear with a message that says which construct is at fault.
//!
//! [`split`] is the tolerant variant the signal form uses: a subexpression
//! that is not linear with parameter coefficients (`x1^2*x2`, `cos(w*time)`)
//! is kept whole in the form's `constant`, which then reads variables or
//! `time` and becomes a nonlinear program (see [`super::program`]); the linear
//! terms around it still go into the matrices. A form whose constant is a
//! parameter tree is exactly what [`affine`] gives, so linear models lower as
//! they always did.

use super::expr::{err, BinOp, ExprError, Node};

/// What a name in a linear expression stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symbol {
    Param(usize),
    Var(usize),
    /// The simulation time: only lookups of the signal form give it.
    Time,
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
    form(node, lookup, false)
}

/// Like [`affine`], but keeps nonlinear subexpressions whole in the constant
/// instead of refusing them.
pub fn split(node: &Node, lookup: &dyn Fn(&str) -> Option<Symbol>) -> Result<Affine, ExprError> {
    form(node, lookup, true)
}

/// Whether `node` reads no variable and not `time`: a parameter tree.
pub fn is_parametric(node: &Node, lookup: &dyn Fn(&str) -> Option<Symbol>) -> bool {
    match node {
        Node::Num(_) => true,
        Node::Name(n) => matches!(lookup(n), Some(Symbol::Param(_))),
        Node::Neg(a) | Node::Call(_, a) => is_parametric(a, lookup),
        Node::Bin(_, l, r) => is_parametric(l, lookup) && is_parametric(r, lookup),
    }
}

fn form(
    node: &Node,
    lookup: &dyn Fn(&str) -> Option<Symbol>,
    tolerant: bool,
) -> Result<Affine, ExprError> {
    let zero = || Node::Num(0.0);
    let whole = || Affine::constant(node.clone());
    // A factor usable as a coefficient: no terms and a parameter tree.
    let coefficient = |a: &Affine| a.terms.is_empty() && is_parametric(&a.constant, lookup);
    Ok(match node {
        Node::Num(_) => whole(),
        Node::Name(name) => match lookup(name) {
            Some(Symbol::Param(_) | Symbol::Time) => whole(),
            Some(Symbol::Var(j)) => Affine {
                constant: zero(),
                terms: vec![(j, Node::Num(1.0))],
            },
            None => return err(0, format!("unknown name '{name}'")),
        },
        Node::Neg(a) => scale(form(a, lookup, tolerant)?, &|n| Node::Neg(Box::new(n))),
        Node::Bin(op @ (BinOp::Add | BinOp::Sub), l, r) => {
            form(l, lookup, tolerant)?.join(*op, form(r, lookup, tolerant)?)
        }
        Node::Bin(BinOp::Mul, l, r) => {
            let (l, r) = (form(l, lookup, tolerant)?, form(r, lookup, tolerant)?);
            if coefficient(&l) || (!tolerant && l.terms.is_empty()) {
                scale(r, &|n| {
                    Node::Bin(BinOp::Mul, Box::new(l.constant.clone()), Box::new(n))
                })
            } else if coefficient(&r) || (!tolerant && r.terms.is_empty()) {
                scale(l, &|n| {
                    Node::Bin(BinOp::Mul, Box::new(n), Box::new(r.constant.clone()))
                })
            } else if tolerant {
                whole()
            } else {
                return err(0, "product of two variables is not linear");
            }
        }
        Node::Bin(BinOp::Div, l, r) => {
            let (l, r) = (form(l, lookup, tolerant)?, form(r, lookup, tolerant)?);
            if coefficient(&r) || (!tolerant && r.terms.is_empty()) {
                scale(l, &|n| {
                    Node::Bin(BinOp::Div, Box::new(n), Box::new(r.constant.clone()))
                })
            } else if tolerant {
                whole()
            } else {
                return err(0, "division by a variable is not linear");
            }
        }
        Node::Bin(BinOp::Pow | BinOp::Atan2 | BinOp::Min | BinOp::Max, ..) | Node::Call(..) => {
            if tolerant {
                // Names are checked here, so an unknown one is reported as such.
                free_of_variables(node, lookup)?;
                whole()
            } else {
                affine_free(node, lookup)?
            }
        }
    })
}

/// Whether `node` reads no variable; unknown names are errors.
fn free_of_variables(
    node: &Node,
    lookup: &dyn Fn(&str) -> Option<Symbol>,
) -> Result<bool, ExprError> {
    Ok(match node {
        Node::Num(_) => true,
        Node::Name(n) => match lookup(n) {
            Some(s) => !matches!(s, Symbol::Var(_)),
            None => return err(0, format!("unknown name '{n}'")),
        },
        Node::Neg(a) | Node::Call(_, a) => free_of_variables(a, lookup)?,
        Node::Bin(_, l, r) => free_of_variables(l, lookup)? & free_of_variables(r, lookup)?,
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
fn affine_free(node: &Node, lookup: &dyn Fn(&str) -> Option<Symbol>) -> Result<Affine, ExprError> {
    if !free_of_variables(node, lookup)? {
        return err(0, "a variable inside a power or a function is not linear");
    }
    Ok(Affine::constant(node.clone()))
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

    #[test]
    fn split_keeps_nonlinear_parts_whole() {
        let lookup = |n: &str| match n {
            "x" => Some(Symbol::Var(0)),
            "v" => Some(Symbol::Var(1)),
            "k" => Some(Symbol::Param(0)),
            "time" => Some(Symbol::Time),
            _ => None,
        };
        let s = split(&parse("k*x - x^2*v + cos(time)").unwrap(), &lookup).unwrap();
        assert_eq!(s.terms.len(), 1);
        assert_eq!(s.terms[0].0, 0);
        assert!(!is_parametric(&s.constant, &lookup));
        // A coefficient that reads time is not a coefficient: the product stays whole.
        let s = split(&parse("time*x + v/k").unwrap(), &lookup).unwrap();
        assert_eq!(s.terms.len(), 1);
        assert_eq!(s.terms[0].0, 1);
        let s = split(&parse("x*(1 - v^2)").unwrap(), &lookup).unwrap();
        assert!(s.terms.is_empty());
        let s = split(&parse("2*k*x - v").unwrap(), &lookup).unwrap();
        assert!(is_parametric(&s.constant, &lookup));
        assert_eq!(s.terms.len(), 2);
        assert!(split(&parse("sin(q)").unwrap(), &lookup).is_err());
    }
}
