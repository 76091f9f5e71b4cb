//! The `ModelStructure` rules of FMI 2.0 (section 2.2.8): which unknowns are
//! listed, in which order, and what their dependencies may name.
//!
//! This is where exporters most often go wrong (shared `fmi2-notes.md` §3), and
//! where importers are most literal: OMSimulator builds its algebraic-loop graph
//! from `Outputs` dependencies, and FMPy refuses a description whose
//! `InitialUnknowns` is missing. Indices are 1-based positions in `ModelVariables`.

use super::description::{Description, Unknown, Variable};
use std::collections::HashSet;

/// The XSD requires at least one `Unknown` in each list that is written.
pub fn no_empty_lists(d: &Description) -> Result<(), String> {
    let lists = [
        ("Outputs", &d.outputs),
        ("Derivatives", &d.derivatives),
        ("InitialUnknowns", &d.initial_unknowns),
    ];
    for (name, list) in lists {
        if list.as_ref().is_some_and(Vec::is_empty) {
            return Err(format!("<{name}> has no Unknown"));
        }
    }
    Ok(())
}

/// The 1-based `index` attributes of a list, or why one is not an index.
fn indices(d: &Description, list: &Option<Vec<Unknown>>) -> Result<Vec<usize>, String> {
    let n = d.variables.len();
    let mut out = vec![];
    for u in list.iter().flatten() {
        let text = u.index.as_deref().ok_or("an Unknown without index")?;
        match text.parse::<usize>() {
            Ok(i) if (1..=n).contains(&i) => out.push(i),
            _ => return Err(format!("index=\"{text}\" is not a variable (1..={n})")),
        }
    }
    Ok(out)
}

fn where_causality(d: &Description, causality: &str) -> Vec<usize> {
    let pick = |(i, v): (usize, &Variable)| (v.causality() == causality).then_some(i + 1);
    d.variables.iter().enumerate().filter_map(pick).collect()
}

pub fn outputs(d: &Description) -> Result<(), String> {
    let listed = indices(d, &d.outputs)?;
    let expected = where_causality(d, "output");
    if listed != expected {
        return Err(format!("listed {listed:?} expected {expected:?}"));
    }
    Ok(())
}

/// The states: variables that a `Derivatives` entry names as its `derivative`.
fn states(d: &Description) -> Result<HashSet<usize>, String> {
    let mut states = HashSet::new();
    for i in indices(d, &d.derivatives)? {
        if let Some(s) = d.variables[i - 1].type_attributes.get("derivative") {
            states.insert(
                s.parse::<usize>()
                    .map_err(|_| format!("derivative=\"{s}\""))?,
            );
        }
    }
    Ok(states)
}

pub fn dependencies(d: &Description) -> Result<(), String> {
    let states = states(d)?;
    for u in d.outputs.iter().flatten() {
        let of = u.index.as_deref().unwrap_or("?");
        for dep in u
            .dependencies
            .as_deref()
            .unwrap_or_default()
            .split_whitespace()
        {
            let ok = dep.parse::<usize>().ok().filter(|&j| {
                (1..=d.variables.len()).contains(&j)
                    && (d.variables[j - 1].causality() == "input" || states.contains(&j))
            });
            if ok.is_none() {
                return Err(format!(
                    "output {of} depends on {dep}, not an input or a state"
                ));
            }
        }
    }
    Ok(())
}

/// FMI 2.0 section 2.2.8: outputs with initial approx or calculated, every
/// calculatedParameter, and states and derivatives with initial approx or
/// calculated, in ascending index order.
pub fn initial_unknowns(d: &Description) -> Result<(), String> {
    let calculated =
        |i: usize| matches!(d.variables[i - 1].initial(), Some("approx" | "calculated"));
    let mut expected: Vec<usize> = where_causality(d, "output")
        .into_iter()
        .filter(|&i| calculated(i))
        .collect();
    expected.extend(where_causality(d, "calculatedParameter"));
    expected.extend(
        indices(d, &d.derivatives)?
            .into_iter()
            .filter(|&i| calculated(i)),
    );
    expected.extend(
        states(d)?
            .into_iter()
            .filter(|&i| (1..=d.variables.len()).contains(&i) && calculated(i)),
    );
    expected.sort_unstable();
    expected.dedup();
    let listed = indices(d, &d.initial_unknowns)?;
    if listed != expected {
        return Err(format!("listed {listed:?} expected {expected:?}"));
    }
    Ok(())
}

/// FMI 2.0 section 2.2.8: `Derivatives` lists exactly the variables with a
/// `derivative` attribute, in index order, and each names a continuous Real.
pub fn derivatives(d: &Description) -> Result<(), String> {
    let n = d.variables.len();
    let mut expected = vec![];
    for (i, v) in d.variables.iter().enumerate() {
        let Some(s) = v.type_attributes.get("derivative") else {
            continue;
        };
        let state = s.parse::<usize>().ok().filter(|j| (1..=n).contains(j));
        let Some(state) = state else {
            return Err(format!(
                "{}: derivative=\"{s}\" is not a variable (1..={n})",
                v.label()
            ));
        };
        let x = &d.variables[state - 1];
        if x.kind != "Real" || x.variability() != "continuous" {
            return Err(format!(
                "{}: its state {} is not a continuous Real",
                v.label(),
                x.label()
            ));
        }
        expected.push(i + 1);
    }
    let listed = indices(d, &d.derivatives)?;
    if listed != expected {
        return Err(format!("listed {listed:?} expected {expected:?}"));
    }
    Ok(())
}
