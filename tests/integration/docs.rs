//! `documentation/index.html`: the page each FMU carries, read back as a program would.
//!
//! The page is written as well-formed XML (see `src/tool/docs/mod.rs`), so quick-xml reads
//! the whole document: an unbalanced or misnamed end tag fails the test. What a reader
//! needs is then checked: the model's name as the title, every variable in the
//! variable table, every pair in the law table, the block laws as written, the
//! matrices, and one coloured line in the inline SVG per plotted series. Every bundled
//! model's page is generated directly; two built FMUs show that the archive holds
//! the same page at the path FMI 2.0 gives documentation.

use super::{fmus, model, model_path};
use lcsfmu::fmi::{description, pack};
use lcsfmu::instance::variables;
use lcsfmu::model::{validate, Model};
use lcsfmu::tool::docs;
use lcsfmu::tool::plot::trajectory;
use quick_xml::events::Event;

/// What the page shows, as parsed.
#[derive(Default)]
struct Page {
    title: String,
    h1: String,
    /// Text of every element, with the element's name and the nearest table class.
    texts: Vec<(String, String, String)>,
    /// Section ids (`<h2 id=...>`).
    sections: Vec<String>,
    svgs: usize,
    /// Points of each coloured `<polyline>` (axes and ticks are black).
    series_points: Vec<usize>,
}

impl Page {
    /// First cells of the rows of the table of class `class`.
    fn first_cells(&self, class: &str) -> Vec<&str> {
        // Each row's first cell is a <code> inside a <td>; the header row has <th>s.
        self.texts
            .iter()
            .filter(|(el, table, _)| el == "code" && table == class)
            .map(|(_, _, t)| t.as_str())
            .collect()
    }
    fn all_text(&self) -> String {
        let texts: Vec<&str> = self.texts.iter().map(|t| t.2.as_str()).collect();
        texts.join("\n")
    }
}

/// Parses the whole page; any XML error or unbalanced element fails the test.
fn parse(html: &str) -> Page {
    let mut r = quick_xml::Reader::from_str(html);
    let mut page = Page::default();
    let mut stack: Vec<(String, Option<String>)> = Vec::new();
    let mut first_cell_seen = false;
    loop {
        let event = r
            .read_event()
            .unwrap_or_else(|e| panic!("not well formed: {e}"));
        match &event {
            Event::Start(e) | Event::Empty(e) => {
                let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                let attr = |a: &str| {
                    e.try_get_attribute(a)
                        .unwrap()
                        .map(|v| v.unescape_value().unwrap().into_owned())
                };
                match name.as_str() {
                    "svg" => page.svgs += 1,
                    "polyline" if attr("stroke").as_deref() != Some("#000000") => page
                        .series_points
                        .push(attr("points").unwrap().split_whitespace().count()),
                    "h2" => page.sections.extend(attr("id")),
                    "tr" => first_cell_seen = false,
                    _ => {}
                }
                if matches!(event, Event::Start(_)) {
                    stack.push((name, attr("class")));
                }
            }
            Event::End(_) => {
                let (name, _) = stack.pop().expect("an end tag without a start");
                if name == "td" {
                    first_cell_seen = true;
                }
            }
            Event::Text(t) => {
                let text = t.unescape().unwrap().trim().to_string();
                let Some((el, _)) = stack.last() else {
                    continue;
                };
                let table = stack
                    .iter()
                    .rev()
                    .find(|(n, _)| n == "table")
                    .and_then(|(_, c)| c.clone())
                    .unwrap_or_default();
                match el.as_str() {
                    "title" => page.title = text.clone(),
                    "h1" => page.h1 = text.clone(),
                    _ => {}
                }
                // Only a row's first cell names the row's variable.
                let el = if el == "code" && first_cell_seen {
                    "code-later"
                } else {
                    el
                };
                page.texts.push((el.to_string(), table, text));
            }
            Event::Eof => break,
            _ => {}
        }
    }
    assert!(stack.is_empty(), "unclosed elements: {stack:?}");
    page
}

