//! FMU variable names for the circuit's quantities, as SPICE names them and
//! as importers accept them (C identifiers, which the structured naming
//! convention of the XML takes as they are):
//!
//! | quantity | SPICE | variable |
//! |---|---|---|
//! | voltage of node `out` | `V(out)` | `V_out` |
//! | current of `L1` (a state), `R1`, `C1`, `V1`, `D1` | `I(L1)` ... | `I_L1` ... |
//! | voltage of capacitor `C1` (a state) | `V(a, b)` | `V_C1` |
//! | voltage of diode `D1` | `V(a, k)` | `V_D1` |
//! | diode `D1`'s multiplier: its current, or its reverse voltage | | `D1_i`, `D1_vr` |
//!
//! Characters other than letters, digits and `_` become `_`, and a name that
//! would start with a digit gets a leading `_`. Two quantities whose names
//! come out equal (a node named `C1` beside a capacitor `C1`) are refused,
//! with both named.

use super::NetError;
use std::collections::HashMap;

/// The names given so far and what each names.
#[derive(Default)]
pub struct Namer {
    seen: HashMap<String, String>,
}

impl Namer {
    /// `wanted` made an identifier, unique, for `what` (written at `line`).
    pub fn take(&mut self, wanted: String, line: usize, what: &str) -> Result<String, NetError> {
        let name = identifier(&wanted);
        if let Some(other) = self.seen.get(&name) {
            return Err(NetError::at(
                line,
                format!(
                    "the variable name '{name}' would stand for both {other} and {what}; rename one of them"
                ),
            ));
        }
        self.seen.insert(name.clone(), what.to_string());
        Ok(name)
    }
}

/// `text` with every character outside `[A-Za-z0-9_]` replaced by `_`,
/// and a leading `_` before a digit.
pub fn identifier(text: &str) -> String {
    let mut out: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_identifiers_and_stay_apart() {
        assert_eq!(identifier("V_in+"), "V_in_");
        assert_eq!(identifier("1n$2"), "_1n_2");
        let mut n = Namer::default();
        assert_eq!(n.take("V_a.b".into(), 1, "node a.b").unwrap(), "V_a_b");
        let e = n.take("V_a_b".into(), 4, "node a_b").unwrap_err();
        assert_eq!(e.line, 4);
        assert!(e.message.contains("node a.b and node a_b"), "{}", e.message);
    }
}
