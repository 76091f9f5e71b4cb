//! The Model Exchange parts of an FMI 3.0 `modelDescription.xml`.
//!
//! What FMI 3.0 asks of a Model Exchange FMU (§2.4.8, §3): a `<ModelExchange>`
//! element, one Float64 per state derivative with `derivative="<state's value
//! reference>"`, listed in `<ContinuousStateDerivative>` (and, being
//! calculated, in `<InitialUnknown>`), and the event indicators as named
//! continuous Float64 variables listed in `<EventIndicator>` (FMI 2.0 gave only
//! their number). The value references come from the one table
//! ([`crate::instance::variables::kinds_with_indicators`]): the derivatives follow
//! the model's variables and the indicators follow the derivatives, so every
//! other variable keeps the reference it has in a Co-Simulation FMU.

use crate::fmi::description_me::{
    derivative_dependencies, flag, indicator_count, PROVIDES_FMU_STATES,
};
use crate::instance::variables::{self, Kind, Variable};
use crate::model::Model;
use quick_xml::events::{BytesStart, Event};

/// `<ModelExchange>`: as in FMI 2.0, FMU states (the snapshot carries the event
/// engine's mode and history, [`PROVIDES_FMU_STATES`]) and directional derivatives of the mode's ODE;
/// adjoint derivatives are their transpose. `needsCompletedIntegratorStep`
/// (FMI 2.0's `completedIntegratorStepNotNeeded`, inverted) is true: the FMU
/// checks after each step for a guard's zero the integrator stepped over.
pub fn write_element(model: &Model, put: &mut impl FnMut(Event)) {
    let mut me = BytesStart::new("ModelExchange");
    for (k, v) in [
        ("modelIdentifier", model.name.as_str()),
        ("canGetAndSetFMUState", flag(PROVIDES_FMU_STATES)),
        ("canSerializeFMUState", flag(PROVIDES_FMU_STATES)),
        ("providesDirectionalDerivatives", "true"),
        ("providesAdjointDerivatives", "true"),
        ("needsCompletedIntegratorStep", "true"),
    ] {
        me.push_attribute((k, v));
    }
    put(Event::Empty(me));
}

/// The variables after the model's `base` ones: `der(x_i)` at `base + i`,
/// then the event indicators.
pub fn write_variables(model: &Model, base: &[Variable], put: &mut impl FnMut(Event)) {
    let vr_of = |kind: Kind| {
        base.iter()
            .position(|v| v.kind == kind)
            .expect("every state is a variable")
    };
    for i in 0..model.nx() {
        let name = variables::derivative_name(model, i);
        let description = format!("derivative of {} in the current mode", model.states[i].name);
        let state = vr_of(Kind::State(i)).to_string();
        let vr = (base.len() + i).to_string();
        put(Event::Empty(float64(
            &name,
            &vr,
            &description,
            Some(("derivative", &state)),
        )));
    }
    for k in 0..indicator_count(model) {
        let name = variables::indicator_name(model, k);
        let pair = &model.pairs[k / 2].name;
        let description = if k.is_multiple_of(2) {
            format!("event indicator: the current mode's guard of {pair} leaving its lower side (y at the lower bound, u - lo between the bounds, 1 when the mode has none)")
        } else {
            format!("event indicator: the current mode's guard of {pair} leaving its upper side (-y at the upper bound, hi - u between the bounds, 1 when the mode has none)")
        };
        let vr = (base.len() + model.nx() + k).to_string();
        put(Event::Empty(float64(&name, &vr, &description, None)));
    }
}

fn float64<'a>(
    name: &'a str,
    vr: &'a str,
    description: &'a str,
    extra: Option<(&'a str, &'a str)>,
) -> BytesStart<'a> {
    let mut e = BytesStart::new("Float64");
    e.push_attribute(("name", name));
    e.push_attribute(("valueReference", vr));
    e.push_attribute(("description", description));
    e.push_attribute(("causality", "local"));
    e.push_attribute(("variability", "continuous"));
    e.push_attribute(("initial", "calculated"));
    if let Some(attribute) = extra {
        e.push_attribute(attribute);
    }
    e
}

/// `<ContinuousStateDerivative>` entries, with the value references of the
/// states and inputs each derivative may depend on.
pub fn write_derivative_structure(model: &Model, base: &[Variable], put: &mut impl FnMut(Event)) {
    for i in 0..model.nx() {
        let vr = (base.len() + i).to_string();
        // derivative_dependencies gives 1-based positions in `base`.
        let deps: Vec<String> = derivative_dependencies(model, base, i)
            .iter()
            .map(|index| (index - 1).to_string())
            .collect();
        let deps = deps.join(" ");
        put(Event::Empty(
            BytesStart::new("ContinuousStateDerivative").with_attributes([
                ("valueReference", vr.as_str()),
                ("dependencies", deps.as_str()),
            ]),
        ));
    }
}

/// `<InitialUnknown>` entries of the derivatives (after the model's own).
pub fn write_initial_derivatives(model: &Model, base: &[Variable], put: &mut impl FnMut(Event)) {
    for i in 0..model.nx() {
        let vr = (base.len() + i).to_string();
        put(Event::Empty(
            BytesStart::new("InitialUnknown").with_attributes([("valueReference", vr.as_str())]),
        ));
    }
}

/// `<EventIndicator>` entries: every indicator (they depend on the states and
/// inputs through the mode, so no dependencies are given).
pub fn write_indicator_structure(model: &Model, base: &[Variable], put: &mut impl FnMut(Event)) {
    for k in 0..indicator_count(model) {
        let vr = (base.len() + model.nx() + k).to_string();
        put(Event::Empty(
            BytesStart::new("EventIndicator").with_attributes([("valueReference", vr.as_str())]),
        ));
    }
}
