//! The model's equations as text and its matrices as HTML tables.
//!
//! A [`Model`](crate::model::Model) keeps its coefficients as compiled parameter
//! expressions (postfix programs), not as the text of the file; the page prints
//! them back as infix text with the fewest parentheses that keep the parser's
//! reading (`^` binds tighter than unary minus, operators associate to the left),
//! so that `1/m`, `-(k1 + k2)` or `mu*m*g` read as the user wrote them. Rows of a
//! sparse expression matrix become linear equations (`x2' = -1/m*F_a + v`), and a
//! matrix evaluated at the default parameters becomes a table with named rows and
//! columns, capped at [`MAX_SHOWN`] of each so that a 1,000-bead chain does not
//! produce megabytes of zeros.

use super::esc;
use crate::model::expr::{BinOp, Expr, Func, Op};
use crate::model::ExprMatrix;
use std::fmt::Write;

/// Rows and columns of a matrix table shown at most.
pub const MAX_SHOWN: usize = 24;

/// Binding strength of a printed expression: sums < products < unary minus <
/// powers < atoms (names, numbers, calls, parenthesized text).
const SUM: u8 = 1;
const PRODUCT: u8 = 2;
const UNARY: u8 = 3;
const ATOM: u8 = 5;

/// A number as the file would write it (shortest form, `inf` for infinity).
pub fn number(v: f64) -> String {
    if v == f64::INFINITY {
        "inf".into()
    } else if v == f64::NEG_INFINITY {
        "-inf".into()
    } else {
        format!("{v}")
    }
}

fn func_name(f: Func) -> &'static str {
    f.name()
}

/// `text` wrapped in parentheses when it binds less tightly than `need`.
fn operand(p: Printed, need: u8) -> String {
    if p.level < need {
        format!("({})", p.text)
    } else {
        p.text
    }
}

/// [`operand`] for text written right after an operator: a leading minus is
/// parenthesized too. `--x`, `a - -b` and `a*-b` parse, but a reader writes
/// `-(-x)`, `a - (-b)` and `a*(-b)`.
fn after_operator(p: Printed, need: u8) -> String {
    if p.text.starts_with('-') {
        format!("({})", p.text)
    } else {
        operand(p, need)
    }
}

/// A nonlinear program as infix text; `vars` names the states, pairs and
/// inputs in that order.
pub fn program_text(e: &Expr, params: &[&str], vars: &[&str]) -> String {
    ops_text(e.ops(), params, vars).text
}

/// The expression as infix text; `params` names the parameters by index.
pub fn expr_text(e: &Expr, params: &[&str]) -> String {
    ops_text(e.ops(), params, &[]).text
}

/// Printed text, its binding strength, and its value when it is a constant.
#[derive(Default)]
struct Printed {
    text: String,
    level: u8,
    value: Option<f64>,
}

fn constant(v: f64) -> Printed {
    let level = if v < 0.0 { UNARY } else { ATOM };
    Printed {
        text: number(v),
        level,
        value: Some(v),
    }
}

/// A postfix program as infix text. Products by 1 and sums with 0 are dropped,
/// products by 0 vanish: the affine forms extracted from a mechanical model's
/// force text carry such factors (`k2*1`, `-(k1 + k2)*0`), which its author never wrote.
fn ops_text(ops: &[Op], params: &[&str], vars: &[&str]) -> Printed {
    let mut stack: Vec<Printed> = Vec::new();
    for op in ops {
        let item = match *op {
            Op::Const(v) => constant(v),
            Op::Param(i) => Printed {
                text: params.get(i as usize).unwrap_or(&"?").to_string(),
                level: ATOM,
                value: None,
            },
            Op::Var(j) => Printed {
                text: vars.get(j as usize).unwrap_or(&"?").to_string(),
                level: ATOM,
                value: None,
            },
            Op::Time => Printed {
                text: "time".into(),
                level: ATOM,
                value: None,
            },
            Op::Neg => match stack.pop().unwrap_or_default() {
                Printed { value: Some(v), .. } => constant(-v),
                a => Printed {
                    text: format!("-{}", after_operator(a, UNARY)),
                    level: UNARY,
                    value: None,
                },
            },
            Op::Call(f) => {
                let a = stack.pop().unwrap_or_default();
                Printed {
                    text: format!("{}({})", func_name(f), a.text),
                    level: ATOM,
                    value: None,
                }
            }
            Op::Bin(b) => {
                let r = stack.pop().unwrap_or_default();
                let l = stack.pop().unwrap_or_default();
                match (b, l.value, r.value) {
                    (BinOp::Mul, Some(0.0), _) | (BinOp::Mul, _, Some(0.0)) => constant(0.0),
                    (BinOp::Mul, Some(1.0), _) | (BinOp::Add, Some(0.0), _) => r,
                    (BinOp::Mul | BinOp::Div, _, Some(1.0))
                    | (BinOp::Add | BinOp::Sub, _, Some(0.0)) => l,
                    (BinOp::Sub, Some(0.0), _) => Printed {
                        text: format!("-{}", after_operator(r, UNARY)),
                        level: UNARY,
                        value: None,
                    },
                    _ => {
                        // The right operand of a left-associative operator needs one
                        // level more, so that a - (b - c) keeps its parentheses.
                        if let Some(name) = b.call_name() {
                            stack.push(Printed {
                                text: format!("{name}({}, {})", l.text, r.text),
                                level: ATOM,
                                value: None,
                            });
                            continue;
                        }
                        let (sym, level, left, right) = match b {
                            BinOp::Add => (" + ", SUM, SUM, PRODUCT),
                            BinOp::Sub => (" - ", SUM, SUM, PRODUCT),
                            BinOp::Mul => ("*", PRODUCT, PRODUCT, UNARY),
                            BinOp::Div => ("/", PRODUCT, PRODUCT, UNARY),
                            // The base must be an atom (-a^2 is -(a^2)); the exponent
                            // may be anything from a unary minus up.
                            BinOp::Pow => ("^", 4, ATOM, UNARY),
                            BinOp::Atan2 | BinOp::Min | BinOp::Max => {
                                unreachable!("printed as calls above")
                            }
                        };
                        Printed {
                            text: format!("{}{sym}{}", operand(l, left), after_operator(r, right)),
                            level,
                            value: None,
                        }
                    }
                }
            }
        };
        stack.push(item);
    }
    stack.pop().unwrap_or_default()
}