/// Checks the page of `model` against the model itself.
fn check_page(model: &Model, html: &str) {
    let page = parse(html);
    let name = &model.name;
    assert_eq!(
        (page.title.as_str(), page.h1.as_str()),
        (name.as_str(), name.as_str())
    );
    assert_eq!(
        page.sections,
        ["written", "lcs", "laws", "scheme", "variables", "plot"],
        "{name}"
    );
    // Self-contained: nothing is fetched, nothing runs.
    for outside in ["src=", "href=", "<script", "<link", "url("] {
        assert!(!html.contains(outside), "{name}: '{outside}' in the page");
    }
    let vars: Vec<String> = variables::variables(model)
        .iter()
        .map(|v| v.name.to_string())
        .collect();
    assert_eq!(
        page.first_cells("variables"),
        vars,
        "{name}: variable table"
    );
    let pairs: Vec<&str> = model.pairs.iter().map(|p| p.name.as_str()).collect();
    if !pairs.is_empty() {
        assert_eq!(page.first_cells("laws"), pairs, "{name}: law table");
    }
    let text = page.all_text();
    for b in &model.blocks {
        for law in &b.laws {
            assert!(
                text.contains(law.as_str()),
                "{name}: block law '{law}' missing"
            );
        }
    }
    for o in &model.outputs {
        assert!(
            text.contains(&format!("{} = {}", o.name, o.definition)),
            "{name}: output {}",
            o.name
        );
    }
    for label in if model.mechanics.is_some() {
        ["M (", "Fq (", "G ("].as_slice()
    } else {
        ["A (", "B (", "C (", "D ("].as_slice()
    } {
        assert!(text.contains(label), "{name}: matrix {label}");
    }
    // One inline SVG with one coloured line per plotted series, each with points.
    let plotted = trajectory::select(model, None).unwrap().names().len();
    assert_eq!(page.svgs, 1, "{name}: inline plots");
    assert_eq!(page.series_points.len(), plotted, "{name}: series lines");
    assert!(
        page.series_points.iter().all(|&n| n >= 2),
        "{name}: empty series"
    );
}

#[test]
fn every_bundled_model_has_a_complete_page() {
    for stem in fmus::every_model() {
        let m = model(&stem);
        let html = docs::page(&m, &description::guid(&m));
        check_page(&m, &html);
    }
}

#[test]
fn pages_show_the_model_as_written() {
    let page = |stem: &str| {
        let m = model(stem);
        parse(&docs::page(&m, "{g}")).all_text()
    };
    // Matrix form: the expressions of [system] and the equations they mean.
    let cf = page("coulomb_friction");
    for want in [
        "1/m",
        "-1/m",
        "mu*m*g",
        "v' = 1/m*F_plus - 1/m*F_minus + 1/m*F_a",
        "9810",
    ] {
        assert!(cf.contains(want), "coulomb_friction: no '{want}'");
    }
    // Signal form: derivatives with block outputs, the block and its settings.
    let relay = page("relay_feedback");
    for want in ["x1' = x2", "x2' = -u", "input = x1 + x2", "sign"] {
        assert!(relay.contains(want), "relay_feedback: no '{want}'");
    }
    // Mechanical: coordinates with their forces and reactions, contacts with friction.
    let carts = page("two_carts");
    assert!(carts.contains("m1*v1' = -(k1 + k2)*x1 + k2*x2"), "{carts}");
    assert!(
        carts.contains("contact u2: gap -x1 + x2 >= 0")
            || carts.contains("contact u2: gap x2 - x1 >= 0"),
        "{carts}"
    );
    let stick = page("stick_slip");
    assert!(
        stick.contains("friction mu = mu, slip v - v_belt"),
        "{stick}"
    );
}

#[test]
fn large_matrices_are_capped() {
    let path = model_path("bead_chain");
    let m = validate::load_with(&path, &[("N".into(), 40)], None).unwrap();
    let html = docs::page(&m, "{g}");
    check_page(&m, &html);
    assert!(html.contains("40 × 40: the first 24 rows and 24 columns are shown."));
}

#[test]
fn the_fmu_carries_its_page() {
    for stem in ["coulomb_friction", "stick_slip"] {
        let fmu = fmus::bundled(stem);
        let open = || std::fs::File::open(&fmu).unwrap();
        let names: Vec<String> = zip::ZipArchive::new(open())
            .unwrap()
            .file_names()
            .map(String::from)
            .collect();
        assert!(
            names.iter().any(|n| n == "documentation/index.html"),
            "{names:?}"
        );
        let html = pack::read_entry(open(), pack::DOCUMENTATION_ENTRY).unwrap();
        let m = model(stem);
        assert_eq!(html, docs::page(&m, &description::guid(&m)));
        check_page(&m, &html);
    }
}
