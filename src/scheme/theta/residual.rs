//! The residual of a nonlinear step and its scales (see [`super::newton`]).
//!
//! At an iterate `(x̄, ū)` of the step from `x` at `t`, with
//! `R = x̄ - x - h [θ f(x̄, ū, w, t+h) + (1-θ) f(x, ū, w, t)]` and
//! `c = c(x̄, ū, w, t+h)`, the residual `Φ` has one component per state and
//! one per pair, each zero exactly at solutions of the step's nonlinear
//! complementarity problem and each measured in the units of its own
//! equation, against a scale in the same units, the magnitude of the terms
//! it is made of (so that the convergence test and the line search's merit
//! do not depend on units):
//!
//! - state `i`: `Φ_i = R_i`, scale
//!   `b_i + Σ_k |hθ ∂f_i/∂x_k| b_k + Σ_j P_ij σ_j` with
//!   `b_i = |x̄_i| + |x_i| + h (θ |f_i|₊ + (1-θ) |f_i|₊)` (`|·|₊` sums the
//!   absolute values of the terms, see `Expr::eval_magnitude`): the state's
//!   own terms, and the unknowns its equation reads counted at their own
//!   scales (`σ_j`, the multipliers' as the LCP verified them: see below,
//!   spread by `P = (I + |hθ ∂f/∂x|) |J_x⁻¹ J_u|` through the states the
//!   step computes from them into the equations that read those states),
//!   once the iteration has a Jacobian (a state brought to rest next to
//!   zero is a difference of far larger terms: see
//!   [`Residual::widen_states`]);
//! - pair `j`: the natural residual in the units of `c_j`,
//!   `Φ_j = mid(d_j (ū_j - hi_j), c_j, d_j (ū_j - lo_j))`: `c_j` itself for a
//!   multiplier inside its box, only its wrong-signed part for one on a
//!   bound, and no more than `d_j` times the distance to a bound for one
//!   near it. `d_j` is the exchange rate of the linearization's LCP (how
//!   much `c_j` moves per unit of `u_j`, in the units of `c_j / u_j`:
//!   [`Solver::exchange_rate`], the rate the LCP's own acceptance test
//!   uses); before the step's first LCP there is none, and a multiplier
//!   counts as on a bound only when it is exactly there (`d_j = ∞`). Scale
//!   `|c_j|₊ + Σ_k |∂c_j/∂x_k| s_k`: the terms of `c_j`, and the states it
//!   reads counted at their own components' scales `s_k` (a state the step
//!   brings to rest next to zero, an inductor current in discontinuous
//!   conduction, is a difference of far larger terms, and its rounding is of
//!   their size, not of its own); `∂c/∂x` is the Jacobian taken at an
//!   iterate of this step, none before the first.
//!
//! When an iterate fails that test, it is measured again with the
//! multipliers' own scales `μ` added (`Σ_j P_ij μ_j` to a state's,
//! `Σ_l |∂c_j/∂u_l| μ_l` to a pair's): `μ_l` is what the LCP that gave the
//! iterate verified `u_l` against ([`Solver::multiplier_scales`]), so an
//! iterate the LCP solved to its rounding is not refused for that rounding
//! (a free multiplier coupled to a larger one carries the larger one's
//! rounding). The cheap test comes first: most iterates pass it.
//!
//! The pair's component used to be `ū_j - mid(lo, hi, ū_j - c_j)` against
//! `|ū_j| + |c_j|₊`, which adds a multiplier to a relation: with the
//! multiplier in units 2^30 times smaller (a current in nanoamperes), a
//! relation violated by 1e-3 of itself was accepted (`tests/integration/units.rs`).

// Several aligned buffers indexed together: indices read clearest.
#![allow(clippy::needless_range_loop)]

use crate::lcp::Solver;
use crate::model::program::Point;
use crate::scheme::memo::PointMemo;
use crate::system::lcs::Lcs;
use nalgebra::DMatrix;

/// The Jacobians of `f` and `c` at the step's end point of an iterate:
/// `∂f/∂x`, `∂f/∂u`, `∂c/∂x`, `∂c/∂u`.
pub(super) struct EndJacobian {
    pub(super) fx: DMatrix<f64>,
    pub(super) fu: DMatrix<f64>,
    pub(super) cx: DMatrix<f64>,
    pub(super) cu: DMatrix<f64>,
}

