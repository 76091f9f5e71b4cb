//! Lexicographic Lemke pivoting on a dense tableau.
//!
//! The tableau is `[B^-1 | -B^-1 A | -B^-1 d | B^-1 b]` with covering vector
//! `d = 1`; because the slack columns start as the identity they always hold
//! the current basis inverse, which is exactly what the lexicographic
//! minimum-ratio test needs to break degenerate ties, so the method cannot
//! cycle. Ties at the first level prefer the row of `z0`, which ends the
//! method at once. Everything lives in buffers sized for `N = 2 n` at
//! construction; a run only writes into them.

/// How a Lemke run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    /// `z0` left the basis (or `b >= 0`): `z` holds a solution of the LCP.
    Solution,
    /// The entering column had no blocking row: secondary ray.
    Ray,
    /// The pivot budget was exhausted.
    MaxPivots,
    /// Non-finite numbers appeared in the tableau.
    Numerical,
}

/// Tableau and bookkeeping for LCPs of size up to the capacity.
#[derive(Clone, Debug)]
pub(super) struct Lemke {
    /// Row-major `N x (2N + 2)` tableau.
    pub(super) t: Vec<f64>,
    basis: Vec<usize>,
    cand: Vec<usize>,
    prow: Vec<f64>,
    /// LCP solution after `Outcome::Solution` (length `N`).
    pub(super) z: Vec<f64>,
}

