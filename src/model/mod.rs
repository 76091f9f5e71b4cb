//! The validated model: the one value everything else is derived from.
//!
//! A model file is read in two stages, as ripgrep reads its arguments: [`raw`]
//! mirrors the TOML text with serde, and [`validate`] turns it into a [`Model`]
//! whose every name is unique and a C identifier, whose expressions mention only
//! parameters, and whose matrices have the right shapes. Errors name the file and
//! the field. The XML, the value-reference table, the data compiled into the FMU
//! and the GUID are all produced from a `Model`, so none of them is kept in sync by
//! hand.
//!
//! Two forms share everything but the dynamics: a first-order linear
//! complementarity system (see [`System`]), and a mechanical system (see
//! [`Mechanics`]) whose states are positions and velocities and whose pairs are
//! contact reactions. Files may repeat entries over an index (`for = "i in 1:N"`)
//! with sizes fixed when the model is built ([`template`]).

pub mod affine;
#[cfg(feature = "tool")]
mod block_params;
#[cfg(feature = "tool")]
pub mod blocks;
mod dependencies;
pub mod expr;
pub mod functions;
pub mod gradient;
#[cfg(feature = "guid")]
pub mod guid;
pub mod mech_nonlinear;
#[cfg(feature = "tool")]
mod mech_rows;
#[cfg(feature = "tool")]
mod mechanical;
pub mod program;
#[cfg(feature = "tool")]
pub mod raw;
#[cfg(feature = "tool")]
mod rows;
#[cfg(feature = "tool")]
mod settings;
#[cfg(feature = "tool")]
mod signals;
#[cfg(feature = "tool")]
pub mod template;
pub mod time_jumps;
#[cfg(feature = "tool")]
pub mod validate;

use expr::Expr;
use serde::{Deserialize, Serialize};

/// A named parameter with its default value (an FMU parameter, fixed after initialization).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Parameter {
    pub name: String,
    pub value: f64,
    pub description: String,
    pub unit: String,
}

/// A named state or input with its start value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Variable {
    pub name: String,
    pub start: f64,
    pub description: String,
    pub unit: String,
}

/// One complementarity pair `lo <= u <= hi ⟂ y`; `u` carries the name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    pub name: String,
    pub lo: Expr,
    pub hi: Expr,
    pub description: String,
    pub unit: String,
    /// A memoryless relation (a block's static map, not a force acting on a
    /// state): its value at an instant is fixed by the states, inputs and
    /// other pairs of that instant, so when it depends on an input the FMU
    /// solves it again as soon as that input is set. Only blocks set it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub algebraic: bool,
}

impl Pair {
    /// Whether both bounds are infinite: an algebraic variable whose `y = 0`
    /// is an equation (a block's output).
    pub fn is_free(&self) -> bool {
        self.lo.as_constant() == Some(f64::NEG_INFINITY)
            && self.hi.as_constant() == Some(f64::INFINITY)
    }
}

/// A sparse matrix of parameter expressions; absent entries are zero.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExprMatrix {
    pub rows: usize,
    pub cols: usize,
    /// `(row, column, value)`, row-major order, no zeros, no duplicates.
    pub entries: Vec<(usize, usize, Expr)>,
}

impl ExprMatrix {
    pub fn zeros(rows: usize, cols: usize) -> Self {
        ExprMatrix {
            rows,
            cols,
            entries: Vec::new(),
        }
    }
}

/// `x' = A x + B u + E w + f`, `y = C x + D u + F w + g`: states x, complementarity
/// variables u, inputs w. Vectors are stored as one-column matrices.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct System {
    pub a: ExprMatrix,
    pub b: ExprMatrix,
    pub e: ExprMatrix,
    pub f: ExprMatrix,
    pub c: ExprMatrix,
    pub d: ExprMatrix,
    pub fw: ExprMatrix,
    pub g: ExprMatrix,
}

impl System {
    /// The empty system of a mechanical model.
    pub fn empty() -> Self {
        let z = || ExprMatrix::zeros(0, 0);
        System {
            a: z(),
            b: z(),
            e: z(),
            f: z(),
            c: z(),
            d: z(),
            fw: z(),
            g: z(),
        }
    }
}

