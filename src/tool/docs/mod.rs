//! `documentation/index.html`: the page every FMU carries about its model.
//!
//! FMI 2.0 (§2.3, the FMU archive) names `documentation/index.html` as the entry
//! point of an FMU's documentation; there is no XML attribute for it, its place in
//! the archive is the link. The page is one self-contained HTML5 file (inline CSS,
//! the plot as inline SVG, no script, nothing fetched), written so that it is also
//! well-formed XML: every element closed, every text escaped. That lets tools and
//! tests read it with an XML parser, and any browser shows it offline.
//!
//! Sections: the description; the model as written (the signal form's derivatives
//! and blocks with their laws, the matrix form's `[system]` entries, the mechanical
//! form's coordinates and contacts), the matrices evaluated at the default
//! parameters, the complementarity laws with their bounds, the scheme, the variable
//! table, and the default experiment's plot, run by the same core as the FMU
//! ([`crate::tool::simulate::run`], inputs held at their start values).

pub(crate) mod equations;
mod scheme;
mod written;

use crate::fmi::version::FmiVersion;
use crate::instance::variables;
use crate::model::Model;
use crate::tool::plot::{self, trajectory};
use crate::tool::simulate::{self, Options};
use equations::{number, value_table};
use std::fmt::Write;

/// Models with more states than this get no plot: their default experiment would
/// make every build slow (the 1,000-bead chain, 2,000 states, takes about a second).
pub const MAX_PLOTTED_STATES: usize = 5000;

