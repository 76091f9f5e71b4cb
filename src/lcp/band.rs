//! Square band matrices and their LU factorization without row exchanges.
//!
//! A chain of bodies touching only their neighbours gives an LCP matrix whose
//! nonzeros sit within a few diagonals of the main one. Storing just those
//! diagonals makes the product `M u + q` and a factorization cost
//! `O(n * bandwidth)` and `O(n * kl * ku)` instead of `O(n^2)` and `O(n^3)`.
//! Without row exchanges the LU factors keep the band of `M` exactly, so they
//! fit in the same storage; that is valid whenever every leading principal
//! minor is nonzero, which the block-pivoting solver guarantees for
//! P-matrices and checks pivot by pivot otherwise.

use super::Bound;
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

    /// The exchange rate of every component (`acceptance::rate`), from the
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
            *d = super::acceptance::rate(self.get(i, i), couplings).unwrap_or(f64::MAX);
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

    /// The resolved magnitudes `sigma_i = s_i + sum_j |M_ij| s_j / d_j`
    /// (`acceptance`), from the magnitudes `s` and the exchange rates `d`.
    pub(super) fn resolution(&self, d: &[f64], s: &[f64], sigma: &mut [f64]) {
        let (n, kl, wd) = (self.n, self.kl, self.width());
        for i in 0..n {
            let (d0, d1) = self.row_range(i);
            let row = &self.a[i * wd + d0..i * wd + d1];
            let cols = i + d0 - kl..i + d1 - kl;
            let terms = row.iter().zip(&s[cols.clone()]).zip(&d[cols]);
            sigma[i] = terms.fold(s[i], |x, ((a, sj), dj)| x + a.abs() * (sj / dj));
        }
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

/// `w = q + rows x` for full-width rows; `x` starts at the first row's first
/// column. Always inlined so that a constant `wd` specializes it.
#[inline(always)]
fn mul_rows(wd: usize, a: &[f64], x: &[f64], q: &[f64], w: &mut [f64]) {
    for (((row, xs), qi), wi) in a.chunks_exact(wd).zip(x.windows(wd)).zip(q).zip(w) {
        *wi = dot_from(*qi, row, xs);
    }
}

/// LU factors of the system of one active set, in band storage of fixed shape.
///
/// The system takes row `i` of `M` for a free component and the identity row
/// for a pinned one. Its leading principal minors are then principal minors of
/// `M`, so elimination in natural order never meets a zero pivot when `M` is a
/// P-matrix, and no fill-in leaves the band. `L` (unit diagonal, not stored)
/// sits below the diagonal slot, `U` on and above it.
#[derive(Clone, Debug)]
pub(super) struct BandLu {
    f: Band,
    /// Largest magnitude in each row of the system, for the pivot test.
    row_scale: Vec<f64>,
    /// Reciprocal pivots: back substitution multiplies instead of dividing
    /// (a division in that serial recurrence dominated a warm solve).
    inv: Vec<f64>,
}

/// A pivot is rejected when it is at most this times its row's scale: the
/// system is then treated as singular.
const TINY: f64 = 1e-14;

impl BandLu {
    /// Workspace for order `n` with `kl` sub- and `ku` super-diagonals.
    pub(super) fn new(n: usize, kl: usize, ku: usize) -> Self {
        BandLu {
            f: Band::zeros(n, kl, ku),
            row_scale: vec![0.0; n],
            inv: vec![0.0; n],
        }
    }

    /// Loads the system of `active` (see the type) from `m`, whose band must
    /// fit in this one, and factors it. False on a non-finite pivot or one at
    /// most `TINY` times its row's scale; the factors are then garbage.
    ///
    /// Rows before `from` must be those of the last successful factorization
    /// (same `m`, same pattern there; `from = 0` factors everything):
    /// elimination in natural order never lets a row see the rows below it,
    /// so their factors stand and only rows `from..` are loaded and
    /// eliminated again, `O((n - from) kl ku)`. This is what keeps a change
    /// of a few contacts near the end of a long chain cheap.
    pub(super) fn factor_from(&mut self, m: &Band, active: &[Bound], from: usize) -> bool {
        let (n, kl) = (self.f.n, self.f.kl);
        let from = from.min(n);
        let w = self.f.width();
        // Where row i of `m` starts in a row of this (possibly wider) band.
        let off = kl - m.kl;
        let rows = self.f.a[from * w..n * w].chunks_exact_mut(w);
        for (i, (row, b)) in (from..n).zip(rows.zip(&active[from..n])) {
            row.fill(0.0);
            if *b == Bound::Free {
                let src = m.row(i);
                row[off..off + src.len()].copy_from_slice(src);
                // Slots outside the matrix are zero in `m`, so they stay zero here.
                self.row_scale[i] = src.iter().fold(0.0f64, |s, x| s.max(x.abs()));
            } else {
                row[kl] = 1.0;
                self.row_scale[i] = 1.0;
            }
        }
        match (kl, self.f.ku) {
            (1, 1) => self.eliminate(1, 1, from),
            (2, 2) => self.eliminate(2, 2, from),
            (kl, ku) => self.eliminate(kl, ku, from),
        }
    }

    /// Gaussian elimination in natural order on the loaded rows `from..`:
    /// the kept pivot rows just above `from` are applied to them first.
    /// Always inlined so that constant bandwidths specialize it.
    #[inline(always)]
    fn eliminate(&mut self, kl: usize, ku: usize, from: usize) -> bool {
        let (n, w) = (self.f.n, kl + ku + 1);
        let a = &mut self.f.a[..n * w];
        for k in from.saturating_sub(kl)..n {
            let inv = if k < from {
                self.inv[k]
            } else {
                let piv = a[k * w + kl];
                // Written so that NaN fails too.
                if !(piv.abs() > TINY * self.row_scale[k]) || !piv.is_finite() {
                    return false;
                }
                let inv = 1.0 / piv;
                self.inv[k] = inv;
                inv
            };
            // Row k's U part: columns k+1 ..= k+ku, clipped to the matrix.
            let cols = ku.min(n - 1 - k);
            let (top, below) = a.split_at_mut(k * w + w);
            let urow = &top[k * w + kl + 1..k * w + kl + 1 + cols];
            // A kept pivot row only reaches the reloaded rows.
            let first = if k < from { from - k } else { 1 };
            for r in first..=kl.min(n - 1 - k) {
                // Row k + r keeps column k at slot kl - r, column k+1 just after.
                let row = &mut below[(r - 1) * w + kl - r..(r - 1) * w + kl - r + 1 + cols];
                let f = row[0] * inv;
                row[0] = f;
                if f != 0.0 {
                    for (x, u) in row[1..].iter_mut().zip(urow) {
                        *x -= f * u;
                    }
                }
            }
        }
        true
    }

    /// Overwrites `b` with the solution of the factored system.
    pub(super) fn solve(&self, b: &mut [f64]) {
        match (self.f.kl, self.f.ku) {
            (1, 1) => self.substitute(1, 1, b),
            (2, 2) => self.substitute(2, 2, b),
            (kl, ku) => self.substitute(kl, ku, b),
        }
    }

    /// Forward then back substitution. Always inlined so that constant
    /// bandwidths specialize it; rows whose band is clipped by the matrix
    /// edge are split off so the others run on slices of fixed length.
    /// Both recurrences are serial, so each row's sum starts from `b_i`
    /// rather than from zero (an extra addition on the critical path).
    #[inline(always)]
    fn substitute(&self, kl: usize, ku: usize, b: &mut [f64]) {
        let (n, w) = (self.f.n, kl + ku + 1);
        let (a, inv, b) = (&self.f.a[..n * w], &self.inv[..n], &mut b[..n]);
        let forward = |i: usize, d0: usize, b: &mut [f64]| {
            let (done, rest) = b.split_at_mut(i);
            let l = &a[i * w + d0..i * w + kl];
            rest[0] = l
                .iter()
                .zip(&done[i + d0 - kl..])
                .fold(rest[0], |s, (l, y)| s - l * y);
        };
        // Rows below kl (forward) and from n - ku on (back) are clipped.
        let (i0, i1) = (kl.min(n), n.saturating_sub(ku));
        for i in 0..i0 {
            forward(i, kl - i, b);
        }
        for i in i0..n {
            forward(i, 0, b);
        }
        let back = |i: usize, cols: usize, b: &mut [f64]| {
            let (head, tail) = b.split_at_mut(i + 1);
            let u = &a[i * w + kl + 1..i * w + kl + 1 + cols];
            let s = u
                .iter()
                .zip(&tail[..cols])
                .fold(head[i], |s, (u, x)| s - u * x);
            head[i] = s * inv[i];
        };
        for i in (i1..n).rev() {
            back(i, n - 1 - i, b);
        }
        for i in (0..i1).rev() {
            back(i, ku, b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Band {
        // 5x5 with kl = 2, ku = 1; entry (i, j) = 10 i + j + 1 inside the band.
        let mut b = Band::zeros(5, 2, 1);
        for i in 0..5usize {
            for j in i.saturating_sub(2)..(i + 2).min(5) {
                b.set(i, j, (10 * i + j + 1) as f64);
            }
        }
        b
    }

    #[test]
    fn entries_and_dense_copy() {
        let mut b = sample();
        assert_eq!(b.get(3, 1), 32.0);
        assert_eq!(b.get(0, 3), 0.0);
        b.add(3, 1, 0.5);
        let d = b.to_dense();
        assert_eq!(d[(3, 1)], 32.5);
        assert_eq!(d[(1, 2)], 13.0);
        assert_eq!(d[(0, 2)], 0.0);
        assert_eq!(d.iter().filter(|x| **x != 0.0).count(), 5 + 4 + 3 + 4);
        b.fill_zero();
        assert_eq!(b.to_dense(), DMatrix::zeros(5, 5));
    }

    #[test]
    #[should_panic(expected = "outside the band")]
    fn set_outside_band_panics() {
        Band::zeros(5, 2, 1).set(0, 2, 1.0);
    }

    #[test]
    fn product_matches_dense() {
        let b = sample();
        let x = [1.0, -2.0, 0.5, 3.0, -1.0];
        let q = [0.1, 0.2, 0.3, 0.4, 0.5];
        let mut w = [0.0; 5];
        b.mul_add(&x, &q, &mut w);
        let want = b.to_dense() * nalgebra::DVector::from_row_slice(&x);
        for i in 0..5 {
            assert!((w[i] - want[i] - q[i]).abs() < 1e-12, "row {i}");
        }
    }

    #[test]
    fn factor_solves_the_active_set_system_in_a_wider_band() {
        // Diagonally dominant, so every principal minor is nonzero.
        let mut m = sample();
        for i in 0..5 {
            m.add(i, i, 100.0);
        }
        let active = [
            Bound::Free,
            Bound::Lower,
            Bound::Free,
            Bound::Free,
            Bound::Upper,
        ];
        let mut lu = BandLu::new(5, 3, 2);
        assert!(lu.factor_from(&m, &active, 0));
        let x = [1.0, -2.0, 0.5, 3.0, -1.0];
        // Right-hand side of the system: M x on free rows, x on pinned ones.
        let mut b = [0.0; 5];
        m.mul_add(&x, &[0.0; 5], &mut b);
        b[1] = x[1];
        b[4] = x[4];
        lu.solve(&mut b);
        for i in 0..5 {
            assert!((b[i] - x[i]).abs() < 1e-12, "{b:?}");
        }
        // Pinned rows come back exactly.
        assert_eq!((b[1], b[4]), (x[1], x[4]));
    }

    #[test]
    fn zero_or_nan_pivot_is_singular() {
        let mut m = Band::zeros(3, 1, 1);
        m.set(0, 1, 1.0);
        m.set(1, 0, 1.0);
        m.set(1, 1, 1.0);
        m.set(2, 2, 1.0);
        let mut lu = BandLu::new(3, 1, 1);
        // M(0, 0) = 0 is a vanishing leading minor: no row exchange can help here.
        assert!(!lu.factor_from(&m, &[Bound::Free; 3], 0));
        // Pinning component 0 leaves the nonsingular block {1, 2}.
        assert!(lu.factor_from(&m, &[Bound::Lower, Bound::Free, Bound::Free], 0));
        m.set(2, 2, f64::NAN);
        assert!(!lu.factor_from(&m, &[Bound::Lower, Bound::Free, Bound::Free], 0));
    }

    #[test]
    fn refactoring_from_a_row_matches_a_full_factorization() {
        // Diagonally dominant bands of several shapes; the pattern changes at
        // or after `from`, and the factors (hence the solutions) must be
        // those of a factorization from scratch, bit for bit.
        for (kl, ku) in [(1, 1), (2, 2), (2, 1), (0, 2), (3, 1)] {
            let n = 12;
            let mut m = Band::zeros(n, kl, ku);
            for i in 0..n {
                for j in i.saturating_sub(kl)..(i + ku + 1).min(n) {
                    let v = ((7 * i + 3 * j) % 11) as f64 / 11.0 - 0.5;
                    m.set(i, j, if i == j { 4.0 + v } else { v });
                }
            }
            let pattern = |seed: usize| -> Vec<Bound> {
                (0..n)
                    .map(|i| match (i * 5 + seed) % 3 {
                        0 => Bound::Lower,
                        1 => Bound::Upper,
                        _ => Bound::Free,
                    })
                    .collect()
            };
            let base = pattern(0);
            for from in 0..=n {
                let mut changed = base.clone();
                for b in &mut changed[from..] {
                    *b = if *b == Bound::Free {
                        Bound::Lower
                    } else {
                        Bound::Free
                    };
                }
                let mut part = BandLu::new(n, kl, ku);
                assert!(part.factor_from(&m, &base, 0));
                assert!(part.factor_from(&m, &changed, from));
                let mut full = BandLu::new(n, kl, ku);
                assert!(full.factor_from(&m, &changed, 0));
                assert_eq!(part.f, full.f, "kl={kl} ku={ku} from={from}");
                assert_eq!(part.inv, full.inv, "kl={kl} ku={ku} from={from}");
            }
        }
    }
}
