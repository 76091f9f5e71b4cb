//! The FMI 2.0 rules for `modelDescription.xml`, each a named check with the reason
//! it fails.
//!
//! These are the rules importers enforce (FMPy's schema and `validation.py`, fmi4c)
//! plus the ones FMPy lets through and the standard does not (an `initial` on an
//! input, an `InitialUnknowns` list that is not exactly the calculated unknowns):
//! shared `fmi2-notes.md` §3, from the standard's section 2.2. A rule that cannot be
//! judged because something it needs is missing (a name, a valid index) passes
//! where it can; the check that the thing is present fails instead, so one
//! mistake usually gives one FAIL line.

use super::description::Description;
use super::structure;
use super::variable_rules::{
    combinations, naming, no_initial_on_inputs, start_forbidden, start_required, unique_names,
    unique_value_references,
};

pub type Rule = (&'static str, Result<(), String>);

/// Every rule, in the order they are printed: those of the interface elements
/// first (Co-Simulation's when the description declares it or no interface).
pub fn check(d: &Description) -> Vec<Rule> {
    let mut rules = vec![
        ("fmiVersion is \"2.0\"", fmi_version(d)),
        ("a guid is given", guid(d)),
    ];
    if d.co_simulation.is_some() || d.model_exchange.is_none() {
        rules.push((
            "CoSimulation element with a modelIdentifier",
            co_simulation(d),
        ));
    }
    if d.model_exchange.is_some() {
        rules.extend([
            (
                "ModelExchange element with a modelIdentifier (the same as CoSimulation's)",
                model_exchange(d),
            ),
            ("numberOfEventIndicators is a count", event_indicators(d)),
            (
                "Derivatives lists exactly the state derivatives, each of a continuous Real",
                structure::derivatives(d),
            ),
        ]);
    }
    rules.extend([
        ("root elements in the order of the XSD", element_order(d)),
        ("variable names unique", unique_names(d)),
        (
            "value references unique per type",
            unique_value_references(d),
        ),
        ("names follow the naming convention", naming(d)),
        (
            "causality, variability and initial combined as FMI 2.0 allows",
            combinations(d),
        ),
        ("start values where required", start_required(d)),
        (
            "no start value where initial is calculated",
            start_forbidden(d),
        ),
        ("no initial attribute on inputs", no_initial_on_inputs(d)),
        ("no empty ModelStructure list", structure::no_empty_lists(d)),
        (
            "ModelStructure/Outputs lists exactly the outputs, in order",
            structure::outputs(d),
        ),
        (
            "Outputs dependencies refer to inputs or states",
            structure::dependencies(d),
        ),
        (
            "InitialUnknowns exactly the calculated and approx unknowns, in order",
            structure::initial_unknowns(d),
        ),
        ("DefaultExperiment sane", default_experiment(d)),
        ("units referenced are declared", units(d)),
    ]);
    rules
}

fn fmi_version(d: &Description) -> Result<(), String> {
    match d.root.get("fmiVersion") {
        Some(v) if v == "2.0" => Ok(()),
        Some(v) => Err(format!("fmiVersion=\"{v}\"")),
        None => Err("no fmiVersion attribute".into()),
    }
}

fn guid(d: &Description) -> Result<(), String> {
    match d.root.get("guid") {
        Some(g) if !g.trim().is_empty() => Ok(()),
        _ => Err("no guid attribute, or an empty one".into()),
    }
}

pub(super) fn co_simulation(d: &Description) -> Result<(), String> {
    let cs = d.co_simulation.as_ref().ok_or("no CoSimulation element")?;
    match cs.get("modelIdentifier") {
        Some(id) if !id.is_empty() => Ok(()),
        _ => Err("CoSimulation has no modelIdentifier".into()),
    }
}

fn model_exchange(d: &Description) -> Result<(), String> {
    let me = d
        .model_exchange
        .as_ref()
        .ok_or("no ModelExchange element")?;
    let id = me.get("modelIdentifier").filter(|id| !id.is_empty());
    let id = id.ok_or("ModelExchange has no modelIdentifier")?;
    match d
        .co_simulation
        .as_ref()
        .and_then(|cs| cs.get("modelIdentifier"))
    {
        Some(cs) if cs != id => Err(format!(
            "ModelExchange's {id} differs from CoSimulation's {cs} (lcsfmu ships one binary)"
        )),
        _ => Ok(()),
    }
}

fn event_indicators(d: &Description) -> Result<(), String> {
    match d.root.get("numberOfEventIndicators") {
        None => Ok(()),
        Some(n) if n.parse::<u32>().is_ok() => Ok(()),
        Some(n) => Err(format!("numberOfEventIndicators=\"{n}\"")),
    }
}

/// `fmiModelDescription`'s children in the sequence of fmi2ModelDescription.xsd.
fn element_order(d: &Description) -> Result<(), String> {
    const ORDER: [&str; 9] = [
        "ModelExchange",
        "CoSimulation",
        "UnitDefinitions",
        "TypeDefinitions",
        "LogCategories",
        "DefaultExperiment",
        "VendorAnnotations",
        "ModelVariables",
        "ModelStructure",
    ];
    let mut last = 0;
    for (k, child) in d.children.iter().enumerate() {
        let pos = ORDER
            .iter()
            .position(|o| o == child)
            .ok_or_else(|| format!("unknown element {child}"))?;
        // Each element appears at most once, so the positions strictly increase.
        if k > 0 && pos <= last {
            return Err(format!("{child} after {}", d.children[k - 1]));
        }
        last = pos;
    }
    for required in ["ModelVariables", "ModelStructure"] {
        if !d.children.iter().any(|c| c == required) {
            return Err(format!("no {required} element"));
        }
    }
    Ok(())
}

pub(super) fn default_experiment(d: &Description) -> Result<(), String> {
    let Some(e) = &d.default_experiment else {
        return Ok(());
    };
    let number = |key: &str| -> Result<Option<f64>, String> {
        e.get(key)
            .map(|t| match t.trim().parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(v),
                _ => Err(format!("{key}=\"{t}\" is not a finite number")),
            })
            .transpose()
    };
    let (start, stop) = (number("startTime")?, number("stopTime")?);
    if let Some(stop) = stop {
        let start = start.unwrap_or(0.0);
        if !(stop > start) {
            return Err(format!("stopTime {stop} is not after startTime {start}"));
        }
    }
    for key in ["stepSize", "tolerance"] {
        if let Some(v) = number(key)? {
            if !(v > 0.0) {
                return Err(format!("{key} {v} is not positive"));
            }
        }
    }
    Ok(())
}

pub(super) fn units(d: &Description) -> Result<(), String> {
    // A set: a hostile description may declare as many units as variables.
    let declared: std::collections::HashSet<&String> = d.units.iter().collect();
    for v in &d.variables {
        if let Some(u) = v.type_attributes.get("unit") {
            if !declared.contains(u) {
                return Err(format!(
                    "{} has unit \"{u}\", not in UnitDefinitions",
                    v.label()
                ));
            }
        }
    }
    Ok(())
}
