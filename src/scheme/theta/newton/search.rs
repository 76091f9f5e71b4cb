//! Where the Newton–Josephy iteration starts and how far each iteration
//! moves: the predicted start (the explicit θ-step, continued along the
//! right-hand side's trend, kept when it lowers the states' residual) and
//! the backtracking line search on the natural residual that globalizes the
//! iteration. See [`super`] for the iteration and its convergence test.

use crate::scheme::theta::newton::{NewtonStepper, TOL};
use crate::scheme::theta::residual::{Spread, StepData};

/// Halvings of the line search before it is given up.
const MAX_HALVINGS: usize = 30;

impl NewtonStepper {
    /// Moves the first iterate from the step's start `(x, ū)` to the
    /// explicit θ-step `x̃ = x - R(x, ū)`, plus `hθ (h / h₋)(f - f₋)` when
    /// the step continues the trend (`f = f(x, ū)` at the step's end time,
    /// `f₋` the same at the last step's start: the secant of `f` over that
    /// step extrapolated to this one's end, see [`crate::scheme::theta::trend`]), when
    /// that lowers the states' part of the merit (both measured with the
    /// scales at `x̃`); `ū` stays.
    /// Returns whether it did, with `cur` evaluated at `x̃`; otherwise the
    /// caller evaluates `cur` at the start. Newton from `x` has an error of
    /// `O(h)` to remove, from the explicit step one of `O(h²)`, with the
    /// trend one of `O(h³)`: one iteration then usually passes the
    /// convergence test where two were needed. Only `R`'s states
    /// part is evaluated at `x` (the relation and the full test are not
    /// needed there): at an equilibrium `R(x, ū) = 0`, `x̃ = x` is kept and
    /// the loop's test accepts it as before. The merit test keeps a stiff
    /// model, whose explicit step overshoots, at `x`. Skipped for `h = 0`
    /// and when no program is nonlinear in the states and pairs (the
    /// iteration then solves the step exactly from anywhere, and the start
    /// stays `x`). It reads only the step's data and the trend, both kept in
    /// FMU states, so a restored FMU state repeats it bit for bit.
    pub(super) fn predict(&mut self, d: StepData, extrapolate: bool) -> bool {
        let nx = self.nx;
        let wanted = d.h > 0.0
            && d.lcs
                .nl
                .as_ref()
                .is_some_and(|ncs| ncs.nonlinear_in_unknowns());
        if !wanted {
            return false;
        }
        self.cur
            .evaluate_states(self.theta, d, &self.x_bar, &self.u_bar, &self.memo);
        for i in 0..nx {
            self.x_try[i] = self.x_bar[i] - self.cur.phi[i];
        }
        if extrapolate {
            let f = &self.cur.f1;
            if let Some((ratio, f_last)) = self.trend.secant(d.t, d.h) {
                let along = d.h * self.theta * ratio;
                for i in 0..nx {
                    self.x_try[i] += along * (f[i] - f_last[i]);
                }
            }
            self.trend.propose(f);
        }
        self.u_try.copy_from_slice(&self.u_bar);
        // With the Jacobians: from x̃ the iteration usually linearizes next.
        let jac = Some(&mut self.end);
        self.trial
            .evaluate(self.theta, d, &self.x_try, &self.u_try, jac);
        let scale = &self.trial.scale;
        if self.trial.merit_of(scale, nx) <= self.cur.merit_of(scale, nx) {
            std::mem::swap(&mut self.x_bar, &mut self.x_try);
            std::mem::swap(&mut self.cur, &mut self.trial);
            self.jacobian_at_iterate = true;
            return true;
        }
        false
    }

