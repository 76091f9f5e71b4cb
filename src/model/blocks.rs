//! The block catalogue of the signal form: every Simulink-style nonsmooth
//! block as a few complementarity pairs, algebraic variables and states.
//!
//! A block reads one input signal `e` (two for `max` and `min`), a linear form
//! in states, inputs and other blocks' outputs, and defines its output `z`.
//! Each block is lowered onto the first-order LCS every other form uses:
//!
//! - the building block is the ramp `r = max(a, 0)`, one pair
//!   `0 <= r ⟂ r - a >= 0` whose `D` entry is 1, so a block made of ramps has
//!   a unique value whatever feeds it (unless an algebraic loop breaks that);
//! - set-valued laws (`sign`, `relay`, the Coulomb part of friction) are one
//!   box pair `lo <= s <= hi ⟂ -e`;
//! - an output that is a combination of those is an algebraic variable: a
//!   free pair (`lo = -inf, hi = inf`) whose `y = 0` is the block's equation,
//!   so outputs may feed each other in loops and the step's LCP resolves them
//!   jointly;
//! - blocks with memory (backlash, saturated integrator, zero-crossing latch)
//!   add a state named after the block.
//!
//! The pairs a block adds are named `<block>_<role>`; [`BlockType::laws`]
//! writes the formulation out for `lcsfmu check` and the documentation.

mod lowering;

use super::expr::{BinOp, Node};

/// A block type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockType {
    Abs,
    Sign,
    Relay,
    Max0,
    Max,
    Min,
    Pwa,
    Saturation,
    DeadZone,
    CoulombViscous,
    Diode,
    Backlash,
    SaturatedIntegrator,
    ZeroCrossing,
}

/// Every type with its name in model files.
pub const TYPES: [(&str, BlockType); 14] = [
    ("abs", BlockType::Abs),
    ("sign", BlockType::Sign),
    ("relay", BlockType::Relay),
    ("max0", BlockType::Max0),
    ("max", BlockType::Max),
    ("min", BlockType::Min),
    ("pwa", BlockType::Pwa),
    ("saturation", BlockType::Saturation),
    ("dead_zone", BlockType::DeadZone),
    ("coulomb_viscous", BlockType::CoulombViscous),
    ("diode", BlockType::Diode),
    ("backlash", BlockType::Backlash),
    ("saturated_integrator", BlockType::SaturatedIntegrator),
    ("zero_crossing", BlockType::ZeroCrossing),
];

/// What a block's output is in the LCS.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Output {
    /// A pair of its own, `lo <= z <= hi ⟂ y`.
    Pair { lo: f64, hi: f64 },
    /// An algebraic variable: a free pair whose `y = 0` is the block's equation.
    Free,
    /// A state (a block with memory).
    State,
}

/// A pair a block adds besides its output, named `<block>_<suffix>`.
#[derive(Clone, Debug, PartialEq)]
pub struct Role {
    pub suffix: String,
    pub lo: f64,
    pub hi: f64,
    /// A memoryless relation (see [`super::Pair::algebraic`]).
    pub algebraic: bool,
    pub what: String,
}