impl EndJacobian {
    pub(super) fn new(nx: usize, nu: usize) -> Self {
        EndJacobian {
            fx: DMatrix::zeros(nx, nx),
            fu: DMatrix::zeros(nx, nu),
            cx: DMatrix::zeros(nu, nx),
            cu: DMatrix::zeros(nu, nu),
        }
    }
}

/// Buffers of the nonlinear residual at one iterate.
pub(super) struct Residual {
    /// `f` at the step's end point and the magnitudes of its terms.
    pub(super) f1: Vec<f64>,
    f0: Vec<f64>,
    pub(super) m1: Vec<f64>,
    m0: Vec<f64>,
    /// `c` at the iterate and the magnitudes of its terms.
    pub(super) c: Vec<f64>,
    mc: Vec<f64>,
    /// `Φ` and its scales.
    pub(super) phi: Vec<f64>,
    pub(super) scale: Vec<f64>,
    /// The states' own scales (`scale[..nx]` before [`Residual::widen_states`]).
    base: Vec<f64>,
}

impl Residual {
    pub(super) fn new(nx: usize, nu: usize) -> Self {
        let v = |n| vec![0.0; n];
        Residual {
            f1: v(nx),
            f0: v(nx),
            m1: v(nx),
            m0: v(nx),
            c: v(nu),
            mc: v(nu),
            phi: v(nx + nu),
            scale: v(nx + nu),
            base: v(nx),
        }
    }

    /// `Φ`'s states and `c` at `(xb, ub)` for a step of method `theta`; the
    /// pairs' components are NaN (never accepted) until
    /// [`Residual::judge_pairs`] measures them. With `jac`, also the Jacobians
    /// of `f` and `c` at the end point, from the same passes over the
    /// programs (the same numbers as [`crate::system::ncs::Ncs::rhs_jacobian`] and
    /// [`crate::system::ncs::Ncs::relation_jacobian`] there).
    pub(super) fn evaluate(
        &mut self,
        theta: f64,
        d: StepData,
        xb: &[f64],
        ub: &[f64],
        jac: Option<&mut EndJacobian>,
    ) {
        let Some(ncs) = d.lcs.nl.as_ref() else {
            self.phi.fill(f64::NAN);
            return;
        };
        let end = Point {
            x: xb,
            u: ub,
            w: d.w,
            t: d.t + d.h,
        };
        match jac {
            Some(j) => {
                let rhs = (&mut self.f1[..], &mut self.m1[..]);
                ncs.rhs_and_jacobian(d.lcs, &end, rhs, &mut j.fx, &mut j.fu);
                self.states_from_rhs(theta, d, xb, ub, None);
                let relation = (&mut self.c[..], &mut self.mc[..]);
                ncs.relation_and_jacobian(d.lcs, &end, relation, &mut j.cx, &mut j.cu);
            }
            None => {
                ncs.rhs(&end, &mut self.f1, &mut self.m1);
                self.states_from_rhs(theta, d, xb, ub, None);
                ncs.relation(&end, &mut self.c, &mut self.mc);
            }
        }
        let nx = xb.len();
        self.phi[nx..].fill(f64::NAN);
    }

    /// The pairs' components of `Φ` and their scales at multipliers `ub`,
    /// from `c` and the states' scales as [`Residual::evaluate`] left them:
    /// with the exchange rates of `rates`' last LCP, or with a multiplier on
    /// a bound only when exactly there (None), and `cx = ∂c/∂x` at an
    /// iterate of this step, when there is one, for the states' part of the
    /// scale; with `mu = (∂c/∂u, μ)`, the multipliers it reads at the scales
    /// their LCP verified them with (see [`Residual::widen_states`]). See
    /// the module text.
    pub(super) fn judge_pairs(
        &mut self,
        lcs: &Lcs,
        ub: &[f64],
        rates: Option<&Solver>,
        cx: Option<&DMatrix<f64>>,
        mu: Option<(&DMatrix<f64>, &[f64])>,
    ) {
        let nu = ub.len();
        let nx = self.phi.len() - nu;
        // Slices of the exact lengths: the loop then runs without bounds checks.
        let (lo, hi, ub) = (
            &lcs.lo.as_slice()[..nu],
            &lcs.hi.as_slice()[..nu],
            &ub[..nu],
        );
        let (c, mc) = (&self.c[..nu], &self.mc[..nu]);
        let (states, pairs) = self.scale.split_at_mut(nx);
        let (pairs, phi) = (&mut pairs[..nu], &mut self.phi[nx..nx + nu]);
        let cx = cx.map(|m| &m.as_slice()[..nx * nu]);
        for j in 0..nu {
            let mut s = mc[j];
            if let Some(cx) = cx {
                for k in 0..nx {
                    s += cx[k * nu + j].abs() * states[k];
                }
            }
            if let Some((cu, mu)) = mu {
                let cu = &cu.as_slice()[..nu * nu];
                for l in 0..nu {
                    s += cu[l * nu + j].abs() * mu[l];
                }
            }
            pairs[j] = s;
            let d = match rates {
                Some(r) => r.exchange_rate(j, s),
                None => f64::INFINITY,
            };
            phi[j] = natural_residual(c[j], d, ub[j], lo[j], hi[j]);
        }
    }

