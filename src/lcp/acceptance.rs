//! The single acceptance test, and why it does not depend on the units.
//!
//! Every stage of the solver (warm start, substitution, block pivoting, Lemke,
//! polishing, enumeration) and the test oracle hand their candidates here, so
//! "solved" means the same thing everywhere: `u` clamped into the box, `w = M u
//! + q` recomputed from that `u`, and each component's complementarity
//! residual small against the size of the terms its `w_i` is made of.
//!
//! A model written in grams instead of kilograms, or in microfarads instead of
//! farads, gives the same LCP with its rows and columns rescaled: `u_j` in other
//! units (`c_j u_j`), `w_i` in other units (`r_i w_i`), `M_ij` by `r_i / c_j`.
//! Which active set solves the problem does not change, so the test must not
//! either. Component `i` is judged in the units of `w_i` alone:
//!
//! * its *magnitude* `s_i = |q_i| + sum_j |M_ij u_j|`, the size of the terms
//!   that `w_i` sums (what rounding in `w_i` is relative to);
//! * its *exchange rate* `d_i`, how much `w_i` moves per unit of `u_i`:
//!   `|M_ii|`, or when the diagonal is zero (the sliding-speed row of a
//!   friction cone, an equation that a component enters only through its
//!   neighbours) the largest two-step response `|M_ij M_ji| / M_jj` over the
//!   components `j` with a positive diagonal that it is coupled with both ways
//!   (both carry the units of `w_i / u_i`); with neither (a sign block's
//!   multiplier, whose `y` does not read it), `s_i / width_i`, the width of its
//!   box (or its largest finite bound) being the only scale `u_i` has, so that
//!   `u_i` within `tol` of the width from a bound counts as on it;
//! * its residual `rho_i = min(w_i, d_i (u_i - lo_i))` when `w_i >= 0` and
//!   `min(-w_i, d_i (hi_i - u_i))` otherwise: the natural-map residual with `u_i`
//!   converted into the units of `w_i` (zero exactly at solutions, for any
//!   positive `d_i`), or `d_i` times the distance the candidate lay outside its
//!   box when that is larger.
//!
//! The candidate is judged as the clamped point, with `w` recomputed from it;
//! the distance clamped off still counts, because the caller keeps the active
//! set the candidate came from (a free component far outside its box is not
//! free, even when its bound happens to solve the problem). The clamp of `u_j`
//! moves the `w` of every row of column `j`, so a stage that decides on the
//! unclamped candidate must not call a component finished when its clamp
//! would spoil a quieter neighbour (pivoting counts it as infeasible:
//! `pivoting.rs`, `banded/pivot.rs`).
//!
//! A candidate is accepted when `rho_i <= tol * s_i` for every `i`, or failing
//! that when `rho_i <= tol * sigma_i` for every `i`, with the *resolved
//! magnitude* `sigma_i = s_i + sum_j |M_ij| s_j / d_j`: what `w_i` would move by
//! if each `u_j` moved by its own scale `s_j / d_j`, the sum over the `u_j`
//! strictly inside their boxes (one on a bound is the bound exactly, and
//! carries no solve's rounding into `w_i`: see `scales::moves`). The second form is for
//! degenerate components: a component that is free and zero at once (a friction
//! direction at rest) comes out of a linear solve as round-off of the size of
//! its neighbours, say 2e-21 next to a sliding speed of 3e-2, and a row that
//! sums only such terms (`mu N - t+ - t-` with `N = 0`) is then all round-off,
//! which no tolerance relative to its own terms can accept. A row none of
//! whose neighbours is inside its box gets nothing from the second form:
//! its `w_i` is data (`q_i` and exact bounds), and a violation there, even
//! of round-off size (a friction row of a contact with no normal force
//! between beads that fall together, `q_i` of 1e-18), is one the exact LCP
//! has too; pivoting opens it (`pivoting`). The residual
//! reported is `max_i rho_i / s_i` when the first form accepts, else
//! `max_i rho_i / sigma_i` ([`residual`]), a pure number. Each of `s_i`, `d_i` and
//! `rho_i` (and `sigma_i`) scales by `r_i` alone, so the verdict is the same in any units (up to
//! the rounding of the rescaled numbers). The previous test,
//! `max_i rho_i <= tol (1 + max|q| + max bound)`, was absolute for small data:
//! a problem whose percussions are 1e-6 N·s accepted a friction bound violated
//! by 1e-3 of itself.

