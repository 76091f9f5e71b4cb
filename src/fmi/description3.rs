//! The FMI 3.0 `modelDescription.xml` from a [`Model`].
//!
//! The same value-reference table as FMI 2.0's description
//! ([`crate::fmi::description`]) and the binary use; in FMI 3.0 it is also what
//! the standard asks: references unique across all variables (they are all
//! Float64), exactly one `independent` variable (time). What differs from FMI
//! 2.0 (fmi3-notes §1.2): typed elements (`<Float64>`), `instantiationToken`
//! instead of `guid` (the same value), the capability flags of `<CoSimulation>`
//! (Event Mode and early return: see `lcsfmu::instance::EventOptions`), and a
//! `<ModelStructure>` of `<Output>` and `<InitialUnknown>` elements that name
//! value references instead of indices. A variable's unit comes through a
//! declared type (`<Float64Type name="V" unit="V"/>`, `declaredType="V"`), which
//! the standard allows as well as a `unit` attribute on the variable and which
//! every importer tried reads: the `fmi` crate 0.8 refuses a description with a
//! `unit` attribute on a variable. An FMU that declares Model Exchange adds what
//! [`crate::fmi::description3_me`] writes; a Co-Simulation FMU is written
//! exactly as before.

use crate::fmi::description::{
    describe, number, output_dependencies, units, write_categories_and_experiment, write_units,
};
use crate::fmi::description3_me as me;
use crate::fmi::version::Interfaces;
use crate::instance::variables;
use crate::model::Model;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, Event};
use quick_xml::Writer;

/// The `<CoSimulation>` attributes besides the model identifier.
pub const CO_SIMULATION_FLAGS: &[(&str, &str)] = &[
    ("canHandleVariableCommunicationStepSize", "true"),
    ("canGetAndSetFMUState", "true"),
    ("canSerializeFMUState", "true"),
    ("hasEventMode", "true"),
    ("mightReturnEarlyFromDoStep", "true"),
];

/// The complete FMI 3.0 `modelDescription.xml` text of a Co-Simulation FMU;
/// `token` is the GUID.
pub fn write(model: &Model, token: &str) -> String {
    write_for(model, token, Interfaces::CO_SIMULATION)
}

/// The complete FMI 3.0 `modelDescription.xml` text for `interfaces`.
pub fn write_for(model: &Model, token: &str, interfaces: Interfaces) -> String {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    let mut put = |e: Event| w.write_event(e).expect("writing to memory cannot fail");
    put(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
    let version = format!("lcsfmu {}", env!("CARGO_PKG_VERSION"));
    let mut root = BytesStart::new("fmiModelDescription");
    root.push_attribute(("fmiVersion", "3.0"));
    root.push_attribute(("modelName", model.name.as_str()));
    root.push_attribute(("instantiationToken", token));
    if !model.description.is_empty() {
        root.push_attribute(("description", model.description.as_str()));
    }
    root.push_attribute(("generationTool", version.as_str()));
    root.push_attribute(("variableNamingConvention", "structured"));
    put(Event::Start(root));

    if interfaces.model_exchange {
        me::write_element(model, &mut put);
    }
    if interfaces.co_simulation {
        let mut cs = BytesStart::new("CoSimulation");
        cs.push_attribute(("modelIdentifier", model.name.as_str()));
        for &attribute in CO_SIMULATION_FLAGS {
            cs.push_attribute(attribute);
        }
        put(Event::Empty(cs));
    }

    let vars = variables::variables(model);
    write_units(&vars, &mut put);
    let units = units(&vars);
    if !units.is_empty() {
        put(Event::Start(BytesStart::new("TypeDefinitions")));
        for u in &units {
            put(Event::Empty(
                BytesStart::new("Float64Type").with_attributes([("name", *u), ("unit", *u)]),
            ));
        }
        put(Event::End(BytesEnd::new("TypeDefinitions")));
    }
    write_categories_and_experiment(model, &mut put);

    put(Event::Start(BytesStart::new("ModelVariables")));
    for (vr, v) in vars.iter().enumerate() {
        let (causality, variability, initial) = v.attributes();
        let vr_text = vr.to_string();
        let description = describe(model, v.kind, v.description);
        let mut e = BytesStart::new("Float64");
        e.push_attribute(("name", v.name));
        e.push_attribute(("valueReference", vr_text.as_str()));
        if !description.is_empty() {
            e.push_attribute(("description", description.as_str()));
        }
        e.push_attribute(("causality", causality));
        e.push_attribute(("variability", variability));
        if let Some(initial) = initial {
            e.push_attribute(("initial", initial));
        }
        if !v.unit.is_empty() {
            e.push_attribute(("declaredType", v.unit));
        }
        if let Some(s) = v.start {
            e.push_attribute(("start", number(s).as_str()));
        }
        put(Event::Empty(e));
    }
    if interfaces.model_exchange {
        me::write_variables(model, &vars, &mut put);
    }
    put(Event::End(BytesEnd::new("ModelVariables")));

    // Value references are positions in `vars`.
    put(Event::Start(BytesStart::new("ModelStructure")));
    for (vr, deps) in output_dependencies(model, &vars) {
        let deps: Vec<String> = deps.iter().map(|j| j.to_string()).collect();
        let (vr, deps) = (vr.to_string(), deps.join(" "));
        let mut output =
            BytesStart::new("Output").with_attributes([("valueReference", vr.as_str())]);
        // Model Exchange: outputs depend on the states as well (through the
        // mode), so the attribute is left out: "depends on every known".
        if !interfaces.model_exchange {
            output.push_attribute(("dependencies", deps.as_str()));
        }
        put(Event::Empty(output));
    }
    if interfaces.model_exchange {
        me::write_derivative_structure(model, &vars, &mut put);
    }
    for (vr, v) in vars.iter().enumerate() {
        if v.attributes().2 == Some("calculated") {
            let vr = vr.to_string();
            put(Event::Empty(
                BytesStart::new("InitialUnknown")
                    .with_attributes([("valueReference", vr.as_str())]),
            ));
        }
    }
    if interfaces.model_exchange {
        me::write_initial_derivatives(model, &vars, &mut put);
        me::write_indicator_structure(model, &vars, &mut put);
    }
    put(Event::End(BytesEnd::new("ModelStructure")));
    put(Event::End(BytesEnd::new("fmiModelDescription")));
    String::from_utf8(w.into_inner()).expect("the writer only writes UTF-8") + "\n"
}