/// One term `coefficient*name` with its sign taken out, `(negative, text)`;
/// `None` when the coefficient is zero.
fn term(coef: &Expr, name: &str, params: &[&str]) -> Option<(bool, String)> {
    let ops = coef.ops();
    // A top-level unary minus becomes the term's sign.
    let (negative, printed) = match ops.split_last() {
        Some((Op::Neg, inner)) => (true, ops_text(inner, params, &[])),
        _ => (false, ops_text(ops, params, &[])),
    };
    if let Some(c) = printed.value {
        let body = if name.is_empty() {
            number(c.abs())
        } else if c.abs() == 1.0 {
            name.to_string()
        } else {
            format!("{}*{name}", number(c.abs()))
        };
        return (c != 0.0).then_some((negative != (c < 0.0), body));
    }
    if name.is_empty() {
        return Some((negative, printed.text));
    }
    // A sum as a coefficient is parenthesized; a product is not ((1/m)*F reads
    // the same as 1/m*F).
    Some((negative, format!("{}*{name}", operand(printed, PRODUCT))))
}

/// A linear combination: `(coefficient, variable name)`; an empty name is the constant.
pub fn linear(terms: &[(&Expr, &str)], params: &[&str]) -> String {
    let mut out = String::new();
    for (coef, name) in terms {
        let Some((mut negative, mut body)) = term(coef, name, params) else {
            continue;
        };
        // A leading minus negates the leftmost factor, so it is the term's sign.
        if let Some(rest) = body.strip_prefix('-') {
            (negative, body) = (!negative, rest.to_string());
        }
        match (out.is_empty(), negative) {
            (true, false) => out.push_str(&body),
            (true, true) => write!(out, "-{body}").unwrap(),
            (false, false) => write!(out, " + {body}").unwrap(),
            (false, true) => write!(out, " - {body}").unwrap(),
        }
    }
    if out.is_empty() {
        out.push('0');
    }
    out
}

