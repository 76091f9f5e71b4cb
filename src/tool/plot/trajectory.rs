//! A simulated trajectory as a [`Figure`]: one panel per kind of recorded variable.
//!
//! `simulate` records states, complementarity variables and named outputs; each kind
//! present gets a panel, in that order. The selection is resolved against the model
//! before anything runs, so a misspelt `--plot-vars` name costs no simulation and
//! writes no file. A panel draws at most [`MAX_PER_PANEL`] series, one per palette
//! colour, so that every curve can be told apart and the legend fits beside the
//! panel: without a selection the first ones in model order are drawn and the
//! panel's title says how many were left out; a selection naming more of one kind
//! is refused.

use super::{Figure, Panel, Series, PALETTE};
use crate::instance::variables::{self, Kind};
use crate::model::Model;
use crate::tool::simulate::Trajectory;

/// Most series in one panel.
pub const MAX_PER_PANEL: usize = PALETTE.len();

/// Which recorded variables are drawn, grouped into panels.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    panels: Vec<Group>,
}

#[derive(Clone, Debug, PartialEq)]
struct Group {
    kind: &'static str,
    names: Vec<String>,
    /// The unit shared by all drawn series ("" when none or several).
    unit: String,
    /// Variables of this kind that are not drawn (only without a selection).
    omitted: usize,
}

impl Selection {
    /// The drawn variables' names, panel by panel.
    pub fn names(&self) -> Vec<&str> {
        self.panels
            .iter()
            .flat_map(|g| g.names.iter().map(String::as_str))
            .collect()
    }
}

/// Resolves `wanted` (all recorded variables when `None`) against `model`.
pub fn select(model: &Model, wanted: Option<&[String]>) -> Result<Selection, String> {
    let vars = variables::variables(model);
    let kind_of = |k: Kind| match k {
        Kind::State(_) => Some(0),
        Kind::Pair(_) => Some(1),
        Kind::Output(_) => Some(2),
        _ => None,
    };
    // (panel, name, unit) of every recorded variable, in model order.
    let recorded: Vec<(usize, &str, &str)> = vars
        .iter()
        .filter_map(|v| kind_of(v.kind).map(|p| (p, v.name, v.unit)))
        .collect();
    let chosen: Vec<(usize, &str, &str)> = match wanted {
        None => recorded.clone(),
        Some(names) => {
            let mut chosen: Vec<(usize, &str, &str)> = Vec::new();
            for name in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
                let Some(hit) = recorded.iter().find(|r| r.1 == name) else {
                    let valid: Vec<&str> = recorded.iter().map(|r| r.1).collect();
                    return Err(format!(
                        "--plot-vars: '{name}' is not a recorded variable of {} (these are: {})",
                        model.name,
                        valid.join(", ")
                    ));
                };
                if !chosen.contains(hit) {
                    chosen.push(*hit);
                }
            }
            if chosen.is_empty() {
                return Err("--plot-vars names no variable".into());
            }
            chosen
        }
    };
    let mut panels = Vec::new();
    for (p, kind) in ["states", "complementarity variables", "outputs"]
        .into_iter()
        .enumerate()
    {
        let of_kind: Vec<&(usize, &str, &str)> = chosen.iter().filter(|c| c.0 == p).collect();
        if of_kind.is_empty() {
            continue;
        }
        if wanted.is_some() && of_kind.len() > MAX_PER_PANEL {
            return Err(format!(
                "--plot-vars names {} {kind}; a panel draws at most {MAX_PER_PANEL}",
                of_kind.len()
            ));
        }
        let drawn = &of_kind[..of_kind.len().min(MAX_PER_PANEL)];
        let unit = drawn[0].2;
        panels.push(Group {
            kind,
            names: drawn.iter().map(|c| c.1.to_string()).collect(),
            unit: if drawn.iter().all(|c| c.2 == unit) {
                unit.to_string()
            } else {
                String::new()
            },
            omitted: of_kind.len() - drawn.len(),
        });
    }
    Ok(Selection { panels })
}

/// The figure of `traj` (a run of the model named `model_name`) for `selection`.
pub fn figure(model_name: &str, selection: &Selection, traj: &Trajectory) -> Figure {
    let column = |name: &str| traj.header.iter().position(|h| h == name);
    let panels = selection
        .panels
        .iter()
        .map(|g| {
            let series = g
                .names
                .iter()
                .map(|name| Series {
                    name: name.clone(),
                    // A name the trajectory lacks (a selection made for another
                    // model) is drawn as an empty series rather than a panic.
                    points: column(name)
                        .map(|j| traj.rows.iter().map(|r| (r[0], r[j])).collect())
                        .unwrap_or_default(),
                })
                .collect();
            let mut title = format!("{}{}", g.kind[..1].to_uppercase(), &g.kind[1..]);
            if g.omitted > 0 {
                title += &format!(
                    " (first {} of {}; --plot-vars chooses)",
                    g.names.len(),
                    g.names.len() + g.omitted
                );
            }
            Panel {
                title,
                y_label: if g.unit.is_empty() {
                    "value".into()
                } else {
                    format!("value [{}]", g.unit)
                },
                series,
            }
        })
        .collect();
    let mut title = model_name.to_string();
    if traj.failure.is_some() {
        if let Some(t) = traj.rows.last().map(|r| r[0]) {
            title += &format!(" (stopped early at t = {t})");
        }
    }
    Figure {
        title,
        x_label: "time".into(),
        panels,
    }
}
