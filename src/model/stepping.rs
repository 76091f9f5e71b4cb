//! How a model is stepped: the scheme it names and that scheme's settings.
//!
//! These are plain data with defaults (the theta method, Moreau–Jean and its
//! impact law, the event-driven integrator, theta-gamma weights, direct
//! projection). Settings left at their defaults are left out of the serialized
//! model, so the GUIDs of models that do not set them stay as they were.

use serde::{Deserialize, Serialize};

/// Which time-stepping scheme an FMU runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Method {
    /// Theta-method on a first-order system, complementarity at the step's end.
    Theta,
    /// Mechanical, position level: explicit forces, `x⁺ = x + h v⁺`, the gaps at
    /// the step's end complementary to contact forces (impacts are plastic).
    SemiExplicit,
    /// Mechanical, velocity level (Moreau–Jean): theta-method on the smooth part,
    /// Newton's impact law on the contacts predicted to close, percussions.
    MoreauJean,
    /// Moreau–Jean followed by a projection of the positions onto the
    /// admissible set (`G q + g0 >= 0`, smallest correction in the M-norm),
    /// and the impact the step missed on projected contacts still approaching
    /// (see `scheme::mechanical::projection`).
    MoreauJeanProjected,
    /// Siconos' `MoreauJeanDirectProjectionOSI`: Moreau–Jean with an index set
    /// that has separate activation and deactivation thresholds, followed by
    /// Siconos' projection of the positions of the index set's contacts onto
    /// `G q + g0 >= 0` (Euclidean metric; see `scheme::mechanical::direct_projection`).
    MoreauJeanDirectProjection,
    /// First-order, event-driven: each mode (active set) is a linear ODE
    /// integrated by an embedded Runge–Kutta pair; mode switches are located
    /// on the step's Hermite interpolant (see `scheme::event`).
    EventDriven,
    /// First-order, zero-order hold (Siconos' `ZeroOrderHoldOSI`): the exact
    /// flow of a linear (or affine time-varying) model's linear part over the
    /// step, with multipliers, inputs and sources held, complementarity at the
    /// step's end (see `scheme::theta::affine`).
    Zoh,
}

impl Method {
    /// The name used in model files.
    pub fn file_name(self) -> &'static str {
        match self {
            Method::Theta => "theta",
            Method::SemiExplicit => "semi-explicit",
            Method::MoreauJean => "moreau-jean",
            Method::MoreauJeanProjected => "moreau-jean-projected",
            Method::MoreauJeanDirectProjection => "moreau-jean-direct-projection",
            Method::EventDriven => "event-driven",
            Method::Zoh => "zoh",
        }
    }

    /// Whether the method integrates a first-order system (else a mechanical one).
    pub fn first_order(self) -> bool {
        matches!(self, Method::Theta | Method::EventDriven | Method::Zoh)
    }

    /// Whether the step reads `theta` (semi-explicit is explicit in the forces,
    /// event-driven integrates each mode with a Runge–Kutta pair, and the
    /// zero-order hold's flow is exact).
    pub fn uses_theta(self) -> bool {
        !matches!(
            self,
            Method::SemiExplicit | Method::EventDriven | Method::Zoh
        )
    }

    /// Whether the method is a Moreau–Jean scheme (velocity level, percussions).
    pub fn velocity_level(self) -> bool {
        matches!(
            self,
            Method::MoreauJean | Method::MoreauJeanProjected | Method::MoreauJeanDirectProjection
        )
    }
}

/// Which impact law a Moreau–Jean step applies to its active contacts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Impact {
    /// Newton's law `0 <= G v⁺ + e G v ⟂ P >= 0` for every active contact, as
    /// the standard Moreau–Jean scheme states it.
    #[default]
    Newton,
    /// Newton's law for approaching contacts, `e = 1` for an active contact
    /// that is already opening (`G v > 0`, after a penetration): its percussion
    /// then does no work, so no percussion adds energy. Accumulations of impacts
    /// take longer to come to rest.
    EnergySafe,
}

impl Impact {
    /// The name used in model files.
    pub fn file_name(self) -> &'static str {
        match self {
            Impact::Newton => "newton",
            Impact::EnergySafe => "energy-safe",
        }
    }
}

/// The embedded Runge–Kutta pair of the event-driven scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Integrator {
    /// Heun–Euler 2(1), the pair of the zero-crossing slides.
    HeunEuler,
    /// Bogacki–Shampine 3(2) (the pair of MATLAB's ode23), first same as last.
    BogackiShampine,
}

impl Integrator {
    pub fn file_name(self) -> &'static str {
        match self {
            Integrator::HeunEuler => "heun-euler",
            Integrator::BogackiShampine => "bogacki-shampine",
        }
    }
}

