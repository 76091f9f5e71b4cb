//! `modelDescription.xml` from a [`Model`].
//!
//! Written with quick-xml from the same value-reference table the instance uses,
//! so the XML and the binary cannot disagree. The rules followed here are the ones
//! importers check (shared `fmi2-notes.md` §3): element order of the XSD,
//! `initial` only where legal (never on inputs), start values exactly where
//! required, one `Outputs` entry per output with exact dependencies, and
//! `InitialUnknowns` listing exactly the calculated outputs. No generation date
//! is written, so a build is reproducible. A Model Exchange FMU adds what FMI 2.0
//! section 3 asks for (see [`crate::fmi::description_me`]); a Co-Simulation FMU
//! is written exactly as before.
//!
//! The time is not declared: FMI 2.0 makes the independent variable optional
//! ("implicitly present" when absent), and declared without a start value, as
//! the standard asks, it makes FMI Library (libcosim, the FMI Compliance
//! Checker) log "Start attribute is required" for every FMU, since it infers
//! `initial` for it. Left out, every importer reads the description silently.
//! The value references are unchanged (the time stays readable at reference 0
//! for callers that know it), so each declared variable's 1-based index in
//! `ModelVariables` is its value reference.

use crate::fmi::description_me as me;
use crate::fmi::version::Interfaces;
use crate::instance::variables::{self, Kind, Variable};
use crate::model::Model;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, Event};
use quick_xml::Writer;

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

/// The complete `modelDescription.xml` text of a Co-Simulation FMU.
pub fn write(model: &Model, guid: &str) -> String {
    write_for(model, guid, Interfaces::CO_SIMULATION)
}

/// The complete `modelDescription.xml` text for `interfaces`.
pub fn write_for(model: &Model, guid: &str, interfaces: Interfaces) -> String {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    let mut put = |e: Event| w.write_event(e).expect("writing to memory cannot fail");
    put(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
    let version = format!("lcsfmu {}", env!("CARGO_PKG_VERSION"));
    let mut root = BytesStart::new("fmiModelDescription");
    root.push_attribute(("fmiVersion", "2.0"));
    root.push_attribute(("modelName", model.name.as_str()));
    root.push_attribute(("guid", guid));
    if !model.description.is_empty() {
        root.push_attribute(("description", model.description.as_str()));
    }
    root.push_attribute(("generationTool", version.as_str()));
    root.push_attribute(("variableNamingConvention", "structured"));
    let indicators = if interfaces.model_exchange {
        me::indicator_count(model)
    } else {
        0
    };
    root.push_attribute(("numberOfEventIndicators", indicators.to_string().as_str()));
    put(Event::Start(root));

    if interfaces.model_exchange {
        me::write_element(model, &mut put);
    }
    let mut cs = BytesStart::new("CoSimulation");
    for (k, v) in [
        ("modelIdentifier", model.name.as_str()),
        ("canHandleVariableCommunicationStepSize", "true"),
        ("canNotUseMemoryManagementFunctions", "true"),
        ("canGetAndSetFMUstate", "true"),
        ("canSerializeFMUstate", "true"),
    ] {
        cs.push_attribute((k, v));
    }
    if interfaces.co_simulation {
        put(Event::Empty(cs));
    }

    let vars = variables::variables(model);
    debug_assert_eq!(vars[0].kind, Kind::Time, "the time is value reference 0");
    write_units(&vars, &mut put);
    write_categories_and_experiment(model, &mut put);

    put(Event::Start(BytesStart::new("ModelVariables")));
    for (vr, v) in vars.iter().enumerate().skip(1) {
        let (causality, variability, initial) = v.attributes();
        let vr_text = vr.to_string();
        let description = describe(model, v.kind, v.description);
        let mut sv = BytesStart::new("ScalarVariable");
        sv.push_attribute(("name", v.name));
        sv.push_attribute(("valueReference", vr_text.as_str()));
        if !description.is_empty() {
            sv.push_attribute(("description", description.as_str()));
        }
        sv.push_attribute(("causality", causality));
        sv.push_attribute(("variability", variability));
        if let Some(initial) = initial {
            sv.push_attribute(("initial", initial));
        }
        put(Event::Start(sv));
        let mut real = BytesStart::new("Real");
        if !v.unit.is_empty() {
            real.push_attribute(("unit", v.unit));
        }
        if let Some(s) = v.start {
            real.push_attribute(("start", number(s).as_str()));
        }
        put(Event::Empty(real));
        put(Event::End(BytesEnd::new("ScalarVariable")));
    }
    if interfaces.model_exchange {
        me::write_derivatives(model, vars.len(), &mut put);
    }
    put(Event::End(BytesEnd::new("ModelVariables")));

    put(Event::Start(BytesStart::new("ModelStructure")));
    // Outputs by 1-based index in ModelVariables (its value reference, the
    // time being left out), their dependencies likewise.
    let outputs: Vec<(usize, String)> = output_dependencies(model, &vars)
        .into_iter()
        .map(|(i, deps)| {
            let deps: Vec<String> = deps.iter().map(usize::to_string).collect();
            (i, deps.join(" "))
        })
        .collect();
    if !outputs.is_empty() {
        put(Event::Start(BytesStart::new("Outputs")));
        for (index, deps) in &outputs {
            let index = index.to_string();
            let mut unknown =
                BytesStart::new("Unknown").with_attributes([("index", index.as_str())]);
            // Model Exchange: outputs depend on the states as well (through the
            // mode), so the attribute is left out: "depends on every known".
            if !interfaces.model_exchange {
                unknown.push_attribute(("dependencies", deps.as_str()));
            }
            put(Event::Empty(unknown));
        }
        put(Event::End(BytesEnd::new("Outputs")));
    }
    if interfaces.model_exchange {
        me::write_derivative_structure(model, &vars, &mut put);
    }
    let mut initial: Vec<usize> = vars
        .iter()
        .enumerate()
        .filter(|(_, v)| v.attributes().2 == Some("calculated"))
        .map(|(i, _)| i)
        .collect();
    if interfaces.model_exchange {
        // FMI 2.0 ME: the state derivatives (initial calculated) too.
        initial.extend((0..model.nx()).map(|i| vars.len() + i));
    }
    if !initial.is_empty() {
        put(Event::Start(BytesStart::new("InitialUnknowns")));
        for index in initial {
            let index = index.to_string();
            put(Event::Empty(
                BytesStart::new("Unknown").with_attributes([("index", index.as_str())]),
            ));
        }
        put(Event::End(BytesEnd::new("InitialUnknowns")));
    }
    put(Event::End(BytesEnd::new("ModelStructure")));
    put(Event::End(BytesEnd::new("fmiModelDescription")));
    String::from_utf8(w.into_inner()).expect("the writer only writes UTF-8") + "\n"
}

/// The units the variables use, sorted, each once.
pub(crate) fn units<'m>(vars: &[Variable<'m>]) -> Vec<&'m str> {
    let mut units: Vec<&str> = vars
        .iter()
        .map(|v| v.unit)
        .filter(|u| !u.is_empty())
        .collect();
    units.sort_unstable();
    units.dedup();
    units
}

