//! The scales the acceptance test judges each component by.
//!
//! Component `i` of `w = M u + q` is judged in the units of `w_i` alone (see
//! `acceptance`): its magnitude `s_i`, the size of the terms `w_i` sums; its
//! exchange rate `d_i`, how much `w_i` moves per unit of `u_i`; and its
//! resolved magnitude `sigma_i`, what `w_i` would move by if every `u_j`
//! strictly inside its box (computed by a solve, and carrying its rounding)
//! moved by its own scale `s_j / d_j`. The dense solver computes them here from a
//! dense matrix; the band solver computes the same numbers from its band.

use super::Problem;
use nalgebra::DMatrix;

/// The exchange rate of a component from its diagonal entry and its couplings
/// `(M_ij, M_ji, M_jj)` with the other components (see the module text); None
/// when the matrix gives none.
#[inline]
pub(super) fn rate(m_ii: f64, couplings: impl Iterator<Item = (f64, f64, f64)>) -> Option<f64> {
    let diag = m_ii.abs();
    if diag > 0.0 && diag < f64::INFINITY {
        return Some(diag);
    }
    let mut best = 0.0f64;
    for (m_ij, m_ji, m_jj) in couplings {
        if m_jj > 0.0 {
            let r = (m_ij * m_ji).abs() / m_jj;
            if r < f64::INFINITY {
                best = best.max(r);
            }
        }
    }
    (best > 0.0).then_some(best)
}

/// The exchange rate of a component as two numbers, `d_i = rate + s_i * per_width`
/// at a candidate of magnitude `s_i`: the matrix's rate, or when it gives none
/// `s_i` over the component's own scale, the width of its box (or its largest
/// finite bound). With no scale at all (no finite bound: nothing to be near)
/// only an exact bound counts, `f64::MAX`.
#[inline]
pub(super) fn rate_or_width(rate: Option<f64>, lo: f64, hi: f64) -> (f64, f64) {
    if let Some(r) = rate {
        return (r, 0.0);
    }
    let width = if lo.is_finite() && hi.is_finite() {
        hi - lo
    } else {
        [lo, hi]
            .iter()
            .filter(|x| x.is_finite())
            .fold(0.0f64, |m, x| m.max(x.abs()))
    };
    if width > 0.0 && width < f64::INFINITY {
        (0.0, 1.0 / width)
    } else {
        (f64::MAX, 0.0)
    }
}

/// Writes the exchange rate of every component of the dense problem's matrix
/// `m` with bounds `lo`, `hi` into `rate` and `per_width` ([`rate_or_width`]).
pub(super) fn dense_rates(
    m: &DMatrix<f64>,
    lo: &[f64],
    hi: &[f64],
    rate: &mut [f64],
    per_width: &mut [f64],
) {
    let n = rate.len();
    for i in 0..n {
        let couplings = (0..n)
            .filter(move |&j| j != i)
            .map(|j| (m[(i, j)], m[(j, i)], m[(j, j)]));
        (rate[i], per_width[i]) = rate_or_width(self::rate(m[(i, i)], couplings), lo[i], hi[i]);
    }
}

/// The magnitudes `s_i = |q_i| + sum_j |M_ij u_j|` of the dense problem `p` at `u`.
pub(super) fn magnitudes(p: &Problem, u: &[f64], s: &mut [f64]) {
    let n = p.n();
    let (q, m, u, s) = (
        &p.q.as_slice()[..n],
        &p.m.as_slice()[..n * n],
        &u[..n],
        &mut s[..n],
    );
    for i in 0..n {
        let mut si = q[i].abs();
        for j in 0..n {
            si += (m[i + j * n] * u[j]).abs();
        }
        s[i] = si;
    }
}

/// The resolved magnitudes `sigma_i = s_i + sum_j |M_ij| s_j / d_j` of the
/// dense matrix `m` (see the module text), with `d_j` from `(rate, per_width)`,
/// the sum over the components `j` of `u` strictly inside their box
/// `[lo, hi]` ([`moves`]).
pub(super) fn dense_resolution(
    m: &DMatrix<f64>,
    rates: (&[f64], &[f64]),
    s: &[f64],
    (lo, hi, u): (&[f64], &[f64], &[f64]),
    sigma: &mut [f64],
) {
    let n = s.len();
    let m = &m.as_slice()[..n * n];
    for i in 0..n {
        let mut x = s[i];
        for j in 0..n {
            if moves(lo[j], hi[j], u[j]) {
                x += m[i + j * n].abs() * scale_of_u(rates, s, j);
            }
        }
        sigma[i] = x;
    }
}

/// Whether `u_j` carries the rounding of the solve that gave it, and so
/// counts in its neighbours' resolved magnitudes: a component strictly
/// inside its box. One on a bound is that bound exactly (the candidate is
/// clamped, and an active set pins it there), and `M_ij u_j` adds no more
/// than the rounding of one product to `w_i`. Counting it let a backlash's
/// or a diode's wrong-signed relation pass: the other side of a backlash,
/// at its bound with `w_j` the width of the gap (0.3) and `d_j` the step
/// size, lent `w_i` a scale of 0.3 and a violation of 2e-10 at a relation
/// whose terms were 6e-4 was accepted, the multiplier kept on its bound
/// where it should have left it (issue 28's random models; the Newton
/// iteration, which measures the pair in its own terms, then found no
/// direction to move in).
#[inline(always)]
pub(super) fn moves(lo: f64, hi: f64, u: f64) -> bool {
    u > lo && u < hi
}

/// `s_j / d_j`, the scale of `u_j` (zero where `s_j` is: a component whose
/// only scale is its width has `d_j = 0` there).
#[inline]
pub(super) fn scale_of_u((rate, per_width): (&[f64], &[f64]), s: &[f64], j: usize) -> f64 {
    let d = rate[j] + s[j] * per_width[j];
    if d > 0.0 {
        s[j] / d
    } else {
        0.0
    }
}
