//! The validated model: the one value everything else is derived from.
//!
//! A model file is read in two stages, as ripgrep reads its arguments: [`raw`]
//! mirrors the TOML text with serde, and [`validate`] turns it into a [`Model`]
//! whose every name is unique and a C identifier, whose expressions mention only
//! parameters, and whose matrices have the right shapes. Errors name the file and
//! the field. The XML, the value-reference table, the data compiled into the FMU
//! and the GUID are all produced from a `Model`, so none of them is kept in sync by
//! hand.
//!
//! Two forms share everything but the dynamics: a first-order linear
//! complementarity system (see [`System`]), and a mechanical system (see
//! [`Mechanics`]) whose states are positions and velocities and whose pairs are
//! contact reactions. Files may repeat entries over an index (`for = "i in 1:N"`)
//! with sizes fixed when the model is built ([`template`]).

pub mod affine;
#[cfg(feature = "tool")]
mod block_params;
#[cfg(feature = "tool")]
pub mod blocks;
mod consistency;
mod dependencies;
pub mod expr;
pub mod functions;
pub mod gradient;
#[cfg(feature = "guid")]
pub mod guid;
pub mod mech_nonlinear;
#[cfg(feature = "tool")]
mod mech_rows;
#[cfg(feature = "tool")]
mod mechanical;
mod mechanical_form;
#[cfg(feature = "tool")]
pub mod netlist;
pub mod program;
#[cfg(feature = "tool")]
pub mod raw;
#[cfg(feature = "tool")]
mod rows;
pub mod sampled;
#[cfg(feature = "tool")]
mod settings;
#[cfg(feature = "tool")]
mod signals;
mod stepping;
#[cfg(feature = "tool")]
pub mod template;
pub mod time_jumps;
#[cfg(feature = "tool")]
pub mod validate;

use expr::Expr;
pub use mechanical_form::{Contact, Friction, Mechanics};
use serde::{Deserialize, Serialize};
pub use stepping::{
    DirectProjection, EventSettings, Impact, Integrator, Method, Scheme, ThetaGamma, DEFAULT_GAMMA,
};

/// A named parameter with its default value (an FMU parameter, fixed after initialization).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Parameter {
    pub name: String,
    pub value: f64,
    pub description: String,
    pub unit: String,
}

/// A named state or input with its start value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Variable {
    pub name: String,
    pub start: f64,
    pub description: String,
    pub unit: String,
}

/// One complementarity pair `lo <= u <= hi ⟂ y`; `u` carries the name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    pub name: String,
    pub lo: Expr,
    pub hi: Expr,
    pub description: String,
    pub unit: String,
    /// A memoryless relation (a block's static map, not a force acting on a
    /// state): its value at an instant is fixed by the states, inputs and
    /// other pairs of that instant, so when it depends on an input the FMU
    /// solves it again as soon as that input is set. Only blocks set it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub algebraic: bool,
}

impl Pair {
    /// Whether both bounds are infinite: an algebraic variable whose `y = 0`
    /// is an equation (a block's output).
    pub fn is_free(&self) -> bool {
        self.lo.as_constant() == Some(f64::NEG_INFINITY)
            && self.hi.as_constant() == Some(f64::INFINITY)
    }
}

/// A sparse matrix of parameter expressions; absent entries are zero.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExprMatrix {
    pub rows: usize,
    pub cols: usize,
    /// `(row, column, value)`, row-major order, no zeros, no duplicates.
    pub entries: Vec<(usize, usize, Expr)>,
}

impl ExprMatrix {
    pub fn zeros(rows: usize, cols: usize) -> Self {
        ExprMatrix {
            rows,
            cols,
            entries: Vec::new(),
        }
    }
}

/// `x' = A x + B u + E w + f`, `y = C x + D u + F w + g`: states x, complementarity
/// variables u, inputs w. Vectors are stored as one-column matrices.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct System {
    pub a: ExprMatrix,
    pub b: ExprMatrix,
    pub e: ExprMatrix,
    pub f: ExprMatrix,
    pub c: ExprMatrix,
    pub d: ExprMatrix,
    pub fw: ExprMatrix,
    pub g: ExprMatrix,
}

impl System {
    /// The empty system of a mechanical model.
    pub fn empty() -> Self {
        let z = || ExprMatrix::zeros(0, 0);
        System {
            a: z(),
            b: z(),
            e: z(),
            f: z(),
            c: z(),
            d: z(),
            fw: z(),
            g: z(),
        }
    }
}

/// A named output `z = Hx x + Hu u + Hw w + h`, linear with parameter coefficients.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Output {
    pub name: String,
    pub description: String,
    pub unit: String,
    /// The defining text, kept for documentation.
    pub definition: String,
    pub constant: Expr,
    pub states: Vec<(usize, Expr)>,
    pub pairs: Vec<(usize, Expr)>,
    pub inputs: Vec<(usize, Expr)>,
}

