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
//! The internal form is a first-order linear complementarity system
//! (see [`System`]); front ends (today the matrix form of the file; later
//! mechanical models and block libraries) lower into it.

pub mod affine;
pub mod expr;
#[cfg(feature = "tool")]
pub mod raw;
#[cfg(feature = "tool")]
pub mod validate;

use expr::Expr;
use serde::{Deserialize, Serialize};

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

/// Time discretization: theta-method on the smooth part, complementarity implicit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scheme {
    /// 1 is backward Euler, 0.5 the trapezoidal rule.
    pub theta: f64,
    /// Longest internal step; a communication step is split into equal sub-steps.
    pub max_step: Option<f64>,
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
    pub system: System,
    pub scheme: Scheme,
    pub experiment: Experiment,
}

impl Model {
    pub fn nx(&self) -> usize {
        self.states.len()
    }
    pub fn nu(&self) -> usize {
        self.pairs.len()
    }
    pub fn nw(&self) -> usize {
        self.inputs.len()
    }
    pub fn np(&self) -> usize {
        self.parameters.len()
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

    fn check_consistency(&self) -> Result<(), String> {
        let (nx, nu, nw, np) = (self.nx(), self.nu(), self.nw(), self.np());
        let s = &self.system;
        let shapes = [
            ("A", &s.a, nx, nx),
            ("B", &s.b, nx, nu),
            ("E", &s.e, nx, nw),
            ("f", &s.f, nx, 1),
            ("C", &s.c, nu, nx),
            ("D", &s.d, nu, nu),
            ("F", &s.fw, nu, nw),
            ("g", &s.g, nu, 1),
        ];
        let ok_expr = |e: &Expr| e.is_well_formed(np);
        for (name, m, r, c) in shapes {
            if m.rows != r
                || m.cols != c
                || m.entries
                    .iter()
                    .any(|(i, j, e)| *i >= r || *j >= c || !ok_expr(e))
            {
                return Err(format!("embedded model: matrix {name} is inconsistent"));
            }
        }
        let pairs_ok = self.pairs.iter().all(|p| ok_expr(&p.lo) && ok_expr(&p.hi));
        let outputs_ok = self.outputs.iter().all(|o| {
            ok_expr(&o.constant)
                && o.states.iter().all(|(j, e)| *j < nx && ok_expr(e))
                && o.pairs.iter().all(|(j, e)| *j < nu && ok_expr(e))
                && o.inputs.iter().all(|(j, e)| *j < nw && ok_expr(e))
        });
        if !pairs_ok || !outputs_ok {
            return Err("embedded model: bounds or outputs are inconsistent".into());
        }
        Ok(())
    }
}
