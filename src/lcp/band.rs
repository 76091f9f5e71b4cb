//! Square band matrices and their LU factorization without row exchanges.
//!
//! A chain of bodies touching only their neighbours gives an LCP matrix whose
//! nonzeros sit within a few diagonals of the main one. Storing just those
//! diagonals makes the product `M u + q` (with the acceptance test's scales,
//! `scales.rs`, in the same pass) and a factorization cost `O(n * bandwidth)`
//! and `O(n * kl * ku)` instead of `O(n^2)` and `O(n^3)`.
//! Without row exchanges the LU factors keep the band of `M` exactly, so they
//! fit in the same storage; that is valid whenever every leading principal
//! minor is nonzero, which the block-pivoting solver guarantees for
//! P-matrices and checks pivot by pivot otherwise.

mod lu;
#[cfg(test)]
mod tests;

use super::scales::moves;
pub(super) use lu::BandLu;
use nalgebra::DMatrix;

/// Square band matrix with `kl` sub- and `ku` super-diagonals.
///
/// Row-major: row `i` keeps columns `i - kl ..= i + ku` in `kl + ku + 1`
/// consecutive slots, so a row of the product is one contiguous dot product.
/// Slots that would fall outside the matrix (first and last rows) stay zero.
#[derive(Clone, Debug, PartialEq)]
pub struct Band {
    n: usize,
    kl: usize,
    ku: usize,
    a: Vec<f64>,
}

impl Band {
    /// The zero matrix of order `n` with room for `kl` sub- and `ku`
    /// super-diagonals.
    pub fn zeros(n: usize, kl: usize, ku: usize) -> Band {
        Band {
            n,
            kl,
            ku,
            a: vec![0.0; n * (kl + ku + 1)],
        }
    }

    /// Order of the matrix.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of sub-diagonals kept.
    pub fn kl(&self) -> usize {
        self.kl
    }

    /// Number of super-diagonals kept.
    pub fn ku(&self) -> usize {
        self.ku
    }

    fn width(&self) -> usize {
        self.kl + self.ku + 1
    }

    /// Storage index of entry `(i, j)` when it lies in the band.
    fn slot(&self, i: usize, j: usize) -> Option<usize> {
        let inside = i < self.n && j < self.n && j + self.kl >= i && j <= i + self.ku;
        inside.then(|| i * self.width() + j + self.kl - i)
    }

