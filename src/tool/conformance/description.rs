//! An FMU's `modelDescription.xml`, read into the few facts the conformance
//! rules look at.
//!
//! The reader keeps attribute values as the text written (a missing attribute is
//! `None`), so the rules can tell an absent `initial` from a default one and a
//! value reference that is not a number from a duplicate. It reads any FMI 2.0
//! or 3.0 description, not only ours: `lcsfmu check` is meant for FMUs whatever
//! wrote them, and for copies of ours that someone edited. The two versions
//! land in the same fields: an FMI 3.0 variable element (`Float64`, `Int32`,
//! ...) is a [`Variable`] whose `kind` is the element's name and whose type
//! attributes are its own; its `ModelStructure` entries (`Output`,
//! `ContinuousStateDerivative`, `InitialUnknown`, `EventIndicator`) are
//! [`Unknown`]s that name a value reference instead of an index.

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use std::collections::HashMap;

/// One `ScalarVariable` (FMI 2.0) or variable element (FMI 3.0).
#[derive(Debug, Default)]
pub struct Variable {
    pub name: Option<String>,
    pub value_reference: Option<String>,
    pub causality: Option<String>,
    pub variability: Option<String>,
    pub initial: Option<String>,
    /// `Real`, `Integer`, `Boolean`, `String` or `Enumeration` (empty if none);
    /// in FMI 3.0 the element's name (`Float64`, `Int32`, ...).
    pub kind: String,
    /// The type element's attributes (`start`, `unit`, `derivative`, ...).
    pub type_attributes: HashMap<String, String>,
}

impl Variable {
    /// The attributes every version puts on the variable's element itself.
    fn from_attributes(attrs: &HashMap<String, String>) -> Variable {
        let get = |k: &str| attrs.get(k).cloned();
        Variable {
            name: get("name"),
            value_reference: get("valueReference"),
            causality: get("causality"),
            variability: get("variability"),
            initial: get("initial"),
            ..Variable::default()
        }
    }

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
            ("parameter" | "structuralParameter", _) | (_, "constant") => Some("exact"),
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

/// One `Unknown` of `ModelStructure` (FMI 2.0), or one of its FMI 3.0 entries.
#[derive(Debug)]
pub struct Unknown {
    /// FMI 2.0: the 1-based position in `ModelVariables`.
    pub index: Option<String>,
    /// FMI 3.0: the variable's value reference.
    pub value_reference: Option<String>,
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
    /// FMI 3.0's `EventIndicator` entries.
    pub event_indicators: Option<Vec<Unknown>>,
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
            (Some("ModelVariables"), element) => {
                let mut v = Variable::from_attributes(&attrs);
                if element != "ScalarVariable" {
                    // FMI 3.0: the element is the variable, its type's attributes its own.
                    v.kind = element.to_string();
                    v.type_attributes = attrs;
                }
                d.variables.push(v);
            }
            (Some("ScalarVariable"), kind) => {
                if let Some(v) = d.variables.last_mut() {
                    if v.kind.is_empty() {
                        v.kind = kind.to_string();
                        v.type_attributes = attrs;
                    }
                }
            }
            (
                Some("ModelStructure"),
                entry @ ("Output"
                | "ContinuousStateDerivative"
                | "InitialUnknown"
                | "EventIndicator"),
            ) => {
                let slot = match entry {
                    "Output" => &mut d.outputs,
                    "ContinuousStateDerivative" => &mut d.derivatives,
                    "InitialUnknown" => &mut d.initial_unknowns,
                    _ => &mut d.event_indicators,
                };
                slot.get_or_insert_with(Vec::new).push(Unknown {
                    index: None,
                    value_reference: attrs.get("valueReference").cloned(),
                    dependencies: attrs.get("dependencies").cloned(),
                });
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
                        value_reference: None,
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
