//! Sizes fixed at build time: `[defines]`, `for` entries and `{...}` placeholders.
//!
//! A chain of N beads is one model file for every N. The file declares integer
//! constants in `[defines]` (overridable with `--define N=1000`); an entry of any
//! array of tables may carry `for = "i in 1:N"` (inclusive bounds) and is then
//! repeated once per value of `i`; and every `{...}` inside a string is replaced
//! by the integer value of the expression between the braces, evaluated over the
//! defines and the loop variable. So `name = "x{i}"`, `gap = "x{i+1} - x{i} - d"`.
//!
//! This runs on the TOML value tree before the [`super::raw`] structs are read,
//! so the rest of the front end sees an ordinary file. Errors name the field.

use super::expr::{self, Expr};
use toml::{Table, Value};

/// The most entries a file may expand to: far beyond any sensible model, well
/// below what would exhaust memory while building.
const MAX_ENTRIES: i64 = 1_000_000;

/// A failed expansion: the field and what is wrong with it.
pub type Failure = (String, String);

/// The integer constants in scope: `(name, value)`.
type Env = Vec<(String, i64)>;

/// Whether the file is a template (it has `[defines]` or a `for` entry). Other
/// files keep the direct parser and its line-numbered messages, and braces in
/// their text stay text.
pub fn needed(doc: &Table) -> bool {
    doc.contains_key("defines")
        || doc.values().any(|v| match v {
            Value::Array(a) => a
                .iter()
                .any(|e| e.as_table().is_some_and(|t| t.contains_key("for"))),
            _ => false,
        })
}

/// Expands `doc` in place, with `overrides` replacing declared defines.
/// Returns the defines in effect.
pub fn expand(doc: &mut Table, overrides: &[(String, i64)]) -> Result<Env, Failure> {
    let mut env = defines(doc.remove("defines"))?;
    for (name, value) in overrides {
        match env.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = *value,
            None => {
                let known: Vec<&str> = env.iter().map(|(n, _)| n.as_str()).collect();
                return Err((
                    "defines".into(),
                    format!(
                        "--define {name}: the file declares no define '{name}' (it has: {})",
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    ),
                ));
            }
        }
    }
    let mut total = 0i64;
    for (key, value) in doc.iter_mut() {
        match value {
            Value::Array(items) if items.iter().all(Value::is_table) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in std::mem::take(items).into_iter().enumerate() {
                    let field = format!("{key}[{i}]");
                    let Value::Table(mut entry) = item else {
                        unreachable!("checked above")
                    };
                    match entry.remove("for") {
                        None => {
                            let mut v = Value::Table(entry);
                            substitute(&mut v, &env, &field)?;
                            out.push(v);
                            total += 1;
                        }
                        Some(spec) => {
                            let (var, from, to) = range(&spec, &env, &format!("{field}.for"))?;
                            total += (to - from + 1).max(0);
                            if total > MAX_ENTRIES {
                                return Err((
                                    format!("{field}.for"),
                                    format!("the file expands to more than {MAX_ENTRIES} entries"),
                                ));
                            }
                            let mut scope = env.clone();
                            scope.push((var, 0));
                            for k in from..=to {
                                scope.last_mut().expect("pushed above").1 = k;
                                let mut v = Value::Table(entry.clone());
                                substitute(&mut v, &scope, &field)?;
                                out.push(v);
                            }
                        }
                    }
                }
                *items = out;
            }
            other => substitute(other, &env, key)?,
        }
    }
    Ok(env)
}

fn defines(table: Option<Value>) -> Result<Env, Failure> {
    let Some(table) = table else {
        return Ok(Vec::new());
    };
    let Value::Table(table) = table else {
        return Err(("defines".into(), "must be a table of integers".into()));
    };
    let mut env = Vec::new();
    for (name, v) in table {
        let field = format!("defines.{name}");
        if !is_identifier(&name) {
            return Err((field, format!("'{name}' is not an identifier")));
        }
        match v {
            Value::Integer(k) => env.push((name, k)),
            other => {
                return Err((
                    field,
                    format!("must be an integer, found {}", other.type_str()),
                ))
            }
        }
    }
    Ok(env)
}

fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Reads `"i in FROM:TO"`.
fn range(spec: &Value, env: &Env, field: &str) -> Result<(String, i64, i64), Failure> {
    let fail = |m: String| Err((field.to_string(), m));
    let Some(text) = spec.as_str() else {
        return fail("must be a string such as \"i in 1:N\"".into());
    };
    let Some((var, bounds)) = text.split_once(" in ") else {
        return fail(format!("\"{text}\" is not of the form \"i in FROM:TO\""));
    };
    let var = var.trim();
    if !is_identifier(var) {
        return fail(format!("loop variable '{var}' is not an identifier"));
    }
    if env.iter().any(|(n, _)| n == var) {
        return fail(format!("loop variable '{var}' is already a define"));
    }
    let Some((from, to)) = bounds.split_once(':') else {
        return fail(format!(
            "\"{text}\" has no range FROM:TO (both ends included)"
        ));
    };
    let bound = |t: &str| integer(t, env).map_err(|m| (field.to_string(), m));
    let (from, to) = (bound(from)?, bound(to)?);
    Ok((var.to_string(), from, to))
}

