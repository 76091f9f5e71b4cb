//! What a `modelDescription.xml` declares, before any FMI version's syntax: the
//! variables with their value references and attributes, and the model
//! structure (outputs, state derivatives, initial unknowns, event indicators)
//! by value reference.
//!
//! Everything comes from the one value-reference table the instance uses
//! ([`crate::instance::variables`]), so the XML and the binary cannot
//! disagree. A Model Exchange FMU adds one derivative per state after the
//! model's variables (value references `variables(model).len() + i`) and then
//! its event indicators, two per pair (see [`crate::scheme::exchange`]), so
//! every other variable keeps the reference it has in a Co-Simulation FMU.
//! FMI 2.0 leaves the time and the indicators out of its variables (the
//! writer, [`super`], skips them); FMI 3.0 declares both.

use super::number;
use crate::fmi::version::Interfaces;
use crate::instance::variables::{self, Kind, Variable};
use crate::model::Model;

/// What a declared variable is, as far as the two versions write it differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The independent variable (value reference 0).
    Time,
    /// A variable of the model (state, input, parameter, pair, output).
    Model,
    /// `der(x_i)` of a Model Exchange FMU; `of` is the state's value reference.
    Derivative { of: usize },
    /// An event indicator of a Model Exchange FMU.
    Indicator,
}

/// One variable as every version declares it.
#[derive(Clone, Debug)]
pub struct Entry<'m> {
    pub role: Role,
    pub name: std::borrow::Cow<'m, str>,
    pub value_reference: usize,
    /// Empty when there is nothing to say.
    pub description: String,
    pub causality: &'static str,
    pub variability: &'static str,
    pub initial: Option<&'static str>,
    /// Empty when the variable has no unit.
    pub unit: &'m str,
    pub start: Option<f64>,
}

/// The model structure by value reference.
#[derive(Clone, Debug, Default)]
pub struct Structure {
    /// Each output with the inputs it depends on at once; `None` where the
    /// dependencies are "every known" (Model Exchange, through the mode).
    pub outputs: Vec<(usize, Option<Vec<usize>>)>,
    /// Each state derivative with the states and inputs it may depend on.
    pub derivatives: Vec<(usize, Vec<usize>)>,
    /// The calculated variables, then the derivatives.
    pub initial_unknowns: Vec<usize>,
    pub indicators: Vec<usize>,
}

/// The declared variables and the structure of an FMU of `model` for `interfaces`.
pub struct Table<'m> {
    pub entries: Vec<Entry<'m>>,
    pub structure: Structure,
}

impl<'m> Table<'m> {
    pub fn new(model: &'m Model, interfaces: Interfaces) -> Table<'m> {
        let vars = variables::variables(model);
        debug_assert_eq!(vars[0].kind, Kind::Time, "the time is value reference 0");
        let me = interfaces.model_exchange;
        let mut entries: Vec<Entry> = vars
            .iter()
            .enumerate()
            .map(|(vr, v)| {
                let (causality, variability, initial) = v.attributes();
                Entry {
                    role: if v.kind == Kind::Time {
                        Role::Time
                    } else {
                        Role::Model
                    },
                    name: v.name.into(),
                    value_reference: vr,
                    description: describe(model, v.kind, v.description),
                    causality,
                    variability,
                    initial,
                    unit: v.unit,
                    start: v.start,
                }
            })
            .collect();
        let base = vars.len();
        let mut structure = Structure {
            outputs: output_dependencies(model, &vars)
                .into_iter()
                .map(|(vr, deps)| (vr, (!me).then_some(deps)))
                .collect(),
            initial_unknowns: vars
                .iter()
                .enumerate()
                .filter(|(_, v)| v.attributes().2 == Some("calculated"))
                .map(|(vr, _)| vr)
                .collect(),
            ..Structure::default()
        };
        if me {
            for i in 0..model.nx() {
                let state = position(&vars, Kind::State(i));
                entries.push(computed(
                    Role::Derivative { of: state },
                    variables::derivative_name(model, i),
                    base + i,
                    format!("derivative of {} in the current mode", model.states[i].name),
                ));
                structure
                    .derivatives
                    .push((base + i, derivative_dependencies(model, &vars, i)));
                structure.initial_unknowns.push(base + i);
            }
            for k in 0..indicator_count(model) {
                let vr = base + model.nx() + k;
                entries.push(computed(
                    Role::Indicator,
                    variables::indicator_name(model, k),
                    vr,
                    indicator_description(model, k),
                ));
                structure.indicators.push(vr);
            }
        }
        Table { entries, structure }
    }
}

/// Event indicators of `model`: two per pair.
pub fn indicator_count(model: &Model) -> usize {
    crate::scheme::exchange::indicator_count(model.nu())
}

/// A local variable the FMU computes (a derivative or an indicator).
fn computed<'m>(role: Role, name: String, vr: usize, description: String) -> Entry<'m> {
    Entry {
        role,
        name: name.into(),
        value_reference: vr,
        description,
        causality: "local",
        variability: "continuous",
        initial: Some("calculated"),
        unit: "",
        start: None,
    }
}

fn indicator_description(model: &Model, k: usize) -> String {
    let pair = &model.pairs[k / 2].name;
    if k.is_multiple_of(2) {
        format!("event indicator: the current mode's guard of {pair} leaving its lower side (y at the lower bound, u - lo between the bounds, 1 when the mode has none)")
    } else {
        format!("event indicator: the current mode's guard of {pair} leaving its upper side (-y at the upper bound, hi - u between the bounds, 1 when the mode has none)")
    }
}

fn position(vars: &[Variable], kind: Kind) -> usize {
    vars.iter()
        .position(|v| v.kind == kind)
        .expect("every state and input is a variable")
}

/// The units the variables use, sorted, each once.
pub fn units<'m>(entries: &[Entry<'m>]) -> Vec<&'m str> {
    let mut units: Vec<&str> = entries
        .iter()
        .map(|e| e.unit)
        .filter(|u| !u.is_empty())
        .collect();
    units.sort_unstable();
    units.dedup();
    units
}