    /// The states' part of [`Residual::evaluate`] (`Φ_i` and `s_i` for
    /// `i < nx`; the pairs' entries are left as they were), with `f` taken
    /// from `memo` wherever it holds the point asked for (see
    /// [`PointMemo`]: the numbers an evaluation would give).
    pub(super) fn evaluate_states(
        &mut self,
        theta: f64,
        d: StepData,
        xb: &[f64],
        ub: &[f64],
        memo: &PointMemo,
    ) {
        let Some(ncs) = d.lcs.nl.as_ref() else {
            self.phi.fill(f64::NAN);
            return;
        };
        let t1 = d.t + d.h;
        // Programs that do not read time: the memo's point at any time is this one.
        let at_time = ncs.rhs_reads_time().then_some(t1);
        if memo.holds([xb, ub, d.w], at_time) {
            self.f1.copy_from_slice(&memo.value);
            self.m1.copy_from_slice(&memo.magnitude);
        } else {
            let end = Point {
                x: xb,
                u: ub,
                w: d.w,
                t: t1,
            };
            ncs.rhs(&end, &mut self.f1, &mut self.m1);
        }
        self.states_from_rhs(theta, d, xb, ub, Some(memo));
    }

    /// `Φ_i`, `s_i` (`i < nx`) from `f1`, `m1` at the end point, evaluating
    /// `f` at the step's start (`x`, `ub`, `t`) when θ < 1 (from `memo` when
    /// it holds that point).
    fn states_from_rhs(
        &mut self,
        theta: f64,
        d: StepData,
        xb: &[f64],
        ub: &[f64],
        memo: Option<&PointMemo>,
    ) {
        let out = self;
        let Some(ncs) = d.lcs.nl.as_ref() else {
            out.phi.fill(f64::NAN);
            return;
        };
        let (nx, h) = (xb.len(), d.h);
        let explicit_part = theta < 1.0;
        if explicit_part {
            if let Some(m) = memo.filter(|m| m.holds([d.x, ub, d.w], Some(d.t))) {
                out.f0.copy_from_slice(&m.value);
                out.m0.copy_from_slice(&m.magnitude);
            } else {
                let start = Point {
                    x: d.x,
                    u: ub,
                    w: d.w,
                    t: d.t,
                };
                ncs.rhs(&start, &mut out.f0, &mut out.m0);
            }
        }
        for i in 0..nx {
            // θ = 1: the start's terms are zeros, read as constants rather
            // than from buffers cleared on every call (the same numbers).
            let (f0, m0) = if explicit_part {
                (out.f0[i], out.m0[i])
            } else {
                (0.0, 0.0)
            };
            let step = theta * out.f1[i] + (1.0 - theta) * f0;
            out.phi[i] = xb[i] - d.x[i] - h * step;
            let s = xb[i].abs() + d.x[i].abs() + h * (theta * out.m1[i] + (1.0 - theta) * m0);
            out.base[i] = s;
            out.scale[i] = s;
        }
    }

