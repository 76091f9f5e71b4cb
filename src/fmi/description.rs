//! `modelDescription.xml` from a [`Model`]: one writer for FMI 2.0 and 3.0,
//! Co-Simulation and Model Exchange.
//!
//! What is declared comes from [`table::Table`], the same for every version;
//! this module only spells it. The rules followed are the ones importers check
//! (shared `fmi2-notes.md` §3, `fmi3-notes.md` §1.2): element order of the XSD,
//! `initial` only where legal (never on inputs), start values exactly where
//! required, one output entry per output with exact dependencies (none given
//! for Model Exchange, where outputs depend on the states through the mode),
//! and initial unknowns listing exactly the calculated variables. No
//! generation date is written, so a build is reproducible.
//!
//! Where the versions differ:
//!
//! - FMI 2.0 writes `guid`, `numberOfEventIndicators`, `<ScalarVariable>` with
//!   a `<Real>` child, and a model structure of `<Unknown index=…>` inside
//!   `<Outputs>`, `<Derivatives>` and `<InitialUnknowns>`. It does not declare
//!   the time: the independent variable is optional there ("implicitly
//!   present"), and declared without a start value, as the standard asks, it
//!   makes FMI Library (libcosim, the FMI Compliance Checker) log "Start
//!   attribute is required" for every FMU. The value references are unchanged
//!   (the time stays readable at reference 0), so each declared variable's
//!   1-based index in `ModelVariables` is its value reference.
//! - FMI 3.0 writes `instantiationToken` (the same GUID), typed `<Float64>`
//!   elements, the time as the one `independent` variable, the event
//!   indicators as variables listed in `<EventIndicator>`, and a flat model
//!   structure by value reference. A unit comes through a declared type
//!   (`<Float64Type name="V" unit="V"/>`, `declaredType="V"`), which every
//!   importer tried reads: the `fmi` crate 0.8 refuses a `unit` attribute on
//!   a variable.
//! - The capability flags of `<CoSimulation>` and `<ModelExchange>` have
//!   different names and sets ([`Dialect`]).

pub mod table;

use crate::fmi::version::{FmiVersion, Interfaces};
use crate::model::Model;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, Event};
use quick_xml::Writer;
use table::{Entry, Role, Table};

/// The GUID of a model (see [`crate::model::guid`]): what the XML declares and
/// every binary checks at instantiation.
pub fn guid(model: &Model) -> String {
    crate::model::guid::of_json(&model.to_json())
}

/// The GUID of an FMU of `model` with `interfaces`: [`guid`] for Co-Simulation
/// alone (as always), another one with Model Exchange, whose description and
/// binary differ.
pub fn guid_for(model: &Model, interfaces: Interfaces) -> String {
    if interfaces == Interfaces::CO_SIMULATION {
        return guid(model);
    }
    crate::model::guid::of_json(&format!("{}\ninterfaces {interfaces}", model.to_json()))
}

/// The log categories the FMU understands (its logger filters on them).
pub const LOG_CATEGORIES: &[(&str, &str)] = &[
    ("logEvents", "Initialization and step events"),
    ("logStatusWarning", "Warnings"),
    ("logStatusDiscard", "Discarded steps"),
    ("logStatusError", "Errors"),
    ("logStatusFatal", "Fatal errors"),
    ("logAll", "Everything"),
];

/// Shortest text that reads back as the same number (`1e-300`, `0.2`, `100.0`).
pub(crate) fn number(v: f64) -> String {
    format!("{v:?}")
}

/// How one FMI version spells what [`Table`] declares.
pub struct Dialect {
    pub fmi_version: &'static str,
    /// The root's attribute holding the GUID.
    pub token: &'static str,
    /// `<CoSimulation>`'s attributes besides the model identifier.
    pub co_simulation: &'static [(&'static str, &'static str)],
    /// `<ModelExchange>`'s attributes besides the model identifier: FMU states
    /// are provided (a snapshot holds the event engine's mode and history),
    /// directional derivatives of the mode's ODE by states and inputs are
    /// (and in FMI 3.0 adjoint ones, their transpose), and the FMU asks for
    /// the completed-integrator-step call, after which it checks for a
    /// guard's zero the integrator stepped over.
    pub model_exchange: &'static [(&'static str, &'static str)],
}