    /// Moves along `(dx, du)` to the first point that passes the
    /// convergence test or decreases the merit enough; false when none
    /// does. When `polishing` an iterate that passed the test, only to the
    /// full step, and only when it lowers the largest scaled component.
    /// Every point, and the iterate the direction starts from, is measured
    /// with the rates of the LCP that gave the direction and the Jacobian
    /// `linearize` took at the iterate; the iterate only when the full step
    /// does not converge (most steps converge at their first full step).
    pub(super) fn line_search(&mut self, d: StepData, polishing: bool) -> bool {
        // Whether the iterate was measured as the trial points are (when
        // first needed: most steps converge at their first full step).
        let mut measured = false;
        // Whether points are measured with the multipliers' scales too (see
        // `scheme::theta::residual`): from the first point the cheaper measure
        // does not accept.
        let mut wide = false;
        if polishing {
            // The iterate passed the cheaper measure: at this depth the
            // multipliers' rounding may be what is left.
            self.solver
                .multiplier_scales(&self.problem, &self.u_try, &mut self.mu);
            wide = true;
        }
        let mut alpha = 1.0;
        // Polishing an iterate that met TOL: only the Newton step itself,
        // which near a solution lowers the residual quadratically; when it
        // does not, the iterate is at its rounding and stays.
        let halvings = if polishing { 0 } else { MAX_HALVINGS };
        for halving in 0..=halvings {
            for i in 0..self.nx {
                self.x_try[i] = self.x_bar[i] + alpha * self.dx[i];
            }
            for j in 0..self.nu {
                self.u_try[j] = self.u_bar[j] + alpha * self.du[j];
            }
            self.trial
                .evaluate(self.theta, d, &self.x_try, &self.u_try, None);
            self.measure(d, Point::Trial, wide);
            if !wide && !(self.trial.scaled_max() <= TOL) {
                // The LCP's own scales, then every point measured with them.
                let (p, u) = (&self.problem, &self.u_try);
                self.solver.multiplier_scales(p, u, &mut self.mu);
                wide = true;
                self.measure(d, Point::Trial, wide);
            }
            let worst = self.trial.scaled_max();
            // A point that passes the convergence test is taken whatever the
            // merit says (the merit and the test measure the same residual
            // with the same scales; this keeps rounding in one component
            // from refusing a point the test accepts). Polishing asks more:
            // that the step lower the residual.
            let accept = if worst <= TOL && !polishing {
                true
            } else {
                if !measured {
                    self.measure(d, Point::Iterate, wide);
                    measured = true;
                }
                if polishing {
                    worst < self.cur.scaled_max()
                } else {
                    let n = self.nx + self.nu;
                    let (base, trial) = self.cur.merits_with(&self.trial, n);
                    trial <= (1.0 - 1e-4 * alpha) * base
                }
            };
            if accept {
                self.stats.backtracks += halving;
                std::mem::swap(&mut self.x_bar, &mut self.x_try);
                std::mem::swap(&mut self.u_bar, &mut self.u_try);
                std::mem::swap(&mut self.cur, &mut self.trial);
                return true;
            }
            alpha *= 0.5;
        }
        false
    }

    /// The scales and the pairs' components of the trial point or of the
    /// iterate, evaluated: with the spread of the states' rounding, and
    /// when `wide` the multipliers' scales `mu` too, the rates of the LCP
    /// that gave the direction and the Jacobian `linearize` took.
    fn measure(&mut self, d: StepData, which: Point, wide: bool) {
        let (r, u) = match which {
            Point::Trial => (&mut self.trial, &self.u_try),
            Point::Iterate => (&mut self.cur, &self.u_bar),
        };
        let spread = Spread {
            x: &self.spread_x,
            u: wide.then_some((&self.spread_u[..], &self.mu[..])),
        };
        r.widen_states(&spread);
        let mu = wide.then_some((&self.end.cu, &self.mu[..]));
        r.judge_pairs(d.lcs, u, Some(&self.solver), Some(&self.end.cx), mu);
    }
}

/// Which point [`NewtonStepper::measure`] measures.
#[derive(Clone, Copy)]
enum Point {
    Trial,
    Iterate,
}