/// `<UnitDefinitions>`, when a variable has a unit.
pub(crate) fn write_units(vars: &[Variable], put: &mut impl FnMut(Event)) {
    let units = units(vars);
    if !units.is_empty() {
        put(Event::Start(BytesStart::new("UnitDefinitions")));
        for u in &units {
            put(Event::Empty(
                BytesStart::new("Unit").with_attributes([("name", *u)]),
            ));
        }
        put(Event::End(BytesEnd::new("UnitDefinitions")));
    }
}

/// `<LogCategories>` and `<DefaultExperiment>`, the same in FMI 2.0 and 3.0.
pub(crate) fn write_categories_and_experiment(model: &Model, put: &mut impl FnMut(Event)) {
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

/// Every output (0-based position in `vars`, which is also its value
/// reference) with the positions of the inputs it depends on at once.
/// Outputs reflect the end of the last step, except the static maps of blocks
/// and the named outputs that read inputs (src/model/dependencies.rs).
pub(crate) fn output_dependencies(model: &Model, vars: &[Variable]) -> Vec<(usize, Vec<usize>)> {
    let position = |kind: Kind| vars.iter().position(|v| v.kind == kind);
    let (pair_deps, output_deps) = (model.pair_feedthrough(), model.output_feedthrough());
    vars.iter()
        .enumerate()
        .filter(|(_, v)| v.attributes().0 == "output")
        .map(|(i, v)| {
            let inputs: &[usize] = match v.kind {
                Kind::Output(k) => &output_deps[k],
                Kind::Pair(k) => &pair_deps[k],
                _ => &[],
            };
            let deps = inputs
                .iter()
                .filter_map(|j| position(Kind::Input(*j)))
                .collect();
            (i, deps)
        })
        .collect()
}

/// The user's description, completed with what the variable is in the LCS.
pub(crate) fn describe(model: &Model, kind: Kind, user: &str) -> String {
    let what = match kind {
        Kind::Pair(i) => {
            let p = &model.pairs[i];
            let bound = |e: &crate::model::expr::Expr| {
                e.as_constant()
                    .map_or_else(|| "(parameter)".to_string(), number)
            };
            if p.is_free() {
                "algebraic variable: its y is 0".to_string()
            } else {
                format!(
                    "complementarity variable, {} <= {} <= {} complementary to its y",
                    bound(&p.lo),
                    p.name,
                    bound(&p.hi)
                )
            }
        }
        Kind::Output(k) => format!("= {}", model.outputs[k].definition),
        _ => String::new(),
    };
    match (user.is_empty(), what.is_empty()) {
        (true, _) => what,
        (false, true) => user.to_string(),
        (false, false) => format!("{user} ({what})"),
    }
}