/// A scalar parameter key of a block, with its default when it may be omitted.
pub type Key = (&'static str, Option<f64>);

/// A parameter that must be `>= 0` (or `> 0`) for the block to mean anything.
pub struct Condition {
    /// The key a violation is reported at.
    pub key: &'static str,
    /// `value >= 0` (or `> 0` when `strict`) is required.
    pub value: Node,
    pub strict: bool,
    pub what: String,
}

fn role(suffix: &str, lo: f64, hi: f64, algebraic: bool, what: &str) -> Role {
    Role {
        suffix: suffix.into(),
        lo,
        hi,
        algebraic,
        what: what.into(),
    }
}

const INF: f64 = f64::INFINITY;

impl BlockType {
    pub fn from_name(name: &str) -> Option<Self> {
        TYPES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
    }

    pub fn name(self) -> &'static str {
        TYPES.iter().find(|(_, t)| *t == self).expect("listed").0
    }

    /// The scalar parameter keys the type takes (`pwa` also takes the lists
    /// `breakpoints` and `slopes`).
    pub fn keys(self) -> &'static [Key] {
        use BlockType::*;
        match self {
            Abs | Sign | Max0 | Max | Min | Diode => &[],
            Relay => &[("on", None), ("off", None)],
            Pwa => &[("k0", Some(0.0)), ("u0", Some(0.0))],
            Saturation | DeadZone => &[("lo", None), ("hi", None)],
            CoulombViscous => &[("Fc", None), ("G", Some(0.0))],
            Backlash => &[("d", None), ("start", Some(0.0))],
            SaturatedIntegrator => &[("lo", None), ("hi", None), ("start", Some(0.0))],
            ZeroCrossing => &[("start", Some(0.0))],
        }
    }

    pub fn two_inputs(self) -> bool {
        matches!(self, BlockType::Max | BlockType::Min)
    }

    pub fn output(self) -> Output {
        use BlockType::*;
        match self {
            Sign => Output::Pair { lo: -1.0, hi: 1.0 },
            Max0 | Diode => Output::Pair { lo: 0.0, hi: INF },
            Backlash | SaturatedIntegrator | ZeroCrossing => Output::State,
            Abs | Relay | Max | Min | Pwa | Saturation | DeadZone | CoulombViscous => Output::Free,
        }
    }

    /// Whether the output is a memoryless function of the input.
    pub fn algebraic_output(self) -> bool {
        self.output() != Output::State
    }

    /// The pairs the block adds after its output; `ramps` is the number of
    /// breakpoints of a `pwa` block.
    pub fn roles(self, ramps: usize) -> Vec<Role> {
        use BlockType::*;
        match self {
            Sign | Max0 | Diode => vec![],
            Abs => vec![role(
                "pos",
                0.0,
                INF,
                true,
                "positive part max(e, 0) of the input; its y is the negative part",
            )],
            Relay => vec![role(
                "s",
                0.0,
                1.0,
                true,
                "switch position in [0, 1]: 1 where the input is positive, 0 where negative",
            )],
            Max => vec![role("d", 0.0, INF, true, "max(e - e2, 0)")],
            Min => vec![role("d", 0.0, INF, true, "max(e2 - e, 0)")],
            Pwa => (1..=ramps)
                .map(|i| {
                    let what = format!("max(e - y{i}, 0): the input beyond breakpoint {i}");
                    role(&format!("ramp{i}"), 0.0, INF, true, &what)
                })
                .collect(),
            Saturation | DeadZone => vec![
                role(
                    "lo",
                    0.0,
                    INF,
                    true,
                    "max(lo - e, 0): how far the input is below lo",
                ),
                role(
                    "hi",
                    0.0,
                    INF,
                    true,
                    "max(e - hi, 0): how far the input is above hi",
                ),
            ],
            CoulombViscous => vec![role(
                "sign",
                -1.0,
                1.0,
                true,
                "Sign(e): the direction of the Coulomb force, in [-1, 1] at e = 0",
            )],
            Backlash => vec![
                role(
                    "up",
                    0.0,
                    INF,
                    false,
                    "rate at which the input pushes the output up",
                ),
                role(
                    "down",
                    0.0,
                    INF,
                    false,
                    "rate at which the input pushes the output down",
                ),
            ],
            SaturatedIntegrator => vec![
                role("lo", 0.0, INF, false, "force holding the integral at lo"),
                role("hi", 0.0, INF, false, "force holding the integral at hi"),
            ],
            ZeroCrossing => vec![
                role(
                    "on",
                    0.0,
                    1.0,
                    true,
                    "1 where the input is positive, 0 where negative, in [0, 1] at 0",
                ),
                role(
                    "rate",
                    0.0,
                    INF,
                    false,
                    "rate of the latch: it raises the latch to on and never lowers it",
                ),
            ],
        }
    }

    /// What the parameters must satisfy (checked at the defaults when the file
    /// is read, and for the values set, when an FMU is initialized).
    pub fn conditions(self, p: &Params, block: &str) -> Vec<Condition> {
        use BlockType::*;
        let diff = |a: &Node, b: &Node| bin(BinOp::Sub, a.clone(), b.clone());
        match self {
            Saturation | DeadZone | SaturatedIntegrator => vec![Condition {
                key: "lo",
                value: diff(p.get("hi"), p.get("lo")),
                strict: false,
                what: format!("block {block}: lo <= hi"),
            }],
            Backlash => vec![Condition {
                key: "d",
                value: p.get("d").clone(),
                strict: false,
                what: format!("block {block}: the width d >= 0"),
            }],
            CoulombViscous => vec![Condition {
                key: "Fc",
                value: p.get("Fc").clone(),
                strict: false,
                what: format!("block {block}: the Coulomb force Fc >= 0"),
            }],
            Pwa => p
                .breakpoints
                .windows(2)
                .enumerate()
                .map(|(i, w)| Condition {
                    key: "breakpoints",
                    value: diff(&w[1], &w[0]),
                    strict: true,
                    what: format!(
                        "block {block}: breakpoints increase (y{} < y{})",
                        i + 1,
                        i + 2
                    ),
                })
                .collect(),
            _ => vec![],
        }
    }
}

/// The block's parameter values as trees over the model's parameters.
#[derive(Clone, Debug, Default)]
pub struct Params {
    pub named: Vec<(&'static str, Node)>,
    pub breakpoints: Vec<Node>,
    pub slopes: Vec<Node>,
}

impl Params {
    pub fn get(&self, key: &str) -> &Node {
        &self
            .named
            .iter()
            .find(|(k, _)| *k == key)
            .unwrap_or_else(|| panic!("block parameter {key} was validated"))
            .1
    }
}

fn num(x: f64) -> Node {
    Node::Num(x)
}

fn bin(op: BinOp, a: Node, b: Node) -> Node {
    Node::Bin(op, Box::new(a), Box::new(b))
}
