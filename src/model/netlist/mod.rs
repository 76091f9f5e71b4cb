//! The netlist front end: a SPICE netlist (`.cir`, `.sp`, `.net`) read into
//! the same first-order [`Model`] the TOML forms give, with ideal (or
//! piecewise-linear) diodes as complementarity pairs and switches `S`
//! driven in time as free pairs whose equation reads the switch state.
//!
//! The pipeline, one file per step:
//!
//! - [`lines`]: the text into logical lines (title, comments, `+`
//!   continuations, `.end`) and tokens;
//! - [`values`]: SPICE numbers with scale factors, `{expressions}` over
//!   `.param` names;
//! - [`parse`]: statements into a [`elements::Circuit`] (elements `R C L V I
//!   D` with `IC=`, `DC`, `SIN`, `PULSE`, `PWL`, controlled sources `E F G
//!   H`, couplings `K`, `X` instances of `.subckt`s expanded in place;
//!   `.param .tran .ic .model .options .save .probe`); [`waveform`]: a
//!   source's waveform as a program of `time`;
//! - [`topology`]: the refusals of ill-posed circuits (an element on one
//!   node, a node with one connection, a floating part, a loop of voltage
//!   sources and capacitors, a cut-set of inductors and current sources),
//!   and which side of each diode's pair is the multiplier;
//! - `mna`: the node equations solved once for every voltage and current
//!   as a linear function of states, multipliers and sources;
//! - `lower`: those functions as `A B C D f g` (coupled inductors through
//!   their inverse inductance matrix), programs of time and outputs (those
//!   `.save` names), with the names of `names`.
//!
//! Every refusal is a [`ModelError`] whose field is the line number, so it
//! prints as `file:line: what is wrong`.

pub mod elements;
pub mod lines;
mod lower;
mod mna;
mod names;
pub mod parse;
mod toml;
pub mod topology;
pub mod values;
pub mod waveform;

pub use self::toml::offset as toml_offset;
use super::raw::RawScheme;
use super::validate::{ModelError, Validator};
use super::{Experiment, Model};
use std::path::Path;

/// A refusal at a line of the netlist.
#[derive(Clone, Debug, PartialEq)]
pub struct NetError {
    /// 1-based line number.
    pub line: usize,
    pub message: String,
}

impl NetError {
    pub fn at(line: usize, message: impl Into<String>) -> Self {
        NetError {
            line,
            message: message.into(),
        }
    }

    fn into_model_error(self, path: &Path) -> ModelError {
        ModelError {
            file: path.to_path_buf(),
            field: self.line.to_string(),
            message: self.message,
        }
    }
}

/// Whether `path` names a netlist file (`.cir`, `.sp`, `.net`, any case).
pub fn is_netlist(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| ["cir", "sp", "net"].contains(&e.to_ascii_lowercase().as_str()))
}

/// A netlist read into a model, with what `check` prints about it.
pub struct Lowered {
    pub model: Model,
    /// The circuit's nodes and elements, what each state and pair came
    /// from, and what was accepted with no effect.
    pub summary: Vec<String>,
}

/// Most states and pairs of a circuit (as for every first-order model).
const MAX_FIRST_ORDER: usize = 2_000;

/// Reads netlist `text` (its first line the title); `path` names the file in
/// messages and, by its stem, the model; `method` replaces the scheme's
/// method (`--scheme`).
pub fn read(text: &str, path: &Path, method: Option<&str>) -> Result<Lowered, ModelError> {
    let at = Place { path, offset: 0 };
    let split = lines::split(text, true).map_err(|e| at.error(e))?;
    let circuit = parse::circuit(&split, &[]).map_err(|e| at.error(e))?;
    let stem = path
        .file_stem()
        .map_or("circuit".into(), |s| s.to_string_lossy().into_owned());
    let settings = Settings {
        method,
        experiment: None,
        scheme: None,
    };
    let (lowered, _) = lower_circuit(&circuit, names::identifier(&stem), &at, settings, &[])?;
    Ok(lowered)
}

/// A netlist from a file.
pub fn load(path: &Path, method: Option<&str>) -> Result<Lowered, ModelError> {
    let text = std::fs::read_to_string(path).map_err(|e| ModelError {
        file: path.to_path_buf(),
        field: "(file)".into(),
        message: format!("cannot read: {e}"),
    })?;
    read(&text, path, method)
}

/// Where the netlist's lines are: the file, and how many lines of it come
/// before the netlist's first (a netlist inside a TOML model).
struct Place<'p> {
    path: &'p Path,
    offset: usize,
}

impl Place<'_> {
    fn error(&self, e: NetError) -> ModelError {
        NetError {
            line: e.line + self.offset,
            message: e.message,
        }
        .into_model_error(self.path)
    }
}

/// The scheme and experiment: the netlist's `.tran` and `.options` unless a
/// TOML model gives its own.
struct Settings<'a> {
    method: Option<&'a str>,
    experiment: Option<Experiment>,
    scheme: Option<RawScheme>,
}