use super::scales::{dense_rates, dense_resolution, magnitudes};
use super::{Bound, Problem};

/// The residual of one component in the units of its `w` (`u` in the box):
/// `min(w, d (u - lo))` when `w >= 0`, else `min(-w, d (hi - u))`.
///
/// Written as one `min` of `|w|` and a selected distance, which is the same
/// number (up to the sign of a zero `w`): the two arms of a branch on the sign
/// of `w` cost a misprediction whenever `w` hovers around zero, as it does at
/// a sliding mode's equilibrium, every step; a select costs none.
#[inline(always)]
fn rho(lo: f64, hi: f64, d: f64, u: f64, w: f64) -> f64 {
    let gap = if w >= 0.0 { u - lo } else { hi - u };
    w.abs().min(d * gap)
}

/// The verdict gathered over the components of one candidate.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tally {
    tol: f64,
    ok: bool,
    sane: bool,
    nan: bool,
    worst: f64,
}

impl Tally {
    /// An empty tally for the tolerance `tol`; a negative or NaN one accepts
    /// nothing.
    #[inline(always)]
    pub(super) fn new(tol: f64) -> Self {
        Tally {
            tol,
            ok: tol >= 0.0,
            sane: true,
            nan: false,
            worst: 0.0,
        }
    }

    /// Adds component `(u, w)` with magnitude `s` and exchange rate `d`; `u`
    /// must lie in `[lo, hi]`, clamped there by the caller from `out` away.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn add(&mut self, lo: f64, hi: f64, d: f64, u: f64, w: f64, s: f64, out: f64) {
        let r = rho(lo, hi, d, u, w).max(d * out);
        // `abs() < inf`: `is_finite` in one comparison (NaN fails it). An
        // infinite `w_i` at a bound passes the residual but is no answer.
        self.sane &= (w.abs() < f64::INFINITY) & (u.abs() < f64::INFINITY);
        self.nan |= u.is_nan() | w.is_nan();
        self.ok &= r <= self.tol * s;
        // A zero magnitude means every term of `w_i` is zero, and so is `r`.
        self.worst = self.worst.max(r / s.max(f64::MIN_POSITIVE));
    }

    /// The verdict and the residual (NaN when a number was NaN).
    #[inline(always)]
    pub(super) fn finish(self) -> (bool, f64) {
        if self.nan {
            return (false, f64::NAN);
        }
        (self.ok & self.sane, self.worst)
    }
}

/// `x` clamped into `[lo, hi]` (bounds not NaN, `lo <= hi`), as one compare and
/// select per side, which the processor does in one instruction each.
///
/// Equal to `x.max(lo).min(hi)` except for a NaN `x`, which stays NaN rather
/// than becoming `lo` (and the verdict then rejects it).
#[inline(always)]
pub(super) fn clamp_value(x: f64, lo: f64, hi: f64) -> f64 {
    let x = if lo > x { lo } else { x };
    if hi < x {
        hi
    } else {
        x
    }
}

/// Clamps `u` into the box, writing into `out` how far each component moved;
/// true when one did (else `u` is as it was, and so is anything computed
/// from it).
#[inline(always)]
pub(super) fn clamp_to_box(lo: &[f64], hi: &[f64], u: &mut [f64], out: &mut [f64]) -> bool {
    let n = u.len();
    let (lo, hi, out) = (&lo[..n], &hi[..n], &mut out[..n]);
    let mut moved = false;
    for i in 0..n {
        let c = clamp_value(u[i], lo[i], hi[i]);
        out[i] = (u[i] - c).abs();
        // `!=` rather than `out > 0`: a NaN `u` stays NaN and counts as moved.
        moved |= u[i] != c;
        u[i] = c;
    }
    moved
}

/// The verdict on a candidate clamped into the box by [`clamp_to_box`] (which
/// wrote `out`), with `w` and the magnitudes `s` computed from the clamped `u`,
/// and the exchange rates `(rate, per_width)` ([`rate_or_width`](super::scales::rate_or_width)).
#[allow(clippy::too_many_arguments)]
pub(super) fn judge(
    lo: &[f64],
    hi: &[f64],
    (rate, per_width): (&[f64], &[f64]),
    u: &[f64],
    w: &[f64],
    s: &[f64],
    out: &[f64],
    tol: f64,
) -> (bool, f64) {
    let n = u.len();
    let (lo, hi, w, s, out) = (&lo[..n], &hi[..n], &w[..n], &s[..n], &out[..n]);
    let (rate, per_width) = (&rate[..n], &per_width[..n]);
    let mut t = Tally::new(tol);
    for i in 0..n {
        let d = rate[i] + s[i] * per_width[i];
        t.add(lo[i], hi[i], d, u[i], w[i], s[i], out[i]);
    }
    t.finish()
}

