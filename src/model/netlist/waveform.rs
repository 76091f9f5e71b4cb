//! Sources in time: each SPICE waveform as an expression of `time` in the
//! model language, which the theta step reads as an input held over the
//! step (see `scheme::theta::affine::sources`) and the event-driven scheme
//! integrates with its jumps located (`model::time_jumps`).
//!
//! As ngspice evaluates them (checked against ngspice 39 in the tests):
//!
//! - `SIN(VO VA FREQ TD THETA PHASE)`: `VO + VA sin(PHASE)` until `TD`, then
//!   `VO + VA e^(-THETA (t-TD)) sin(2 pi FREQ (t-TD) + PHASE)`;
//! - `PULSE(V1 V2 TD TR TF PW PER)`: `V1` until `TD`, then with period `PER`
//!   a ramp to `V2` over `TR`, `V2` for `PW`, a ramp back over `TF`, `V1`;
//! - `PWL(T1 V1 ...)`: `V1` before `T1`, the last value after the last time,
//!   linear in between (a repeated time is a jump, written with `step`).

use super::elements::Waveform;
use crate::model::expr::{BinOp, Func, Node};

fn num(v: f64) -> Node {
    Node::Num(v)
}
fn time() -> Node {
    Node::Name("time".into())
}
fn bin(op: BinOp, a: Node, b: Node) -> Node {
    Node::Bin(op, Box::new(a), Box::new(b))
}
fn add(a: Node, b: Node) -> Node {
    bin(BinOp::Add, a, b)
}
fn sub(a: Node, b: Node) -> Node {
    bin(BinOp::Sub, a, b)
}
fn mul(a: Node, b: Node) -> Node {
    bin(BinOp::Mul, a, b)
}
fn call(f: Func, a: Node) -> Node {
    Node::Call(f, Box::new(a))
}
/// `time - t0`, or `time` when `t0` is 0.
fn since(t0: f64) -> Node {
    if t0 == 0.0 {
        time()
    } else {
        sub(time(), num(t0))
    }
}

/// The waveform as a tree over `time` (constants for `DC`).
pub fn program(w: &Waveform) -> Node {
    match *w {
        Waveform::Dc(v) => num(v),
        Waveform::Input(_) => unreachable!("an input is a column of E and F, not a program"),
        Waveform::Sin {
            vo,
            va,
            freq,
            td,
            theta,
            phase,
        } => {
            let phi = phase.to_radians();
            let tau = since(td);
            let mut wave = call(
                Func::Sin,
                add(
                    mul(num(2.0 * std::f64::consts::PI * freq), tau.clone()),
                    num(phi),
                ),
            );
            if theta != 0.0 {
                wave = mul(wave, call(Func::Exp, mul(num(-theta), tau.clone())));
            }
            // Before TD the value holds at VO + VA sin(PHASE).
            if td > 0.0 {
                let before = phi.sin();
                wave = add(
                    num(before),
                    mul(call(Func::Step, tau), sub(wave, num(before))),
                );
            }
            add(num(vo), mul(num(va), wave))
        }
        Waveform::Pulse {
            v1,
            v2,
            td,
            tr,
            tf,
            pw,
            per,
        } => {
            // The time into the current period, from 0 to PER.
            let tau = since(td);
            let phase = mul(num(per), call(Func::Frac, mul(tau.clone(), num(1.0 / per))));
            let rise = bin(BinOp::Min, mul(phase.clone(), num(1.0 / tr)), num(1.0));
            let fall = bin(
                BinOp::Min,
                mul(
                    bin(BinOp::Max, sub(phase, num(tr + pw)), num(0.0)),
                    num(1.0 / tf),
                ),
                num(1.0),
            );
            let shape = mul(call(Func::Step, tau), sub(rise, fall));
            add(num(v1), mul(num(v2 - v1), shape))
        }
        Waveform::Pwl(ref points) => {
            // The first value, plus at each point the change of slope as a
            // ramp and at each repeated time the jump as a step.
            let mut out = num(points[0].1);
            let mut slope = 0.0;
            for (k, &(t0, v0)) in points.iter().enumerate() {
                let s = match points.get(k + 1) {
                    Some(&(t1, v1)) if t1 == t0 => {
                        if v1 != v0 {
                            out = add(out, mul(num(v1 - v0), call(Func::Step, since(t0))));
                        }
                        // The slope after the jump starts at the next point.
                        continue;
                    }
                    Some(&(t1, v1)) => (v1 - v0) / (t1 - t0),
                    None => 0.0,
                };
                if s != slope {
                    let ramp = bin(BinOp::Max, since(t0), num(0.0));
                    out = add(out, mul(num(s - slope), ramp));
                    slope = s;
                }
            }
            out
        }
    }
}

