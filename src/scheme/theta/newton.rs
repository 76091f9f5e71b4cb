//! The theta-method on a nonlinear first-order model: one step is a
//! nonlinear complementarity problem, solved by a Newton–Josephy iteration.
//!
//! The step (sources θ-weighted in `f`, taken at the step's end in `c`, the
//! multipliers acting over the whole step, as Siconos' EulerMoreauOSI does):
//! `R(x⁺, u⁺) = x⁺ - x - h [θ f(x⁺, u⁺, w, t+h) + (1-θ) f(x, u⁺, w, t)] = 0`,
//! `lo <= u⁺ <= hi ⟂ y⁺ = c(x⁺, u⁺, w, t+h)`. For linear `f` and `c` this is
//! the linear theta step ([`super::ThetaStepper`]) exactly.
//!
//! Each iteration linearizes at the iterate `(x̄, ū)`:
//! `J_x Δx + J_u Δu = -R` with `J_x = I - hθ ∂f/∂x`,
//! `J_u = -h [θ ∂f/∂u(x̄) + (1-θ) ∂f/∂u(x)]`, eliminates `Δx` and solves one
//! box LCP for `u⁺`: `y = M u⁺ + q`, `M = C_u - C_x J_x⁻¹ J_u`,
//! `q = c - C_x J_x⁻¹ R - M ū` (Josephy's method: the complementarity is kept
//! exact in the linearization, so a linear model takes one iteration). The
//! LCP is the verified [`Solver`], warm-started from the previous iteration's
//! (and, across steps, the previous step's) active set; the iteration
//! starts from the previous step's multipliers and from the explicit θ-step
//! from its state, `x - R(x, u)`, continued along the right-hand side's
//! trend over the last step ([`super::trend`]), when that lowers the states'
//! residual (`NewtonStepper::predict`): all of it read from the FMU state, so
//! a restored run repeats bit for bit.
//!
//! Globalization: a backtracking line search on the residual `Φ` of
//! `scheme::theta::residual` (the step's equations `R` for the states, the natural
//! residual of each pair in the units of its relation), each component
//! divided by its scale (the larger of the two points' scales), accepting
//! the first `α = 1, 1/2, ...` whose point passes the convergence test or
//! has `|Φ(z + αd)| <= (1 - 1e-4 α) |Φ(z)|`: the merit and the test measure
//! the same components with the same scales, so a point the test accepts is
//! never refused for the merit's sake. The full step is the Newton step, so
//! near a solution the iteration converges quadratically; far from one (a
//! large step through a strong nonlinearity) the search keeps the iterate from
//! being thrown off. The natural residual is the merit because it is zero
//! exactly at solutions of the step's NCP and is defined without smoothing;
//! the pairs' components of the iterate and of every trial point are
//! measured with the exchange rates of the LCP that gave the direction.
//! The LCP accepts its answer to its own tolerance (1e-9 of its terms),
//! looser than this iteration's: when the search finds no decrease, the
//! same linearization is solved once more to `TOL / 100` before the step is
//! given up (a pair left on its bound with its relation wrong-signed by
//! 1e-10 of its scale is opened that way).
//!
//! Convergence, scale-invariant: every component satisfies
//! `|Φ_i| <= TOL * s_i`, where `s_i` is the magnitude of the terms that make
//! up that component, in that component's units (see `scheme::theta::residual`):
//! no component adds a multiplier to a relation, and multiplying a state, a
//! multiplier, a relation or the time unit by any factor multiplies both
//! sides of its components by it. The scales count what each component is
//! computed from, not only its own size: a state brought to rest at zero
//! (a stuck mass) is a difference of far larger terms, and with its own
//! size alone its scale collapsed to its rounding and a solved step was
//! refused (issue 28's driven stick–slip oscillator, see
//! `Residual::widen_states`).
//!
//! Converged to rounding: an iterate is accepted when every component is
//! below [`ROUNDING`] (a few ulps of its scale), or below `TOL = 1e-10` when
//! the last iteration no longer lowered the largest component by a factor
//! `STALLED` (the residual has met the rounding of its own evaluation) or
//! the iterations ran out. Below `TOL` an iteration takes only the full
//! Newton step, and only when it lowers the residual; an LCP that fails
//! there leaves the iterate as it was. Quadratic convergence makes that
//! last iteration cheap in accuracy terms: `vdp_saturation` at h = 0.01
//! takes a second LCP solve on 1,679 of its 2,000 steps (6 when 1e-10 was
//! enough) and its trajectory moves by 1.7e-9 of its size, the error the
//! looser test left.
//!
//! This file holds the workspace and the loop; `linearization` forms and
//! solves each iteration's LCP, `search` the predicted start and the line
//! search.