/// Escapes text for HTML and XML (element content and quoted attributes).
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// No `<` or `&` in the style sheet: the page must stay well-formed XML.
const STYLE: &str = "
body { font-family: sans-serif; margin: 2em auto; max-width: 70em; padding: 0 1em; color: #222; }
h1 { border-bottom: 2px solid #1f77b4; padding-bottom: .2em; }
h2 { margin-top: 1.6em; color: #1f4f7f; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #ccc; padding: .2em .5em; text-align: left; vertical-align: top; }
th { background: #eef3f8; }
table.matrix td { text-align: right; font-family: monospace; }
pre, code { font-family: monospace; background: #f6f6f6; }
pre { padding: .5em; overflow-x: auto; }
.note { color: #666; font-style: italic; }
.plot svg { max-width: 100%; height: auto; }
.mbox { display: inline-block; vertical-align: top; margin-right: 2em; }
";

/// The page for `model`, whose FMU has the GUID `guid`.
pub fn page(model: &Model, guid: &str) -> String {
    page_for(model, guid, FmiVersion::V2)
}

/// [`page`] of the FMU of FMI version `version` (which the page names).
pub fn page_for(model: &Model, guid: &str, version: FmiVersion) -> String {
    let token = match version {
        FmiVersion::V2 => "GUID",
        FmiVersion::V3 => "instantiation token",
    };
    let mut h = String::new();
    let name = esc(&model.name);
    write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n\
         <title>{name}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{name}</h1>\n"
    )
    .unwrap();
    let description = if model.description.is_empty() {
        "(no description)"
    } else {
        &model.description
    };
    writeln!(h, "<p id=\"description\">{}</p>", esc(description)).unwrap();
    writeln!(
        h,
        "<p>{} states, {} complementarity variables, {} inputs, {} parameters, {} outputs. \
         {version} Co-Simulation, {token} <code>{}</code>, built by lcsfmu {}.</p>",
        model.nx(),
        model.nu(),
        model.nw(),
        model.np(),
        model.outputs.len(),
        esc(guid),
        env!("CARGO_PKG_VERSION")
    )
    .unwrap();
    let names = Names::of(model);
    section(&mut h, "written", "The model as written");
    if model.mechanics.is_some() {
        written::mechanical_written(&mut h, model, &names);
    } else {
        written::first_order_written(&mut h, model, &names);
    }
    section(&mut h, "lcs", "The LCS at the default parameters");
    matrices(&mut h, model, &names);
    section(&mut h, "laws", "Complementarity laws");
    laws(&mut h, model, &names);
    section(&mut h, "scheme", "Scheme");
    scheme::scheme(&mut h, model);
    section(&mut h, "variables", "Variables");
    variable_table(&mut h, model);
    section(&mut h, "plot", "Default experiment");
    plot_section(&mut h, model, guid);
    h.push_str("</body>\n</html>\n");
    h
}

fn section(h: &mut String, id: &str, title: &str) {
    writeln!(h, "<h2 id=\"{id}\">{}</h2>", esc(title)).unwrap();
}

/// Variable names by group, as the matrices' rows and columns refer to them.
struct Names<'m> {
    params: Vec<&'m str>,
    states: Vec<&'m str>,
    pairs: Vec<&'m str>,
    inputs: Vec<&'m str>,
    /// `y1 ... yn`: the complementary expressions have no names of their own.
    ys: Vec<String>,
}

impl<'m> Names<'m> {
    fn of(model: &'m Model) -> Self {
        Names {
            params: model.parameters.iter().map(|p| p.name.as_str()).collect(),
            states: model.states.iter().map(|v| v.name.as_str()).collect(),
            pairs: model.pairs.iter().map(|p| p.name.as_str()).collect(),
            inputs: model.inputs.iter().map(|v| v.name.as_str()).collect(),
            ys: (1..=model.nu()).map(|i| format!("y{i}")).collect(),
        }
    }
    fn ys(&self) -> Vec<&str> {
        self.ys.iter().map(String::as_str).collect()
    }
}

/// Lines of equations in a `<pre>` block.
fn equation_lines(h: &mut String, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    h.push_str("<pre class=\"equations\">");
    for line in lines {
        writeln!(h, "{}", esc(line)).unwrap();
    }
    h.push_str("</pre>\n");
}

/// The normal reactions' names, one per contact (the rows of `G`).
fn normals<'m>(model: &Model, n: &Names<'m>) -> Vec<&'m str> {
    let contacts = model.mechanics.iter().flat_map(|m| &m.contacts);
    contacts.map(|c| n.pairs[c.pair]).collect()
}

fn matrices(h: &mut String, model: &Model, n: &Names) {
    let p = model.default_parameters();
    let ys = n.ys();
    let one = ["1"];
    let normals = normals(model, n);
    let normals = normals.as_slice();
    let list: Vec<(&str, &crate::model::ExprMatrix, &[&str], &[&str])> = match &model.mechanics {
        None => {
            let s = &model.system;
            h.push_str(
                "<p><code>x' = A x + B u + E w + f</code>, <code>y = C x + D u + F w + g</code>, \
                        evaluated at the default parameters.</p>\n",
            );
            vec![
                ("A", &s.a, &n.states, &n.states),
                ("B", &s.b, &n.states, &n.pairs),
                ("E", &s.e, &n.states, &n.inputs),
                ("f", &s.f, &n.states, &one),
                ("C", &s.c, &ys, &n.states),
                ("D", &s.d, &ys, &n.pairs),
                ("F", &s.fw, &ys, &n.inputs),
                ("g", &s.g, &ys, &one),
            ]
        }
        Some(m) => {
            let (q, v) = (&n.states[..m.dof], &n.states[m.dof..]);
            h.push_str(
                "<p><code>M v' = Fq q + Fv v + F w + f + Gᵀ λ</code>, gaps \
                        <code>G q + g0</code>, evaluated at the default parameters.</p>\n",
            );
            vec![
                ("M", &m.mass, v, v),
                ("Fq", &m.position_force, v, q),
                ("Fv", &m.velocity_force, v, v),
                ("F", &m.input_force, v, &n.inputs),
                ("f", &m.force, v, &one),
                ("G", &m.gap, normals, q),
                ("g0", &m.gap0, normals, &one),
            ]
        }
    };
    for (label, m, rows, cols) in list {
        writeln!(
            h,
            "<div class=\"mbox\"><h3>{label} ({} × {})</h3>",
            m.rows, m.cols
        )
        .unwrap();
        h.push_str(&value_table(m, rows, cols, &p));
        h.push_str("</div>\n");
    }
    nonlinear_parts(h, model, n);
}

/// The nonlinear remainders added to the rows above, as compiled.
fn nonlinear_parts(h: &mut String, model: &Model, n: &Names) {
    let mut lines = Vec::new();
    if let Some(m) = &model.mechanics {
        if let Some(nl) = &m.nonlinear {
            // Mechanical programs read coordinates, velocities, inputs.
            let vars: Vec<&str> = n.states.iter().chain(&n.inputs).copied().collect();
            let text = |e| equations::program_text(e, &n.params, &vars);
            let contact = |k: usize| n.pairs[m.contacts[k].pair];
            for (i, e) in &nl.force {
                lines.push(format!("force on {} += {}", n.states[*i], text(e)));
            }
            for (k, e) in &nl.gap {
                lines.push(format!("gap of {} += {}", contact(*k), text(e)));
            }
            for (k, e) in &nl.slip {
                lines.push(format!("slip of {} += {}", contact(*k), text(e)));
            }
        }
    }
    let vars: Vec<&str> = (n.states.iter().chain(&n.pairs).chain(&n.inputs))
        .copied()
        .collect();
    let text = |e| equations::program_text(e, &n.params, &vars);
    let empty = crate::model::program::Nonlinear::default();
    let nl = model.nonlinear.as_ref().unwrap_or(&empty);
    for (i, e) in &nl.der {
        lines.push(format!("{}' += {}", n.states[*i], text(e)));
    }
    for (j, e) in &nl.y {
        lines.push(format!("{} += {}", n.ys[*j], text(e)));
    }
    for (k, e) in &nl.outputs {
        lines.push(format!("{} += {}", model.outputs[*k].name, text(e)));
    }
    if lines.is_empty() {
        return;
    }
    h.push_str(
        "<h3>Nonlinear parts</h3>\n<p>Added to the linear rows above; the step differentiates \
         them by forward-mode automatic differentiation.</p>\n",
    );
    equation_lines(h, &lines);
}

/// A bound as its value at the default parameters, with the expression when it has one.
fn bound(e: &crate::model::expr::Expr, n: &Names, p: &[f64]) -> String {
    let value = number(e.eval(p));
    match e.as_constant() {
        Some(_) => value,
        None => format!("{} = {value}", equations::expr_text(e, &n.params)),
    }
}

fn laws(h: &mut String, model: &Model, n: &Names) {
    h.push_str(
        "<p>Each pair <code>lo &lt;= u &lt;= hi ⟂ y</code>: <code>u = lo</code> ⇒ \
                <code>y &gt;= 0</code>, <code>u = hi</code> ⇒ <code>y &lt;= 0</code>, \
                <code>lo &lt; u &lt; hi</code> ⇒ <code>y = 0</code>.",
    );
    if model.mechanics.is_some() {
        h.push_str(
            " Here <code>y</code> is a contact's gap (its normal velocity under \
                    Moreau–Jean) or a friction pair's slip relation.",
        );
    }
    h.push_str("</p>\n");
    if model.pairs.is_empty() {
        h.push_str("<p class=\"note\">No complementarity pairs.</p>\n");
        return;
    }
    h.push_str(
        "<table class=\"laws\"><tr><th>variable</th><th>lo</th><th>hi</th>\
                <th>law</th><th>description</th></tr>\n",
    );
    let p = model.default_parameters();
    for (i, pair) in model.pairs.iter().enumerate() {
        let (lo, hi) = (pair.lo.eval(&p), pair.hi.eval(&p));
        let (u, y) = (n.pairs[i], &n.ys[i]);
        let law = match (lo, hi) {
            (f64::NEG_INFINITY, f64::INFINITY) => format!("{y} = 0 ({u} free)"),
            (lo, f64::INFINITY) => format!("{} <= {u} ⟂ {y} >= 0", number(lo)),
            (f64::NEG_INFINITY, hi) => format!("{u} <= {} ⟂ {y} <= 0", number(hi)),
            (lo, hi) => format!("{} <= {u} <= {} ⟂ {y}", number(lo), number(hi)),
        };
        writeln!(
            h,
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td class=\"law\">{}</td><td>{}</td></tr>",
            esc(u),
            esc(&bound(&pair.lo, n, &p)),
            esc(&bound(&pair.hi, n, &p)),
            esc(&law),
            esc(&pair.description)
        )
        .unwrap();
    }
    h.push_str("</table>\n");
}

fn variable_table(h: &mut String, model: &Model) {
    h.push_str(
        "<table class=\"variables\"><tr><th>name</th><th>causality</th>\
                <th>variability</th><th>initial</th><th>start</th><th>unit</th>\
                <th>description</th></tr>\n",
    );
    for v in variables::variables(model) {
        let (causality, variability, initial) = v.attributes();
        writeln!(
            h,
            "<tr><td><code>{}</code></td><td>{causality}</td><td>{variability}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(v.name),
            initial.unwrap_or(""),
            v.start.map_or(String::new(), number),
            esc(v.unit),
            esc(v.description)
        )
        .unwrap();
    }
    h.push_str("</table>\n");
}

fn plot_section(h: &mut String, model: &Model, guid: &str) {
    let e = model.experiment;
    writeln!(
        h,
        "<p>From {} to {} with communication step {}, parameters and start values at their \
         defaults, inputs held at their start values.</p>",
        number(e.start),
        number(e.stop),
        number(e.step)
    )
    .unwrap();
    match plot_svg(model, guid) {
        Ok(svg) => writeln!(h, "<div class=\"plot\">{svg}</div>").unwrap(),
        Err(why) => writeln!(h, "<p class=\"note\">No plot: {}</p>", esc(&why)).unwrap(),
    }
}

/// The default experiment's figure as an `<svg>` element.
fn plot_svg(model: &Model, guid: &str) -> Result<String, String> {
    if model.nx() > MAX_PLOTTED_STATES {
        return Err(format!(
            "{} states; the default experiment is not run at build time above {MAX_PLOTTED_STATES}",
            model.nx()
        ));
    }
    let selection = trajectory::select(model, None)?;
    let traj =
        simulate::run(model.clone(), guid, &Options::default()).map_err(|e| e.to_string())?;
    let svg = plot::render_svg(&trajectory::figure(&model.name, &selection, &traj))?;
    // Inline SVG in HTML takes the element alone (no XML declaration).
    let start = svg.find("<svg").ok_or("the plot has no <svg> element")?;
    Ok(svg[start..].to_string())
}