/// The dense solver's acceptance test: the exchange rates of its matrix and
/// room for the magnitudes, all sized once.
#[derive(Clone, Debug)]
pub(super) struct Gauge {
    rate: Vec<f64>,
    per_width: Vec<f64>,
    mag: Vec<f64>,
    sigma: Vec<f64>,
    /// The distances the last candidate was clamped by, for the second form.
    out: Vec<f64>,
    /// A rejected candidate of [`Gauge::verify_sized`], judged again here.
    cand_u: Vec<f64>,
    cand_w: Vec<f64>,
}

impl Gauge {
    /// Buffers for problems of size `n` (rates unset until [`Gauge::set_problem`]).
    pub(super) fn new(n: usize) -> Self {
        Gauge {
            rate: vec![0.0; n],
            per_width: vec![0.0; n],
            mag: vec![0.0; n],
            sigma: vec![0.0; n],
            out: vec![0.0; n],
            cand_u: vec![0.0; n],
            cand_w: vec![0.0; n],
        }
    }

    /// Derives the exchange rates of `p`'s matrix and bounds (once per matrix
    /// and bounds).
    pub(super) fn set_problem(&mut self, p: &Problem) {
        let (lo, hi) = (p.lo.as_slice(), p.hi.as_slice());
        dense_rates(&p.m, lo, hi, &mut self.rate, &mut self.per_width);
    }

    /// The exchange rate of component `i` at magnitude `s` ([`rate_or_width`](super::scales::rate_or_width)).
    #[inline(always)]
    pub(super) fn rate_at(&self, i: usize, s: f64) -> f64 {
        self.rate[i] + s * self.per_width[i]
    }

    /// Accepts or rejects a candidate of `p`. On return `u` is clamped into the
    /// box and `w = M u + q` is recomputed from it; the verdict and the
    /// residual are returned.
    pub(super) fn verify(
        &mut self,
        p: &Problem,
        u: &mut [f64],
        w: &mut [f64],
        tol: f64,
    ) -> (bool, f64) {
        self.verify_sized(p.n(), p, p.q.as_slice(), u, w, tol)
    }