// Several aligned buffers indexed together: indices read clearest.
#![allow(clippy::needless_range_loop)]

mod linearization;
mod search;

use crate::lcp::{self, Problem, Solver};
use crate::linalg::Lu;
use crate::scheme::memo::PointMemo;
use crate::scheme::theta::residual::{EndJacobian, Residual, Spread, StepData};
use crate::scheme::theta::trend::{RhsTrend, Trend};
use crate::scheme::{tidy, StepError, StepSize};
use crate::system::lcs::Lcs;
use nalgebra::{DMatrix, DVector};

/// Relative tolerance of the convergence test (see the module's text).
pub const TOL: f64 = 1e-10;
/// The scaled residual of an iterate at rounding: the few operations that
/// form each component, each exact to half an ulp of the scale (see the
/// module's text on converging to rounding).
pub const ROUNDING: f64 = 8.0 * f64::EPSILON;
/// How much an iteration below [`TOL`] must lower the largest scaled
/// component to count as still converging: less, and the residual has met
/// the rounding of its own evaluation (a floor above [`ROUNDING`]).
pub const STALLED: f64 = 0.25;
/// Newton iterations (LCP solves) per step before the step is given up
/// (Siconos' TimeStepping allows 50).
pub const MAX_ITERATIONS: usize = 50;

/// What the Newton iterations of a run took.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NewtonStats {
    /// Steps taken with `k` LCP solves at index `k` (the last entry counts
    /// `>= len - 1`).
    pub histogram: [usize; 8],
    /// Line-search reductions (steps shorter than the Newton step).
    pub backtracks: usize,
    /// Largest scaled residual at acceptance.
    pub worst_residual: f64,
}

/// Per-instance workspace of the Newton step, sized once.
pub struct NewtonStepper {
    theta: f64,
    nx: usize,
    nu: usize,
    size: StepSize,
    cur: Residual,
    trial: Residual,
    /// The Jacobians at the end point: of `cur` when `jacobian_at_iterate`
    /// (the predictor's pass computed them), else rebuilt by `linearize`.
    end: EndJacobian,
    jacobian_at_iterate: bool,
    fu0: DMatrix<f64>,
    /// `f` where the last step converged (see [`PointMemo`]).
    memo: PointMemo,
    /// `f` at the last step's start, which the predictor extrapolates from.
    trend: RhsTrend,
    /// `|hθ ∂f/∂x|` and `(I + |hθ ∂f/∂x|) |J_x⁻¹ J_u|` at the iterate the
    /// last linearization was taken at (column-major): how far each
    /// unknown's rounding spreads into the states' equations, for their
    /// scales ([`Residual::widen_states`]).
    spread_x: Vec<f64>,
    spread_u: Vec<f64>,
    /// The scales the last LCP verified its multipliers with
    /// ([`Solver::multiplier_scales`]), computed when an iterate needs them.
    mu: Vec<f64>,
    /// `J_x⁻¹ J_u`.
    g: DMatrix<f64>,
    /// `J_x⁻¹ R`.
    a: Vec<f64>,
    lu: Lu,
    problem: Problem,
    solver: Solver,
    /// Whether the LCP's bounds may differ from the last solve's (a new
    /// assembly or a restored state): the solver then checks them again.
    bounds_new: bool,
    x_bar: Vec<f64>,
    u_bar: Vec<f64>,
    x_try: Vec<f64>,
    u_try: Vec<f64>,
    du: Vec<f64>,
    dx: Vec<f64>,
    /// Result of the last step: state, multipliers and `y = c(x⁺, u⁺)`.
    pub x_next: Vec<f64>,
    pub u_next: Vec<f64>,
    pub y_next: Vec<f64>,
    /// LCP solves of the last step.
    pub iterations: usize,
    pub stats: NewtonStats,
}