    /// Adds to each state's scale the scales of the unknowns its equation
    /// reads: `s_i = b_i + Σ_k |hθ ∂f_i/∂x_k| b_k + Σ_j P_ij μ_j`, with
    /// `b` the states' own scales, `μ_j` the scale of multiplier `j` the
    /// LCP that gave the iterate verified it with
    /// ([`Solver::multiplier_scales`]) and `P = (I + |hθ ∂f/∂x|) |J_x⁻¹ J_u|`
    /// how its rounding reaches equation `i` through the states the step
    /// computes from it (the second sum only when `spread.u` holds them). A state the step brings to rest at zero (a
    /// stuck mass's velocity, the position beside it) is computed from terms
    /// far larger than itself, and its rounding is theirs: a relay's output
    /// `off + (on - off) z_s` at 0 carries the rounding of `off`. With its
    /// own size alone the scale collapses to that rounding, and neither the
    /// convergence test nor the merit could see that the step had been
    /// solved (issue 28's stick–slip oscillator). Call after
    /// [`Residual::evaluate`] and before [`Residual::judge_pairs`], whose
    /// scales read the states'; measuring again with the same spread gives
    /// the same scales.
    pub(super) fn widen_states(&mut self, spread: &Spread) {
        let nx = self.base.len();
        let (base, scale) = (&self.base[..nx], &mut self.scale[..nx]);
        let sx = &spread.x[..nx * nx];
        scale.copy_from_slice(base);
        for k in 0..nx {
            let bk = base[k];
            if bk == 0.0 {
                continue;
            }
            let column = &sx[k * nx..(k + 1) * nx];
            for i in 0..nx {
                scale[i] += column[i] * bk;
            }
        }
        let Some((su, mu)) = spread.u else {
            return;
        };
        let nu = mu.len();
        let su = &su[..nx * nu];
        for j in 0..nu {
            if mu[j] == 0.0 {
                continue;
            }
            let column = &su[j * nx..(j + 1) * nx];
            for i in 0..nx {
                scale[i] += column[i] * mu[j];
            }
        }
    }

    /// The largest `|Φ_i| / max(s_i, FLOOR)` (NaN, from a program evaluated
    /// outside its domain, counts as infinite, where `f64::max` would drop it).
    pub(super) fn scaled_max(&self) -> f64 {
        self.scaled_max_of(self.phi.len())
    }

    /// [`Residual::scaled_max`] of the first `n` components (`n = nx`: the
    /// states').
    pub(super) fn scaled_max_of(&self, n: usize) -> f64 {
        self.phi[..n]
            .iter()
            .zip(&self.scale)
            .map(|(p, s)| {
                // A scale of 0 (every term 0) is below the floor too.
                let r = p.abs() / s.max(FLOOR);
                if r.is_nan() {
                    f64::INFINITY
                } else {
                    r
                }
            })
            .fold(0.0, f64::max)
    }

    /// The merits of `self` and of `other` over the first `n` components,
    /// both measured with the larger of their two scales in each component:
    /// one yardstick for both points, and none smaller than either point's
    /// own terms (a component whose terms are all zero at one point is not
    /// measured against zero at the other).
    pub(super) fn merits_with(&self, other: &Residual, n: usize) -> (f64, f64) {
        let (mut a, mut b) = (0.0, 0.0);
        for i in 0..n {
            let s = self.scale[i].max(other.scale[i]).max(FLOOR);
            let (x, y) = (self.phi[i] / s, other.phi[i] / s);
            a += x * x;
            b += y * y;
        }
        (a.sqrt(), b.sqrt())
    }

    /// `|Φ / max(s, FLOOR)|₂` over the first `n` components (`n = nx`: the
    /// states'), with the scales `s` of another iterate.
    pub(super) fn merit_of(&self, scale: &[f64], n: usize) -> f64 {
        self.phi[..n]
            .iter()
            .zip(scale)
            .map(|(p, s)| {
                let r = p / s.max(FLOOR);
                r * r
            })
            .sum::<f64>()
            .sqrt()
    }
}

/// The smallest scale a component is measured against: below it the terms'
/// rounding (`ε s`) is below the smallest normal number, where floating
/// point loses its relative precision (a state decaying to rest ends up in
/// the subnormal range, and every iterate there carries an error of the
/// size of its own value). Such components are measured against this floor
/// instead; the step flushes subnormal results to zero anyway (`tidy`).
const FLOOR: f64 = f64::MIN_POSITIVE / f64::EPSILON;

/// `mid(d (u - hi), c, d (u - lo))` for `u` in `[lo, hi]` and a rate `d >= 0`
/// (infinite: `u` counts as on a bound only when exactly there): the
/// natural residual of `lo <= u <= hi ⟂ c` in the units of `c`. A bound
/// reached (or infinite) gives no room on its side, whatever `d` is, so
/// `0 * ∞` never arises; a NaN `c` stays NaN (the comparisons fail).
#[inline]
fn natural_residual(c: f64, d: f64, u: f64, lo: f64, hi: f64) -> f64 {
    let below = if u >= hi {
        0.0
    } else if hi < f64::INFINITY && d < f64::INFINITY {
        d * (u - hi)
    } else {
        f64::NEG_INFINITY
    };
    let above = if u <= lo {
        0.0
    } else if lo > f64::NEG_INFINITY && d < f64::INFINITY {
        d * (u - lo)
    } else {
        f64::INFINITY
    };
    if c < below {
        below
    } else if c > above {
        above
    } else {
        c
    }
}