#[cfg(test)]
thread_local! {
    /// Tests on garbage input (1e300 and the like) switch the invariant check
    /// off: round-off there is expected to break it.
    pub(super) static CHECK_INVARIANT: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Relative size below which a tableau entry does not block a ratio test.
const PIVOT_TOL: f64 = 1e-12;
/// Relative width of a lexicographic tie.
const TIE_TOL: f64 = 1e-11;

impl Lemke {
    /// Buffers for LCPs of size up to `cap`.
    pub(super) fn new(cap: usize) -> Self {
        let cols = 2 * cap + 2;
        Lemke {
            t: vec![0.0; cap * cols],
            basis: vec![0; cap],
            cand: vec![0; cap],
            prow: vec![0.0; cols],
            z: vec![0.0; cap],
        }
    }

    /// Runs Lemke's method on the tableau already written for size `n`.
    /// Returns the outcome and the number of pivots performed.
    pub(super) fn run(&mut self, n: usize, max_pivots: usize) -> (Outcome, usize) {
        let cols = 2 * n + 2;
        let rhs = cols - 1;
        let z0 = 2 * n;
        for (r, b) in self.basis[..n].iter_mut().enumerate() {
            *b = r;
        }
        self.z[..n].fill(0.0);
        if (0..n).all(|r| self.t[r * cols + rhs] >= 0.0) {
            return (Outcome::Solution, 0);
        }
        let mut entering = z0;
        let mut pivots = 0;
        loop {
            if pivots >= max_pivots {
                return (Outcome::MaxPivots, pivots);
            }
            let r = match self.select(n, entering, pivots == 0) {
                Ok(Some(r)) => r,
                Ok(None) => return (Outcome::Ray, pivots),
                Err(()) => return (Outcome::Numerical, pivots),
            };
            let leaving = self.basis[r];
            self.pivot(n, r, entering);
            self.basis[r] = entering;
            pivots += 1;
            let finite = |i: usize| self.t[i * cols + rhs].is_finite();
            if !(0..n).all(finite) || !self.prow[..cols].iter().all(|x| x.is_finite()) {
                return (Outcome::Numerical, pivots);
            }
            if leaving == z0 {
                break;
            }
            // The invariant that makes the method cycle-free, checked in tests
            // (not after the final pivot, where the z0 preference may break it).
            #[cfg(test)]
            if CHECK_INVARIANT.with(|c| c.get()) {
                assert!(self.lex_positive(n), "lexicographic invariant broken");
            }
            entering = if leaving < n {
                leaving + n
            } else {
                leaving - n
            };
        }
        for r in 0..n {
            let v = self.basis[r];
            if (n..2 * n).contains(&v) {
                self.z[v - n] = self.t[r * cols + rhs].max(0.0);
            }
        }
        (Outcome::Solution, pivots)
    }

    /// Marks in `out` (length `n`, the size of the last run) which LCP
    /// variables `z_j` the final basis holds: after [`Outcome::Solution`],
    /// the complementary basis whose principal block of the LCP matrix is
    /// nonsingular (it is a basis), with `z_j` in it wherever `z` is positive
    /// and also where it is a degenerate zero.
    pub(super) fn basic_z(&self, n: usize, out: &mut [bool]) {
        out[..n].fill(false);
        for &v in &self.basis[..n] {
            if (n..2 * n).contains(&v) {
                out[v - n] = true;
            }
        }
    }

    /// Lexicographic minimum-ratio test for entering column `e`. On the first
    /// step (`z0` entering with column `-1`) every row is a candidate and the
    /// ratios are taken against `-T[r, e]`. `Ok(None)` means no blocking row
    /// (ray); `Err` means the keys were not finite.
    fn select(&mut self, n: usize, e: usize, initial: bool) -> Result<Option<usize>, ()> {
        let cols = 2 * n + 2;
        let t = &self.t;
        let sign = if initial { -1.0 } else { 1.0 };
        // NaN counts as infinite here so that it is reported, not skipped.
        let colmax = (0..n).fold(0.0f64, |a, r| {
            let v = t[r * cols + e].abs();
            if v.is_nan() {
                f64::INFINITY
            } else {
                a.max(v)
            }
        });
        if !colmax.is_finite() {
            return Err(());
        }
        let thr = PIVOT_TOL * colmax;
        let mut len = 0;
        for r in 0..n {
            if sign * t[r * cols + e] > thr {
                self.cand[len] = r;
                len += 1;
            }
        }
        if len == 0 {
            return Ok(None);
        }
        // Level 0 is the ordinary ratio; levels 1..=n use the columns of B^-1.
        for level in 0..=n {
            if level == 1 && initial {
                return Ok(Some(self.initial_tie(n, e, len)));
            }
            let key_col = if level == 0 { cols - 1 } else { level - 1 };
            let key = |r: usize| t[r * cols + key_col] / (sign * t[r * cols + e]);
            let mut best = f64::INFINITY;
            for &r in &self.cand[..len] {
                best = best.min(key(r));
            }
            if !best.is_finite() {
                return Err(());
            }
            let width = TIE_TOL * (1.0 + best.abs());
            let mut kept = 0;
            for c in 0..len {
                let r = self.cand[c];
                if key(r) <= best + width {
                    self.cand[kept] = r;
                    kept += 1;
                }
            }
            len = kept;
            if level == 0 && !initial {
                if let Some(&r) = self.cand[..len].iter().find(|&&r| self.basis[r] == 2 * n) {
                    return Ok(Some(r));
                }
            }
            if len == 1 {
                break;
            }
        }
        Ok(Some(self.cand[0]))
    }

    /// The lexicographic levels of the first step, whose `B^-1` is still the
    /// identity: at level `L` every candidate's key is 0 except row `L - 1`'s,
    /// `1 / -T[L - 1, e]`, which drops that row when it exceeds the tie width.
    /// Walking the candidates in ascending order therefore gives the same row
    /// as the general levels, in one pass instead of one pass per level (on
    /// an all-tied `q`, such as Murty's `q = -1`, that was `n^2` divisions).
    fn initial_tie(&mut self, n: usize, e: usize, len: usize) -> usize {
        let cols = 2 * n + 2;
        let mut left = len;
        for c in 0..len {
            let r = self.cand[c];
            if left == 1 {
                return r;
            }
            if 1.0 / -self.t[r * cols + e] <= TIE_TOL {
                return r;
            }
            left -= 1;
        }
        self.cand[len - 1]
    }

    /// Every row of `[rhs | B^-1]` is lexicographically positive (first entry
    /// beyond round-off is positive).
    #[cfg(test)]
    fn lex_positive(&self, n: usize) -> bool {
        let cols = 2 * n + 2;
        (0..n).all(|r| {
            let row = &self.t[r * cols..(r + 1) * cols];
            let keys = std::iter::once(row[cols - 1]).chain(row[..n].iter().copied());
            let scale = keys.clone().fold(0.0f64, |a, x| a.max(x.abs()));
            keys.map(|x| x / scale)
                .find(|x| x.abs() > 1e-9)
                .is_some_and(|x| x > 0.0)
        })
    }

    /// Gauss-Jordan pivot on `(r, e)`.
    fn pivot(&mut self, n: usize, r: usize, e: usize) {
        let cols = 2 * n + 2;
        let inv = 1.0 / self.t[r * cols + e];
        let prow = &mut self.prow[..cols];
        for (p, x) in prow.iter_mut().zip(&mut self.t[r * cols..(r + 1) * cols]) {
            *x *= inv;
            *p = *x;
        }
        prow[e] = 1.0;
        self.t[r * cols + e] = 1.0;
        for i in (0..n).filter(|&i| i != r) {
            let row = &mut self.t[i * cols..(i + 1) * cols];
            let f = row[e];
            if f != 0.0 {
                for (x, &p) in row.iter_mut().zip(prow.iter()) {
                    *x -= f * p;
                }
                row[e] = 0.0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `[I | -A | -1 | b]` for a plain LCP given row-major `A`.
    fn load(l: &mut Lemke, a: &[f64], b: &[f64]) {
        let n = b.len();
        let cols = 2 * n + 2;
        l.t[..n * cols].fill(0.0);
        for r in 0..n {
            l.t[r * cols + r] = 1.0;
            for j in 0..n {
                l.t[r * cols + n + j] = -a[r * n + j];
            }
            l.t[r * cols + 2 * n] = -1.0;
            l.t[r * cols + cols - 1] = b[r];
        }
    }

    #[test]
    fn solves_small_lcp() {
        // A = [[2,1],[1,2]], b = (-5,-6): interior solution z = (4/3, 7/3).
        let mut l = Lemke::new(2);
        load(&mut l, &[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]);
        let (o, piv) = l.run(2, 100);
        assert_eq!(o, Outcome::Solution);
        assert!(piv >= 2);
        assert!((l.z[0] - 4.0 / 3.0).abs() < 1e-12 && (l.z[1] - 7.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn ray_on_infeasible_and_budget() {
        let mut l = Lemke::new(1);
        load(&mut l, &[-1.0], &[-1.0]);
        assert_eq!(l.run(1, 100).0, Outcome::Ray);
        let mut l = Lemke::new(2);
        load(&mut l, &[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]);
        assert_eq!(l.run(2, 1), (Outcome::MaxPivots, 1));
    }
}
