//! Which runs of the binary `check` makes (`binary_runs`: one per interface
//! type the description declares), and the parent side of the Model Exchange
//! run: what the description declares for Model Exchange, read into the
//! child's arguments ([`declared`]), and the run itself ([`exchange`]),
//! supervised as the Co-Simulation one is ([`super::run`]).
//!
//! FMI 2.0 gives the states only through `ModelStructure/Derivatives`: each
//! entry is a variable whose `derivative` attribute names its state (by
//! index), and their order is the order of the states vector. FMI 3.0 lists
//! `ContinuousStateDerivative` entries by value reference, and the
//! `derivative` attribute is the state's value reference; it names the event
//! indicators too (`EventIndicator`, in the order of the indicators vector),
//! where FMI 2.0 only counts them. So the child is told the states and
//! derivatives in that order, the event indicators (their number, and for
//! FMI 3.0 their value references), the inputs (knowns of the directional
//! derivatives) and whether the FMU provides directional (and adjoint)
//! derivatives, and holds the binary to all of it. The Euler run
//! covers the default experiment with its step, at most [`MAX_EULER_STEPS`].

use super::description::{Description, Unknown, Variable};
use super::run::{self, Limits};
use super::{Report, SHORT_RUN_STEPS};
use crate::fmi::archive::Archive;
use std::collections::HashMap;
use std::path::Path;

/// Euler steps of the Model Exchange run at most.
pub const MAX_EULER_STEPS: usize = 10_000;

/// A value reference as a number, or why not.
fn value_reference(d: &Description, index: usize) -> Result<u32, String> {
    let v = &d.variables[index - 1];
    let vr = v.value_reference.as_deref().unwrap_or_default();
    vr.parse()
        .map_err(|_| format!("{}: valueReference=\"{vr}\"", v.label()))
}

/// What a description lists for Model Exchange, by value reference, in the
/// order of the states and indicators vectors.
#[derive(Debug, Default)]
struct Listed {
    states: Vec<u32>,
    derivatives: Vec<u32>,
    /// FMI 3.0's named event indicators (FMI 2.0 only counts them).
    indicators: Vec<u32>,
}

/// FMI 2.0's states and derivatives: each `Derivatives` entry is the index
/// of a variable whose `derivative` attribute is its state's index.
fn states2(d: &Description) -> Result<Listed, String> {
    let n = d.variables.len();
    let (mut states, mut derivatives) = (vec![], vec![]);
    for u in d.derivatives.iter().flatten() {
        let index = u.index.as_deref().and_then(|i| i.parse::<usize>().ok());
        let index = index
            .filter(|i| (1..=n).contains(i))
            .ok_or("a Derivatives entry is not a variable")?;
        let der = &d.variables[index - 1];
        let state = der.type_attributes.get("derivative");
        let state = state.and_then(|s| s.parse::<usize>().ok());
        let state = state
            .filter(|i| (1..=n).contains(i))
            .ok_or_else(|| format!("{} names no state", der.label()))?;
        derivatives.push(value_reference(d, index)?);
        states.push(value_reference(d, state)?);
    }
    Ok(Listed {
        states,
        derivatives,
        indicators: vec![],
    })
}

/// The variables by value reference (FMI 3.0 names them so).
fn by_value_reference(d: &Description) -> HashMap<u32, &Variable> {
    let vr = |v: &Variable| v.value_reference.as_deref()?.parse::<u32>().ok();
    d.variables
        .iter()
        .filter_map(|v| Some((vr(v)?, v)))
        .collect()
}

/// The value reference of an FMI 3.0 `ModelStructure` entry, which must be a variable's.
fn entry(vars: &HashMap<u32, &Variable>, u: &Unknown, what: &str) -> Result<u32, String> {
    let text = u.value_reference.as_deref().unwrap_or_default();
    text.parse::<u32>()
        .ok()
        .filter(|vr| vars.contains_key(vr))
        .ok_or_else(|| format!("{what} valueReference=\"{text}\" is not a variable"))
}

/// FMI 3.0's states and derivatives: each `ContinuousStateDerivative` entry is
/// the value reference of a variable whose `derivative` attribute is its
/// state's value reference; and the named event indicators, in order.
fn states3(d: &Description) -> Result<Listed, String> {
    let vars = by_value_reference(d);
    let (mut states, mut derivatives) = (vec![], vec![]);
    for u in d.derivatives.iter().flatten() {
        let vr = entry(&vars, u, "a ContinuousStateDerivative")?;
        let der = vars[&vr];
        let state = der.type_attributes.get("derivative");
        let state = state.and_then(|s| s.parse::<u32>().ok());
        let state = state
            .filter(|s| vars.contains_key(s))
            .ok_or_else(|| format!("{} names no state", der.label()))?;
        derivatives.push(vr);
        states.push(state);
    }
    let indicators = d.event_indicators.iter().flatten();
    let indicators = indicators.map(|u| entry(&vars, u, "an EventIndicator"));
    Ok(Listed {
        states,
        derivatives,
        indicators: indicators.collect::<Result<_, _>>()?,
    })
}