    /// [`Gauge::verify`] for a problem of size `n`, which the warm-started step
    /// may know at compile time, with `q` given apart (the values of `p.q`,
    /// perhaps the caller's local copy). `w_i` and its magnitude are summed row
    /// by row in column order, `q_i + M_i0 u_0 + M_i1 u_1 + ...`, the order of
    /// [`crate::linalg::gemv_from`], so `w` is the same to the bit.
    ///
    /// This is most of a warm-started step, so it is written for the step:
    /// the verdict and the residual of the first form come out of the same
    /// numbers as [`Tally::add`]'s, taken with plain comparisons instead of
    /// `min`/`max` (five instructions each, for NaN operands) and without a
    /// branch per component. They are the tally's numbers whenever every `u_i`
    /// and `w_i` is finite (a NaN distance to an infinite bound, `0 * inf`,
    /// loses each comparison as `min` ignores it); otherwise, or when the
    /// verdict is no, [`Gauge::rejudge`] (not inlined) judges the candidate
    /// again with the tally and the second form, so every number a caller sees
    /// is the one the tally alone would give.
    #[inline(always)]
    pub(super) fn verify_sized(
        &mut self,
        n: usize,
        p: &Problem,
        q: &[f64],
        u: &mut [f64],
        w: &mut [f64],
        tol: f64,
    ) -> (bool, f64) {
        debug_assert_eq!(n, p.n());
        let (q, lo, hi) = (&q[..n], &p.lo.as_slice()[..n], &p.hi.as_slice()[..n]);
        let (u, w, m) = (&mut u[..n], &mut w[..n], &p.m.as_slice()[..n * n]);
        let (rate, per_width) = (&self.rate[..n], &self.per_width[..n]);
        let out = &mut self.out[..n];
        // The distances clamped off go to `out` for the second form, and to `w`
        // for this one: row `i` reads `u` only, so `w_i` holds its distance
        // until it is computed, and a caller's local `w` keeps it in a register
        // (`out` is only stored on this path, never reloaded).
        for i in 0..n {
            let c = clamp_value(u[i], lo[i], hi[i]);
            let o = (u[i] - c).abs();
            (u[i], w[i], out[i]) = (c, o, o);
        }
        let mut ok = tol >= 0.0;
        // `0 x` is 0 for finite `x` and NaN otherwise: the sum is 0 exactly
        // when every `u_i` and `w_i` is finite.
        let mut finite = 0.0;
        let mut worst = 0.0f64;
        for i in 0..n {
            let (mut wi, mut si) = (q[i], q[i].abs());
            for j in 0..n {
                let term = m[i + j * n] * u[j];
                wi += term;
                si += term.abs();
            }
            let out_i = w[i];
            w[i] = wi;
            finite += 0.0 * wi + 0.0 * u[i];
            let d = rate[i] + si * per_width[i];
            let (to_lo, to_hi) = (d * (u[i] - lo[i]), d * (hi[i] - u[i]));
            // rho_i: `min(w, d (u - lo))` for `w >= 0`, `min(-w, d (hi - u))`
            // otherwise, as the larger of the two (the other arm is <= 0).
            let up = if to_lo < wi { to_lo } else { wi };
            let down = if to_hi < -wi { to_hi } else { -wi };
            let rho = if up > down { up } else { down };
            let clamped = d * out_i;
            let r = if clamped > rho { clamped } else { rho };
            ok &= r <= tol * si;
            let s = if si > f64::MIN_POSITIVE {
                si
            } else {
                f64::MIN_POSITIVE
            };
            let ratio = r / s;
            worst = if ratio > worst { ratio } else { worst };
        }
        if ok & (finite == 0.0) {
            return (true, worst);
        }
        // Through the gauge's own buffers: handing the caller's `u` and `w` to
        // a function that is not inlined would keep a caller's local vectors
        // in memory on every step, and the step's next state would wait on
        // reloading them (that cost sign_spiral about a third of its step).
        self.cand_u[..n].copy_from_slice(u);
        self.cand_w[..n].copy_from_slice(w);
        self.rejudge(p, n, tol)
    }

    /// The whole test on a candidate the inline verdict rejected (the clamped
    /// `u` and its `w` in `cand_u`, `cand_w`, the distances in `out`): the
    /// first form's tally, then the second form.
    #[inline(never)]
    fn rejudge(&mut self, p: &Problem, n: usize, tol: f64) -> (bool, f64) {
        let (lo, hi) = (&p.lo.as_slice()[..n], &p.hi.as_slice()[..n]);
        let (u, w) = (
            std::mem::take(&mut self.cand_u),
            std::mem::take(&mut self.cand_w),
        );
        magnitudes(p, &u[..n], &mut self.mag);
        let mut t = Tally::new(tol);
        for i in 0..n {
            let d = self.rate[i] + self.mag[i] * self.per_width[i];
            t.add(lo[i], hi[i], d, u[i], w[i], self.mag[i], self.out[i]);
        }
        let (ok, r) = t.finish();
        let verdict = if ok || r.is_nan() {
            (ok, r)
        } else {
            self.resolved(p, &u[..n], &w[..n], tol)
        };
        (self.cand_u, self.cand_w) = (u, w);
        verdict
    }

    /// The second form of the test, on the clamped `u` and its `w`.
    #[inline(never)]
    fn resolved(&mut self, p: &Problem, u: &[f64], w: &[f64], tol: f64) -> (bool, f64) {
        self.resolve(p, u);
        let (lo, hi) = (p.lo.as_slice(), p.hi.as_slice());
        let rates = (&self.rate[..], &self.per_width[..]);
        judge(lo, hi, rates, u, w, &self.sigma, &self.out, tol)
    }

    /// Computes the resolved magnitudes of `p` at `u` ([`Gauge::resolved_magnitudes`]).
    pub(super) fn resolve(&mut self, p: &Problem, u: &[f64]) {
        magnitudes(p, u, &mut self.mag);
        let rates = (&self.rate[..], &self.per_width[..]);
        let box_u = (p.lo.as_slice(), p.hi.as_slice(), u);
        dense_resolution(&p.m, rates, &self.mag, box_u, &mut self.sigma);
    }

    /// The resolved magnitudes of the last [`Gauge::resolve`].
    pub(super) fn resolved_magnitudes(&self) -> &[f64] {
        &self.sigma
    }