/// A named output `z = Hx x + Hu u + Hw w + h`, linear with parameter coefficients.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Output {
    pub name: String,
    pub description: String,
    pub unit: String,
    /// The defining text, kept for documentation.
    pub definition: String,
    pub constant: Expr,
    pub states: Vec<(usize, Expr)>,
    pub pairs: Vec<(usize, Expr)>,
    pub inputs: Vec<(usize, Expr)>,
}

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
    /// (see `scheme::projection`).
    MoreauJeanProjected,
    /// Siconos' `MoreauJeanDirectProjectionOSI`: Moreau–Jean with an index set
    /// that has separate activation and deactivation thresholds, followed by
    /// Siconos' projection of the positions of the index set's contacts onto
    /// `G q + g0 >= 0` (Euclidean metric; see `scheme::direct_projection`).
    MoreauJeanDirectProjection,
    /// First-order, event-driven: each mode (active set) is a linear ODE
    /// integrated by an embedded Runge–Kutta pair; mode switches are located
    /// on the step's Hermite interpolant (see `scheme::event`).
    EventDriven,
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
        }
    }

    /// Whether the method integrates a first-order system (else a mechanical one).
    pub fn first_order(self) -> bool {
        matches!(self, Method::Theta | Method::EventDriven)
    }

    /// Whether the step reads `theta` (semi-explicit is explicit in the forces
    /// and event-driven integrates each mode with a Runge–Kutta pair).
    pub fn uses_theta(self) -> bool {
        !matches!(self, Method::SemiExplicit | Method::EventDriven)
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

/// A mechanical system `M v' = Fq q + Fv v + F w + f + G^T λ + T^T λ_t`, `q' = v`
/// (stiffness `K = -Fq`, damping `C = -Fv`),
/// with `dof` coordinates `q` (the first `dof` states) and their velocities `v`
/// (the next `dof`). Each contact has a gap `g = G q + g0 >= 0` complementary to
/// its normal reaction (the contact's pair); a frictional contact adds three pairs
/// (positive and negative friction, and the slip speed) after its normal pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mechanics {
    pub dof: usize,
    /// `M`, symmetric positive definite (`dof x dof`).
    pub mass: ExprMatrix,
    /// `Fq` (`dof x dof`): the force's dependence on positions.
    pub position_force: ExprMatrix,
    /// `Fv` (`dof x dof`): the force's dependence on velocities.
    pub velocity_force: ExprMatrix,
    /// `f` (`dof x 1`), constant forces.
    pub force: ExprMatrix,
    /// `F` (`dof x nw`), forces from inputs.
    pub input_force: ExprMatrix,
    /// `G` (`contacts x dof`) and `g0` (`contacts x 1`).
    pub gap: ExprMatrix,
    pub gap0: ExprMatrix,
    pub contacts: Vec<Contact>,
    /// Nonlinear remainders of forces, gaps and slips; `None` for a linear
    /// model, which then steps exactly as it always did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonlinear: Option<mech_nonlinear::MechNonlinear>,
}

/// One unilateral contact.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Contact {
    /// Index of its normal pair; friction pairs follow it.
    pub pair: usize,
    /// Newton's restitution coefficient, in [0, 1] (used by Moreau–Jean).
    pub restitution: Expr,
    pub friction: Option<Friction>,
}

/// Coulomb friction along one tangential direction: the slip velocity is
/// `T v + Tw w + t0`, the friction force `T^T (λ+ - λ-)` with
/// `λ+ + λ- <= mu λ_n`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Friction {
    pub mu: Expr,
    /// `(coordinate, coefficient)`: the row of `T`.
    pub slip: Vec<(usize, Expr)>,
    /// `(input, coefficient)`: the row of `Tw`.
    pub slip_inputs: Vec<(usize, Expr)>,
    pub slip0: Expr,
}