/// Row `i` of each `(matrix, column names)` block, as terms of a linear combination.
pub fn row_terms<'a>(
    blocks: &[(&'a ExprMatrix, &'a [&'a str])],
    i: usize,
) -> Vec<(&'a Expr, &'a str)> {
    let mut terms = Vec::new();
    for (m, names) in blocks {
        for (r, c, e) in &m.entries {
            if *r == i {
                terms.push((e, names.get(*c).copied().unwrap_or("")));
            }
        }
    }
    terms
}

/// An expression matrix as a table of its entries' text (zeros left blank).
pub fn expr_table(m: &ExprMatrix, rows: &[&str], cols: &[&str], params: &[&str]) -> String {
    let mut cells = vec![vec![String::new(); m.cols.min(MAX_SHOWN)]; m.rows.min(MAX_SHOWN)];
    for (i, j, e) in &m.entries {
        if *i < MAX_SHOWN && *j < MAX_SHOWN {
            cells[*i][*j] = expr_text(e, params);
        }
    }
    table(m.rows, m.cols, rows, cols, &cells)
}

/// A matrix evaluated at `values` as a table of numbers (zeros written `0`).
pub fn value_table(m: &ExprMatrix, rows: &[&str], cols: &[&str], values: &[f64]) -> String {
    let mut cells = vec![vec!["0".to_string(); m.cols.min(MAX_SHOWN)]; m.rows.min(MAX_SHOWN)];
    for (i, j, e) in &m.entries {
        if *i < MAX_SHOWN && *j < MAX_SHOWN {
            cells[*i][*j] = significant(e.eval(values));
        }
    }
    table(m.rows, m.cols, rows, cols, &cells)
}

/// Six significant digits, trailing zeros dropped; exponent form outside
/// [1e-4, 1e6) so that neither 1e-9 nor 1e12 turns into a row of zeros.
fn significant(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return number(v);
    }
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if (1e-4..1e6).contains(&v.abs()) {
        let decimals = (5 - v.abs().log10().floor() as i32).max(0) as usize;
        trim(format!("{v:.decimals$}"))
    } else {
        let s = format!("{v:.5e}");
        let (mantissa, exponent) = s.split_once('e').unwrap_or((&s, "0"));
        format!("{}e{exponent}", trim(mantissa.to_string()))
    }
}

fn table(
    nrows: usize,
    ncols: usize,
    rows: &[&str],
    cols: &[&str],
    cells: &[Vec<String>],
) -> String {
    if nrows == 0 || ncols == 0 {
        return format!("<p class=\"note\">empty ({nrows} × {ncols})</p>\n");
    }
    let mut out = String::from("<table class=\"matrix\"><tr><th></th>");
    for c in cols.iter().take(cells[0].len()) {
        write!(out, "<th>{}</th>", esc(c)).unwrap();
    }
    out.push_str("</tr>\n");
    for (i, row) in cells.iter().enumerate() {
        write!(out, "<tr><th>{}</th>", esc(rows.get(i).unwrap_or(&""))).unwrap();
        for cell in row {
            write!(out, "<td>{}</td>", esc(cell)).unwrap();
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    if nrows > MAX_SHOWN || ncols > MAX_SHOWN {
        writeln!(
            out,
            "<p class=\"note\">{nrows} × {ncols}: the first {} rows and {} columns are shown.</p>",
            nrows.min(MAX_SHOWN),
            ncols.min(MAX_SHOWN)
        )
        .unwrap();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::expr::parse;

    const NAMES: [&str; 5] = ["m", "k1", "k2", "mu", "g"];

    fn compiled(src: &str) -> Expr {
        Expr::compile(&parse(src).unwrap(), &|n| {
            NAMES.iter().position(|x| *x == n)
        })
        .unwrap()
    }

    fn text(src: &str) -> String {
        expr_text(&compiled(src), &NAMES)
    }

    #[test]
    fn infix_keeps_the_parser_reading() {
        assert_eq!(text("1/m"), "1/m");
        assert_eq!(text("-(k1 + k2)"), "-(k1 + k2)");
        assert_eq!(text("mu*m*g"), "mu*m*g");
        assert_eq!(text("k1 - (k2 - m)"), "k1 - (k2 - m)");
        assert_eq!(text("(k1 - k2) - m"), "k1 - k2 - m");
        assert_eq!(text("-m^2"), "-m^2");
        assert_eq!(text("(-m)^2"), "(-m)^2");
        assert_eq!(text("m^k1^k2"), "m^k1^k2");
        assert_eq!(text("(m^k1)^k2"), "(m^k1)^k2");
        assert_eq!(text("sqrt(k1/m)"), "sqrt(k1/m)");
        assert_eq!(text("m/(k1*k2)"), "m/(k1*k2)");
        // Factors an affine extraction leaves behind.
        assert_eq!(text("-(k1 + k2)*1"), "-(k1 + k2)");
        assert_eq!(text("k2*0 + m"), "m");
        assert_eq!(text("0 - m*1"), "-m");
    }

    /// A minus right after an operator is parenthesized: the parser reads
    /// `--m` or `k1*-m`, a reader writes `-(-m)` and `k1*(-m)`.
    #[test]
    fn a_negation_after_an_operator_is_parenthesized() {
        assert_eq!(text("--sin(m)"), "-(-sin(m))");
        assert_eq!(text("-(-m*k1)"), "-(-m*k1)");
        assert_eq!(text("0 - -m"), "-(-m)");
        assert_eq!(text("k1 - -m"), "k1 - (-m)");
        assert_eq!(text("k1 + -m^2"), "k1 + (-m^2)");
        assert_eq!(text("k1*-m"), "k1*(-m)");
        assert_eq!(text("k1/-m"), "k1/(-m)");
        assert_eq!(text("m^-k1"), "m^(-k1)");
        assert_eq!(text("-m + k1"), "-m + k1");
        assert_eq!(text("-m*k1"), "-m*k1");
        assert_eq!(text("-(-m)^2"), "-(-m)^2");
        // The printed text compiles to the very program it was printed from.
        for src in ["--sin(m)", "k1 - -m", "k1*-m", "m^-k1", "-(-m*k1)"] {
            assert_eq!(compiled(&text(src)), compiled(src), "{src}");
        }
    }

    #[test]
    fn numbers_keep_six_significant_digits() {
        assert_eq!(significant(0.01), "0.01");
        assert_eq!(significant(981.0), "981");
        assert_eq!(significant(-1.0 / 3.0), "-0.333333");
        assert_eq!(significant(1e-9), "1e-9");
        assert_eq!(significant(1.5e12), "1.5e12");
        assert_eq!(significant(123456.7), "123457");
    }
}
