//! Unit tests of expressions: precedence and associativity, functions and
//! parameters, constant folding, error columns, and hostile input (deep nesting,
//! random text) that must end in an error, never a crash.

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
    // sign is 0 at 0 (either zero), as Siconos' explicit sliding-mode law.
    assert_eq!(
        eval("sign(-k2) + 10*sign(0.5) + 100*sign(0) + 1000*sign(-0)", &p).unwrap(),
        9.0
    );
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
