//! modelDescription.xml: a golden file for one model, and for every bundled
//! model the rules of `fmi2-notes.md` §3 that FMPy does not check itself.
//! Regenerate the golden file with `UPDATE_GOLDEN=1 cargo test golden`.

use super::model;
use lcsfmu::fmi::description::guid;
use lcsfmu::fmi::version::{FmiVersion, Interfaces};
use lcsfmu::model::validate;
use quick_xml::events::Event;
use std::collections::HashMap;
use std::path::Path;

#[test]
fn golden_coulomb_friction() {
    let m = model("coulomb_friction");
    let xml = write(&m);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden/coulomb_friction.xml");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &xml).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap();
    assert_eq!(xml, want, "run with UPDATE_GOLDEN=1 to accept the new text");
}

/// Elements as (name, attributes) in document order.
fn elements(xml: &str) -> Vec<(String, HashMap<String, String>)> {
    let mut r = quick_xml::Reader::from_str(xml);
    let mut out = Vec::new();
    loop {
        match r.read_event().unwrap() {
            Event::Start(e) | Event::Empty(e) => {
                let attrs = e
                    .attributes()
                    .map(|a| {
                        let a = a.unwrap();
                        (
                            String::from_utf8(a.key.as_ref().to_vec()).unwrap(),
                            a.unescape_value().unwrap().into_owned(),
                        )
                    })
                    .collect();
                out.push((
                    String::from_utf8(e.name().as_ref().to_vec()).unwrap(),
                    attrs,
                ));
            }
            Event::Eof => break,
            _ => {}
        }
    }
    out
}

fn check_rules(xml: &str) {
    let els = elements(xml);
    let root = &els[0].1;
    assert_eq!(root["fmiVersion"], "2.0");
    assert!(!root.contains_key("generationDateAndTime"));
    let order = [
        "CoSimulation",
        "UnitDefinitions",
        "LogCategories",
        "DefaultExperiment",
        "ModelVariables",
        "ModelStructure",
    ];
    let seen: Vec<usize> = els
        .iter()
        .filter_map(|(n, _)| order.iter().position(|o| o == n))
        .collect();
    assert!(
        seen.windows(2).all(|w| w[0] <= w[1]),
        "children out of XSD order"
    );
    let vars: Vec<&HashMap<String, String>> = els
        .iter()
        .filter(|(n, _)| n == "ScalarVariable")
        .map(|(_, a)| a)
        .collect();
    let reals: Vec<&HashMap<String, String>> = els
        .iter()
        .filter(|(n, _)| n == "Real")
        .map(|(_, a)| a)
        .collect();
    let mut outputs = vec![];
    let mut calculated = vec![];
    // The time (reference 0) is not declared: FMI Library would ask it for a
    // start value the standard forbids. So a 1-based index is a value reference.
    assert!(vars.iter().all(|v| v["name"] != "time"));
    for (k, (v, real)) in vars.iter().zip(&reals).enumerate() {
        assert_eq!(v["valueReference"], (k + 1).to_string());
        let (c, initial) = (
            v["causality"].as_str(),
            v.get("initial").map(String::as_str),
        );
        match c {
            "input" => assert!(initial.is_none() && real.contains_key("start"), "{v:?}"),
            "parameter" => assert!(initial == Some("exact") && real.contains_key("start")),
            "output" => outputs.push(k + 1),
            _ => panic!("unexpected causality {c}"),
        }
        if initial == Some("calculated") {
            assert!(!real.contains_key("start"), "start on calculated {v:?}");
            calculated.push(k + 1);
        }
        if initial == Some("exact") {
            assert!(real.contains_key("start"));
        }
    }
    let section = |name: &str| -> Vec<usize> {
        let start = els.iter().position(|(n, _)| n == name);
        let Some(start) = start else { return vec![] };
        els[start + 1..]
            .iter()
            .take_while(|(n, _)| n == "Unknown")
            .map(|(_, a)| a["index"].parse().unwrap())
            .collect()
    };
    assert_eq!(section("Outputs"), outputs);
    assert_eq!(section("InitialUnknowns"), calculated);
    assert!(!xml.contains("<Outputs/>") && !xml.contains("<InitialUnknowns/>"));
}

#[test]
fn every_bundled_model_follows_the_rules() {
    for stem in [
        "sign_spiral",
        "coulomb_friction",
        "rlc_diode",
        "saturated_integrator",
    ] {
        let m = model(stem);
        check_rules(&write(&m));
    }
}

#[test]
fn a_model_without_calculated_outputs_omits_initial_unknowns() {
    let m = validate::from_str(
        "[model]\nname = \"decay\"\n[[states]]\nname = \"x\"\nstart = 1.0\n[system]\nA = [[-1]]\n",
        Path::new("decay.toml"),
    )
    .unwrap();
    let xml = write(&m);
    check_rules(&xml);
    assert!(!xml.contains("InitialUnknowns"));
}

#[test]
fn named_outputs_depend_exactly_on_the_inputs_they_read() {
    let text = std::fs::read_to_string(super::model_path("coulomb_friction")).unwrap();
    let text = text.replace(
        "value = \"F_plus - F_minus\"",
        "value = \"F_plus - F_minus + F_a\"",
    );
    let m = validate::from_str(&text, Path::new("f.toml")).unwrap();
    let xml = write(&m);
    // F_a is variable 4 (1-based, its value reference); F_f is 10.
    assert!(
        xml.contains("<Unknown index=\"10\" dependencies=\"4\"/>"),
        "{xml}"
    );
    assert!(xml.contains("<Unknown index=\"5\" dependencies=\"\"/>"));
}

#[test]
fn guid_follows_the_content() {
    let a = model("coulomb_friction");
    let mut b = a.clone();
    b.parameters[0].value = 101.0;
    assert_eq!(guid(&a), guid(&a.clone()));
    assert_ne!(guid(&a), guid(&b));
    assert!(guid(&a).starts_with('{') && guid(&a).len() == 38);
}

/// The FMI 2.0 Co-Simulation description of `m`.
fn write(m: &lcsfmu::model::Model) -> String {
    lcsfmu::fmi::description::write(m, &guid(m), FmiVersion::V2, Interfaces::CO_SIMULATION)
}
