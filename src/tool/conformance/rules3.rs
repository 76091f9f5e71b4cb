//! The FMI 3.0 rules for `modelDescription.xml`, each a named check with the
//! reason it fails.
//!
//! FMI 3.0 keeps most of FMI 2.0's rules (unique names, the naming convention,
//! start values, units: those are shared with [`super::rules`]) and changes
//! the rest: a value reference is unique across all variables, not per type;
//! exactly one variable is the `independent` one; `ModelStructure` names
//! variables by value reference, lists each unknown once in an order of the
//! exporter's choosing, and adds `EventIndicator`; a continuous variable is a
//! `Float32` or `Float64`. The rules are the standard's (2.4 "FMI Description
//! Schema", 2.4.8 "Model Structure") as shared `fmi3-notes.md` §1.2 quotes
//! them; FMPy's `validate` checks the schema besides.

use super::description::{Description, Unknown, Variable};
use super::rules::{default_experiment, units, Rule};
use super::variable_rules::{
    allowed_initial, naming, start_forbidden, start_required, unique_names, value_reference,
};
use std::collections::{HashMap, HashSet};

/// Every rule, in the order they are printed.
pub fn check(d: &Description) -> Vec<Rule> {
    vec![
        ("fmiVersion is \"3.0\"", Ok(())),
        ("an instantiationToken is given", token(d)),
        (
            "an interface element with a modelIdentifier",
            interfaces(d),
        ),
        ("root elements in the order of the XSD", element_order(d)),
        ("variable names unique", unique_names(d)),
        (
            "value references unique across all variables",
            unique_value_references(d),
        ),
        ("names follow the naming convention", naming(d)),
        ("exactly one independent variable", independent(d)),
        (
            "causality, variability and initial combined as FMI 3.0 allows",
            combinations(d),
        ),
        ("start values where required", start_required(d)),
        (
            "no start value where initial is calculated",
            start_forbidden(d),
        ),
        (
            "derivative attributes name a Float variable",
            derivative_targets(d),
        ),
        (
            "ModelStructure Output lists exactly the outputs, once each",
            outputs(d),
        ),
        (
            "ContinuousStateDerivative lists state derivatives (all of them for Model Exchange)",
            state_derivatives(d),
        ),
        (
            "Output and ContinuousStateDerivative dependencies are inputs, states, parameters or time",
            run_time_dependencies(d),
        ),
        (
            "InitialUnknown exactly the calculated and approx unknowns, once each",
            initial_unknowns(d),
        ),
        (
            "EventIndicator entries are continuous Float variables",
            event_indicators(d),
        ),
        ("DefaultExperiment sane", default_experiment(d)),
        ("units referenced are declared", units(d)),
    ]
}

fn token(d: &Description) -> Result<(), String> {
    match d.root.get("instantiationToken") {
        Some(g) if !g.trim().is_empty() => Ok(()),
        _ => Err("no instantiationToken attribute, or an empty one".into()),
    }
}

fn interfaces(d: &Description) -> Result<(), String> {
    let elements = [
        ("CoSimulation", &d.co_simulation),
        ("ModelExchange", &d.model_exchange),
    ];
    if elements.iter().all(|(_, e)| e.is_none()) {
        return Err("neither a CoSimulation nor a ModelExchange element".into());
    }
    for (name, element) in elements {
        if let Some(attrs) = element {
            if attrs.get("modelIdentifier").is_none_or(|id| id.is_empty()) {
                return Err(format!("{name} has no modelIdentifier"));
            }
        }
    }
    Ok(())
}

/// `fmiModelDescription`'s children in the sequence of fmi3ModelDescription.xsd.
fn element_order(d: &Description) -> Result<(), String> {
    const ORDER: [&str; 10] = [
        "ModelExchange",
        "CoSimulation",
        "ScheduledExecution",
        "UnitDefinitions",
        "TypeDefinitions",
        "LogCategories",
        "DefaultExperiment",
        "ModelVariables",
        "ModelStructure",
        "Annotations",
    ];
    let mut last = None;
    for (k, child) in d.children.iter().enumerate() {
        let pos = ORDER
            .iter()
            .position(|o| o == child)
            .ok_or_else(|| format!("unknown element {child}"))?;
        if last.is_some_and(|l| pos <= l) {
            return Err(format!("{child} after {}", d.children[k - 1]));
        }
        last = Some(pos);
    }
    for required in ["ModelVariables", "ModelStructure"] {
        if !d.children.iter().any(|c| c == required) {
            return Err(format!("no {required} element"));
        }
    }
    Ok(())
}