/// The child's arguments for what the description declares; an error says
/// why it declares no usable states (the description's rules fail then too).
pub fn declared(d: &Description) -> Result<Vec<String>, String> {
    let fmi3 = d.root.get("fmiVersion").is_some_and(|v| v == "3.0");
    let listed = match fmi3 {
        true => states3(d)?,
        false => states2(d)?,
    };
    let (states, derivatives, named) = (listed.states, listed.derivatives, listed.indicators);
    let mut seen = std::collections::HashSet::new();
    if let Some(twice) = states.iter().find(|s| !seen.insert(**s)) {
        return Err(format!(
            "two derivatives of the state of value reference {twice}"
        ));
    }
    let indicators = match (fmi3, d.root.get("numberOfEventIndicators")) {
        (true, _) => named.len(),
        (false, None) => 0,
        (false, Some(text)) => text
            .parse::<usize>()
            .map_err(|_| format!("numberOfEventIndicators=\"{text}\""))?,
    };
    let float = if fmi3 { "Float64" } else { "Real" };
    let inputs: Vec<u32> = (1..=d.variables.len())
        .filter(|&i| {
            let v = &d.variables[i - 1];
            v.causality() == "input" && v.kind == float && v.variability() == "continuous"
        })
        .filter_map(|i| value_reference(d, i).ok())
        .collect();
    let list = |vrs: &[u32]| vrs.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
    let mut args = vec![
        "--model-exchange".to_string(),
        format!("--event-indicators={indicators}"),
    ];
    for (flag, vrs) in [
        ("states", &states),
        ("derivatives", &derivatives),
        ("inputs", &inputs),
        ("indicators", &named),
    ] {
        if !vrs.is_empty() {
            args.push(format!("--{flag}={}", list(vrs)));
        }
    }
    let me = d.model_exchange.as_ref();
    let provides = |name: &str| me.and_then(|m| m.get(name)).is_some_and(|v| v == "true");
    // FMI 3.0 writes the plural.
    if provides("providesDirectionalDerivative") || provides("providesDirectionalDerivatives") {
        args.push("--directional".into());
    }
    if fmi3 && provides("providesAdjointDerivatives") {
        args.push("--adjoint".into());
    }
    Ok(args)
}

/// Euler steps of the default step over the default experiment, at most
/// [`MAX_EULER_STEPS`] (1,000 without a stop time).
pub fn euler_steps(d: &Description) -> usize {
    let (start, h) = (
        run::experiment(d, "startTime").unwrap_or(0.0),
        run::default_step(d),
    );
    let steps = match run::experiment(d, "stopTime").filter(|&s| s > start) {
        // A stop time a rounding error past a whole number of steps adds none.
        Some(stop) => ((stop - start) / h * (1.0 - 1e-12)).ceil(),
        None => 1000.0,
    };
    (steps as usize).clamp(1, MAX_EULER_STEPS)
}

/// Runs the binary `so` through Model Exchange in a child process; `Ok`
/// holds the child's summary.
pub fn exchange(
    archive: &mut Archive,
    d: &Description,
    so: &str,
    runner: &Path,
    limits: Limits,
) -> Result<String, String> {
    let mut args = declared(d)?;
    args.push(format!("--step={}", run::default_step(d)));
    args.push(format!("--steps={}", euler_steps(d)));
    run::run_child(archive, d, so, runner, &args, limits)
}