    /// Entry `(i, j)`; zero outside the band. Panics when `i` or `j` is not
    /// below `n`.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        assert!(
            i < self.n && j < self.n,
            "({i}, {j}) outside {0}x{0}",
            self.n
        );
        self.slot(i, j).map_or(0.0, |k| self.a[k])
    }

    /// Sets entry `(i, j)`. Panics outside the band: a setup-time error.
    pub fn set(&mut self, i: usize, j: usize, v: f64) {
        let k = self.slot_or_panic(i, j);
        self.a[k] = v;
    }

    /// Adds `v` to entry `(i, j)`. Panics outside the band.
    pub fn add(&mut self, i: usize, j: usize, v: f64) {
        let k = self.slot_or_panic(i, j);
        self.a[k] += v;
    }

    fn slot_or_panic(&self, i: usize, j: usize) -> usize {
        self.slot(i, j).unwrap_or_else(|| {
            panic!(
                "({i}, {j}) outside the band (n = {}, kl = {}, ku = {})",
                self.n, self.kl, self.ku
            )
        })
    }

    /// Sets every entry to zero (keeps the shape).
    pub fn fill_zero(&mut self) {
        self.a.fill(0.0);
    }

    /// Slots `d` of row `i` that lie inside the matrix: column `i - kl + d`.
    #[inline]
    fn row_range(&self, i: usize) -> (usize, usize) {
        (
            self.kl.saturating_sub(i),
            self.width().min(self.n + self.kl - i),
        )
    }

    /// The stored slots of row `i` (column `i - kl + d` at index `d`).
    pub(super) fn row(&self, i: usize) -> &[f64] {
        let w = self.width();
        &self.a[i * w..i * w + w]
    }

    /// `w = M x + q` without allocating. Panics when a slice is shorter than `n`.
    pub fn mul_add(&self, x: &[f64], q: &[f64], w: &mut [f64]) {
        let (n, kl, wd) = (self.n, self.kl, self.width());
        let (x, q, w) = (&x[..n], &q[..n], &mut w[..n]);
        let (i0, i1) = interior(n, kl, self.ku);
        // The few edge rows are clipped to the matrix...
        for i in (0..i0).chain(i1..n) {
            let (d0, d1) = self.row_range(i);
            let xs = &x[i + d0 - kl..i + d1 - kl];
            w[i] = dot_from(q[i], &self.a[i * wd + d0..i * wd + d1], xs);
        }
        if i0 == i1 {
            return;
        }
        // ...the others see the whole band: one window of x per row.
        let (a, x) = (&self.a[i0 * wd..i1 * wd], &x[i0 - kl..]);
        let (q, w) = (&q[i0..i1], &mut w[i0..i1]);
        // Constant widths let the compiler unroll the dot products of
        // tridiagonal and pentadiagonal chains.
        match wd {
            3 => mul_rows(3, a, x, q, w),
            5 => mul_rows(5, a, x, q, w),
            _ => mul_rows(wd, a, x, q, w),
        }
    }

    /// The exchange rate of every component (`scales::rate`), from the
    /// entries in the band: `O(n (kl + ku))`.
    pub(super) fn rates(&self, out: &mut [f64]) {
        let n = self.n;
        for (i, d) in out[..n].iter_mut().enumerate() {
            let (j0, j1) = (i.saturating_sub(self.kl), (i + self.ku + 1).min(n));
            let couplings = (j0..j1)
                .filter(move |&j| j != i)
                .map(|j| (self.get(i, j), self.get(j, i), self.get(j, j)));
            // Band problems are contact chains, whose rows all have a rate; one
            // without counts only on an exact bound.
            *d = super::scales::rate(self.get(i, i), couplings).unwrap_or(f64::MAX);
        }
    }

    /// The magnitudes `s_i = |q_i| + sum_j |M_ij x_j|` (what `w = M x + q` sums).
    pub(super) fn magnitudes(&self, x: &[f64], q: &[f64], s: &mut [f64]) {
        let (n, kl, wd) = (self.n, self.kl, self.width());
        for i in 0..n {
            let (d0, d1) = self.row_range(i);
            let row = &self.a[i * wd + d0..i * wd + d1];
            let xs = &x[i + d0 - kl..i + d1 - kl];
            s[i] = row
                .iter()
                .zip(xs)
                .fold(q[i].abs(), |s, (a, b)| s + (a * b).abs());
        }
    }

    /// [`Band::mul_add`] and [`Band::magnitudes`] in one pass over the band,
    /// each summed in the same order as there, so both are the same to the bit.
    /// The band solver needs both for every candidate; apart, with the
    /// magnitudes' rows clipped one by one, they cost the 1,000-bead column
    /// more than its LU solve.
    pub(super) fn mul_add_magnitudes(&self, x: &[f64], q: &[f64], w: &mut [f64], s: &mut [f64]) {
        let (n, kl, wd) = (self.n, self.kl, self.width());
        let (x, q, w, s) = (&x[..n], &q[..n], &mut w[..n], &mut s[..n]);
        let (i0, i1) = interior(n, kl, self.ku);
        for i in (0..i0).chain(i1..n) {
            let (d0, d1) = self.row_range(i);
            let xs = &x[i + d0 - kl..i + d1 - kl];
            (w[i], s[i]) = dot_and_size(q[i], &self.a[i * wd + d0..i * wd + d1], xs);
        }
        if i0 == i1 {
            return;
        }
        let (a, x) = (&self.a[i0 * wd..i1 * wd], &x[i0 - kl..]);
        let (q, w, s) = (&q[i0..i1], &mut w[i0..i1], &mut s[i0..i1]);
        match wd {
            3 => sized_rows(3, a, x, q, w, s),
            5 => sized_rows(5, a, x, q, w, s),
            _ => sized_rows(wd, a, x, q, w, s),
        }
    }

    /// The resolved magnitudes `sigma_i = s_i + sum_j |M_ij| s_j / d_j`
    /// (`acceptance`), from the magnitudes `s` and the exchange rates `d`,
    /// the sum over the components of `u` strictly inside their box `[lo, hi]`
    /// (`scales::moves`: one on a bound carries no solve's rounding).
    /// `scale` (length `n`) receives the scales `s_j / d_j` (0 for a
    /// component on a bound), one division per component rather than one per
    /// entry; the sums are those of [`Band::resolution`], to the bit.
    pub(super) fn resolution_with(
        &self,
        d: &[f64],
        s: &[f64],
        (lo, hi, u): (&[f64], &[f64], &[f64]),
        scale: &mut [f64],
        sigma: &mut [f64],
    ) {
        let (n, kl, wd) = (self.n, self.kl, self.width());
        let (d, s, scale, sigma) = (&d[..n], &s[..n], &mut scale[..n], &mut sigma[..n]);
        let (lo, hi, u) = (&lo[..n], &hi[..n], &u[..n]);
        for j in 0..n {
            scale[j] = if moves(lo[j], hi[j], u[j]) {
                s[j] / d[j]
            } else {
                0.0
            };
        }
        let (i0, i1) = interior(n, kl, self.ku);
        for i in (0..i0).chain(i1..n) {
            let (d0, d1) = self.row_range(i);
            let xs = &scale[i + d0 - kl..i + d1 - kl];
            sigma[i] = abs_dot_from(s[i], &self.a[i * wd + d0..i * wd + d1], xs);
        }
        if i0 == i1 {
            return;
        }
        let (a, scale) = (&self.a[i0 * wd..i1 * wd], &scale[i0 - kl..]);
        let (s, sigma) = (&s[i0..i1], &mut sigma[i0..i1]);
        match wd {
            3 => resolved_rows(3, a, scale, s, sigma),
            5 => resolved_rows(5, a, scale, s, sigma),
            _ => resolved_rows(wd, a, scale, s, sigma),
        }
    }

    /// [`Band::resolution_with`] with its own scratch (allocates; tests and
    /// diagnostics).
    pub(super) fn resolution(
        &self,
        d: &[f64],
        s: &[f64],
        box_u: (&[f64], &[f64], &[f64]),
        sigma: &mut [f64],
    ) {
        let mut scale = vec![0.0; self.n];
        self.resolution_with(d, s, box_u, &mut scale, sigma);
    }

    /// The same matrix as a dense one (tests, inspection).
    pub fn to_dense(&self) -> DMatrix<f64> {
        let mut d = DMatrix::zeros(self.n, self.n);
        self.copy_to_dense(&mut d);
        d
    }

    /// Writes the matrix into a dense one of the same order, without allocating.
    pub(super) fn copy_to_dense(&self, d: &mut DMatrix<f64>) {
        d.fill(0.0);
        for i in 0..self.n {
            let (d0, d1) = self.row_range(i);
            for k in d0..d1 {
                d[(i, i + k - self.kl)] = self.a[i * self.width() + k];
            }
        }
    }
}