impl Dialect {
    pub const FMI2: Dialect = Dialect {
        fmi_version: "2.0",
        token: "guid",
        co_simulation: &[
            ("canHandleVariableCommunicationStepSize", "true"),
            ("canNotUseMemoryManagementFunctions", "true"),
            ("canGetAndSetFMUstate", "true"),
            ("canSerializeFMUstate", "true"),
        ],
        model_exchange: &[
            ("canNotUseMemoryManagementFunctions", "true"),
            ("canGetAndSetFMUstate", "true"),
            ("canSerializeFMUstate", "true"),
            ("providesDirectionalDerivative", "true"),
        ],
    };
    pub const FMI3: Dialect = Dialect {
        fmi_version: "3.0",
        token: "instantiationToken",
        co_simulation: &[
            ("canHandleVariableCommunicationStepSize", "true"),
            ("canGetAndSetFMUState", "true"),
            ("canSerializeFMUState", "true"),
            ("hasEventMode", "true"),
            ("mightReturnEarlyFromDoStep", "true"),
        ],
        model_exchange: &[
            ("canGetAndSetFMUState", "true"),
            ("canSerializeFMUState", "true"),
            ("providesDirectionalDerivatives", "true"),
            ("providesAdjointDerivatives", "true"),
            ("needsCompletedIntegratorStep", "true"),
        ],
    };

    pub fn of(version: FmiVersion) -> &'static Dialect {
        match version {
            FmiVersion::V2 => &Dialect::FMI2,
            FmiVersion::V3 => &Dialect::FMI3,
        }
    }
}

/// The complete `modelDescription.xml` text of an FMU of `model` for `version`
/// and `interfaces`.
pub fn write(model: &Model, guid: &str, version: FmiVersion, interfaces: Interfaces) -> String {
    let dialect = Dialect::of(version);
    let fmi2 = version == FmiVersion::V2;
    let table = Table::new(model, interfaces);
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    let mut put = |e: Event| w.write_event(e).expect("writing to memory cannot fail");
    put(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));

    let version_text = format!("lcsfmu {}", env!("CARGO_PKG_VERSION"));
    let mut root = BytesStart::new("fmiModelDescription");
    root.push_attribute(("fmiVersion", dialect.fmi_version));
    root.push_attribute(("modelName", model.name.as_str()));
    root.push_attribute((dialect.token, guid));
    if !model.description.is_empty() {
        root.push_attribute(("description", model.description.as_str()));
    }
    root.push_attribute(("generationTool", version_text.as_str()));
    root.push_attribute(("variableNamingConvention", "structured"));
    if fmi2 {
        let indicators = table.structure.indicators.len().to_string();
        root.push_attribute(("numberOfEventIndicators", indicators.as_str()));
    }
    put(Event::Start(root));

    for (wanted, element, flags) in [
        (
            interfaces.model_exchange,
            "ModelExchange",
            dialect.model_exchange,
        ),
        (
            interfaces.co_simulation,
            "CoSimulation",
            dialect.co_simulation,
        ),
    ] {
        if wanted {
            let mut e = BytesStart::new(element);
            e.push_attribute(("modelIdentifier", model.name.as_str()));
            for &flag in flags {
                e.push_attribute(flag);
            }
            put(Event::Empty(e));
        }
    }

    let units = table::units(&table.entries);
    if !units.is_empty() {
        put(Event::Start(BytesStart::new("UnitDefinitions")));
        for u in &units {
            put(Event::Empty(
                BytesStart::new("Unit").with_attributes([("name", *u)]),
            ));
        }
        put(Event::End(BytesEnd::new("UnitDefinitions")));
        if !fmi2 {
            put(Event::Start(BytesStart::new("TypeDefinitions")));
            for u in &units {
                put(Event::Empty(
                    BytesStart::new("Float64Type").with_attributes([("name", *u), ("unit", *u)]),
                ));
            }
            put(Event::End(BytesEnd::new("TypeDefinitions")));
        }
    }
    write_categories_and_experiment(model, &mut put);

    put(Event::Start(BytesStart::new("ModelVariables")));
    for entry in &table.entries {
        if fmi2 {
            if matches!(entry.role, Role::Time | Role::Indicator) {
                continue;
            }
            write_scalar_variable(entry, &mut put);
        } else {
            write_float64(entry, &mut put);
        }
    }
    put(Event::End(BytesEnd::new("ModelVariables")));

    put(Event::Start(BytesStart::new("ModelStructure")));
    let s = &table.structure;
    let outputs = s.outputs.iter().map(|(vr, deps)| (*vr, deps.as_deref()));
    let derivatives = s
        .derivatives
        .iter()
        .map(|(vr, deps)| (*vr, Some(&deps[..])));
    let initial = s.initial_unknowns.iter().map(|vr| (*vr, None));
    let indicators = s.indicators.iter().map(|vr| (*vr, None));
    if fmi2 {
        // FMI 2.0 has no indicator entries: only their number, on the root.
        write_unknowns("Outputs", outputs, &mut put);
        write_unknowns("Derivatives", derivatives, &mut put);
        write_unknowns("InitialUnknowns", initial, &mut put);
    } else {
        write_references("Output", outputs, &mut put);
        write_references("ContinuousStateDerivative", derivatives, &mut put);
        write_references("InitialUnknown", initial, &mut put);
        write_references("EventIndicator", indicators, &mut put);
    }
    put(Event::End(BytesEnd::new("ModelStructure")));
    put(Event::End(BytesEnd::new("fmiModelDescription")));
    String::from_utf8(w.into_inner()).expect("the writer only writes UTF-8") + "\n"
}