/// The variables by value reference, the first of each: the rules that look
/// variables up pass over the broken references [`unique_value_references`]
/// reports, so that one mistake makes one FAIL line.
fn by_value_reference(d: &Description) -> HashMap<u32, &Variable> {
    let mut map = HashMap::new();
    for v in &d.variables {
        if let Some(vr) = v.value_reference.as_deref().and_then(|t| t.parse().ok()) {
            map.entry(vr).or_insert(v);
        }
    }
    map
}

fn unique_value_references(d: &Description) -> Result<(), String> {
    let mut seen: HashMap<u32, &Variable> = HashMap::new();
    for v in &d.variables {
        let vr = value_reference(v)?;
        if let Some(first) = seen.insert(vr, v) {
            return Err(format!(
                "value reference {vr} of both \"{}\" and \"{}\"",
                first.label(),
                v.label()
            ));
        }
    }
    Ok(())
}

fn is_float(v: &Variable) -> bool {
    matches!(v.kind.as_str(), "Float32" | "Float64")
}

fn independent(d: &Description) -> Result<(), String> {
    let found: Vec<&Variable> = d
        .variables
        .iter()
        .filter(|v| v.causality() == "independent")
        .collect();
    match found.as_slice() {
        [v] if !is_float(v) => Err(format!("{} is a {}, not a Float", v.label(), v.kind)),
        [v] if v.start().is_some() => Err(format!("{} has a start value", v.label())),
        [_] => Ok(()),
        [] => Err("none".into()),
        more => Err(format!("{} of them", more.len())),
    }
}

fn combinations(d: &Description) -> Result<(), String> {
    for v in &d.variables {
        let (c, var) = (v.causality(), v.variability());
        // A structural parameter is a parameter that may change array sizes.
        let as_table = if c == "structuralParameter" {
            "parameter"
        } else {
            c
        };
        let allowed = allowed_initial(as_table, var)
            .ok_or_else(|| format!("{}: causality {c} with variability {var}", v.label()))?;
        if let Some(i) = &v.initial {
            if !allowed.contains(&i.as_str()) {
                return Err(format!("{}: {c}/{var} with initial=\"{i}\"", v.label()));
            }
        }
        if var == "continuous" && !is_float(v) {
            return Err(format!("{}: a continuous {} variable", v.label(), v.kind));
        }
    }
    Ok(())
}

/// The value reference a `derivative` attribute names, if the variable has one.
fn derivative_of(v: &Variable) -> Option<&str> {
    v.type_attributes.get("derivative").map(String::as_str)
}

fn derivative_targets(d: &Description) -> Result<(), String> {
    let vars = by_value_reference(d);
    for v in &d.variables {
        if let Some(target) = derivative_of(v) {
            let state = target.parse::<u32>().ok().and_then(|vr| vars.get(&vr));
            match state {
                Some(s) if is_float(s) && is_float(v) => {}
                Some(s) => {
                    return Err(format!(
                        "{} is the derivative of {}, not both Float",
                        v.label(),
                        s.label()
                    ))
                }
                None => {
                    return Err(format!(
                        "{} has derivative=\"{target}\", no variable's value reference",
                        v.label()
                    ))
                }
            }
        }
    }
    Ok(())
}

/// The value references of a `ModelStructure` list, each naming a variable
/// and each once.
fn listed<'d>(
    d: &'d Description,
    list: &Option<Vec<Unknown>>,
    what: &str,
) -> Result<Vec<&'d Variable>, String> {
    let vars = by_value_reference(d);
    let mut seen = HashSet::new();
    let mut out = vec![];
    for u in list.iter().flatten() {
        let text = u
            .value_reference
            .as_deref()
            .ok_or(format!("a {what} without valueReference"))?;
        let vr = text.parse::<u32>().ok().filter(|vr| vars.contains_key(vr));
        let vr = vr.ok_or(format!(
            "{what} valueReference=\"{text}\" names no variable"
        ))?;
        if !seen.insert(vr) {
            return Err(format!("{what} {vr} listed twice"));
        }
        out.push(vars[&vr]);
    }
    Ok(out)
}

/// Whether the listed variables are exactly `expected` (as a set).
fn same_set(listed: &[&Variable], expected: &[&Variable]) -> Result<(), String> {
    let names = |vs: &[&Variable]| -> Vec<String> {
        let mut n: Vec<String> = vs.iter().map(|v| v.label().to_string()).collect();
        n.sort();
        n
    };
    let (l, e) = (names(listed), names(expected));
    if l != e {
        return Err(format!("listed {l:?} expected {e:?}"));
    }
    Ok(())
}

