//! Exact reformulation of the box MCP as a standard LCP for Lemke's method.
//!
//! Lemke works on `s = A z + b`, `z, s >= 0`, `z's = 0`. Each component of the
//! box MCP maps to one or two LCP variables depending on which bounds are
//! finite (`u = lo + v` for a lower bound, `u = hi - v` for an upper bound,
//! an extra multiplier `v_b` that closes the box when both are finite, and
//! `u = v_a - v_b` for a free component). The primary variable of component
//! `i` is LCP variable `i`; extra variables are appended after `n`, so the
//! reformulated size `N` lies between `n` and `2 n` and every buffer can be
//! sized once for `2 n`.

use super::{Bound, Problem};

/// How one component of the box MCP is represented in the LCP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `lo` finite, `hi = +inf`: `v = u - lo >= 0`, slack `w`.
    Lower,
    /// `lo = -inf`, `hi` finite: `v = hi - u >= 0`, slack `-w`.
    Upper,
    /// Both finite: `v_a = u - lo` with slack `w + v_b`, and `v_b` with slack
    /// `(hi - lo) - v_a`.
    Boxed,
    /// Both infinite: `u = v_a - v_b`, slacks `w` and `-w`.
    Free,
}

/// The mapping between box MCP and LCP, built per solve on fixed buffers.
#[derive(Clone, Debug)]
pub(super) struct Reformulation {
    kind: Vec<Kind>,
    /// Index of the extra LCP variable of component `i` (only Boxed/Free).
    aux: Vec<usize>,
    /// `u = off + sign * v_a (- v_b)`; `off` is the finite bound or 0.
    off: Vec<f64>,
    /// `q + M off`: the value of `w` when every LCP variable is zero.
    g: Vec<f64>,
    size: usize,
}

impl Reformulation {
    /// Buffers for problems of size `n`.
    pub(super) fn new(n: usize) -> Self {
        Reformulation {
            kind: vec![Kind::Lower; n],
            aux: vec![0; n],
            off: vec![0.0; n],
            g: vec![0.0; n],
            size: 0,
        }
    }

    /// Classifies the components of `p` and returns the LCP size `N`.
    pub(super) fn setup(&mut self, p: &Problem) -> usize {
        let n = p.n();
        let mut next = n;
        for i in 0..n {
            let (lo, hi) = (p.lo[i], p.hi[i]);
            let (kind, off) = match (lo.is_finite(), hi.is_finite()) {
                (true, false) => (Kind::Lower, lo),
                (false, true) => (Kind::Upper, hi),
                (true, true) => (Kind::Boxed, lo),
                (false, false) => (Kind::Free, 0.0),
            };
            self.kind[i] = kind;
            self.off[i] = off;
            if matches!(kind, Kind::Boxed | Kind::Free) {
                self.aux[i] = next;
                next += 1;
            }
        }
        super::problem::mul_add(p, &self.off[..n], &mut self.g[..n]);
        self.size = next;
        next
    }

    /// LCP size `N` from the last `setup`.
    pub(super) fn size(&self) -> usize {
        self.size
    }

    /// Sign of the primary variable in `u` (and of `w` in its slack row).
    fn sign(&self, i: usize) -> f64 {
        if self.kind[i] == Kind::Upper {
            -1.0
        } else {
            1.0
        }
    }

    /// Writes the initial Lemke tableau `[I | -A | -1 | b]`, row-major with
    /// `2 N + 2` columns. Returns false if any entry is not finite.
    pub(super) fn fill_tableau(&self, p: &Problem, t: &mut [f64]) -> bool {
        let n = p.n();
        let big_n = self.size;
        let cols = 2 * big_n + 2;
        let t = &mut t[..big_n * cols];
        t.fill(0.0);
        let m = p.m.as_slice();
        // T[r, N + j] = -A[r, j]; the closures keep the index arithmetic in one place.
        let at = |r: usize, j: usize| r * cols + big_n + j;
        for i in 0..n {
            let si = self.sign(i);
            let row_aux = matches!(self.kind[i], Kind::Free).then_some(self.aux[i]);
            for k in 0..n {
                let mik = m[k * n + i];
                let tk = self.sign(k);
                t[at(i, k)] = -si * mik * tk;
                if let Some(ra) = row_aux {
                    t[at(ra, k)] = mik * tk;
                }
                if self.kind[k] == Kind::Free {
                    t[at(i, self.aux[k])] = si * mik;
                    if let Some(ra) = row_aux {
                        t[at(ra, self.aux[k])] = -mik;
                    }
                }
            }
            t[i * cols + cols - 1] = si * self.g[i];
            match self.kind[i] {
                Kind::Boxed => {
                    let ra = self.aux[i];
                    t[at(i, ra)] -= 1.0;
                    t[at(ra, i)] = 1.0;
                    t[ra * cols + cols - 1] = p.hi[i] - p.lo[i];
                }
                Kind::Free => t[self.aux[i] * cols + cols - 1] = -self.g[i],
                _ => {}
            }
        }
        for r in 0..big_n {
            t[r * cols + r] = 1.0;
            t[r * cols + 2 * big_n] = -1.0;
        }
        t.iter().all(|x| x.is_finite())
    }

