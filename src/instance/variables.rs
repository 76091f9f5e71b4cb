//! The value-reference table: every FMU variable, derived from the model.
//!
//! Value references are positions in one fixed order (time, parameters, inputs,
//! states, complementarity variables, outputs, then the held outputs and
//! discrete states of `[[discrete]]` partitions), so the reference of a variable is
//! also its 0-based index in `ModelVariables`. A Model Exchange FMU appends the
//! state derivatives `der(x)` after them ([`kinds_with_derivatives`]), and an
//! FMI 3.0 Model Exchange FMU its named event indicators after those
//! ([`kinds_with_indicators`]), so the references of a Co-Simulation FMU stay
//! what they were. Both the XML writers and the instance read this table;
//! nothing else assigns references.

use crate::model::Model;

/// What a value reference points at; the index is within its group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Time,
    Parameter(usize),
    Input(usize),
    State(usize),
    Pair(usize),
    Output(usize),
    /// A `[[discrete]]` held output, by its column of `w` (see
    /// `crate::model::sampled`).
    Held(usize),
    /// A `[[discrete]]` state, by its column of `w`.
    Discrete(usize),
    /// Model Exchange: the derivative of state `i` in the current mode.
    Derivative(usize),
    /// FMI 3.0 Model Exchange: event indicator `k` (two per pair, see
    /// [`crate::scheme::exchange`]).
    Indicator(usize),
}

/// One scalar variable as the FMU exposes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Variable<'m> {
    pub name: &'m str,
    pub kind: Kind,
    pub description: &'m str,
    pub unit: &'m str,
    /// Start value written to the XML (none for calculated variables and time).
    pub start: Option<f64>,
}

impl Variable<'_> {
    /// `(causality, variability, initial)` as the XML spells them.
    pub fn attributes(&self) -> (&'static str, &'static str, Option<&'static str>) {
        match self.kind {
            Kind::Time => ("independent", "continuous", None),
            Kind::Parameter(_) => ("parameter", "fixed", Some("exact")),
            Kind::Input(_) => ("input", "continuous", None),
            Kind::State(_) => ("output", "continuous", Some("exact")),
            Kind::Pair(_) | Kind::Output(_) => ("output", "continuous", Some("calculated")),
            // Piecewise constant, changing only at sample instants.
            Kind::Held(_) => ("output", "discrete", Some("calculated")),
            Kind::Discrete(_) => ("output", "discrete", Some("exact")),
            Kind::Derivative(_) | Kind::Indicator(_) => ("local", "continuous", Some("calculated")),
        }
    }
}

/// All variables in value-reference order.
pub fn variables(model: &Model) -> Vec<Variable<'_>> {
    let mut out = vec![Variable {
        name: "time",
        kind: Kind::Time,
        description: "simulation time",
        unit: "",
        start: None,
    }];
    out.extend(model.parameters.iter().enumerate().map(|(i, p)| Variable {
        name: &p.name,
        kind: Kind::Parameter(i),
        description: &p.description,
        unit: &p.unit,
        start: Some(p.value),
    }));
    for (group, list) in [
        (Kind::Input as fn(usize) -> Kind, &model.inputs),
        (Kind::State, &model.states),
    ] {
        out.extend(list.iter().enumerate().map(|(i, v)| Variable {
            name: &v.name,
            kind: group(i),
            description: &v.description,
            unit: &v.unit,
            start: Some(v.start),
        }));
    }
    out.extend(model.pairs.iter().enumerate().map(|(i, p)| Variable {
        name: &p.name,
        kind: Kind::Pair(i),
        description: &p.description,
        unit: &p.unit,
        start: None,
    }));
    out.extend(model.outputs.iter().enumerate().map(|(i, o)| Variable {
        name: &o.name,
        kind: Kind::Output(i),
        description: &o.description,
        unit: &o.unit,
        start: None,
    }));
    // After everything else, so a model without partitions keeps its references.
    for p in &model.sampled {
        out.extend(p.outputs.iter().enumerate().map(|(i, o)| Variable {
            name: &o.name,
            kind: Kind::Held(p.base + i),
            description: &o.description,
            unit: &o.unit,
            start: None,
        }));
        let first = p.base + p.outputs.len();
        out.extend(p.states.iter().enumerate().map(|(i, d)| Variable {
            name: &d.name,
            kind: Kind::Discrete(first + i),
            description: &d.description,
            unit: &d.unit,
            start: Some(d.start),
        }));
    }
    out
}

/// The kinds alone, indexed by value reference (what an instance keeps).
pub fn kinds(model: &Model) -> Vec<Kind> {
    variables(model).into_iter().map(|v| v.kind).collect()
}

/// The name of the derivative of state `i` (Model Exchange), after the
/// [`variables`] of the model, at value reference `variables(model).len() + i`.
pub fn derivative_name(model: &Model, i: usize) -> String {
    format!("der({})", model.states[i].name)
}

/// The kinds of a Model Exchange instance, indexed by value reference.
pub fn kinds_with_derivatives(model: &Model) -> Vec<Kind> {
    let mut kinds = kinds(model);
    kinds.extend((0..model.nx()).map(Kind::Derivative));
    kinds
}

/// The name of event indicator `k` (FMI 3.0 Model Exchange): slot `2i` guards
/// pair `i`'s lower side, slot `2i + 1` its upper side. The dots keep the names
/// apart from the model's, which are C identifiers.
pub fn indicator_name(model: &Model, k: usize) -> String {
    let side = if k.is_multiple_of(2) {
        "lower"
    } else {
        "upper"
    };
    format!("indicator.{}.{side}", model.pairs[k / 2].name)
}

/// The kinds of an FMI 3.0 Model Exchange FMU's instances (both interface
/// types of a `cs,me` FMU), indexed by value reference: the event indicators
/// follow the derivatives.
pub fn kinds_with_indicators(model: &Model) -> Vec<Kind> {
    let mut kinds = kinds_with_derivatives(model);
    let n = crate::scheme::exchange::indicator_count(model.nu());
    kinds.extend((0..n).map(Kind::Indicator));
    kinds
}
