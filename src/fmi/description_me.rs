//! The Model Exchange parts of an FMI 2.0 `modelDescription.xml`.
//!
//! FMI 2.0 section 3 asks a Model Exchange FMU for a `<ModelExchange>` element,
//! the number of event indicators (two per pair: see
//! [`crate::scheme::exchange`]), one state-derivative variable per state whose
//! `derivative` attribute names the state's index, and `<Derivatives>` in the
//! ModelStructure with what each derivative depends on. The derivatives follow
//! the model's variables (value references `variables(model).len() + i`), so
//! the other variables keep their references. The time is not declared (see
//! [`crate::fmi::description`]), so an index in `ModelVariables` is the
//! variable's value reference.

use crate::instance::variables::{self, Kind, Variable};
use crate::model::Model;
use quick_xml::events::{BytesEnd, BytesStart, Event};

/// Event indicators of `model`: two per pair.
pub fn indicator_count(model: &Model) -> usize {
    crate::scheme::exchange::indicator_count(model.nu())
}

/// Whether Model Exchange instances provide FMU states (get, set, free,
/// serialize, deserialize): the FMI 2.0 and 3.0 descriptions read it.
pub const PROVIDES_FMU_STATES: bool = true;

/// `<ModelExchange>`: FMU states are provided ([`PROVIDES_FMU_STATES`]: a
/// snapshot holds the event engine's mode and history); directional derivatives of the mode's ODE
/// (by states and inputs) are; `completedIntegratorStepNotNeeded` stays false,
/// since the FMU checks after each step for a guard's zero the integrator
/// stepped over.
pub fn write_element(model: &Model, put: &mut impl FnMut(Event)) {
    let mut me = BytesStart::new("ModelExchange");
    for (k, v) in [
        ("modelIdentifier", model.name.as_str()),
        ("canNotUseMemoryManagementFunctions", "true"),
        ("canGetAndSetFMUstate", flag(PROVIDES_FMU_STATES)),
        ("canSerializeFMUstate", flag(PROVIDES_FMU_STATES)),
        ("providesDirectionalDerivative", "true"),
    ] {
        me.push_attribute((k, v));
    }
    put(Event::Empty(me));
}

pub(crate) fn flag(b: bool) -> &'static str {
    if b {
        "true"
    } else {
        "false"
    }
}

/// The state-derivative variables, after the `base` variables of the model.
pub fn write_derivatives(model: &Model, base: usize, put: &mut impl FnMut(Event)) {
    let vars = variables::variables(model);
    for i in 0..model.nx() {
        let state = vars
            .iter()
            .position(|v| v.kind == Kind::State(i))
            .expect("every state is a variable");
        let (name, vr) = (variables::derivative_name(model, i), base + i);
        let description = format!("derivative of {} in the current mode", model.states[i].name);
        let mut sv = BytesStart::new("ScalarVariable");
        sv.push_attribute(("name", name.as_str()));
        sv.push_attribute(("valueReference", vr.to_string().as_str()));
        sv.push_attribute(("description", description.as_str()));
        sv.push_attribute(("causality", "local"));
        sv.push_attribute(("variability", "continuous"));
        sv.push_attribute(("initial", "calculated"));
        put(Event::Start(sv));
        // The state's index in ModelVariables: its value reference.
        let state_index = state.to_string();
        put(Event::Empty(
            BytesStart::new("Real").with_attributes([("derivative", state_index.as_str())]),
        ));
        put(Event::End(BytesEnd::new("ScalarVariable")));
    }
}

/// 1-based positions in `vars` of the states and inputs `der(x_i)` may depend on in some
/// mode: those of row `i` of A and E when B's row is empty; otherwise every
/// state and input, since the multipliers of a mode depend on them through the
/// mode's own equations.
pub fn derivative_dependencies(model: &Model, vars: &[Variable], i: usize) -> Vec<usize> {
    let position = |kind: Kind| {
        vars.iter()
            .position(|v| v.kind == kind)
            .expect("every state and input is a variable")
            + 1
    };
    let s = &model.system;
    let coupled = s.b.entries.iter().any(|(r, _, _)| *r == i);
    let mut deps: Vec<usize> = if coupled {
        (0..model.nx())
            .map(|j| position(Kind::State(j)))
            .chain((0..model.nw()).map(|j| position(Kind::Input(j))))
            .collect()
    } else {
        let states = s.a.entries.iter().filter(|(r, _, _)| *r == i);
        let inputs = s.e.entries.iter().filter(|(r, _, _)| *r == i);
        states
            .map(|(_, c, _)| position(Kind::State(*c)))
            .chain(inputs.map(|(_, c, _)| position(Kind::Input(*c))))
            .collect()
    };
    deps.sort_unstable();
    deps.dedup();
    deps
}

/// `<Derivatives>` of the ModelStructure.
pub fn write_derivative_structure(model: &Model, vars: &[Variable], put: &mut impl FnMut(Event)) {
    if model.nx() == 0 {
        return;
    }
    put(Event::Start(BytesStart::new("Derivatives")));
    for i in 0..model.nx() {
        let index = (vars.len() + i).to_string();
        // Positions in `vars` (time included) + 1, minus the undeclared time.
        let deps: Vec<String> = derivative_dependencies(model, vars, i)
            .iter()
            .map(|index| (index - 1).to_string())
            .collect();
        let deps = deps.join(" ");
        put(Event::Empty(BytesStart::new("Unknown").with_attributes([
            ("index", index.as_str()),
            ("dependencies", deps.as_str()),
        ])));
    }
    put(Event::End(BytesEnd::new("Derivatives")));
}