/// The binary loaded and run by `runner __run-binary`, in a child process:
/// once per interface type the description declares.
pub(super) fn binary_runs(
    r: &mut Report,
    archive: &mut Archive,
    d: &Description,
    so: Option<&str>,
    runner: Option<&Path>,
    limits: Limits,
) {
    let cs = format!("binary loaded and run for {SHORT_RUN_STEPS} steps in a child process");
    let me = "binary run through Model Exchange in a child process";
    let mut names = vec![];
    if d.co_simulation.is_some() || d.model_exchange.is_none() {
        names.push(cs.as_str());
    }
    if d.model_exchange.is_some() {
        names.push(me);
    }
    for name in names {
        let Some(so) = so else {
            r.skip(name, "no binary for linux64");
            continue;
        };
        let Some(runner) = runner else {
            r.skip(name, "no runner given (the lcsfmu executable)");
            continue;
        };
        if name == cs && d.co_simulation.is_none() {
            r.skip(name, "no CoSimulation or ModelExchange element");
            continue;
        }
        let ran = if name == cs {
            run::binary(archive, d, so, runner, SHORT_RUN_STEPS, limits)
        } else {
            match declared(d) {
                Err(why) => {
                    // The Derivatives rule fails on this too: one FAIL line.
                    r.skip(
                        name,
                        format!("the description declares no usable states: {why}"),
                    );
                    continue;
                }
                Ok(_) => exchange(archive, d, so, runner, limits),
            }
        };
        match ran {
            Ok(summary) => r.add(format!("{name}: {summary}"), Ok(())),
            Err(why) => r.add(name, Err(why)),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::conformance::description::parse;

    /// A Model Exchange description: states at value references 1 and 2, their
    /// derivatives at 4 and 3 (listed in that order), an input at 5.
    fn xml(second_state: &str, stop: &str) -> String {
        format!(
            r#"<fmiModelDescription fmiVersion="2.0" guid="g" numberOfEventIndicators="4">
  <ModelExchange modelIdentifier="m" providesDirectionalDerivative="true"/>
  <DefaultExperiment startTime="0" stopTime="{stop}" stepSize="0.25"/>
  <ModelVariables>
    <ScalarVariable name="time" valueReference="0" causality="independent"><Real/></ScalarVariable>
    <ScalarVariable name="x" valueReference="1"><Real start="1"/></ScalarVariable>
    <ScalarVariable name="y" valueReference="2"><Real start="1"/></ScalarVariable>
    <ScalarVariable name="der(y)" valueReference="3"><Real derivative="{second_state}"/></ScalarVariable>
    <ScalarVariable name="der(x)" valueReference="4"><Real derivative="2"/></ScalarVariable>
    <ScalarVariable name="w" valueReference="5" causality="input"><Real start="0"/></ScalarVariable>
  </ModelVariables>
  <ModelStructure><Derivatives><Unknown index="5"/><Unknown index="4"/></Derivatives></ModelStructure>
</fmiModelDescription>"#
        )
    }

    #[test]
    fn states_follow_the_order_of_the_derivatives() {
        let d = parse(&xml("3", "1")).unwrap();
        let args = declared(&d).unwrap();
        let expected = [
            "--model-exchange",
            "--event-indicators=4",
            "--states=1,2",
            "--derivatives=4,3",
            "--inputs=5",
            "--directional",
        ];
        assert_eq!(args, expected);
        // 1 / 0.25 steps exactly, not one more for rounding.
        assert_eq!(euler_steps(&d), 4);
        assert_eq!(
            euler_steps(&parse(&xml("3", "1e9")).unwrap()),
            MAX_EULER_STEPS
        );
    }

    #[test]
    fn two_derivatives_of_one_state_are_named() {
        let d = parse(&xml("2", "1")).unwrap();
        let why = declared(&d).unwrap_err();
        assert_eq!(why, "two derivatives of the state of value reference 1");
        let d = parse(&xml("9", "1")).unwrap();
        assert_eq!(declared(&d).unwrap_err(), "der(y) names no state");
    }

    /// An FMI 3.0 description whose value references are not the variables'
    /// positions: states at 20 and 10, their derivatives at 31 and 30 (listed
    /// in that order), indicators at 41 and 40, an input at 5.
    fn xml3(second_state: &str) -> String {
        format!(
            r#"<fmiModelDescription fmiVersion="3.0" instantiationToken="t">
  <ModelExchange modelIdentifier="m" providesDirectionalDerivatives="true" providesAdjointDerivatives="true"/>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Float64 name="w" valueReference="5" causality="input" start="0"/>
    <Float64 name="x" valueReference="10" start="1"/>
    <Float64 name="y" valueReference="20" start="1"/>
    <Float64 name="der(x)" valueReference="30" derivative="10"/>
    <Float64 name="der(y)" valueReference="31" derivative="{second_state}"/>
    <Float64 name="z0" valueReference="40"/>
    <Float64 name="z1" valueReference="41"/>
  </ModelVariables>
  <ModelStructure>
    <ContinuousStateDerivative valueReference="31"/>
    <ContinuousStateDerivative valueReference="30"/>
    <EventIndicator valueReference="41"/>
    <EventIndicator valueReference="40"/>
  </ModelStructure>
</fmiModelDescription>"#
        )
    }

    #[test]
    fn fmi3_states_and_indicators_are_value_references() {
        let d = parse(&xml3("20")).unwrap();
        let expected = [
            "--model-exchange",
            "--event-indicators=2",
            "--states=20,10",
            "--derivatives=31,30",
            "--inputs=5",
            "--indicators=41,40",
            "--directional",
            "--adjoint",
        ];
        assert_eq!(declared(&d).unwrap(), expected);
        // derivative="4" is the position of y but no value reference.
        assert_eq!(
            declared(&parse(&xml3("4")).unwrap()).unwrap_err(),
            "der(y) names no state"
        );
        let d = parse(&xml3("10")).unwrap();
        let why = declared(&d).unwrap_err();
        assert_eq!(why, "two derivatives of the state of value reference 10");
    }
}