/// One block of the signal form and what it became (for `check` and the
/// documentation; the dynamics are in [`System`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Block {
    pub name: String,
    /// The type's name in model files (`saturation`).
    pub kind: String,
    /// `input = ...` and the parameters as written.
    pub settings: Vec<(String, String)>,
    /// The formulation with the block's names, one law per line.
    pub laws: Vec<String>,
    /// The pairs it added (its output first when that is a pair) and its state.
    pub pairs: Vec<usize>,
    pub state: Option<usize>,
}

impl Block {
    /// `input = ..., lo = ...` as written.
    pub fn settings_text(&self) -> String {
        let parts: Vec<String> = self
            .settings
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        parts.join(", ")
    }
}

/// A requirement on the parameters, checked when an FMU is initialized:
/// `value >= 0`, or `> 0` when `strict` (block parameters such as `lo <= hi`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Condition {
    pub value: Expr,
    pub strict: bool,
    pub what: String,
}

impl Condition {
    /// The message when `params` violate it, or `None`.
    pub fn violated(&self, params: &[f64]) -> Option<String> {
        let v = self.value.eval(params);
        let ok = if self.strict { v > 0.0 } else { v >= 0.0 };
        (!ok).then(|| format!("{} does not hold", self.what))
    }
}

/// The default experiment written to `modelDescription.xml` and used by `simulate`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Experiment {
    pub start: f64,
    pub stop: f64,
    pub step: f64,
}

/// A validated complementarity model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// The FMU's model identifier: a C identifier.
    pub name: String,
    pub description: String,
    pub parameters: Vec<Parameter>,
    pub inputs: Vec<Variable>,
    pub states: Vec<Variable>,
    pub pairs: Vec<Pair>,
    pub outputs: Vec<Output>,
    /// The first-order form; empty (0 x 0) for mechanical models.
    pub system: System,
    pub mechanics: Option<Mechanics>,
    pub scheme: Scheme,
    pub experiment: Experiment,
    /// The blocks of a signal-form model, lowered into `system` and `pairs`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<Block>,
    /// Requirements on the parameters, checked at initialization.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// The nonlinear remainders of a signal-form model's rows and outputs;
    /// `None` for a linear model, which then is exactly what it always was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonlinear: Option<program::Nonlinear>,
    /// Sampled-data partitions (`[[discrete]]`); their held outputs and
    /// states are the columns of `w` after the declared inputs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sampled: Vec<sampled::Partition>,
    /// Known values for `lcsfmu compare` (not compiled into FMUs).
    #[serde(skip)]
    pub reference: Option<Reference>,
}

/// Values a model file gives for some variables at sample times.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Reference {
    pub time: Vec<f64>,
    /// `(variable name, values at the times)`.
    pub values: Vec<(String, Vec<f64>)>,
}

impl Model {
    pub fn nx(&self) -> usize {
        self.states.len()
    }
    pub fn nu(&self) -> usize {
        self.pairs.len()
    }
    /// The width of `w`: the declared inputs, then the partitions' columns.
    pub fn nw(&self) -> usize {
        self.inputs.len() + self.sampled.iter().map(|p| p.width()).sum::<usize>()
    }
    pub fn np(&self) -> usize {
        self.parameters.len()
    }

    /// Whether a mechanical model's forces, gaps or slips are nonlinear (or
    /// read `time`): Moreau–Jean then runs a Newton iteration (see
    /// `scheme::mechanical` (its nonlinear form)).
    pub fn nonlinear_mechanics(&self) -> bool {
        self.mechanics
            .as_ref()
            .is_some_and(|m| m.nonlinear.is_some())
    }

    /// Whether the dynamics are nonlinear or read `time`: the theta step then
    /// runs a Newton iteration (see `scheme::theta::newton`).
    pub fn nonlinear_dynamics(&self) -> bool {
        self.nonlinear.as_ref().is_some_and(|n| n.dynamics())
    }

    /// Whether the first-order theta step takes Newton's iteration: a
    /// remainder of the dynamics or of the relation reads a state or a pair
    /// (sources in time alone keep the step one LCP).
    pub fn newton_step(&self) -> bool {
        let nxu = self.nx() + self.nu();
        self.nonlinear
            .as_ref()
            .is_some_and(|n| n.reads_unknowns(nxu))
    }

    /// Default parameter values.
    pub fn default_parameters(&self) -> Vec<f64> {
        self.parameters.iter().map(|p| p.value).collect()
    }

    /// The compact form compiled into FMUs and stored in their resources.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a model always serializes")
    }

    /// Reads [`Model::to_json`] output and checks what the rest of the code relies on
    /// (shapes, indices, well-formed expressions), since the text may come from an
    /// old or damaged FMU.
    pub fn from_json(text: &str) -> Result<Model, String> {
        let model: Model =
            serde_json::from_str(text).map_err(|e| format!("embedded model is unreadable: {e}"))?;
        model.check_consistency()?;
        Ok(model)
    }
}