impl NewtonStepper {
    pub fn new(nx: usize, nu: usize, nw: usize, theta: f64) -> Self {
        let m = |r, c| DMatrix::zeros(r, c);
        let v = |n| vec![0.0; n];
        NewtonStepper {
            theta,
            nx,
            nu,
            size: StepSize::new(),
            cur: Residual::new(nx, nu),
            trial: Residual::new(nx, nu),
            end: EndJacobian::new(nx, nu),
            jacobian_at_iterate: false,
            fu0: m(nx, nu),
            memo: PointMemo::new(nx + nu + nw, nx),
            trend: RhsTrend::new(nx),
            spread_x: v(nx * nx),
            spread_u: v(nx * nu),
            mu: v(nu),
            g: m(nx, nu),
            a: v(nx),
            lu: Lu::new(nx),
            problem: Problem::boxed(
                m(nu, nu),
                DVector::zeros(nu),
                DVector::zeros(nu),
                DVector::zeros(nu),
            ),
            solver: Solver::new(nu, lcp::Settings::default()),
            bounds_new: true,
            x_bar: v(nx),
            u_bar: v(nu),
            x_try: v(nx),
            u_try: v(nu),
            du: v(nu),
            dx: v(nx),
            x_next: v(nx),
            u_next: v(nu),
            y_next: v(nu),
            iterations: 0,
            stats: NewtonStats::default(),
        }
    }

    /// Nothing depends on the step size between steps; the memo of `f`
    /// goes (the model may have been assembled again).
    pub fn invalidate(&mut self) {
        self.size.invalidate();
        self.memo.forget();
        self.trend.forget();
        self.bounds_new = true;
    }

    pub fn active_set(&self) -> &[lcp::Bound] {
        self.solver.active_set()
    }

    pub fn reset_active_set(&mut self) {
        self.solver.reset_active_set();
        self.size.forget();
        self.memo.forget();
        self.trend.forget();
        self.bounds_new = true;
        self.stats = NewtonStats::default();
    }

    pub fn cached_step(&self) -> f64 {
        self.size.cached()
    }

    pub fn restore(&mut self, cached_step: f64, active_set: &[lcp::Bound]) {
        self.size.restore(cached_step);
        self.memo.forget();
        self.trend.forget();
        self.bounds_new = true;
        self.solver.set_active_set(active_set);
    }

    /// The predictor's trend, saved with FMU states.
    pub fn trend(&self) -> Option<Trend> {
        self.trend.saved()
    }

    /// Returns to a saved trend (after [`NewtonStepper::restore`]).
    pub fn restore_trend(&mut self, saved: Option<&Trend>) {
        self.trend.restore(saved);
    }

    pub fn take_result(&mut self, x: &mut Vec<f64>, u: &mut Vec<f64>) {
        std::mem::swap(x, &mut self.x_next);
        std::mem::swap(u, &mut self.u_next);
    }

    /// One step of size `h` from `(x, u)` at time `t` with inputs `w`; the
    /// result is in `x_next`, `u_next`, `y_next`.
    pub fn step(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        u: &[f64],
        w: &[f64],
        t: f64,
        h: f64,
    ) -> Result<lcp::Info, StepError> {
        self.size.set(h);
        self.solve(StepData { lcs, x, w, t, h }, u, true)
    }

