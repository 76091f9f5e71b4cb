//! The model file as written: serde structs that mirror the TOML text.
//!
//! This stage only checks types and unknown keys (a misspelt key is an error, not
//! a silently ignored line). Everything about meaning is checked in
//! [`super::validate`], which knows the names and can say which field is wrong.
//! The README documents every field with the bundled models as examples.

use serde::Deserialize;

/// A number or an expression over parameters, as a matrix entry or a bound.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Value {
    Number(f64),
    Text(String),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawModel {
    pub model: RawHeader,
    #[serde(default)]
    pub experiment: Option<RawExperiment>,
    #[serde(default)]
    pub scheme: Option<RawScheme>,
    #[serde(default)]
    pub parameters: Vec<RawParameter>,
    #[serde(default)]
    pub inputs: Vec<RawVariable>,
    #[serde(default)]
    pub states: Vec<RawVariable>,
    #[serde(default)]
    pub complementarity: Vec<RawPair>,
    #[serde(default)]
    pub outputs: Vec<RawOutput>,
    #[serde(default)]
    pub system: RawSystem,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHeader {
    pub name: String,
    #[serde(default)]
    pub description: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawExperiment {
    pub start: Option<f64>,
    pub stop: Option<f64>,
    pub step: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScheme {
    pub theta: Option<f64>,
    pub max_step: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawParameter {
    pub name: String,
    pub value: f64,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub unit: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawVariable {
    pub name: String,
    #[serde(default)]
    pub start: f64,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub unit: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPair {
    pub name: String,
    pub lo: Option<Value>,
    pub hi: Option<Value>,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub unit: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOutput {
    pub name: String,
    pub value: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub unit: String,
}

/// The matrices of `x' = A x + B u + E w + f`, `y = C x + D u + F w + g`.
/// Rows are arrays; an omitted matrix is zero.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSystem {
    #[serde(rename = "A")]
    pub a: Option<Vec<Vec<Value>>>,
    #[serde(rename = "B")]
    pub b: Option<Vec<Vec<Value>>>,
    #[serde(rename = "E")]
    pub e: Option<Vec<Vec<Value>>>,
    pub f: Option<Vec<Value>>,
    #[serde(rename = "C")]
    pub c: Option<Vec<Vec<Value>>>,
    #[serde(rename = "D")]
    pub d: Option<Vec<Vec<Value>>>,
    #[serde(rename = "F")]
    pub fw: Option<Vec<Vec<Value>>>,
    pub g: Option<Vec<Value>>,
}

/// Parses the TOML text; the error names the offending key path and the position.
pub fn parse(text: &str) -> Result<RawModel, (String, String)> {
    let de = toml::Deserializer::new(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let field = if path == "." || path.is_empty() {
            "(file)".to_string()
        } else {
            path
        };
        (field, inner.to_string().trim_end().replace('\n', "\n    "))
    })
}