/// Every output (its value reference) with the value references of the inputs
/// it depends on at once. Outputs reflect the end of the last step, except the
/// static maps of blocks and the named outputs that read inputs
/// (src/model/dependencies.rs).
fn output_dependencies(model: &Model, vars: &[Variable]) -> Vec<(usize, Vec<usize>)> {
    let (pair_deps, output_deps) = (model.pair_feedthrough(), model.output_feedthrough());
    vars.iter()
        .enumerate()
        .filter(|(_, v)| v.attributes().0 == "output")
        .map(|(i, v)| {
            let inputs: &[usize] = match v.kind {
                Kind::Output(k) => &output_deps[k],
                Kind::Pair(k) => &pair_deps[k],
                _ => &[],
            };
            let deps = inputs
                .iter()
                .filter_map(|j| vars.iter().position(|v| v.kind == Kind::Input(*j)))
                .collect();
            (i, deps)
        })
        .collect()
}

/// Value references of the states and inputs `der(x_i)` may depend on in some
/// mode: those of row `i` of A and E (its declared inputs' columns) when B's
/// row is empty; otherwise every state and input, since the multipliers of a mode depend on them through the
/// mode's own equations.
fn derivative_dependencies(model: &Model, vars: &[Variable], i: usize) -> Vec<usize> {
    let s = &model.system;
    let coupled = s.b.entries.iter().any(|(r, _, _)| *r == i);
    let mut deps: Vec<usize> = if coupled {
        (0..model.nx())
            .map(|j| position(vars, Kind::State(j)))
            .chain((0..model.inputs.len()).map(|j| position(vars, Kind::Input(j))))
            .collect()
    } else {
        let states = s.a.entries.iter().filter(|(r, _, _)| *r == i);
        // Columns of `w` past the inputs are held values of `[[discrete]]`
        // partitions: constant in Continuous-Time Mode, no dependency there.
        let inputs =
            s.e.entries
                .iter()
                .filter(|(r, c, _)| *r == i && *c < model.inputs.len());
        states
            .map(|(_, c, _)| position(vars, Kind::State(*c)))
            .chain(inputs.map(|(_, c, _)| position(vars, Kind::Input(*c))))
            .collect()
    };
    deps.sort_unstable();
    deps.dedup();
    deps
}

/// The user's description, completed with what the variable is in the LCS.
fn describe(model: &Model, kind: Kind, user: &str) -> String {
    let what = match kind {
        Kind::Pair(i) => {
            let p = &model.pairs[i];
            let bound = |e: &crate::model::expr::Expr| {
                e.as_constant()
                    .map_or_else(|| "(parameter)".to_string(), number)
            };
            if p.is_free() {
                "algebraic variable: its y is 0".to_string()
            } else {
                format!(
                    "complementarity variable, {} <= {} <= {} complementary to its y",
                    bound(&p.lo),
                    p.name,
                    bound(&p.hi)
                )
            }
        }
        Kind::Output(k) => format!("= {}", model.outputs[k].definition),
        _ => String::new(),
    };
    match (user.is_empty(), what.is_empty()) {
        (true, _) => what,
        (false, true) => user.to_string(),
        (false, false) => format!("{user} ({what})"),
    }
}