    /// Reads the active set off the verified (clamped) `u` into `active`.
    pub(super) fn classify(&mut self, p: &Problem, u: &[f64], tol: f64, active: &mut [Bound]) {
        self.resolve(p, u);
        let (lo, hi) = (p.lo.as_slice(), p.hi.as_slice());
        let rates = (&self.rate[..], &self.per_width[..]);
        classify(lo, hi, rates, u, &self.sigma, tol, active);
    }
}

/// [`Gauge::verify`] with a gauge made here (allocates; tests).
#[cfg(test)]
pub(super) fn verify_fresh(p: &Problem, u: &mut [f64], w: &mut [f64], tol: f64) -> (bool, f64) {
    let mut g = Gauge::new(p.n());
    g.set_problem(p);
    g.verify(p, u, w, tol)
}

/// Whether a component violates its side `b` of an active set by more than
/// `eps` (relative, as the acceptance test's `tol`): a free one lies outside
/// its box, a pinned one has `w` of the wrong sign. `(d, s)` are its exchange
/// rate and magnitude. A component pinned where `lo == hi` never does (any `w`
/// suits it).
#[inline(always)]
pub(super) fn violates(
    b: Bound,
    lo: f64,
    hi: f64,
    u: f64,
    w: f64,
    (d, s): (f64, f64),
    eps: f64,
) -> bool {
    let thr = eps * s;
    match b {
        Bound::Free => d * (lo - u) > thr || d * (u - hi) > thr,
        _ if lo == hi => false,
        Bound::Lower => w < -thr,
        Bound::Upper => w > thr,
    }
}

/// Reads the active set off a verified solution: a component that moving onto
/// a finite bound would change by at most the tolerance (`d_i` times the
/// distance, against `tol * s_i`, with `s` the resolved magnitudes) is pinned
/// there, everything else is free.
pub(super) fn classify(
    lo: &[f64],
    hi: &[f64],
    (rate, per_width): (&[f64], &[f64]),
    u: &[f64],
    s: &[f64],
    tol: f64,
    out: &mut [Bound],
) {
    for (i, b) in out.iter_mut().enumerate() {
        let (lo, hi, thr) = (lo[i], hi[i], tol * s[i]);
        let d = rate[i] + s[i] * per_width[i];
        *b = if lo.is_finite() && d * (u[i] - lo) <= thr {
            Bound::Lower
        } else if hi.is_finite() && d * (hi - u[i]) <= thr {
            Bound::Upper
        } else {
            Bound::Free
        };
    }
}

/// The unit-free residual `max_i rho_i / s_i` of any pair `(u, w)` (with `u`
/// outside its box counted as `d_i` times the distance), given the exchange
/// rates and (resolved) magnitudes. NaN when a term is NaN.
pub(super) fn residual_with(
    lo: &[f64],
    hi: &[f64],
    (rate, per_width): (&[f64], &[f64]),
    u: &[f64],
    w: &[f64],
    s: &[f64],
) -> f64 {
    let mut worst = 0.0f64;
    for i in 0..u.len() {
        let (lo, hi, u, w) = (lo[i], hi[i], u[i], w[i]);
        let d = rate[i] + s[i] * per_width[i];
        if u.is_nan() || w.is_nan() {
            return f64::NAN;
        }
        let c = clamp_value(u, lo, hi);
        let r = rho(lo, hi, d, c, w).max(d * (u - c).abs());
        worst = worst.max(r / s[i].max(f64::MIN_POSITIVE));
    }
    worst
}

/// The unit-free residual `max_i rho_i / sigma_i` of `(u, w)` for the dense
/// problem `p` (allocates; for tests and diagnostics). Zero exactly at solutions; NaN when any term is NaN
/// or the lengths disagree.
pub fn residual(p: &Problem, u: &[f64], w: &[f64]) -> f64 {
    let n = p.n();
    if u.len() != n || w.len() != n || p.lo.len() != n || p.hi.len() != n || p.m.len() != n * n {
        return f64::NAN;
    }
    let (lo, hi) = (p.lo.as_slice(), p.hi.as_slice());
    let (mut d, mut pw) = (vec![0.0; n], vec![0.0; n]);
    let (mut s, mut sigma) = (vec![0.0; n], vec![0.0; n]);
    dense_rates(&p.m, lo, hi, &mut d, &mut pw);
    magnitudes(p, u, &mut s);
    dense_resolution(&p.m, (&d, &pw), &s, (lo, hi, u), &mut sigma);
    residual_with(lo, hi, (&d, &pw), u, w, &sigma)
}
