//! Second stage of reading a model file: from [`raw`] structs to a
//! [`Model`], or to a [`ModelError`] that names the file, the field and the problem.
//!
//! Checks: C-identifier names, unique across the whole model and distinct from
//! reserved words; finite numbers; theta in [0.5, 1]; matrix shapes against the
//! declared states, inputs and pairs; expressions that only mention parameters
//! (outputs may also mention variables, linearly); bounds with `lo <= hi`; and
//! that every entry is finite at the default parameter values, so a division by
//! a zero parameter is caught before anything is built. The other forms and the
//! settings have files of their own: `mechanical`,
//! `signals` (derivatives and blocks) and `settings` (experiment, scheme,
//! reference).

mod fields;
mod matrices;
mod sampled;

pub(super) use fields::Names;

pub(super) use matrices::{variable_symbols, MatrixContext};

use super::affine::Symbol;
use super::program::Form;
use super::raw::{self, RawModel};
use super::{Method, Model, Parameter, System, Variable};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// A problem in a model file.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelError {
    pub file: PathBuf,
    /// Where in the file, as a key path (`system.A[1][0]`), or `(file)` for
    /// the whole text; in a netlist, the line number (printed `file:line`).
    pub field: String,
    pub message: String,
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sep = if self.line().is_some() { ":" } else { ": " };
        write!(
            f,
            "{}{sep}{}: {}",
            self.file.display(),
            self.field,
            self.message
        )
    }
}

impl std::error::Error for ModelError {}

impl ModelError {
    /// The line of a netlist's error (whose field is a line number).
    pub fn line(&self) -> Option<usize> {
        self.field.parse().ok()
    }
}

/// Reads and validates a model file.
pub fn load(path: &Path) -> Result<Model, ModelError> {
    load_with_defines(path, &[])
}

/// Reads and validates a model file, overriding some of its `[defines]`.
pub fn load_with_defines(path: &Path, defines: &[(String, i64)]) -> Result<Model, ModelError> {
    load_with(path, defines, None)
}

/// Validates model text; `path` is only used in messages.
pub fn from_str(text: &str, path: &Path) -> Result<Model, ModelError> {
    from_str_with_defines(text, path, &[])
}

/// [`from_str`] with `[defines]` overridden.
pub fn from_str_with_defines(
    text: &str,
    path: &Path,
    defines: &[(String, i64)],
) -> Result<Model, ModelError> {
    from_str_with(text, path, defines, None)
}

/// Reads and validates a model file with `[defines]` and, when given, the
/// scheme's method overridden (`--scheme`). A netlist (`.cir`, `.sp`,
/// `.net`, see [`super::netlist`]) has no `[defines]`.
pub fn load_with(
    path: &Path,
    defines: &[(String, i64)],
    method: Option<&str>,
) -> Result<Model, ModelError> {
    if super::netlist::is_netlist(path) {
        if let Some((name, _)) = defines.first() {
            return Err(ModelError {
                file: path.to_path_buf(),
                field: "(file)".into(),
                message: format!("--define {name}: a netlist declares no [defines]"),
            });
        }
        return super::netlist::load(path, method).map(|l| l.model);
    }
    let text = std::fs::read_to_string(path).map_err(|e| ModelError {
        file: path.to_path_buf(),
        field: "(file)".into(),
        message: format!("cannot read: {e}"),
    })?;
    from_str_with(&text, path, defines, method)
}

/// [`from_str`] with `[defines]` and the method overridden.
pub fn from_str_with(
    text: &str,
    path: &Path,
    defines: &[(String, i64)],
    method: Option<&str>,
) -> Result<Model, ModelError> {
    let raw = raw::parse(text, defines).map_err(|(field, message)| ModelError {
        file: path.into(),
        field,
        message,
    })?;
    if raw.circuit.is_some() {
        let offset = super::netlist::toml_offset(text);
        return Validator::new(path, method).circuit_model(raw, offset);
    }
    let form =
        if raw.coordinates.is_empty() && raw.contacts.is_empty() && raw.constraints.is_empty() {
            Form::Signal
        } else {
            Form::Mechanical
        };
    Validator {
        file: path,
        method,
        form,
    }
    .model(raw)
}

/// Most output coefficients (outputs × variables) a model may have: 80 MB.
const MAX_OUTPUT_ENTRIES: usize = 10_000_000;

/// Most states and pairs of a first-order model. Its schemes hold `n × n`
/// dense matrices and factor them: at 2,000 that is 32 MB each and about a
/// second per factorization; a `[defines]` size of 50,000 asked for 20 GB at
/// the first step and aborted the process (an FMU would take its importer
/// down with it), and 5,000 diagonal states took minutes.
const MAX_FIRST_ORDER: usize = 2_000;

pub(super) struct Validator<'a> {
    file: &'a Path,
    /// `--scheme`: replaces the file's `[scheme] method`.
    pub(super) method: Option<&'a str>,
    /// Mechanical (coordinates or contacts) or first-order: what nonlinear
    /// rows read and where their nonsmooth laws belong.
    pub(super) form: Form,
}

pub(super) type Res<T> = Result<T, ModelError>;