/// How the rounding of each unknown spreads into the states' equations
/// (see [`Residual::widen_states`]): `|hθ ∂f/∂x|` (`nx × nx`, column-major)
/// at the iterate the last linearization was taken at, and with it, once an
/// LCP verified the multipliers, `P = (I + |hθ ∂f/∂x|) |J_x⁻¹ J_u|`
/// (`nx × nu`) and the multipliers' scales `μ`.
pub(super) struct Spread<'a> {
    pub(super) x: &'a [f64],
    pub(super) u: Option<(&'a [f64], &'a [f64])>,
}

/// The step's data that do not change during its iteration.
#[derive(Clone, Copy)]
pub(super) struct StepData<'a> {
    pub(super) lcs: &'a Lcs,
    pub(super) x: &'a [f64],
    pub(super) w: &'a [f64],
    pub(super) t: f64,
    pub(super) h: f64,
}

#[cfg(test)]
mod tests {
    use super::natural_residual;

    const INF: f64 = f64::INFINITY;

    #[test]
    fn the_natural_residual_is_measured_in_the_units_of_the_relation() {
        // Inside the box: the relation itself, whatever the rate.
        assert_eq!(natural_residual(0.25, 3.0, 0.5, 0.0, 1.0), 0.25);
        assert_eq!(natural_residual(-0.25, INF, 0.5, 0.0, INF), -0.25);
        // On a bound: only the wrong-signed part counts, up to the rate times
        // the width of the box (the distance to the other bound).
        assert_eq!(natural_residual(5.0, 3.0, 0.0, 0.0, 1.0), 0.0);
        assert_eq!(natural_residual(-5.0, 3.0, 0.0, 0.0, INF), -5.0);
        assert_eq!(natural_residual(-5.0, 3.0, 0.0, 0.0, 1.0), -3.0);
        assert_eq!(natural_residual(-5.0, 3.0, 1.0, 0.0, 1.0), 0.0);
        assert_eq!(natural_residual(5.0, 3.0, 1.0, -INF, 1.0), 5.0);
        assert_eq!(natural_residual(5.0, 3.0, 1.0, 0.0, 1.0), 3.0);
        // Near a bound: at most the rate times the distance to it.
        assert_eq!(natural_residual(5.0, 4.0, 0.25, 0.0, 1.0), 1.0);
        assert_eq!(natural_residual(-5.0, 4.0, 0.75, 0.0, 1.0), -1.0);
        // Without a rate a multiplier off its bound is inside the box.
        assert_eq!(natural_residual(5.0, INF, 1e-300, 0.0, 1.0), 5.0);
        // A free pair and a fixed one; infinite bounds never meet a zero rate.
        assert_eq!(natural_residual(2.0, 0.0, 7.0, -INF, INF), 2.0);
        assert_eq!(natural_residual(2.0, 0.0, 0.5, 0.5, 0.5), 0.0);
        // A relation evaluated outside its domain is never met.
        assert!(natural_residual(f64::NAN, 3.0, 0.0, 0.0, 1.0).is_nan());
        assert!(natural_residual(f64::NAN, INF, 0.5, 0.5, 0.5).is_nan());
    }

    #[test]
    fn scaling_the_multiplier_scales_nothing_but_the_rate() {
        // u in units 2^30 times smaller: u, its bounds and 1/d scale by 2^30.
        let f = (1u64 << 30) as f64;
        for (c, d, u, lo, hi) in [
            (5.0, 4.0, 0.25, 0.0, 1.0),
            (-5.0, 4.0, 0.75, 0.0, 1.0),
            (0.1, 2.0, 0.0, 0.0, INF),
            (-0.3, 0.5, 2.0, -INF, 2.0),
        ] {
            let scaled = natural_residual(c, d / f, u * f, lo * f, hi * f);
            assert_eq!(natural_residual(c, d, u, lo, hi), scaled);
        }
    }
}
