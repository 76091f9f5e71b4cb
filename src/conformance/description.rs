//! An FMU's `modelDescription.xml`, read into the few facts the conformance
//! rules look at.
//!
//! The reader keeps attribute values as the text written (a missing attribute is
//! `None`), so the rules can tell an absent `initial` from a default one and a
//! value reference that is not a number from a duplicate. It reads any FMI 2.0
//! description, not only ours: `lcsfmu check` is meant for FMUs whatever wrote
//! them, and for copies of ours that someone edited.

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use std::collections::HashMap;

/// One `ScalarVariable`.
#[derive(Debug, Default)]
pub struct Variable {
    pub name: Option<String>,
    pub value_reference: Option<String>,
    pub causality: Option<String>,
    pub variability: Option<String>,
    pub initial: Option<String>,
    /// `Real`, `Integer`, `Boolean`, `String` or `Enumeration` (empty if none).
    pub kind: String,
    /// The type element's attributes (`start`, `unit`, `derivative`, ...).
    pub type_attributes: HashMap<String, String>,
}

impl Variable {
    pub fn causality(&self) -> &str {
        self.causality.as_deref().unwrap_or("local")
    }

    pub fn variability(&self) -> &str {
        self.variability.as_deref().unwrap_or("continuous")
    }

    /// The standard's default when `initial` is absent (FMI 2.0 table of
    /// section 2.2.7): exact for constants and parameters, none for inputs and
    /// the independent variable, calculated otherwise.
    pub fn initial(&self) -> Option<&str> {
        if let Some(i) = &self.initial {
            return Some(i.as_str());
        }
        match (self.causality(), self.variability()) {
            ("input" | "independent", _) => None,
            ("parameter", _) | (_, "constant") => Some("exact"),
            _ => Some("calculated"),
        }
    }

    pub fn start(&self) -> Option<&str> {
        self.type_attributes.get("start").map(String::as_str)
    }

    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or("(unnamed)")
    }
}

impl Description {
    /// The `modelIdentifier` of the interface elements (Co-Simulation's first;
    /// lcsfmu writes the same one in both).
    pub fn model_identifier(&self) -> Option<&String> {
        fn id(e: &Option<HashMap<String, String>>) -> Option<&String> {
            e.as_ref()?.get("modelIdentifier")
        }
        id(&self.co_simulation).or_else(|| id(&self.model_exchange))
    }
}

/// One `Unknown` of `ModelStructure`.
#[derive(Debug)]
pub struct Unknown {
    pub index: Option<String>,
    /// `None`: the attribute is absent (depends on everything).
    pub dependencies: Option<String>,
}

/// What the rules need of the whole description.
#[derive(Debug, Default)]
pub struct Description {
    /// The root's attributes (`fmiVersion`, `guid`, `variableNamingConvention`, ...).
    pub root: HashMap<String, String>,
    /// The root's child elements in document order.
    pub children: Vec<String>,
    /// `CoSimulation`'s attributes, when the element exists.
    pub co_simulation: Option<HashMap<String, String>>,
    /// `ModelExchange`'s attributes, when the element exists.
    pub model_exchange: Option<HashMap<String, String>>,
    pub units: Vec<String>,
    /// `DefaultExperiment`'s attributes, when the element exists.
    pub default_experiment: Option<HashMap<String, String>>,
    pub variables: Vec<Variable>,
    /// The `ModelStructure` lists, `None` when the element is absent.
    pub outputs: Option<Vec<Unknown>>,
    pub derivatives: Option<Vec<Unknown>>,
    pub initial_unknowns: Option<Vec<Unknown>>,
}

fn attributes(e: &BytesStart) -> Result<HashMap<String, String>, String> {
    let mut map = HashMap::new();
    for a in e.attributes() {
        let a = a.map_err(|err| err.to_string())?;
        let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
        let value = a.unescape_value().map_err(|err| err.to_string())?;
        map.insert(key, value.into_owned());
    }
    Ok(map)
}

/// Parses the XML text; an error says why it is not well-formed.
pub fn parse(xml: &str) -> Result<Description, String> {
    let mut reader = Reader::from_str(xml);
    let mut d = Description::default();
    let mut stack: Vec<String> = vec![];
    let mut saw_root = false;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("at byte {}: {e}", reader.buffer_position()))?;
        let (e, empty) = match &event {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(_) => {
                stack.pop();
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
        let attrs = attributes(e)?;
        let parent = stack.last().map(String::as_str);
        match (parent, name.as_str()) {
            (None, "fmiModelDescription") => {
                saw_root = true;
                d.root = attrs;
            }
            (None, other) => return Err(format!("the root element is {other}")),
            (Some("fmiModelDescription"), child) => {
                d.children.push(child.to_string());
                match child {
                    "CoSimulation" => d.co_simulation = Some(attrs),
                    "ModelExchange" => d.model_exchange = Some(attrs),
                    "DefaultExperiment" => d.default_experiment = Some(attrs),
                    _ => {}
                }
            }
            (Some("UnitDefinitions"), "Unit") => {
                d.units.extend(attrs.get("name").cloned());
            }
            (Some("ModelVariables"), "ScalarVariable") => {
                let get = |k: &str| attrs.get(k).cloned();
                d.variables.push(Variable {
                    name: get("name"),
                    value_reference: get("valueReference"),
                    causality: get("causality"),
                    variability: get("variability"),
                    initial: get("initial"),
                    ..Variable::default()
                });
            }
            (Some("ScalarVariable"), kind) => {
                if let Some(v) = d.variables.last_mut() {
                    if v.kind.is_empty() {
                        v.kind = kind.to_string();
                        v.type_attributes = attrs;
                    }
                }
            }
            (Some("ModelStructure"), list) => {
                let slot = match list {
                    "Outputs" => &mut d.outputs,
                    "Derivatives" => &mut d.derivatives,
                    "InitialUnknowns" => &mut d.initial_unknowns,
                    _ => &mut None,
                };
                *slot = Some(vec![]);
            }
            (Some(list @ ("Outputs" | "Derivatives" | "InitialUnknowns")), "Unknown") => {
                let slot = match list {
                    "Outputs" => &mut d.outputs,
                    "Derivatives" => &mut d.derivatives,
                    _ => &mut d.initial_unknowns,
                };
                if let Some(v) = slot {
                    v.push(Unknown {
                        index: attrs.get("index").cloned(),
                        dependencies: attrs.get("dependencies").cloned(),
                    });
                }
            }
            _ => {}
        }
        if !empty {
            stack.push(name);
        }
    }
    if !saw_root {
        return Err("no fmiModelDescription element".into());
    }
    Ok(d)
}