/// One block of the signal form and what it became (for `check` and the
/// documentation; the dynamics are in [`System`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Block {
    pub name: String,
    /// The type's name in model files (`saturation`).
    pub kind: String,
    /// `input = ...` and the parameters as written.
    pub settings: Vec<(String, String)>,
    /// The formulation with the block's names, one law per line.
    pub laws: Vec<String>,
    /// The pairs it added (its output first when that is a pair) and its state.
    pub pairs: Vec<usize>,
    pub state: Option<usize>,
}

impl Block {
    /// `input = ..., lo = ...` as written.
    pub fn settings_text(&self) -> String {
        let parts: Vec<String> = self
            .settings
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        parts.join(", ")
    }
}

/// A requirement on the parameters, checked when an FMU is initialized:
/// `value >= 0`, or `> 0` when `strict` (block parameters such as `lo <= hi`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Condition {
    pub value: Expr,
    pub strict: bool,
    pub what: String,
}

impl Condition {
    /// The message when `params` violate it, or `None`.
    pub fn violated(&self, params: &[f64]) -> Option<String> {
        let v = self.value.eval(params);
        let ok = if self.strict { v > 0.0 } else { v >= 0.0 };
        (!ok).then(|| format!("{} does not hold", self.what))
    }
}

/// The default experiment written to `modelDescription.xml` and used by `simulate`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Experiment {
    pub start: f64,
    pub stop: f64,
    pub step: f64,
}

/// A validated complementarity model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// The FMU's model identifier: a C identifier.
    pub name: String,
    pub description: String,
    pub parameters: Vec<Parameter>,
    pub inputs: Vec<Variable>,
    pub states: Vec<Variable>,
    pub pairs: Vec<Pair>,
    pub outputs: Vec<Output>,
    /// The first-order form; empty (0 x 0) for mechanical models.
    pub system: System,
    pub mechanics: Option<Mechanics>,
    pub scheme: Scheme,
    pub experiment: Experiment,
    /// The blocks of a signal-form model, lowered into `system` and `pairs`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<Block>,
    /// Requirements on the parameters, checked at initialization.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// The nonlinear remainders of a signal-form model's rows and outputs;
    /// `None` for a linear model, which then is exactly what it always was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonlinear: Option<program::Nonlinear>,
    /// Known values for `lcsfmu compare` (not compiled into FMUs).
    #[serde(skip)]
    pub reference: Option<Reference>,
}

/// Values a model file gives for some variables at sample times.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Reference {
    pub time: Vec<f64>,
    /// `(variable name, values at the times)`.
    pub values: Vec<(String, Vec<f64>)>,
}

impl Model {
    pub fn nx(&self) -> usize {
        self.states.len()
    }
    pub fn nu(&self) -> usize {
        self.pairs.len()
    }
    pub fn nw(&self) -> usize {
        self.inputs.len()
    }
    pub fn np(&self) -> usize {
        self.parameters.len()
    }

    /// Whether a mechanical model's forces, gaps or slips are nonlinear (or
    /// read `time`): Moreau–Jean then runs a Newton iteration (see
    /// `scheme::mech_newton`).
    pub fn nonlinear_mechanics(&self) -> bool {
        self.mechanics
            .as_ref()
            .is_some_and(|m| m.nonlinear.is_some())
    }

    /// Whether the dynamics are nonlinear or read `time`: the theta step then
    /// runs a Newton iteration (see `scheme::newton`).
    pub fn nonlinear_dynamics(&self) -> bool {
        self.nonlinear.as_ref().is_some_and(|n| n.dynamics())
    }

    /// Default parameter values.
    pub fn default_parameters(&self) -> Vec<f64> {
        self.parameters.iter().map(|p| p.value).collect()
    }

