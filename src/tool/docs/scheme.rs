//! The page's scheme section: which time-stepping or event-driven scheme the
//! FMU runs, in words, with its settings (theta, impact law, activation,
//! projection, event tolerances) and the default experiment.

use super::equations::number;
use super::esc;
use crate::model::{Impact, Method, Model, DEFAULT_GAMMA};
use std::fmt::Write;

pub(super) fn scheme(h: &mut String, model: &Model) {
    let s = &model.scheme;
    let what = match s.method {
        Method::Theta => "theta-method on the smooth part, complementarity imposed at the end of each step (one LCP per step)",
        Method::Zoh => "zero-order hold: the linear part's exact flow over each step (a matrix exponential) with multipliers, inputs and sources in time held, complementarity imposed at the end of each step (one LCP per step)",
        Method::EventDriven => "event-driven: an embedded Runge–Kutta pair in each mode, mode switches located by zero crossings, accumulations finished by time-stepping",
        Method::SemiExplicit => "semi-explicit, position level: explicit forces, gaps at the step's end complementary to the contact forces (plastic impacts)",
        Method::MoreauJean => "Moreau–Jean, velocity level: theta-method on the smooth part, Newton's impact law on the contacts predicted to close",
        Method::MoreauJeanProjected => "Moreau–Jean, velocity level, then the positions projected onto the admissible set (no penetration accumulates)",
        Method::MoreauJeanDirectProjection => "Moreau–Jean with Siconos' direct projection: activation and deactivation thresholds, then the active contacts' positions projected onto the admissible set",
    };
    h.push_str("<table class=\"scheme\">\n");
    let mut row = |k: &str, v: String| {
        writeln!(h, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(&v)).unwrap();
    };
    row("method", format!("{} ({what})", s.method.file_name()));
    if model.newton_step() {
        row(
            "nonlinear step",
            format!(
                "Newton–Josephy: one LCP of the linearization per iteration, a line search on the natural residual, convergence when every component is below {} of its terms' size (at most {} iterations)",
                number(crate::scheme::theta::newton::TOL),
                crate::scheme::theta::newton::MAX_ITERATIONS
            ),
        );
    }
    if model.nonlinear_mechanics() {
        row(
            "nonlinear step",
            format!(
                "Newton–Josephy: one contact LCP of the linearization per iteration, full steps, convergence when every component is below {} of its terms' size (at most {} iterations)",
                number(crate::scheme::theta::newton::TOL),
                crate::scheme::theta::newton::MAX_ITERATIONS
            ),
        );
    }
    if s.method.uses_theta() {
        row("theta", number(s.theta));
    }
    if s.method.velocity_level() {
        row(
            "impact",
            match s.impact {
                Impact::Newton => "newton (Newton's law for every contact predicted to close)".into(),
                Impact::EnergySafe => "energy-safe (e = 1 for a closed contact already opening: no percussion adds energy)".into(),
            },
        );
    }
    // Only settings that differ from the defaults: the documentation of the
    // models that do not use them stays as it was.
    if s.method.velocity_level() && s.gamma != DEFAULT_GAMMA {
        row(
            "gamma",
            format!(
                "{} (a contact takes part when g + gamma h G v <= 0)",
                number(s.gamma)
            ),
        );
    }
    if s.theta_gamma.multipliers != 1.0 {
        row(
            "gamma",
            format!(
                "{} (the multiplier term is h (gamma B u⁺ + (1 - gamma) B u), u the previous step's)",
                number(s.theta_gamma.multipliers)
            ),
        );
    }
    if s.theta_gamma.relation != 1.0 {
        row(
            "gamma_relation",
            format!(
                "{} (the relation holds at gamma_relation x⁺ + (1 - gamma_relation) x)",
                number(s.theta_gamma.relation)
            ),
        );
    }
    if s.method == Method::MoreauJeanDirectProjection {
        let p = &s.projection;
        row("activation_threshold", number(p.activation));
        row("deactivation_threshold", number(p.deactivation));
        row("projection_tolerance", number(p.tolerance));
        row("projection_max_iterations", p.max_iterations.to_string());
    }
    row(
        "max_step",
        s.max_step
            .map_or("one step per communication step".into(), number),
    );
    if s.method == Method::EventDriven {
        let e = &s.event;
        row("integrator", e.integrator.file_name().into());
        row(
            "rtol, atol",
            format!("{}, {}", number(e.rtol), number(e.atol)),
        );
        row("max_events_per_step", e.max_events_per_step.to_string());
    }
    let e = model.experiment;
    row(
        "default experiment",
        format!(
            "start {}, stop {}, step {}",
            number(e.start),
            number(e.stop),
            number(e.step)
        ),
    );
    h.push_str("</table>\n");
}