/// Settings of the event-driven scheme.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EventSettings {
    /// Relative and absolute tolerances of the step-size control.
    pub rtol: f64,
    pub atol: f64,
    /// Events in one communication step beyond which they are taken to
    /// accumulate (Zeno, chattering): the step is finished by time-stepping.
    pub max_events_per_step: usize,
    pub integrator: Integrator,
}

impl Default for EventSettings {
    fn default() -> Self {
        EventSettings {
            rtol: 1e-6,
            atol: 1e-9,
            max_events_per_step: 100,
            integrator: Integrator::BogackiShampine,
        }
    }
}

/// Time discretization: theta-method on the smooth part, complementarity implicit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scheme {
    pub method: Method,
    /// 1 is backward Euler, 0.5 the trapezoidal rule (unused by `SemiExplicit`).
    pub theta: f64,
    /// Longest internal step; a communication step is split into equal sub-steps.
    pub max_step: Option<f64>,
    /// The event-driven scheme's settings (defaults for the others).
    #[serde(default)]
    pub event: EventSettings,
    /// Moreau–Jean's impact law (unused by the other methods).
    #[serde(default)]
    pub impact: Impact,
    /// Moreau–Jean's activation parameter (Siconos' `gamma`): a contact takes
    /// part in a step when `g + gamma h G v <= 0` at the step's start. Left
    /// out of the serialized model at its default, so that the GUIDs of
    /// models that do not set it stay as they were.
    #[serde(default = "default_gamma", skip_serializing_if = "is_default_gamma")]
    pub gamma: f64,
    /// The settings of `moreau-jean-direct-projection` (defaults elsewhere).
    #[serde(default, skip_serializing_if = "DirectProjection::is_default")]
    pub projection: DirectProjection,
    /// The theta-method's γ weights (both 1, the plain scheme, elsewhere).
    #[serde(default, skip_serializing_if = "ThetaGamma::is_default")]
    pub theta_gamma: ThetaGamma,
}

/// The θ-γ variants of the first-order theta-method, with the meaning of
/// Siconos' `EulerMoreauOSI(theta, gamma)`:
/// `x⁺ = x + h [θ A x⁺ + (1-θ) A x + γ B u⁺ + (1-γ) B u + E w + f]`, and
/// `y⁺ = C (γ_r x⁺ + (1-γ_r) x) + D u⁺ + F w + g` (the relation at `x_{k+γ_r}`,
/// Siconos' `setUseGammaForRelation`). Both 1 is the plain scheme, where the
/// multipliers act over the whole step and the relation holds at its end.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThetaGamma {
    /// `γ`: the weight of the step's own multipliers in the state update, the
    /// previous step's taking the rest (file key `gamma`).
    pub multipliers: f64,
    /// `γ_r`: where between the step's start and end the relation holds (file
    /// key `gamma_relation`).
    pub relation: f64,
}

impl Default for ThetaGamma {
    fn default() -> Self {
        ThetaGamma {
            multipliers: 1.0,
            relation: 1.0,
        }
    }
}

impl ThetaGamma {
    pub fn is_default(&self) -> bool {
        *self == ThetaGamma::default()
    }
}

/// Siconos' default `gamma`: the gap predicted half a step ahead.
pub const DEFAULT_GAMMA: f64 = 0.5;

fn default_gamma() -> f64 {
    DEFAULT_GAMMA
}

fn is_default_gamma(g: &f64) -> bool {
    *g == DEFAULT_GAMMA
}

/// Settings of `moreau-jean-direct-projection`, with Siconos' defaults
/// (`MoreauJeanDirectProjectionOSI` and `TimeSteppingDirectProjection`).
/// The thresholds are gaps, in the model's length unit, as in Siconos.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DirectProjection {
    /// A contact outside the index set joins it when `g + gamma h G v` is at
    /// most this.
    pub activation: f64,
    /// A contact in the index set leaves it when `g + gamma h G v` exceeds
    /// this and `G v >= 0` (it is not approaching).
    pub deactivation: f64,
    /// The projection runs while a contact of the index set penetrates by
    /// more than this.
    pub tolerance: f64,
    /// At most this many projections per step.
    pub max_iterations: u32,
}

impl Default for DirectProjection {
    fn default() -> Self {
        DirectProjection {
            activation: 1e-7,
            deactivation: 1e-7,
            tolerance: 1e-8,
            max_iterations: 10,
        }
    }
}

impl DirectProjection {
    fn is_default(&self) -> bool {
        *self == DirectProjection::default()
    }
}
