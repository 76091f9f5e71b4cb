//! The LU factorization of one active set's system, kept in band storage.
//!
//! Without row exchanges the factors keep the band of `M` exactly, so they fit
//! in storage of the same shape; a changed active set is refactored from its
//! first changed row only.

use super::super::Bound;
use super::Band;

/// LU factors of the system of one active set, in band storage of fixed shape.
///
/// The system takes row `i` of `M` for a free component and the identity row
/// for a pinned one. Its leading principal minors are then principal minors of
/// `M`, so elimination in natural order never meets a zero pivot when `M` is a
/// P-matrix, and no fill-in leaves the band. `L` (unit diagonal, not stored)
/// sits below the diagonal slot, `U` on and above it.
#[derive(Clone, Debug)]
pub(in crate::lcp) struct BandLu {
    pub(super) f: Band,
    /// The scale each row's pivot is tested against (see `TINY`).
    row_scale: Vec<f64>,
    /// Reciprocal pivots: back substitution multiplies instead of dividing
    /// (a division in that serial recurrence dominated a warm solve).
    pub(super) inv: Vec<f64>,
}

/// A pivot is rejected when it is at most this times its row's scale: the
/// system is then treated as singular. The scale is the row's own diagonal
/// entry, which carries the pivot's units (the pivot is that entry less the
/// eliminated terms), so the verdict is the same whatever units the
/// components are in; the largest entry of the row, used before, mixes the
/// units of the columns (a chain with columns in units 1e9 apart looked
/// singular). A row with a zero diagonal falls back to its largest entry.
const TINY: f64 = 1e-14;

impl BandLu {
    /// Workspace for order `n` with `kl` sub- and `ku` super-diagonals.
    pub(in crate::lcp) fn new(n: usize, kl: usize, ku: usize) -> Self {
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
    pub(in crate::lcp) fn factor_from(&mut self, m: &Band, active: &[Bound], from: usize) -> bool {
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
                let diag = src[m.kl].abs();
                self.row_scale[i] = if diag > 0.0 {
                    diag
                } else {
                    src.iter().fold(0.0f64, |s, x| s.max(x.abs()))
                };
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
    pub(in crate::lcp) fn solve(&self, b: &mut [f64]) {
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
