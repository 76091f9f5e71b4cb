//! The FMI 2.0 rules on the variable list of `modelDescription.xml`: value
//! references and names (unique, following the naming convention), the
//! combinations of causality, variability and initial the standard allows, and
//! where start values are required or forbidden. The FMI 3.0 checks reuse the
//! ones whose rule did not change (see `rules3`).

use super::description::{Description, Variable};
use std::collections::HashMap;

/// A variable's value reference, or why it has none.
pub(super) fn value_reference(v: &Variable) -> Result<u32, String> {
    let text = v
        .value_reference
        .as_deref()
        .ok_or(format!("{} has no valueReference", v.label()))?;
    text.parse().map_err(|_| {
        format!(
            "{} has valueReference=\"{text}\", not an unsigned integer",
            v.label()
        )
    })
}

pub(super) fn unique_names(d: &Description) -> Result<(), String> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, v) in d.variables.iter().enumerate() {
        let name = v
            .name
            .as_deref()
            .ok_or(format!("variable {} has no name", i + 1))?;
        if let Some(first) = seen.insert(name, i + 1) {
            return Err(format!(
                "duplicate name \"{name}\" (variables {first} and {})",
                i + 1
            ));
        }
    }
    Ok(())
}

pub(super) fn unique_value_references(d: &Description) -> Result<(), String> {
    let mut seen: HashMap<(&str, u32), &str> = HashMap::new();
    for v in &d.variables {
        let vr = value_reference(v)?;
        if let Some(first) = seen.insert((v.kind.as_str(), vr), v.label()) {
            return Err(format!(
                "{} value reference {vr} of both \"{first}\" and \"{}\"",
                v.kind,
                v.label()
            ));
        }
    }
    Ok(())
}

/// FMI 2.0 section 2.2.9: with `variableNamingConvention="structured"` every
/// name is `identifier` or `der(identifier[, order])`, where an identifier is
/// dotted parts, each a C-like or quoted name with optional `[i,j]` indices.
pub(super) fn naming(d: &Description) -> Result<(), String> {
    if d.root.get("variableNamingConvention").map(String::as_str) != Some("structured") {
        return Ok(());
    }
    for v in &d.variables {
        let name = v.name.as_deref().unwrap_or_default();
        if !structured(name) {
            return Err(format!("\"{name}\" is not a structured name"));
        }
    }
    Ok(())
}

fn structured(name: &str) -> bool {
    if let Some(inner) = name.strip_prefix("der(").and_then(|s| s.strip_suffix(')')) {
        // `der(x, 2)`: the optional order of the derivative.
        let id = match inner.rsplit_once(',') {
            Some((id, n))
                if !n.trim().is_empty() && n.trim().bytes().all(|b| b.is_ascii_digit()) =>
            {
                id
            }
            _ => inner,
        };
        return identifier(id.as_bytes()) == Some(id.len());
    }
    identifier(name.as_bytes()) == Some(name.len())
}

/// Length of the structured identifier at the start of `s`, if there is one.
fn identifier(s: &[u8]) -> Option<usize> {
    let mut i = 0;
    loop {
        // A B-name (letter or underscore, then letters, digits, underscores) or a Q-name.
        match s.get(i)? {
            b'\'' => {
                i += 1;
                while *s.get(i)? != b'\'' {
                    i += if s[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            c if c.is_ascii_alphabetic() || *c == b'_' => {
                while s
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                {
                    i += 1;
                }
            }
            _ => return None,
        }
        if s.get(i) == Some(&b'[') {
            i += 1;
            loop {
                let digits = s[i..].iter().take_while(|c| c.is_ascii_digit()).count();
                if digits == 0 {
                    return None;
                }
                i += digits;
                match s.get(i)? {
                    b',' => i += 1,
                    b']' => break,
                    _ => return None,
                }
            }
            i += 1;
        }
        if s.get(i) != Some(&b'.') {
            return Some(i);
        }
        i += 1;
    }
}

/// The legal `initial` values of a causality/variability pair (FMI 2.0 section
/// 2.2.7); `None` when the pair itself is illegal, `Some(&[])` when `initial`
/// must be absent.
pub(super) fn allowed_initial(
    causality: &str,
    variability: &str,
) -> Option<&'static [&'static str]> {
    const EXACT: &[&str] = &["exact"];
    const CALCULATED: &[&str] = &["calculated", "approx"];
    const ANY: &[&str] = &["calculated", "exact", "approx"];
    Some(match (causality, variability) {
        ("output" | "local", "constant") => EXACT,
        ("parameter", "fixed" | "tunable") => EXACT,
        ("calculatedParameter" | "local", "fixed" | "tunable") => CALCULATED,
        ("input", "discrete" | "continuous") => &[],
        ("output" | "local", "discrete" | "continuous") => ANY,
        ("independent", "continuous") => &[],
        _ => return None,
    })
}

pub(super) fn combinations(d: &Description) -> Result<(), String> {
    for v in &d.variables {
        let (c, var) = (v.causality(), v.variability());
        let allowed = allowed_initial(c, var)
            .ok_or_else(|| format!("{}: causality {c} with variability {var}", v.label()))?;
        if let Some(i) = &v.initial {
            if !allowed.contains(&i.as_str()) && c != "input" {
                return Err(format!("{}: {c}/{var} with initial=\"{i}\"", v.label()));
            }
        }
        if var == "continuous" && v.kind != "Real" {
            return Err(format!("{}: a continuous {} variable", v.label(), v.kind));
        }
    }
    Ok(())
}

pub(super) fn start_required(d: &Description) -> Result<(), String> {
    for v in &d.variables {
        let needed = matches!(v.causality(), "input" | "parameter" | "structuralParameter")
            || matches!(v.initial(), Some("exact" | "approx"));
        if needed && v.start().is_none() {
            return Err(format!("{} has no start value", v.label()));
        }
    }
    Ok(())
}

pub(super) fn start_forbidden(d: &Description) -> Result<(), String> {
    for v in &d.variables {
        let forbidden = v.initial() == Some("calculated") || v.causality() == "independent";
        if forbidden && v.start().is_some() {
            return Err(format!(
                "{} ({}) has a start value",
                v.label(),
                v.causality()
            ));
        }
    }
    Ok(())
}

/// Inputs take no `initial` (the standard's table; FMPy accepts one, fmi4c and
/// the standard's own checker do not).
pub(super) fn no_initial_on_inputs(d: &Description) -> Result<(), String> {
    for v in &d.variables {
        if let (Some(i), "input") = (&v.initial, v.causality()) {
            return Err(format!("input {} has initial=\"{i}\"", v.label()));
        }
    }
    Ok(())
}
