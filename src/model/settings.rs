//! Second stage for the settings around the dynamics: the default
//! experiment, the scheme (time-stepping or event-driven, with its settings,
//! and the `--scheme` override) and the `[reference]` table that `lcsfmu
//! compare` measures errors against.

use super::raw;
use super::validate::{Names, Res, Validator};
use super::{
    DirectProjection, EventSettings, Experiment, Impact, Integrator, Method, Reference, Scheme,
    ThetaGamma, DEFAULT_GAMMA,
};

impl Validator<'_> {
    pub(super) fn experiment(&self, e: Option<raw::RawExperiment>) -> Res<Experiment> {
        let (start, stop, step) = match e {
            Some(e) => (
                e.start.unwrap_or(0.0),
                e.stop.unwrap_or(1.0),
                e.step.unwrap_or(0.01),
            ),
            None => (0.0, 1.0, 0.01),
        };
        self.finite("experiment.start", start)?;
        self.finite("experiment.stop", stop)?;
        if !(stop > start) {
            return self.fail(
                "experiment.stop",
                format!("stop = {stop} must be after start = {start}"),
            );
        }
        if !(step > 0.0 && step.is_finite()) {
            return self.fail(
                "experiment.step",
                format!("step = {step} must be a positive finite number"),
            );
        }
        Ok(Experiment { start, stop, step })
    }

    pub(super) fn scheme(&self, s: Option<raw::RawScheme>, mechanical: bool) -> Res<Scheme> {
        let s = s.unwrap_or_default();
        let (theta, max_step) = (s.theta, s.max_step);
        let event_keys = s.rtol.is_some()
            || s.atol.is_some()
            || s.max_events_per_step.is_some()
            || s.integrator.is_some();
        if event_keys && s.method.as_deref() != Some("event-driven") {
            return self.fail(
                "scheme",
                "rtol, atol, max_events_per_step and integrator belong to method = \"event-driven\"",
            );
        }
        // `--scheme` replaces the file's method; the file's other settings stay.
        let (method, field) = match self.method {
            Some(m) => (Some(m.to_string()), "--scheme"),
            None => (s.method.clone(), "scheme.method"),
        };
        let method = match (method.as_deref(), mechanical) {
            (None, false) | (Some("theta"), false) => Method::Theta,
            (Some("event-driven"), false) => Method::EventDriven,
            (Some("zoh"), false) => Method::Zoh,
            (None, true) | (Some("moreau-jean"), true) => Method::MoreauJean,
            (Some("moreau-jean-projected"), true) => Method::MoreauJeanProjected,
            (Some("moreau-jean-direct-projection"), true) => Method::MoreauJeanDirectProjection,
            (Some("semi-explicit"), true) => Method::SemiExplicit,
            (
                Some(
                    m @ ("semi-explicit"
                    | "moreau-jean"
                    | "moreau-jean-projected"
                    | "moreau-jean-direct-projection"),
                ),
                false,
            ) => {
                return self.fail(
                    field,
                    format!("'{m}' needs a mechanical model (with [[coordinates]]); first-order models use 'theta', 'zoh' or 'event-driven'"),
                )
            }
            (Some(m @ ("theta" | "event-driven" | "zoh")), true) => {
                return self.fail(
                    field,
                    format!("'{m}' is for first-order models; a mechanical model uses 'moreau-jean', 'moreau-jean-projected', 'moreau-jean-direct-projection' or 'semi-explicit'"),
                )
            }
            (Some(m), _) => {
                return self.fail(
                    field,
                    format!("unknown method '{m}' (expected theta, zoh, event-driven, semi-explicit, moreau-jean, moreau-jean-projected or moreau-jean-direct-projection)"),
                )
            }
        };
        let event = self.event_settings(&s)?;
        // Moreau–Jean's smooth part defaults to the trapezoidal rule, which keeps
        // the energy of an undamped oscillator; the first-order default stays
        // backward Euler.
        if method == Method::SemiExplicit && theta.is_some() {
            return self.fail(
                "scheme.theta",
                "the semi-explicit scheme has no theta (its forces are explicit, its positions use the new velocity)",
            );
        }
        // A file's theta is refused beside its own `zoh`, and set aside when
        // `--scheme zoh` replaces its method (the file was written for theta).
        if method == Method::Zoh && theta.is_some() && field == "scheme.method" {
            return self.fail(
                "scheme.theta",
                "the zero-order hold has no theta (its linear part is integrated exactly over the step)",
            );
        }
        let impact = self.impact(s.impact.as_deref(), method)?;
        let gamma = self.gamma(s.gamma, method)?;
        let theta_gamma = self.theta_gamma(&s, method)?;
        let projection = self.direct_projection(&s, method)?;
        let theta = theta.unwrap_or(if method.velocity_level() { 0.5 } else { 1.0 });
        if !(0.5..=1.0).contains(&theta) {
            return self.fail(
                "scheme.theta",
                format!("theta = {theta} is outside [0.5, 1]"),
            );
        }
        if let Some(h) = max_step {
            if !(h > 0.0 && h.is_finite()) {
                return self.fail(
                    "scheme.max_step",
                    format!("max_step = {h} must be a positive finite number"),
                );
            }
        }
        Ok(Scheme {
            method,
            theta,
            max_step,
            event,
            impact,
            gamma,
            projection,
            theta_gamma,
        })
    }

    /// `gamma`: Moreau–Jean's activation parameter, in [0, 1] as in Siconos
    /// (0: a contact takes part once its gap is closed; 1: when it would close
    /// within the step at its current speed).
    /// For the theta-method `gamma` is its multipliers' weight instead (see
    /// [`Validator::theta_gamma`]).
    fn gamma(&self, gamma: Option<f64>, method: Method) -> Res<f64> {
        let Some(gamma) = gamma else {
            return Ok(DEFAULT_GAMMA);
        };
        if method == Method::Theta {
            return Ok(DEFAULT_GAMMA);
        }
        if !method.velocity_level() {
            return self.fail(
                "scheme.gamma",
                format!(
                    "belongs to the Moreau–Jean methods (moreau-jean, moreau-jean-projected, moreau-jean-direct-projection) and the theta-method, not '{}'",
                    method.file_name()
                ),
            );
        }
        self.unit_interval("scheme.gamma", gamma)?;
        Ok(gamma)
    }

    /// The theta-method's `gamma` (weight of the step's multipliers) and
    /// `gamma_relation` (where the relation holds), as Siconos'
    /// `EulerMoreauOSI(theta, gamma)`; each in [0, 1], default 1.
    fn theta_gamma(&self, s: &raw::RawScheme, method: Method) -> Res<ThetaGamma> {
        let mut g = ThetaGamma::default();
        if method == Method::Theta {
            if let Some(v) = s.gamma {
                self.unit_interval("scheme.gamma", v)?;
                g.multipliers = v;
            }
        }
        if let Some(v) = s.gamma_relation {
            if method != Method::Theta {
                return self.fail(
                    "scheme.gamma_relation",
                    format!("belongs to the theta-method, not '{}'", method.file_name()),
                );
            }
            self.unit_interval("scheme.gamma_relation", v)?;
            g.relation = v;
        }
        Ok(g)
    }

    fn unit_interval(&self, field: &str, v: f64) -> Res<()> {
        if !(0.0..=1.0).contains(&v) {
            let name = field.trim_start_matches("scheme.");
            return self.fail(field, format!("{name} = {v} is outside [0, 1]"));
        }
        Ok(())
    }

    /// The settings of `moreau-jean-direct-projection`, refused elsewhere.
    fn direct_projection(&self, s: &raw::RawScheme, method: Method) -> Res<DirectProjection> {
        let mut p = DirectProjection::default();
        let given = [
            ("activation_threshold", s.activation_threshold.is_some()),
            ("deactivation_threshold", s.deactivation_threshold.is_some()),
            ("projection_tolerance", s.projection_tolerance.is_some()),
            (
                "projection_max_iterations",
                s.projection_max_iterations.is_some(),
            ),
        ];
        if method != Method::MoreauJeanDirectProjection {
            if let Some((key, _)) = given.iter().find(|(_, g)| *g) {
                return self.fail(
                    format!("scheme.{key}"),
                    format!(
                        "belongs to method = \"moreau-jean-direct-projection\", not '{}'",
                        method.file_name()
                    ),
                );
            }
            return Ok(p);
        }
        // Thresholds are gaps: any finite value (Siconos' are small positive
        // numbers, a negative one asks for a penetration first).
        for (key, value, slot) in [
            (
                "activation_threshold",
                s.activation_threshold,
                &mut p.activation,
            ),
            (
                "deactivation_threshold",
                s.deactivation_threshold,
                &mut p.deactivation,
            ),
        ] {
            if let Some(v) = value {
                if !v.is_finite() {
                    return self.fail(
                        format!("scheme.{key}"),
                        format!("{key} = {v} is not finite"),
                    );
                }
                *slot = v;
            }
        }
        if let Some(v) = s.projection_tolerance {
            if !(v > 0.0 && v.is_finite()) {
                return self.fail(
                    "scheme.projection_tolerance",
                    format!("projection_tolerance = {v} must be a positive finite number"),
                );
            }
            p.tolerance = v;
        }
        if let Some(n) = s.projection_max_iterations {
            if n > 1000 {
                return self.fail(
                    "scheme.projection_max_iterations",
                    format!("{n} must lie in 0..=1000"),
                );
            }
            p.max_iterations = n as u32;
        }
        Ok(p)
    }

    /// `impact`: Moreau–Jean's impact law; other methods have none (the
    /// semi-explicit scheme's impacts are plastic, first-order models have no
    /// impacts), so the key is refused there rather than ignored.
    fn impact(&self, name: Option<&str>, method: Method) -> Res<Impact> {
        let Some(name) = name else {
            return Ok(Impact::default());
        };
        if !method.velocity_level() {
            return self.fail(
                "scheme.impact",
                format!(
                    "belongs to method = \"moreau-jean\", \"moreau-jean-projected\" or \"moreau-jean-direct-projection\", not '{}'",
                    method.file_name()
                ),
            );
        }
        match name {
            "newton" => Ok(Impact::Newton),
            "energy-safe" => Ok(Impact::EnergySafe),
            other => self.fail(
                "scheme.impact",
                format!("unknown impact law '{other}' (expected newton or energy-safe)"),
            ),
        }
    }

    /// `[reference]`: increasing finite times inside the experiment, and for
    /// each declared variable as many finite values.
    pub(super) fn reference(
        &self,
        table: Option<std::collections::BTreeMap<String, Vec<f64>>>,
        e: &Experiment,
        names: &Names,
    ) -> Res<Option<Reference>> {
        let Some(mut table) = table else {
            return Ok(None);
        };
        let Some(time) = table.remove("time") else {
            return self.fail("reference.time", "missing: the sample times");
        };
        let ordered = time.windows(2).all(|w| w[0] < w[1]);
        let inside = time.iter().all(|t| *t >= e.start && *t <= e.stop);
        if time.is_empty() || !ordered || !inside {
            return self.fail(
                "reference.time",
                format!(
                    "needs increasing times within the experiment [{}, {}]",
                    e.start, e.stop
                ),
            );
        }
        let mut values = Vec::new();
        for (name, column) in table {
            let field = format!("reference.{name}");
            if !names.contains(&name) {
                return self.fail(field, format!("'{name}' is not a variable of the model"));
            }
            if column.len() != time.len() || column.iter().any(|v| !v.is_finite()) {
                return self.fail(
                    field,
                    format!("needs {} finite values, one per time", time.len()),
                );
            }
            values.push((name, column));
        }
        Ok(Some(Reference { time, values }))
    }

    fn event_settings(&self, s: &raw::RawScheme) -> Res<EventSettings> {
        let mut e = EventSettings::default();
        for (key, value, slot) in [("rtol", s.rtol, &mut e.rtol), ("atol", s.atol, &mut e.atol)] {
            if let Some(v) = value {
                if !(v > 0.0 && v < 1.0) {
                    return self.fail(
                        format!("scheme.{key}"),
                        format!("{key} = {v} must lie in (0, 1)"),
                    );
                }
                *slot = v;
            }
        }
        if let Some(n) = s.max_events_per_step {
            if n == 0 || n > 1_000_000 {
                return self.fail(
                    "scheme.max_events_per_step",
                    format!("{n} must lie in 1..=1000000"),
                );
            }
            e.max_events_per_step = n as usize;
        }
        e.integrator = match s.integrator.as_deref() {
            None | Some("bogacki-shampine") => Integrator::BogackiShampine,
            Some("heun-euler") => Integrator::HeunEuler,
            Some(other) => {
                return self.fail(
                    "scheme.integrator",
                    format!(
                        "unknown integrator '{other}' (expected bogacki-shampine or heun-euler)"
                    ),
                )
            }
        };
        Ok(e)
    }
}