    /// [`NewtonStepper::step`] without the trend, which it also ends: for
    /// steps that do not follow each other (the event-driven scheme's
    /// fallback, between stretches of its own integration).
    pub fn step_alone(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        u: &[f64],
        w: &[f64],
        t: f64,
        h: f64,
    ) -> Result<lcp::Info, StepError> {
        self.size.set(h);
        self.solve(StepData { lcs, x, w, t, h }, u, false)
    }

    /// The multipliers consistent with `x` and `w` at time `t`: the step with
    /// `h = 0` (then `x⁺ = x` and only `c` is solved for).
    pub fn consistent_multipliers(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        w: &[f64],
        t: f64,
    ) -> Result<lcp::Info, StepError> {
        let u0: Vec<f64> = (0..self.nu)
            .map(|j| 0.0f64.clamp(lcs.lo[j], lcs.hi[j]))
            .collect();
        // Not a step: the run's statistics stay as they were.
        let stats = self.stats.clone();
        let result = self.solve(
            StepData {
                lcs,
                x,
                w,
                t,
                h: 0.0,
            },
            &u0,
            false,
        );
        self.stats = stats;
        result
    }

    /// The LCP matrix of the first iteration of a step of size `h` from the
    /// start values (for inspection).
    pub fn lcp_matrix(
        &mut self,
        lcs: &Lcs,
        x: &[f64],
        w: &[f64],
        h: f64,
    ) -> Result<DMatrix<f64>, StepError> {
        let u: Vec<f64> = (0..self.nu)
            .map(|j| 0.0f64.clamp(lcs.lo[j], lcs.hi[j]))
            .collect();
        self.x_bar.copy_from_slice(x);
        self.u_bar.copy_from_slice(&u);
        let d = StepData {
            lcs,
            x,
            w,
            t: 0.0,
            h,
        };
        self.problem.lo.copy_from(&lcs.lo);
        self.problem.hi.copy_from(&lcs.hi);
        self.cur.evaluate(self.theta, d, x, &u, None);
        self.jacobian_at_iterate = false;
        self.linearize(d)?;
        Ok(self.problem.m.clone())
    }

    /// The Newton–Josephy iteration from `(d.x, u)`, its predictor continuing
    /// the trend when `extrapolate`.
    fn solve(&mut self, d: StepData, u: &[f64], extrapolate: bool) -> Result<lcp::Info, StepError> {
        let (nx, nu) = (self.nx, self.nu);
        self.problem.lo.copy_from(&d.lcs.lo);
        self.problem.hi.copy_from(&d.lcs.hi);
        self.x_bar.copy_from_slice(&d.x[..nx]);
        for j in 0..nu {
            self.u_bar[j] = u[j].max(d.lcs.lo[j]).min(d.lcs.hi[j]);
        }
        self.jacobian_at_iterate = false;
        if !self.predict(d, extrapolate) {
            self.cur
                .evaluate(self.theta, d, &self.x_bar, &self.u_bar, None);
        }
        let mut info = lcp::Info {
            status: lcp::Status::Solved,
            method: lcp::Method::None,
            residual: 0.0,
            iterations: 0,
        };
        let mut solves = 0;
        let mut worst = self.start_residual(d);
        // Whether the last iteration, below TOL, no longer lowered the residual.
        let mut stalled = false;
        // Whether this step's LCP has been solved to the tighter tolerance once.
        let mut tightened = false;
        loop {
            if worst <= ROUNDING || (worst <= TOL && (stalled || solves == MAX_ITERATIONS)) {
                return self.accept(d, solves, worst, info);
            }
            if solves == MAX_ITERATIONS || !worst.is_finite() {
                return Err(StepError::Newton {
                    iterations: solves,
                    residual: worst,
                    line_search: false,
                });
            }
            let polishing = worst <= TOL;
            self.linearize(d)?;
            let lcp_info = self.solve_lcp();
            if lcp_info.status != lcp::Status::Solved {
                if polishing {
                    // The iterate met the test; the answer to rounding could
                    // not be had, the answer to TOL stands.
                    return self.accept(d, solves, worst, info);
                }
                return Err(StepError::Lcp(lcp_info));
            }
            info = lcp_info;
            solves += 1;
            self.direction();
            let mut found = self.line_search(d, polishing);
            if !found && !polishing && !tightened {
                // The LCP accepts a candidate to its own tolerance (1e-9 of
                // its terms), looser than this test's: a pair left on its
                // bound with its relation wrong-signed by 1e-10 of its scale
                // passes there, and the direction it gives lowers nothing
                // (tests/data/random/found_seed77_model121.toml). The same
                // linearization, solved once more to a hundredth of TOL, opens
                // that pair.
                tightened = true;
                let loose = *self.solver.settings();
                self.solver.set_settings(lcp::Settings {
                    tol: 1e-2 * TOL,
                    ..loose
                });
                let tight = self.solve_lcp();
                self.solver.set_settings(loose);
                if tight.status == lcp::Status::Solved {
                    info = tight;
                    self.direction();
                    found = self.line_search(d, polishing);
                }
            }
            if !found {
                if polishing {
                    return self.accept(d, solves, worst, info);
                }
                return Err(StepError::Newton {
                    iterations: solves,
                    residual: worst,
                    line_search: true,
                });
            }
            let next = self.cur.scaled_max();
            stalled = polishing && next > STALLED * worst;
            worst = next;
        }
    }