fn lower_circuit(
    circuit: &elements::Circuit,
    name: String,
    at: &Place,
    settings: Settings,
    inputs: &[String],
) -> Result<(Lowered, Vec<(String, crate::model::expr::Node)>), ModelError> {
    let fail = |e: NetError| at.error(e);
    let Some(first) = circuit.elements.first() else {
        return Err(fail(NetError::at(1, "the netlist has no elements")));
    };
    let roles = topology::analyse(circuit).map_err(fail)?;
    let cols = mna::Columns::new(circuit, &roles);
    if cols.nx + cols.nu == 0 {
        return Err(fail(NetError::at(
            first.line,
            "the circuit has no capacitor, inductor or diode: nothing in it evolves or switches",
        )));
    }
    if cols.nx + cols.nu > MAX_FIRST_ORDER {
        return Err(fail(NetError::at(
            first.line,
            format!(
                "{} capacitors and inductors and {} diodes: at most {MAX_FIRST_ORDER} together are accepted (the first-order schemes work on dense matrices)",
                cols.nx, cols.nu
            ),
        )));
    }
    let solution = mna::solve(circuit, &cols).map_err(fail)?;
    let parts = lower::parts(circuit, &cols, &solution, inputs).map_err(fail)?;

    let tran = circuit.tran;
    let experiment = settings.experiment.unwrap_or(Experiment {
        start: 0.0,
        stop: tran.map_or(1.0, |t| t.stop),
        step: tran.map_or(0.01, |t| t.step),
    });
    let raw_scheme = settings.scheme.unwrap_or_else(|| RawScheme {
        theta: circuit.trapezoidal.then_some(0.5),
        max_step: tran.and_then(|t| t.max).filter(|&m| m < experiment.step),
        ..RawScheme::default()
    });
    let scheme = Validator::new(at.path, settings.method).scheme(Some(raw_scheme), false)?;

    let count =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut summary = vec![format!(
        "circuit: {} besides the ground, {}; {} (capacitor voltages, inductor currents), {}",
        count(circuit.nodes.len() - 1, "node", "nodes"),
        count(circuit.elements.len(), "element", "elements"),
        count(cols.nx, "state", "states"),
        count(
            cols.nu,
            "pair (diode or switch)",
            "pairs (diodes and switches)"
        ),
    )];
    if tran.is_none() && settings.experiment.is_none() {
        summary.push("no .tran: the experiment is 0 to 1 s in steps of 0.01 s".into());
    }
    summary.extend(parts.summary);
    summary.extend(sparsity(&parts.states, &parts.pairs, &parts.system));
    summary.extend(circuit.notes.iter().map(|n| format!("note: {n}")));

    let nonlinear = (parts.nonlinear != Default::default()).then_some(parts.nonlinear);
    let model = Model {
        name,
        description: circuit.title.clone(),
        parameters: Vec::new(),
        inputs: Vec::new(),
        states: parts.states,
        pairs: parts.pairs,
        outputs: parts.outputs,
        system: parts.system,
        mechanics: None,
        scheme,
        experiment,
        blocks: Vec::new(),
        conditions: Vec::new(),
        nonlinear,
        reference: None,
        sampled: Vec::new(),
    };
    Ok((Lowered { model, summary }, parts.quantities))
}

/// The lowered matrices' patterns, a row per state (`A | B`) and per pair
/// (`C | D`), `x` for an entry and `.` for none (up to 40 columns).
fn sparsity(states: &[super::Variable], pairs: &[super::Pair], s: &super::System) -> Vec<String> {
    let (nx, nu) = (states.len(), pairs.len());
    if nx + nu > 40 {
        return vec![format!("sparsity: {nx} + {nu} columns, not printed")];
    }
    let pattern = |m: &super::ExprMatrix, i: usize| -> String {
        (0..m.cols)
            .map(|j| {
                let set = m.entries.iter().any(|(r, c, _)| *r == i && *c == j);
                if set {
                    'x'
                } else {
                    '.'
                }
            })
            .collect()
    };
    let width = states
        .iter()
        .map(|v| v.name.len())
        .chain(pairs.iter().map(|p| p.name.len() + 5))
        .max()
        .unwrap_or(0);
    let mut out = vec!["sparsity ('x' an entry), columns: states | pairs:".to_string()];
    for (i, v) in states.iter().enumerate() {
        let label = format!("{}'", v.name);
        out.push(format!(
            "  {label:<width$}  A {}  B {}",
            pattern(&s.a, i),
            pattern(&s.b, i)
        ));
    }
    for (i, p) in pairs.iter().enumerate() {
        let label = format!("y of {}", p.name);
        out.push(format!(
            "  {label:<width$}  C {}  D {}",
            pattern(&s.c, i),
            pattern(&s.d, i)
        ));
    }
    out
}
