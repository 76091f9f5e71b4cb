//! The model as its author wrote it, recovered from the validated [`Model`].
//!
//! The model file itself is not kept (a template's text still has its `{...}`
//! placeholders), so the page rebuilds each form from what [`Model`] holds: the
//! matrix form's `[system]` entries as expression tables and the equations they
//! mean; the signal form's derivatives and its blocks with their laws; the
//! mechanical form's coordinates (mass row and forces, contact reactions through
//! `Gᵀ λ`) and contacts (gap, restitution, friction and slip). Outputs keep the
//! definition text they were written with.

use super::equations::{self, expr_table, linear, row_terms};
use super::{equation_lines, esc, normals, Names};
use crate::model::Model;
use std::fmt::Write;

pub(super) fn first_order_written(h: &mut String, model: &Model, n: &Names) {
    let s = &model.system;
    let one = [""];
    let rhs = [
        (&s.a, n.states.as_slice()),
        (&s.b, n.pairs.as_slice()),
        (&s.e, n.inputs.as_slice()),
        (&s.f, one.as_slice()),
    ];
    let derivatives: Vec<String> = (0..model.nx())
        .map(|i| {
            format!(
                "{}' = {}",
                n.states[i],
                linear(&row_terms(&rhs, i), &n.params)
            )
        })
        .collect();
    if model.blocks.is_empty() {
        h.push_str(
            "<p>A first-order linear complementarity system, written as matrices \
                    (<code>[system]</code>); entries are parameter expressions, blanks are zero. \
                    Rows are states (A, B, E, f) or pairs (C, D, F, g).</p>\n",
        );
        let ys = n.ys();
        for (label, m, rows, cols) in [
            ("A", &s.a, &n.states, &n.states),
            ("B", &s.b, &n.states, &n.pairs),
            ("E", &s.e, &n.states, &n.inputs),
            ("C", &s.c, &ys, &n.states),
            ("D", &s.d, &ys, &n.pairs),
            ("F", &s.fw, &ys, &n.inputs),
        ] {
            if !m.entries.is_empty() {
                writeln!(h, "<div class=\"mbox\"><h3>{label}</h3>").unwrap();
                h.push_str(&expr_table(m, rows, cols, &n.params));
                h.push_str("</div>\n");
            }
        }
        for (label, m, rows) in [("f", &s.f, &n.states), ("g", &s.g, &ys)] {
            if !m.entries.is_empty() {
                writeln!(h, "<div class=\"mbox\"><h3>{label}</h3>").unwrap();
                h.push_str(&expr_table(m, rows, &[label], &n.params));
                h.push_str("</div>\n");
            }
        }
        h.push_str("<p>That is:</p>\n");
        equation_lines(h, &derivatives);
    } else {
        h.push_str(
            "<p>Signals and blocks: the derivatives (block outputs appear as \
                    complementarity variables), and each block with the laws it became.</p>\n",
        );
        equation_lines(h, &derivatives);
        h.push_str(
            "<table class=\"blocks\"><tr><th>block</th><th>type</th>\
                    <th>settings</th><th>laws</th></tr>\n",
        );
        for b in &model.blocks {
            let settings = b.settings_text();
            write!(
                h,
                "<tr><td><code>{}</code></td><td>{}</td><td><code>{}</code></td><td class=\"law\">",
                esc(&b.name),
                esc(&b.kind),
                esc(&settings)
            )
            .unwrap();
            let laws: Vec<String> = b.laws.iter().map(|l| esc(l)).collect();
            h.push_str(&laws.join("<br/>"));
            h.push_str("</td></tr>\n");
        }
        h.push_str("</table>\n");
    }
    outputs_written(h, model);
}

fn outputs_written(h: &mut String, model: &Model) {
    let lines: Vec<String> = model
        .outputs
        .iter()
        .map(|o| format!("{} = {}", o.name, o.definition))
        .collect();
    if !lines.is_empty() {
        h.push_str("<p>Outputs:</p>\n");
        equation_lines(h, &lines);
    }
}

pub(super) fn mechanical_written(h: &mut String, model: &Model, n: &Names) {
    let m = model.mechanics.as_ref().expect("a mechanical model");
    let (q, v) = (&n.states[..m.dof], &n.states[m.dof..]);
    let one = [""];
    let accelerations: Vec<String> = v.iter().map(|s| format!("{s}'")).collect();
    let accelerations: Vec<&str> = accelerations.iter().map(String::as_str).collect();
    let normals = normals(model, n);
    h.push_str(
        "<p>A mechanical system <code>M v' = Fq q + Fv v + F w + f + Gᵀ λ + Tᵀ λ_t</code>, \
                <code>q' = v</code>: one line per coordinate (friction forces <code>Tᵀ λ_t</code> \
                not written out), one per contact (its gap must stay nonnegative, \
                complementary to its reaction).</p>\n",
    );
    let lines: Vec<String> = (0..m.dof)
        .map(|i| {
            let mass = linear(&row_terms(&[(&m.mass, &accelerations)], i), &n.params);
            let mut force = row_terms(
                &[
                    (&m.position_force, q),
                    (&m.velocity_force, v),
                    (&m.input_force, n.inputs.as_slice()),
                    (&m.force, one.as_slice()),
                ],
                i,
            );
            // Gᵀ λ: column i of G, one reaction per contact touching this coordinate.
            force.extend(
                m.gap
                    .entries
                    .iter()
                    .filter(|(_, j, _)| *j == i)
                    .map(|(k, _, e)| (e, normals[*k])),
            );
            format!(
                "{}' = {};  {mass} = {}",
                q[i],
                v[i],
                linear(&force, &n.params)
            )
        })
        .collect();
    equation_lines(h, &lines);
    let lines: Vec<String> = m
        .contacts
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let gap = linear(
                &row_terms(&[(&m.gap, q), (&m.gap0, one.as_slice())], k),
                &n.params,
            );
            let mut line = format!("contact {}: gap {gap} >= 0", n.pairs[c.pair]);
            if !c.restitution.is_zero() {
                write!(
                    line,
                    ", restitution {}",
                    equations::expr_text(&c.restitution, &n.params)
                )
                .unwrap();
            }
            if let Some(f) = &c.friction {
                let mut slip: Vec<(&_, &str)> = f.slip.iter().map(|(j, e)| (e, v[*j])).collect();
                slip.extend(f.slip_inputs.iter().map(|(j, e)| (e, n.inputs[*j])));
                slip.push((&f.slip0, ""));
                write!(
                    line,
                    ", friction mu = {}, slip {}",
                    equations::expr_text(&f.mu, &n.params),
                    linear(&slip, &n.params)
                )
                .unwrap();
            }
            line
        })
        .collect();
    equation_lines(h, &lines);
    outputs_written(h, model);
}
