//! The functions and binary operators of the expression language, with the
//! derivatives forward-mode differentiation needs.
//!
//! Every function is smooth where it is defined except the seven that exist
//! for switched sources and sampled control laws (`abs`, `min`, `max`,
//! `floor`, `frac`, `step`, `sign`): in continuous dynamics those may only
//! take arguments free of states, inputs and pairs (see [`super::program`]),
//! because nonsmoothness in the state belongs in a complementarity pair, where
//! the step solves it exactly instead of differentiating through a kink. A
//! sampled update (`[[discrete]]`) is evaluated, never differentiated, and may
//! apply them to states: `-sign(x)` there is an explicit sliding-mode law.
//! Their derivatives below are the one-sided values a Newton iteration would
//! use, and are only ever multiplied by zero.

use serde::{Deserialize, Serialize};

/// Functions of one argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Func {
    Sqrt,
    Exp,
    Log,
    Sin,
    Cos,
    Tan,
    Abs,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Floor,
    /// `x - floor(x)`: a sawtooth in `[0, 1)`.
    Frac,
    /// 0 for `x < 0`, 1 for `x >= 0`.
    Step,
    /// -1 for `x < 0`, 0 at 0, 1 for `x > 0` (Siconos' explicit sliding-mode
    /// law takes 0 at 0; Rust's `signum` would give ±1 at ±0).
    Sign,
}

/// Every function of one argument with its name in model files.
pub const FUNCS: [(&str, Func); 17] = [
    ("sqrt", Func::Sqrt),
    ("exp", Func::Exp),
    ("log", Func::Log),
    ("sin", Func::Sin),
    ("cos", Func::Cos),
    ("tan", Func::Tan),
    ("abs", Func::Abs),
    ("asin", Func::Asin),
    ("acos", Func::Acos),
    ("atan", Func::Atan),
    ("sinh", Func::Sinh),
    ("cosh", Func::Cosh),
    ("tanh", Func::Tanh),
    ("floor", Func::Floor),
    ("frac", Func::Frac),
    ("step", Func::Step),
    ("sign", Func::Sign),
];

impl Func {
    pub fn from_name(name: &str) -> Option<Func> {
        FUNCS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
    }

    pub fn name(self) -> &'static str {
        FUNCS.iter().find(|(_, f)| *f == self).expect("listed").0
    }

    pub fn apply(self, x: f64) -> f64 {
        match self {
            Func::Sqrt => x.sqrt(),
            Func::Exp => x.exp(),
            Func::Log => x.ln(),
            Func::Sin => x.sin(),
            Func::Cos => x.cos(),
            Func::Tan => x.tan(),
            Func::Abs => x.abs(),
            Func::Asin => x.asin(),
            Func::Acos => x.acos(),
            Func::Atan => x.atan(),
            Func::Sinh => x.sinh(),
            Func::Cosh => x.cosh(),
            Func::Tanh => x.tanh(),
            Func::Floor => x.floor(),
            Func::Frac => x - x.floor(),
            Func::Step => {
                if x >= 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
            Func::Sign => {
                if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else if x.is_nan() {
                    x
                } else {
                    0.0
                }
            }
        }
    }

    /// `f'(x)`, given `x` and `v = f(x)`.
    pub fn derivative(self, x: f64, v: f64) -> f64 {
        match self {
            Func::Sqrt => 0.5 / v,
            Func::Exp => v,
            Func::Log => 1.0 / x,
            Func::Sin => x.cos(),
            Func::Cos => -x.sin(),
            Func::Tan => 1.0 + v * v,
            Func::Abs => x.signum() * f64::from(u8::from(x != 0.0)),
            Func::Asin => 1.0 / (1.0 - x * x).sqrt(),
            Func::Acos => -1.0 / (1.0 - x * x).sqrt(),
            Func::Atan => 1.0 / (1.0 + x * x),
            Func::Sinh => x.cosh(),
            Func::Cosh => x.sinh(),
            Func::Tanh => 1.0 - v * v,
            Func::Floor | Func::Step | Func::Sign => 0.0,
            Func::Frac => 1.0,
        }
    }

    /// Whether the function has kinks or jumps (refused on state-dependent arguments).
    pub fn nonsmooth(self) -> bool {
        matches!(
            self,
            Func::Abs | Func::Floor | Func::Frac | Func::Step | Func::Sign
        )
    }

    /// Whether the function jumps (not only has kinks).
    pub fn jumps(self) -> bool {
        matches!(self, Func::Floor | Func::Frac | Func::Step | Func::Sign)
    }
}

/// Binary operators and functions of two arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    /// `atan2(y, x)`, the angle of the point `(x, y)`.
    Atan2,
    Min,
    Max,
}

impl BinOp {
    pub fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            BinOp::Add => a + b,
            BinOp::Sub => a - b,
            BinOp::Mul => a * b,
            BinOp::Div => a / b,
            BinOp::Pow => a.powf(b),
            BinOp::Atan2 => a.atan2(b),
            BinOp::Min => a.min(b),
            BinOp::Max => a.max(b),
        }
    }

    /// The function's name when it is written as a call (`atan2(y, x)`).
    pub fn call_name(self) -> Option<&'static str> {
        match self {
            BinOp::Atan2 => Some("atan2"),
            BinOp::Min => Some("min"),
            BinOp::Max => Some("max"),
            _ => None,
        }
    }

    /// The operator written as a call `name(a, b)`.
    pub fn from_call_name(name: &str) -> Option<BinOp> {
        Some(match name {
            "atan2" => BinOp::Atan2,
            "min" => BinOp::Min,
            "max" => BinOp::Max,
            _ => return None,
        })
    }

    /// Whether the operator has kinks (refused on state-dependent arguments).
    pub fn nonsmooth(self) -> bool {
        matches!(self, BinOp::Min | BinOp::Max)
    }

    /// The derivative of `a op b` along `(da, db)`, given the value `v`.
    pub fn derivative(self, a: f64, b: f64, v: f64, da: f64, db: f64) -> f64 {
        match self {
            BinOp::Add => da + db,
            BinOp::Sub => da - db,
            BinOp::Mul => da * b + a * db,
            BinOp::Div => (da - v * db) / b,
            BinOp::Pow => {
                // The exponent's term only when it moves: a negative base with
                // a constant exponent (x^3 at x < 0) has no logarithm but a derivative.
                let base = if da == 0.0 {
                    0.0
                } else {
                    pow_base_slope(a, b) * da
                };
                if db == 0.0 {
                    base
                } else {
                    base + pow_exponent_slope(a, v) * db
                }
            }
            BinOp::Atan2 => (b * da - a * db) / (a * a + b * b),
            BinOp::Min => {
                if a <= b {
                    da
                } else {
                    db
                }
            }
            BinOp::Max => {
                if a >= b {
                    da
                } else {
                    db
                }
            }
        }
    }
}

/// `∂(a^b)/∂a = b a^(b-1)`. Not inlined, on purpose: `powf` is a pure
/// intrinsic to the compiler, which then computes it ahead of the branch that
/// needs it (on every pass, most of whose tangents are zero); a call of a
/// function of ours is not moved.
#[inline(never)]
pub fn pow_base_slope(a: f64, b: f64) -> f64 {
    b * a.powf(b - 1.0)
}

/// `∂(a^b)/∂b = a^b ln a`, given the value `v = a^b` (not inlined, as
/// [`pow_base_slope`]).
#[inline(never)]
pub fn pow_exponent_slope(a: f64, v: f64) -> f64 {
    v * a.ln()
}