/// The attributes both versions give a variable, in the XSD's order.
fn common_attributes(entry: &Entry, vr: &str, e: &mut BytesStart) {
    e.push_attribute(("name", entry.name.as_ref()));
    e.push_attribute(("valueReference", vr));
    if !entry.description.is_empty() {
        e.push_attribute(("description", entry.description.as_str()));
    }
    e.push_attribute(("causality", entry.causality));
    e.push_attribute(("variability", entry.variability));
    if let Some(initial) = entry.initial {
        e.push_attribute(("initial", initial));
    }
}

/// FMI 2.0: `<ScalarVariable …><Real …/></ScalarVariable>`.
fn write_scalar_variable(entry: &Entry, put: &mut impl FnMut(Event)) {
    let vr = entry.value_reference.to_string();
    let mut sv = BytesStart::new("ScalarVariable");
    common_attributes(entry, &vr, &mut sv);
    put(Event::Start(sv));
    let mut real = BytesStart::new("Real");
    if !entry.unit.is_empty() {
        real.push_attribute(("unit", entry.unit));
    }
    if let Some(s) = entry.start {
        real.push_attribute(("start", number(s).as_str()));
    }
    if let Role::Derivative { of } = entry.role {
        // The state's index in ModelVariables: its value reference.
        real.push_attribute(("derivative", of.to_string().as_str()));
    }
    put(Event::Empty(real));
    put(Event::End(BytesEnd::new("ScalarVariable")));
}

/// FMI 3.0: `<Float64 …/>`.
fn write_float64(entry: &Entry, put: &mut impl FnMut(Event)) {
    let vr = entry.value_reference.to_string();
    let mut e = BytesStart::new("Float64");
    common_attributes(entry, &vr, &mut e);
    if !entry.unit.is_empty() {
        e.push_attribute(("declaredType", entry.unit));
    }
    if let Some(s) = entry.start {
        e.push_attribute(("start", number(s).as_str()));
    }
    if let Role::Derivative { of } = entry.role {
        e.push_attribute(("derivative", of.to_string().as_str()));
    }
    put(Event::Empty(e));
}

fn join(deps: &[usize]) -> String {
    let deps: Vec<String> = deps.iter().map(usize::to_string).collect();
    deps.join(" ")
}

/// FMI 2.0: `<group><Unknown index=… dependencies=…/>…</group>`, when the
/// group has entries (an index is the value reference: the time is not
/// declared).
fn write_unknowns<'a>(
    group: &str,
    entries: impl Iterator<Item = (usize, Option<&'a [usize]>)>,
    put: &mut impl FnMut(Event),
) {
    let mut entries = entries.peekable();
    if entries.peek().is_none() {
        return;
    }
    put(Event::Start(BytesStart::new(group)));
    for (index, deps) in entries {
        let index = index.to_string();
        let mut unknown = BytesStart::new("Unknown").with_attributes([("index", index.as_str())]);
        if let Some(deps) = deps {
            unknown.push_attribute(("dependencies", join(deps).as_str()));
        }
        put(Event::Empty(unknown));
    }
    put(Event::End(BytesEnd::new(group)));
}

/// FMI 3.0: one `<element valueReference=… dependencies=…/>` per entry.
fn write_references<'a>(
    element: &str,
    entries: impl Iterator<Item = (usize, Option<&'a [usize]>)>,
    put: &mut impl FnMut(Event),
) {
    for (vr, deps) in entries {
        let vr = vr.to_string();
        let mut e = BytesStart::new(element).with_attributes([("valueReference", vr.as_str())]);
        if let Some(deps) = deps {
            e.push_attribute(("dependencies", join(deps).as_str()));
        }
        put(Event::Empty(e));
    }
}

/// `<LogCategories>` and `<DefaultExperiment>`, the same in FMI 2.0 and 3.0.
fn write_categories_and_experiment(model: &Model, put: &mut impl FnMut(Event)) {
    put(Event::Start(BytesStart::new("LogCategories")));
    for (name, description) in LOG_CATEGORIES {
        put(Event::Empty(BytesStart::new("Category").with_attributes([
            ("name", *name),
            ("description", *description),
        ])));
    }
    put(Event::End(BytesEnd::new("LogCategories")));

    let e = &model.experiment;
    let (start, stop, step) = (number(e.start), number(e.stop), number(e.step));
    put(Event::Empty(
        BytesStart::new("DefaultExperiment").with_attributes([
            ("startTime", start.as_str()),
            ("stopTime", stop.as_str()),
            ("stepSize", step.as_str()),
        ]),
    ));
}