    /// The active set of the box MCP that a complementary basis of the LCP
    /// stands for (`basic[j]`: whether `z_j` is in it, length `N`): a bounded
    /// component is free where its primary variable is basic, pinned where it
    /// is not, and at `hi` where a box's closing multiplier is basic too (its
    /// slack `(hi - lo) - v_a` is then the nonbasic one, zero); a fixed
    /// component (`lo == hi`) is `Lower`. Solving the free block of this set
    /// gives the basis' point without the round-off the tableau gathered on
    /// the way, and the block is nonsingular where the basis is: unlike an
    /// active set read off the values, it keeps a basic variable that is
    /// zero (a friction direction of a contact with no normal force) free.
    pub(super) fn active_from_basis(&self, p: &Problem, basic: &[bool], out: &mut [Bound]) {
        for (i, b) in out.iter_mut().enumerate() {
            *b = match self.kind[i] {
                Kind::Free => Bound::Free,
                Kind::Boxed if p.lo[i] == p.hi[i] => Bound::Lower,
                Kind::Boxed if basic[i] && basic[self.aux[i]] => Bound::Upper,
                Kind::Lower | Kind::Boxed if !basic[i] => Bound::Lower,
                Kind::Upper if !basic[i] => Bound::Upper,
                _ => Bound::Free,
            };
        }
    }

    /// Maps LCP variables `z` (length `N`) back to `u`.
    pub(super) fn recover(&self, z: &[f64], u: &mut [f64]) {
        for (i, ui) in u.iter_mut().enumerate() {
            let mut x = self.off[i] + self.sign(i) * z[i];
            if self.kind[i] == Kind::Free {
                x -= z[self.aux[i]];
            }
            *ui = x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, DVector};

    /// Evaluates s = A z + b from the tableau and checks it against the
    /// definition of each slack, for one arbitrary z.
    #[test]
    fn tableau_matches_definition() {
        let m = DMatrix::from_row_slice(
            4,
            4,
            &[
                2.0, 1.0, -1.0, 0.5, 0.0, 3.0, 1.0, -2.0, 1.0, 0.0, 4.0, 1.0, -1.0, 2.0, 0.0, 5.0,
            ],
        );
        let inf = f64::INFINITY;
        let p = Problem::boxed(
            m,
            DVector::from_vec(vec![1.0, -2.0, 0.5, 3.0]),
            DVector::from_vec(vec![-1.0, -inf, -2.0, -inf]),
            DVector::from_vec(vec![inf, 2.0, 1.0, inf]),
        );
        let mut r = Reformulation::new(4);
        let big_n = r.setup(&p);
        assert_eq!(big_n, 6);
        let cols = 2 * big_n + 2;
        let mut t = vec![0.0; big_n * cols];
        assert!(r.fill_tableau(&p, &mut t));
        let z = [0.3, 0.7, 1.1, 0.2, 0.4, 0.9];
        let mut u = [0.0; 4];
        r.recover(&z, &mut u);
        let w = &p.m * DVector::from_row_slice(&u) + &p.q;
        let s: Vec<f64> = (0..big_n)
            .map(|row| {
                let az: f64 = (0..big_n).map(|j| -t[row * cols + big_n + j] * z[j]).sum();
                az + t[row * cols + cols - 1]
            })
            .collect();
        // aux(2) = 4 (boxed), aux(3) = 5 (free).
        let want = [w[0], -w[1], w[2] + z[4], w[3], (1.0 + 2.0) - z[2], -w[3]];
        for (a, b) in s.iter().zip(want) {
            assert!((a - b).abs() < 1e-12, "{s:?} vs {want:?}");
        }
    }
}