/// The waveform's value at `t`, computed directly (for tests and `check`).
pub fn value(w: &Waveform, t: f64) -> f64 {
    match *w {
        Waveform::Dc(v) => v,
        Waveform::Input(_) => f64::NAN,
        Waveform::Sin {
            vo,
            va,
            freq,
            td,
            theta,
            phase,
        } => {
            let phi = phase.to_radians();
            if t < td {
                vo + va * phi.sin()
            } else {
                let tau = t - td;
                vo + va
                    * (-theta * tau).exp()
                    * (2.0 * std::f64::consts::PI * freq * tau + phi).sin()
            }
        }
        Waveform::Pulse {
            v1,
            v2,
            td,
            tr,
            tf,
            pw,
            per,
        } => {
            if t < td {
                return v1;
            }
            let p = (t - td) % per;
            let shape = if p < tr {
                p / tr
            } else if p < tr + pw {
                1.0
            } else if p < tr + pw + tf {
                1.0 - (p - tr - pw) / tf
            } else {
                0.0
            };
            v1 + (v2 - v1) * shape
        }
        Waveform::Pwl(ref points) => {
            if t < points[0].0 {
                return points[0].1;
            }
            for w in points.windows(2) {
                let ((t0, v0), (t1, v1)) = (w[0], w[1]);
                if t < t1 {
                    return v0 + (v1 - v0) * (t - t0) / (t1 - t0);
                }
            }
            points[points.len() - 1].1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::expr::Expr;
    use crate::model::program::{Form, Operand, Point};

    fn eval(node: &Node, t: f64) -> f64 {
        let lookup = |n: &str| (n == "time").then_some(Operand::Time);
        let e = Expr::compile_program(node, &lookup, Form::Signal).unwrap();
        e.eval_at(
            &[],
            &Point {
                x: &[],
                u: &[],
                w: &[],
                t,
            },
        )
    }

    #[test]
    fn programs_agree_with_the_direct_values() {
        let waves = [
            Waveform::Dc(2.5),
            Waveform::Sin {
                vo: 1.0,
                va: 2.0,
                freq: 100.0,
                td: 0.002,
                theta: 30.0,
                phase: 90.0,
            },
            Waveform::Sin {
                vo: 0.0,
                va: 10.0,
                freq: 50.0,
                td: 0.0,
                theta: 0.0,
                phase: 0.0,
            },
            Waveform::Pulse {
                v1: -1.0,
                v2: 4.0,
                td: 0.001,
                tr: 1e-4,
                tf: 2e-4,
                pw: 0.002,
                per: 0.005,
            },
            Waveform::Pwl(vec![(0.001, 1.0), (0.002, 3.0), (0.004, -1.0)]),
            Waveform::Pwl(vec![
                (0.0, 0.0),
                (0.001, 0.0),
                (0.001, 2.0),
                (0.003, 2.0),
                (0.005, 0.0),
            ]),
        ];
        for w in &waves {
            let p = program(w);
            for k in 0..=1000 {
                let t = k as f64 * 1.0013e-5;
                let (a, b) = (eval(&p, t), value(w, t));
                assert!(
                    (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
                    "{w:?} at {t}: {a} != {b}"
                );
            }
        }
    }
}