impl<'a> Validator<'a> {
    /// A validator of file `file` with the method overridden by `method`
    /// (the netlist front end's scheme settings).
    pub(super) fn new(file: &'a Path, method: Option<&'a str>) -> Self {
        Validator {
            file,
            method,
            form: Form::Signal,
        }
    }

    /// The file named in messages.
    pub(super) fn file(&self) -> &'a Path {
        self.file
    }
}

impl Validator<'_> {
    fn model(&self, mut raw: RawModel) -> Res<Model> {
        self.identifier("model.name", &raw.model.name)?;
        let signal_form = super::signals::wanted(&raw);
        let mechanical = self.form == Form::Mechanical;
        if mechanical {
            self.first_order_absent(&raw)?;
            if !raw.blocks.is_empty() {
                return self.fail(
                    "blocks",
                    "blocks belong to the signal form (states with der); a mechanical model writes its forces with [[coordinates]] and [[contacts]]",
                );
            }
        }
        if let Some(i) = raw.inputs.iter().position(|w| w.der.is_some()) {
            return self.fail(
                format!("inputs[{i}].der"),
                "an input has no derivative (only states take der)",
            );
        }
        let mut names = Names::default();
        let mut parameters = Vec::new();
        for (i, p) in raw.parameters.into_iter().enumerate() {
            let field = format!("parameters[{i}]");
            names.declare(self, field.clone(), &p.name)?;
            let value = self.constant(&format!("{field}.value"), Some(&p.value))?;
            parameters.push(Parameter {
                name: p.name,
                value,
                description: p.description,
                unit: p.unit,
            });
        }
        let mut inputs = self.variables(raw.inputs, "inputs", &mut names)?;
        // Held outputs and discrete states are read as columns of w after
        // the declared inputs (see crate::model::sampled).
        let declared_inputs = inputs.len();
        let discrete = std::mem::take(&mut raw.discrete);
        let first_order_signals = signal_form && !mechanical && raw.circuit.is_none();
        self.sampled_columns(&discrete, &mut inputs, first_order_signals, &mut names)?;
        let defaults: Vec<f64> = parameters.iter().map(|p| p.value).collect();
        let param_map: HashMap<&str, usize> = parameters
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.as_str(), i))
            .collect();
        let param_index = |n: &str| param_map.get(n).copied();
        let ctx = MatrixContext {
            param: &param_index,
            defaults: &defaults,
        };

        let mut blocks = Vec::new();
        let mut conditions = Vec::new();
        let mut nonlinear = super::program::Nonlinear::default();
        let (states, pairs, system, mechanics) = if mechanical {
            let (states, pairs, mech) = self.mechanics(
                raw.coordinates,
                (raw.contacts, raw.constraints),
                raw.mechanics,
                &inputs,
                &mut names,
                &ctx,
            )?;
            (states, pairs, System::empty(), Some(mech))
        } else if signal_form {
            if raw.mechanics.is_some() {
                return self.fail(
                    "mechanics",
                    "only mechanical models (with [[coordinates]]) have a [mechanics] table",
                );
            }
            let parts = super::signals::Signals {
                states: &raw.states,
                blocks: &raw.blocks,
                system: &raw.system,
                complementarity: &raw.complementarity,
            };
            let lowered = self.signals(parts, &inputs, &mut names, &ctx)?;
            (blocks, conditions) = (lowered.blocks, lowered.conditions);
            nonlinear = lowered.nonlinear;
            (lowered.states, lowered.pairs, lowered.system, None)
        } else {
            if raw.mechanics.is_some() {
                return self.fail(
                    "mechanics",
                    "only mechanical models (with [[coordinates]]) have a [mechanics] table",
                );
            }
            let states = self.variables(std::mem::take(&mut raw.states), "states", &mut names)?;
            let pairs = self.pairs(&raw.complementarity, &mut names, &ctx)?;
            if states.is_empty() && pairs.is_empty() {
                return self.fail(
                    "(file)",
                    "the model declares no states and no complementarity pairs",
                );
            }
            let system = self.system(raw.system, &states, &pairs, &inputs, &ctx)?;
            (states, pairs, system, None)
        };
        for (i, o) in raw.outputs.iter().enumerate() {
            names.declare(self, format!("outputs[{i}]"), &o.name)?;
        }

        let (nx, nu) = (states.len(), pairs.len());
        if mechanics.is_none() && nx + nu > MAX_FIRST_ORDER {
            return self.fail(
                if nx > 0 { "states" } else { "complementarity" },
                format!(
                    "{nx} states and {nu} complementarity pairs: the first-order schemes work on dense matrices of that order ({} MB each, factored per step size), so at most {MAX_FIRST_ORDER} together are accepted (mechanical models, whose chains are stepped with banded solvers, have no such limit)",
                    (nx + nu).pow(2) * 8 / 1_000_000
                ),
            );
        }
        let mut symbols = variable_symbols(&states, &pairs, &inputs);
        for (i, p) in parameters.iter().enumerate() {
            symbols.insert(&p.name, Symbol::Param(i));
        }
        // Outputs are evaluated, never stepped: any model's may read time and
        // be nonlinear.
        let lookup = |n: &str| {
            symbols
                .get(n)
                .copied()
                .or_else(|| (n == "time").then_some(Symbol::Time))
        };
        let mut outputs = Vec::new();
        for (i, o) in raw.outputs.into_iter().enumerate() {
            let (out, remainder) =
                self.output(&format!("outputs[{i}].value"), o, &lookup, &ctx, (nx, nu))?;
            if let Some(program) = remainder {
                nonlinear.outputs.push((i, program));
            }
            outputs.push(out);
        }
        let sampled = self.sampled(discrete, declared_inputs, &lookup, &ctx, &mut conditions)?;
        inputs.truncate(declared_inputs);

        // Output rows are stored densely over all variables; a template can ask
        // for a great many of them.
        let width = nx + nu + inputs.len() + sampled.iter().map(|p| p.width()).sum::<usize>();
        if outputs.len().saturating_mul(width) > MAX_OUTPUT_ENTRIES {
            return self.fail(
                "outputs",
                format!(
                    "{} outputs over {width} variables: their coefficients would take more than {MAX_OUTPUT_ENTRIES} entries; define fewer outputs (states and pairs are outputs already)",
                    outputs.len()
                ),
            );
        }
        let experiment = self.experiment(raw.experiment)?;
        let scheme = self.scheme(raw.scheme, mechanical)?;
        if let (Some(m), Method::SemiExplicit) = (&mechanics, scheme.method) {
            if let Some(k) = m.contacts.iter().position(|c| !c.restitution.is_zero()) {
                return self.fail(
                    format!("contacts[{k}].restitution"),
                    "has no effect in the semi-explicit scheme, whose impacts are plastic (use moreau-jean for bounces)",
                );
            }
        }
        if let Some(m) = &mechanics {
            self.nonlinear_mechanics_scheme(m, scheme.method)?;
        }
        // Partitions run under every first-order scheme: the instance cuts
        // each communication step at their sample instants (mechanical models
        // were refused them above).
        if scheme.method == Method::Zoh && nonlinear.reads_unknowns(nx + nu) {
            return self.fail(
                "scheme.method",
                "'zoh' integrates a linear part exactly: this model's dynamics or relation are nonlinear in its states or pairs (nonlinear expressions, blocks of them), which the theta-method's Newton step takes; sources in time, inputs and parameters are fine",
            );
        }
        let reference = self.reference(raw.reference.take(), &experiment, &names)?;
        if nonlinear.dynamics() && !scheme.theta_gamma.is_default() {
            let field = if scheme.theta_gamma.multipliers != 1.0 {
                "scheme.gamma"
            } else {
                "scheme.gamma_relation"
            };
            return self.fail(
                field,
                "weights the linear multiplier term B u of the theta-method; this model's dynamics are nonlinear or read time (Newton step), where it is not defined",
            );
        }
        let nonlinear = (nonlinear != super::program::Nonlinear::default()).then_some(nonlinear);
        let model = Model {
            name: raw.model.name,
            description: raw.model.description,
            parameters,
            inputs,
            states,
            pairs,
            outputs,
            system,
            mechanics,
            scheme,
            experiment,
            blocks,
            conditions,
            reference,
            nonlinear,
            sampled,
        };
        self.nonlinear_feedthrough(&model)?;
        Ok(model)
    }

    /// Refuses a nonlinear block relation that an input reaches at once: the
    /// FMU re-solves such relations when an input is set with the linear
    /// equations only (see `instance::feedthrough`).
    fn nonlinear_feedthrough(&self, model: &Model) -> Res<()> {
        let Some(nl) = &model.nonlinear else {
            return Ok(());
        };
        let deps = model.pair_feedthrough();
        let Some((j, _)) = nl.y.iter().find(|(j, _)| !deps[*j].is_empty()) else {
            return Ok(());
        };
        // The relation is the block's (the signal form derives every pair
        // from a block), so the block is where to look.
        let field = model
            .blocks
            .iter()
            .position(|b| b.pairs.contains(j))
            .map_or("inputs".to_string(), |b| format!("blocks[{b}]"));
        let inputs: Vec<&str> = deps[*j]
            .iter()
            .map(|&w| model.inputs[w].name.as_str())
            .collect();
        self.fail(
            field,
            format!(
                "the block relation of {} is nonlinear and follows input{} {} at once; such direct feedthrough is linear only for now (feed the input through a state, or write the relation linearly)",
                model.pairs[*j].name,
                if inputs.len() > 1 { "s" } else { "" },
                inputs.join(", ")
            ),
        )
    }

    pub(super) fn variables(
        &self,
        list: Vec<raw::RawVariable>,
        kind: &str,
        names: &mut Names,
    ) -> Res<Vec<Variable>> {
        let mut out = Vec::new();
        for (i, v) in list.into_iter().enumerate() {
            let field = format!("{kind}[{i}]");
            names.declare(self, field.clone(), &v.name)?;
            let start = self.constant(&format!("{field}.start"), v.start.as_ref())?;
            out.push(Variable {
                name: v.name,
                start,
                description: v.description,
                unit: v.unit,
            });
        }
        Ok(out)
    }
}
