//! The model file as written: serde structs that mirror the TOML text.
//!
//! This stage only checks types and unknown keys (a misspelt key is an error, not
//! a silently ignored line). Everything about meaning is checked in
//! [`super::validate`], which knows the names and can say which field is wrong.
//! The user guide (docs/src/model-file.md, blocks.md, mechanical.md) documents every
//! field with the bundled models as examples.

use serde::Deserialize;

/// A number or an expression over parameters, as a matrix entry or a bound.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Number(f64),
    Text(String),
}

/// Written out rather than `#[serde(untagged)]`, whose refusal of a wrong
/// type (`start = true`) says only that no variant matched: this one says
/// what was found and what a value may be.
impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Value;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number or an expression in quotes")
            }
            fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
                Ok(Value::Number(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
                Ok(Value::Number(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
                Ok(Value::Number(v as f64))
            }
            fn visit_str<E>(self, v: &str) -> Result<Value, E> {
                Ok(Value::Text(v.to_string()))
            }
        }
        d.deserialize_any(Visitor)
    }
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
    #[serde(default)]
    pub coordinates: Vec<RawCoordinate>,
    #[serde(default)]
    pub contacts: Vec<RawContact>,
    #[serde(default)]
    pub mechanics: Option<RawMechanics>,
    #[serde(default)]
    pub blocks: Vec<RawBlock>,
    /// Sampled-data partitions (see `super::sampled`).
    #[serde(default)]
    pub discrete: Vec<RawDiscrete>,
    /// A SPICE netlist as the model's dynamics (see `super::netlist`).
    #[serde(default)]
    pub circuit: Option<RawCircuit>,
    /// Known values at sample times (`time = [...]`, `<variable> = [...]`),
    /// against which `lcsfmu compare` measures errors.
    #[serde(default)]
    pub reference: Option<std::collections::BTreeMap<String, Vec<f64>>>,
}

/// `[[discrete]]`: a partition sampled at `offset + k * period`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDiscrete {
    pub name: String,
    pub period: Value,
    pub offset: Option<Value>,
    #[serde(default)]
    pub states: Vec<RawDiscreteState>,
    #[serde(default)]
    pub outputs: Vec<RawOutput>,
}

/// `[[discrete.states]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDiscreteState {
    pub name: String,
    pub start: Option<Value>,
    pub update: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub unit: String,
}

/// `[circuit]`: a netlist, its lines numbered as the file's.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCircuit {
    pub netlist: String,
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

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScheme {
    pub method: Option<String>,
    pub theta: Option<f64>,
    pub max_step: Option<f64>,
    /// Moreau–Jean's impact law.
    pub impact: Option<String>,
    /// Moreau–Jean's activation parameter, or the theta-method's weight of
    /// the step's multipliers.
    pub gamma: Option<f64>,
    /// The theta-method's point of the relation.
    pub gamma_relation: Option<f64>,
    /// `moreau-jean-direct-projection` settings.
    pub activation_threshold: Option<f64>,
    pub deactivation_threshold: Option<f64>,
    pub projection_tolerance: Option<f64>,
    pub projection_max_iterations: Option<u64>,
    /// Event-driven settings.
    pub rtol: Option<f64>,
    pub atol: Option<f64>,
    pub max_events_per_step: Option<u64>,
    pub integrator: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawParameter {
    pub name: String,
    /// A number or a constant expression (`"2*pi"`); not other parameters.
    pub value: Value,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub unit: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawVariable {
    pub name: String,
    /// A number or a constant expression (`"3 * 0.01"`), as a coordinate's.
    pub start: Option<Value>,
    /// A state's derivative as a linear form (the signal form; states only).
    pub der: Option<Value>,
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

impl RawSystem {
    /// Whether the file gives any matrix of the first-order form (which a
    /// mechanical model or a circuit must not: their dynamics come from elsewhere).
    pub fn any_given(&self) -> bool {
        [&self.a, &self.b, &self.e, &self.c, &self.d, &self.fw]
            .iter()
            .any(|m| m.is_some())
            || self.f.is_some()
            || self.g.is_some()
    }
}

/// A generalized coordinate `q` and its velocity `v` (mechanical models).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCoordinate {
    pub name: String,
    pub velocity: String,
    pub start: Option<Value>,
    pub velocity_start: Option<Value>,
    /// Diagonal entry of the mass matrix (or give `mechanics.M`).
    pub mass: Option<Value>,
    /// Applied force: linear in coordinates, velocities and inputs.
    pub force: Option<Value>,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub unit: String,
    pub velocity_unit: Option<String>,
}

/// A unilateral contact (mechanical models).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawContact {
    pub name: String,
    /// Linear in coordinates: must stay `>= 0`.
    pub gap: Value,
    pub restitution: Option<Value>,
    /// Coulomb coefficient; needs `slip`.
    pub friction: Option<Value>,
    /// Tangential relative velocity: linear in velocities and inputs.
    pub slip: Option<Value>,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub unit: String,
}

/// A nonsmooth block of the signal form: `name` is its output signal. Which
/// of the parameter keys a type takes is checked in [`super::blocks`], so a
/// key given to the wrong type gets a message naming the type.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBlock {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    /// Linear in states, inputs and block outputs.
    pub input: Option<Value>,
    /// The second input of `max` and `min`.
    pub input2: Option<Value>,
    pub lo: Option<Value>,
    pub hi: Option<Value>,
    pub k0: Option<Value>,
    pub u0: Option<Value>,
    pub breakpoints: Option<Vec<Value>>,
    pub slopes: Option<Vec<Value>>,
    #[serde(rename = "Fc")]
    pub fc: Option<Value>,
    #[serde(rename = "G")]
    pub g: Option<Value>,
    pub d: Option<Value>,
    pub on: Option<Value>,
    pub off: Option<Value>,
    /// Start value of a block with a state (backlash, saturated integrator, latch).
    pub start: Option<Value>,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub unit: String,
}

/// Matrices of a mechanical model that are not given per coordinate.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMechanics {
    #[serde(rename = "M")]
    pub m: Option<Vec<Vec<Value>>>,
}

/// Parses the TOML text, expanding `[defines]`, `for` and `{...}` (see
/// [`super::template`]) with `defines` overriding the file's values. The error
/// names the offending key path (and the position, for files without those).
pub fn parse(text: &str, defines: &[(String, i64)]) -> Result<RawModel, (String, String)> {
    let doc: Result<toml::Table, _> = text.parse();
    match doc {
        Ok(mut doc) if super::template::needed(&doc) => {
            super::template::expand(&mut doc, defines)?;
            report(serde_path_to_error::deserialize(toml::Value::Table(doc)))
        }
        Ok(_) if !defines.is_empty() => Err((
            "defines".into(),
            format!("--define {}: the file declares no [defines]", defines[0].0),
        )),
        // Also the path for syntax errors: its messages carry line and column.
        _ => report(serde_path_to_error::deserialize(toml::Deserializer::new(
            text,
        ))),
    }
}

fn report<E: std::fmt::Display>(
    r: Result<RawModel, serde_path_to_error::Error<E>>,
) -> Result<RawModel, (String, String)> {
    r.map_err(|e| {
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