/// Evaluates an integer expression over the names in `env`.
fn integer(text: &str, env: &Env) -> Result<i64, String> {
    let node = expr::parse(text).map_err(|e| format!("in \"{}\": {e}", text.trim()))?;
    let index = |name: &str| env.iter().position(|(n, _)| n == name);
    let e = Expr::compile(&node, &index).map_err(|e| {
        format!(
            "in \"{}\": {e} (only defines and the loop variable may appear between braces and in ranges)",
            text.trim()
        )
    })?;
    let values: Vec<f64> = env.iter().map(|(_, v)| *v as f64).collect();
    let x = e.eval(&values);
    if !x.is_finite() || x.fract() != 0.0 || x.abs() > 1e15 {
        return Err(format!(
            "\"{}\" evaluates to {x}, which is not an integer",
            text.trim()
        ));
    }
    Ok(x as i64)
}

/// Replaces every `{...}` in the strings of `v`.
fn substitute(v: &mut Value, env: &Env, field: &str) -> Result<(), Failure> {
    match v {
        Value::String(s) if s.contains('{') || s.contains('}') => {
            *s = fill(s, env).map_err(|m| (field.to_string(), m))?;
        }
        Value::Array(a) => {
            for (i, x) in a.iter_mut().enumerate() {
                substitute(x, env, &format!("{field}[{i}]"))?;
            }
        }
        Value::Table(t) => {
            for (k, x) in t.iter_mut() {
                substitute(x, env, &format!("{field}.{k}"))?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn fill(s: &str, env: &Env) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(open) = rest.find(['{', '}']) {
        if rest.as_bytes()[open] == b'}' {
            return Err(format!("in \"{s}\": '}}' without '{{'"));
        }
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            return Err(format!("in \"{s}\": '{{' without '}}'"));
        };
        out.push_str(&integer(&rest[open + 1..open + close], env)?.to_string());
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, overrides: &[(&str, i64)]) -> Result<Table, Failure> {
        let mut doc: Table = text.parse().unwrap();
        let o: Vec<(String, i64)> = overrides.iter().map(|(n, v)| (n.to_string(), *v)).collect();
        expand(&mut doc, &o)?;
        Ok(doc)
    }

    #[test]
    fn repeats_entries_and_fills_braces() {
        let doc = run(
            "[defines]\nN = 3\n[[c]]\nfor = \"i in 2:N\"\nname = \"x{i}\"\ngap = \"x{i} - x{i-1}\"\n[x]\ns = \"{N*2}\"\n",
            &[],
        )
        .unwrap();
        let c = doc["c"].as_array().unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(c[1]["name"].as_str(), Some("x3"));
        assert_eq!(c[1]["gap"].as_str(), Some("x3 - x2"));
        assert!(c[0].get("for").is_none());
        assert_eq!(doc["x"]["s"].as_str(), Some("6"));
        assert!(doc.get("defines").is_none());
    }

    #[test]
    fn only_templates_expand_braces() {
        let plain: Table = "[model]\ndescription = \"a {b}\"\n".parse().unwrap();
        assert!(!needed(&plain));
        let with_for: Table = "[[c]]\nfor = \"i in 1:2\"\n".parse().unwrap();
        assert!(needed(&with_for));
    }

    #[test]
    fn overrides_and_empty_ranges() {
        let doc = run(
            "[defines]\nN = 3\n[[c]]\nfor = \"i in 1:N\"\nname = \"x{i}\"\n",
            &[("N", 0)],
        )
        .unwrap();
        assert_eq!(doc["c"].as_array().unwrap().len(), 0);
        let e = run("[defines]\nN = 3\n", &[("M", 1)]).unwrap_err();
        assert_eq!(e.0, "defines");
        assert!(e.1.contains("no define 'M'"), "{}", e.1);
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            ("[defines]\nN = 1.5\n", "defines.N", "integer"),
            ("[[c]]\nfor = \"i from 1:3\"\n", "c[0].for", "form"),
            ("[[c]]\nfor = \"i in 1..3\"\n", "c[0].for", "FROM:TO"),
            ("[[c]]\nfor = \"i in 1:K\"\n", "c[0].for", "unknown name"),
            (
                "[defines]\nN = 2\n[[c]]\nfor = \"N in 1:3\"\n",
                "c[0].for",
                "already a define",
            ),
            (
                "[[c]]\nfor = \"i in 1:2\"\nname = \"x{i/2}\"\n",
                "c[0].name",
                "not an integer",
            ),
            (
                "[defines]\nN = 1\n[[c]]\nname = \"x{\"\n",
                "c[0].name",
                "without",
            ),
            ("[defines]\nN = 1\n[x]\ns = \"a}\"\n", "x.s", "without"),
            (
                "[[c]]\nfor = \"i in 1:10000000\"\n",
                "c[0].for",
                "more than",
            ),
        ];
        for (text, field, fragment) in cases {
            let e = run(text, &[]).unwrap_err();
            assert_eq!(e.0, field, "{text}");
            assert!(e.1.contains(fragment), "{text}: {}", e.1);
        }
    }
}