/// Rows `i0..i1` whose band lies wholly inside the matrix (`i0 <= i1`).
fn interior(n: usize, kl: usize, ku: usize) -> (usize, usize) {
    let i0 = kl.min(n);
    (i0, n.saturating_sub(ku).max(i0))
}

/// `s + a . b`, summed from `s` onward.
#[inline(always)]
fn dot_from(s: f64, a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(s, |s, (x, y)| s + x * y)
}

/// `(s + a . b, |s| + sum |a_k b_k|)`, both summed from `s` onward.
#[inline(always)]
fn dot_and_size(s: f64, a: &[f64], b: &[f64]) -> (f64, f64) {
    a.iter().zip(b).fold((s, s.abs()), |(w, m), (x, y)| {
        (w + x * y, m + (x * y).abs())
    })
}

/// `s + |a| . b`, summed from `s` onward.
#[inline(always)]
fn abs_dot_from(s: f64, a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(s, |s, (x, y)| s + x.abs() * y)
}

/// [`dot_and_size`] of full-width rows (`x` starts at the first row's first
/// column). Always inlined so that a constant `wd` specializes it.
#[inline(always)]
fn sized_rows(wd: usize, a: &[f64], x: &[f64], q: &[f64], w: &mut [f64], s: &mut [f64]) {
    let rows = a.chunks_exact(wd).zip(x.windows(wd));
    for ((row, xs), ((qi, wi), si)) in rows.zip(q.iter().zip(w).zip(s)) {
        (*wi, *si) = dot_and_size(*qi, row, xs);
    }
}

/// [`abs_dot_from`] of full-width rows, from `s` into `sigma` (`scale`
/// starts at the first row's first column). Always inlined, as [`sized_rows`].
#[inline(always)]
fn resolved_rows(wd: usize, a: &[f64], scale: &[f64], s: &[f64], sigma: &mut [f64]) {
    let rows = a.chunks_exact(wd).zip(scale.windows(wd));
    for ((row, xs), (si, out)) in rows.zip(s.iter().zip(sigma)) {
        *out = abs_dot_from(*si, row, xs);
    }
}

/// `w = q + rows x` for full-width rows; `x` starts at the first row's first
/// column. Always inlined so that a constant `wd` specializes it.
#[inline(always)]
fn mul_rows(wd: usize, a: &[f64], x: &[f64], q: &[f64], w: &mut [f64]) {
    for (((row, xs), qi), wi) in a.chunks_exact(wd).zip(x.windows(wd)).zip(q).zip(w) {
        *wi = dot_from(*qi, row, xs);
    }
}
