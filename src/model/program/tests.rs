//! The evaluators' numbers against closed forms (values, tangents along
//! every variable and `time`, magnitudes over sums, jumps of sources in
//! time) and the refusal of nonsmooth functions of variables.

use super::*;
use crate::model::expr::parse;

fn program(src: &str) -> Result<Expr, ExprError> {
    program_in(src, Form::Signal)
}

fn program_in(src: &str, form: Form) -> Result<Expr, ExprError> {
    let lookup = |n: &str| match n {
        "x" => Some(Operand::Var(0)),
        "y" => Some(Operand::Var(1)),
        "k" => Some(Operand::Param(0)),
        "time" => Some(Operand::Time),
        _ => None,
    };
    Expr::compile_program(&parse(src)?, &lookup, form)
}

/// Forward-mode derivatives agree with the closed forms.
#[test]
fn tangents_match_closed_forms() {
    let (p, v) = ([2.0], [0.3, -1.7]);
    let at = Point {
        x: &v,
        u: &[],
        w: &[],
        t: 0.25,
    };
    let cases: [(&str, f64, f64); 8] = [
        ("k*x^3 - y", 2.0 * 0.3f64.powi(3) + 1.7, 6.0 * 0.09),
        (
            "sin(x)*cos(y)",
            0.3f64.sin() * (-1.7f64).cos(),
            0.3f64.cos() * (-1.7f64).cos(),
        ),
        ("exp(k*x)/(1 + x^2)", (0.6f64).exp() / 1.09, {
            let (e, d) = ((0.6f64).exp(), 1.09);
            (2.0 * e * d - e * 0.6) / (d * d)
        }),
        ("atan2(y, x)", (-1.7f64).atan2(0.3), 1.7 / (0.09 + 2.89)),
        ("sqrt(x + 1)*tanh(x)", 1.3f64.sqrt() * 0.3f64.tanh(), {
            let (s, th) = (1.3f64.sqrt(), 0.3f64.tanh());
            0.5 / s * th + s * (1.0 - th * th)
        }),
        (
            "log(x)+asin(x)+acos(x)+atan(x)",
            0.3f64.ln() + std::f64::consts::FRAC_PI_2 + 0.3f64.atan(),
            1.0 / 0.3 + 1.0 / 1.09,
        ),
        (
            "sinh(x)*cosh(x)",
            0.3f64.sinh() * 0.3f64.cosh(),
            (0.6f64).cosh(),
        ),
        (
            "x*step(time - 0.1) + frac(time*10)*floor(time+1)",
            0.3 + (2.5f64 - 2.0),
            1.0,
        ),
    ];
    for (src, value, dx) in cases {
        let e = program(src).unwrap();
        assert!(e.is_well_formed_program(1, 2), "{src}");
        let (v0, d0) = e.eval_tangent(&p, &at, 0);
        assert!(
            (v0 - value).abs() <= 1e-12 * value.abs().max(1.0),
            "{src}: {v0} vs {value}"
        );
        assert!(
            (d0 - dx).abs() <= 1e-12 * dx.abs().max(1.0),
            "{src}: {d0} vs {dx}"
        );
        assert_eq!(e.eval_at(&p, &at), v0);
    }
    let e = program("x*y^2").unwrap();
    assert_eq!(e.eval_tangent(&p, &at, 1).1, 2.0 * 0.3 * -1.7);
    assert_eq!(e.variables(), vec![0, 1]);
    assert!(!e.is_well_formed_program(1, 1));
}

#[test]
fn time_derivatives_and_jumps_in_time() {
    let at = Point {
        x: &[0.3],
        u: &[],
        w: &[],
        t: 0.25,
    };
    let e = program("k*cos(3*time)*x + time^2").unwrap();
    let (v, dt) = e.eval_tangent(&[2.0], &at, TIME_SEED);
    assert_eq!(v, e.eval_at(&[2.0], &at));
    let exact = -2.0 * 3.0 * (0.75f64).sin() * 0.3 + 0.5;
    assert!((dt - exact).abs() <= 1e-15, "{dt} vs {exact}");
    assert_eq!(e.eval_tangent(&[2.0], &at, 0).1, 2.0 * (0.75f64).cos());
}

#[test]
fn magnitudes_add_over_sums() {
    let e = program("x - 0.3 + k*y").unwrap();
    let at = Point {
        x: &[0.3],
        u: &[1.0],
        w: &[],
        t: 0.0,
    };
    let (value, m) = e.eval_magnitude(&[2.0], &at);
    assert_eq!(value, 2.0);
    assert!((m - 2.6).abs() < 1e-15);
}

#[test]
fn nonsmooth_functions_of_variables_are_refused() {
    for (src, block) in [
        ("abs(x)", "abs block"),
        ("max(x, 0)", "max block"),
        ("min(k, y)", "min block"),
        ("step(x - 1)", "relay"),
        ("floor(y)", "relay"),
        ("frac(2*x)", "relay"),
    ] {
        let e = program(src).unwrap_err();
        assert!(e.message.contains(block), "{src}: {}", e.message);
    }
    for src in [
        "abs(k)",
        "max(time, k)",
        "step(k - frac(time/k))",
        "floor(time)",
    ] {
        assert!(program(src).is_ok(), "{src}");
    }
}

/// A mechanical model has no blocks: its refusal points to contacts and
/// friction instead, for every nonsmooth function.
#[test]
fn mechanical_refusals_point_to_contacts_not_blocks() {
    for src in ["abs(y)", "max(x, 0)", "step(x)", "frac(time*x)"] {
        let e = program_in(src, Form::Mechanical).unwrap_err();
        assert!(!e.message.contains("use "), "{src}: {}", e.message);
        assert!(
            e.message.contains("a mechanical model has no blocks"),
            "{src}: {}",
            e.message
        );
        assert!(
            e.message.contains("coordinate, velocity or input"),
            "{src}: {}",
            e.message
        );
    }
}