fn outputs(d: &Description) -> Result<(), String> {
    let listed = listed(d, &d.outputs, "Output")?;
    let expected: Vec<&Variable> = d
        .variables
        .iter()
        .filter(|v| v.causality() == "output")
        .collect();
    same_set(&listed, &expected)
}

fn state_derivatives(d: &Description) -> Result<(), String> {
    let listed = listed(d, &d.derivatives, "ContinuousStateDerivative")?;
    if let Some(v) = listed.iter().find(|v| derivative_of(v).is_none()) {
        return Err(format!("{} has no derivative attribute", v.label()));
    }
    if d.model_exchange.is_some() {
        // Model Exchange integrates every continuous state the FMU declares.
        let expected: Vec<&Variable> = d
            .variables
            .iter()
            .filter(|v| derivative_of(v).is_some() && v.variability() == "continuous")
            .collect();
        return same_set(&listed, &expected);
    }
    Ok(())
}

/// The states: the variables the listed derivatives are derivatives of.
fn states(d: &Description) -> Result<HashSet<u32>, String> {
    let listed = listed(d, &d.derivatives, "ContinuousStateDerivative")?;
    Ok(listed
        .iter()
        .filter_map(|v| derivative_of(v)?.parse().ok())
        .collect())
}

/// Each dependency of each entry of `list` is a value reference that `known` accepts.
fn dependencies_among(
    d: &Description,
    list: &Option<Vec<Unknown>>,
    what: &str,
    known: impl Fn(u32, &Variable) -> bool,
) -> Result<(), String> {
    let vars = by_value_reference(d);
    for u in list.iter().flatten() {
        let of = u.value_reference.as_deref().unwrap_or("?");
        for dep in u
            .dependencies
            .as_deref()
            .unwrap_or_default()
            .split_whitespace()
        {
            let ok = dep
                .parse::<u32>()
                .ok()
                .and_then(|vr| Some((vr, *vars.get(&vr)?)))
                .is_some_and(|(vr, v)| known(vr, v));
            if !ok {
                return Err(format!(
                    "{what} {of} depends on {dep}, not one of its knowns"
                ));
            }
        }
    }
    Ok(())
}

fn run_time_dependencies(d: &Description) -> Result<(), String> {
    let states = states(d)?;
    let known = |vr: u32, v: &Variable| {
        matches!(v.causality(), "input" | "parameter" | "independent") || states.contains(&vr)
    };
    dependencies_among(d, &d.outputs, "Output", known)?;
    dependencies_among(d, &d.derivatives, "ContinuousStateDerivative", known)
}

/// FMI 3.0 §2.4.8: outputs with initial approx or calculated, calculated
/// parameters, and continuous states and their derivatives with initial approx
/// or calculated, once each; their knowns are inputs, variables with initial
/// exact and the independent variable.
fn initial_unknowns(d: &Description) -> Result<(), String> {
    let calculated = |v: &Variable| matches!(v.initial(), Some("approx" | "calculated"));
    let states = states(d)?;
    let derivatives = listed(d, &d.derivatives, "ContinuousStateDerivative")?;
    let is_derivative = |v: &Variable| derivatives.iter().any(|w| std::ptr::eq(*w, v));
    let is_state = |v: &Variable| {
        v.value_reference
            .as_deref()
            .and_then(|t| t.parse::<u32>().ok())
            .is_some_and(|vr| states.contains(&vr))
    };
    let expected: Vec<&Variable> = d
        .variables
        .iter()
        .filter(|v| {
            v.causality() == "calculatedParameter"
                || (calculated(v) && (v.causality() == "output" || is_derivative(v) || is_state(v)))
        })
        .collect();
    let listed = listed(d, &d.initial_unknowns, "InitialUnknown")?;
    same_set(&listed, &expected)?;
    dependencies_among(d, &d.initial_unknowns, "InitialUnknown", |_, v| {
        matches!(v.causality(), "input" | "independent") || v.initial() == Some("exact")
    })
}

fn event_indicators(d: &Description) -> Result<(), String> {
    for v in listed(d, &d.event_indicators, "EventIndicator")? {
        if !is_float(v) || v.variability() != "continuous" {
            return Err(format!(
                "{} is a {} {} variable",
                v.label(),
                v.variability(),
                v.kind
            ));
        }
    }
    Ok(())
}