    /// The compact form compiled into FMUs and stored in their resources.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a model always serializes")
    }

    /// Reads [`Model::to_json`] output and checks what the rest of the code relies on
    /// (shapes, indices, well-formed expressions), since the text may come from an
    /// old or damaged FMU.
    pub fn from_json(text: &str) -> Result<Model, String> {
        let model: Model =
            serde_json::from_str(text).map_err(|e| format!("embedded model is unreadable: {e}"))?;
        model.check_consistency()?;
        Ok(model)
    }

    fn check_consistency(&self) -> Result<(), String> {
        let (nx, nu, nw, np) = (self.nx(), self.nu(), self.nw(), self.np());
        let ok_expr = |e: &Expr| e.is_well_formed(np);
        let s = &self.system;
        let mut shapes = vec![
            ("A", &s.a, nx, nx),
            ("B", &s.b, nx, nu),
            ("E", &s.e, nx, nw),
            ("f", &s.f, nx, 1),
            ("C", &s.c, nu, nx),
            ("D", &s.d, nu, nu),
            ("F", &s.fw, nu, nw),
            ("g", &s.g, nu, 1),
        ];
        if let Some(m) = &self.mechanics {
            let (n, nc) = (m.dof, m.contacts.len());
            if 2 * n != nx || self.scheme.method.first_order() {
                return Err("embedded model: mechanical sizes are inconsistent".into());
            }
            // A mechanical model keeps its first-order matrices empty.
            for shape in &mut shapes {
                shape.2 = 0;
                shape.3 = 0;
            }
            shapes.extend([
                ("M", &m.mass, n, n),
                ("Fq", &m.position_force, n, n),
                ("Fv", &m.velocity_force, n, n),
                ("f", &m.force, n, 1),
                ("F", &m.input_force, n, nw),
                ("G", &m.gap, nc, n),
                ("g0", &m.gap0, nc, 1),
            ]);
            let mut next = 0;
            for c in &m.contacts {
                let width = if c.friction.is_some() { 4 } else { 1 };
                let friction_ok = c.friction.as_ref().is_none_or(|f| {
                    ok_expr(&f.mu)
                        && ok_expr(&f.slip0)
                        && f.slip.iter().all(|(j, e)| *j < n && ok_expr(e))
                        && f.slip_inputs.iter().all(|(j, e)| *j < nw && ok_expr(e))
                });
                if c.pair != next || c.pair + width > nu || !ok_expr(&c.restitution) || !friction_ok
                {
                    return Err("embedded model: contacts are inconsistent".into());
                }
                next += width;
            }
            if next != nu {
                return Err("embedded model: contacts are inconsistent".into());
            }
            if let Some(nl) = &m.nonlinear {
                let slips_frictional = nl
                    .slip
                    .iter()
                    .all(|(k, _)| m.contacts.get(*k).is_some_and(|c| c.friction.is_some()));
                if !nl.is_consistent(np, n, nw, nc)
                    || !slips_frictional
                    || self.scheme.method == Method::MoreauJeanDirectProjection
                {
                    return Err("embedded model: nonlinear mechanics are inconsistent".into());
                }
            }
        } else if !self.scheme.method.first_order() {
            return Err("embedded model: a first-order model needs a first-order scheme".into());
        }
        for (name, m, r, c) in shapes {
            if m.rows != r
                || m.cols != c
                || m.entries
                    .iter()
                    .any(|(i, j, e)| *i >= r || *j >= c || !ok_expr(e))
            {
                return Err(format!("embedded model: matrix {name} is inconsistent"));
            }
        }
        let pairs_ok = self.pairs.iter().all(|p| ok_expr(&p.lo) && ok_expr(&p.hi))
            && self.conditions.iter().all(|c| ok_expr(&c.value))
            && self
                .blocks
                .iter()
                .all(|b| b.pairs.iter().all(|&j| j < nu) && b.state.is_none_or(|i| i < nx));
        let outputs_ok = self.outputs.iter().all(|o| {
            ok_expr(&o.constant)
                && o.states.iter().all(|(j, e)| *j < nx && ok_expr(e))
                && o.pairs.iter().all(|(j, e)| *j < nu && ok_expr(e))
                && o.inputs.iter().all(|(j, e)| *j < nw && ok_expr(e))
        });
        if !pairs_ok || !outputs_ok {
            return Err("embedded model: bounds or outputs are inconsistent".into());
        }
        if let Some(nl) = &self.nonlinear {
            let rows = (nx, nu, self.outputs.len());
            if !nl.is_consistent(np, nx + nu + nw, rows)
                || (nl.dynamics() && !self.scheme.method.first_order())
            {
                return Err("embedded model: nonlinear programs are inconsistent".into());
            }
        }
        Ok(())
    }
}