    /// The Newton direction `(dx, du)` from the LCP's answer `u_try`:
    /// `du = u_try - ū`, `dx = -(a + G du)` (the states eliminated).
    fn direction(&mut self) {
        for j in 0..self.nu {
            self.du[j] = self.u_try[j] - self.u_bar[j];
        }
        for i in 0..self.nx {
            let mut s = self.a[i];
            for j in 0..self.nu {
                s += self.g[(i, j)] * self.du[j];
            }
            self.dx[i] = -s;
        }
    }

    /// The largest scaled component of the residual where the iteration
    /// starts. The pairs are judged (exactly on their bounds: there is no LCP
    /// yet) only when the states pass the test, which before an LCP they
    /// rarely do: otherwise the states' largest component says enough.
    fn start_residual(&mut self, d: StepData) -> f64 {
        if self.jacobian_at_iterate {
            // The predictor's pass took ∂f/∂x at the start: its spread (no
            // LCP yet: the multipliers' part waits for one).
            let ht = d.h * self.theta;
            for (s, f) in self.spread_x.iter_mut().zip(self.end.fx.as_slice()) {
                *s = (ht * f).abs();
            }
            let spread = Spread {
                x: &self.spread_x,
                u: None,
            };
            self.cur.widen_states(&spread);
        }
        let states = self.cur.scaled_max_of(self.nx);
        if states > TOL {
            return states;
        }
        let cx = self.jacobian_at_iterate.then_some(&self.end.cx);
        self.cur.judge_pairs(d.lcs, &self.u_bar, None, cx, None);
        self.cur.scaled_max()
    }

    fn accept(
        &mut self,
        d: StepData,
        solves: usize,
        worst: f64,
        info: lcp::Info,
    ) -> Result<lcp::Info, StepError> {
        // `cur` holds `f` at the accepted iterate: the next step's start.
        let point = [&self.x_bar[..], &self.u_bar[..], d.w];
        let (f, m) = (&self.cur.f1, &self.cur.m1);
        self.memo.store(point, d.t + d.h, f, m);
        self.x_next.copy_from_slice(&self.x_bar);
        self.u_next.copy_from_slice(&self.u_bar);
        self.y_next.copy_from_slice(&self.cur.c);
        if !tidy(&mut self.x_next) || !tidy(&mut self.u_next) {
            return Err(StepError::NotFinite);
        }
        self.iterations = solves;
        self.trend.accept(d.t, d.h);
        let s = &mut self.stats;
        s.histogram[solves.min(s.histogram.len() - 1)] += 1;
        s.worst_residual = s.worst_residual.max(worst);
        Ok(info)
    }
}
