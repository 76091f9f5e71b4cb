//! Whether a nonlinear mode holds at a state, and putting the state back on
//! it: the guards' values, tolerances and rates, the drift of the pairs held
//! through their derivative, the consistency test an event's new mode must
//! pass, and the Gauss–Newton projection onto the mode's constraints (see
//! [`super`] for how the linearization at the state stands in for a linear
//! mode's matrices).

// Several aligned buffers indexed together: indices read clearest.
#![allow(clippy::needless_range_loop)]

use crate::lcp::Bound;
use crate::scheme::mode::linear::{Guard, DRIFT_TOL};
use crate::scheme::mode::nonlinear::NonlinearMode;
use crate::system::lcs::Lcs;

impl NonlinearMode {
    /// Guard `r` of slot `k`, its rate along `x'`, its row of sensitivities
    /// to the state (as `(pair, of_y, sign)`) and the size of its terms.
    fn guard_parts(&self, k: usize, r: usize) -> (usize, bool, f64, f64) {
        let s = &self.slots[k];
        match self.guards[r] {
            Guard::LowerY(i) => (i, true, 1.0, s.c[i]),
            Guard::UpperY(i) => (i, true, -1.0, -s.c[i]),
            Guard::AboveLo(i) => (i, false, 1.0, s.u[i] - self.lo[i]),
            Guard::BelowHi(i) => (i, false, -1.0, self.hi[i] - s.u[i]),
        }
    }
    /// How far the pairs held through their derivative are from `y = 0`,
    /// relative to the magnitude of their terms (at least 1).
    pub fn drift(&mut self, lcs: &Lcs, t: f64, x: &[f64]) -> f64 {
        let Ok(k) = self.evaluate(lcs, t, x, false) else {
            return f64::INFINITY;
        };
        let s = &self.slots[k];
        self.free
            .iter()
            .filter(|&&i| self.derivative[i])
            .map(|&i| s.c[i].abs() / (1.0 + s.cmag[i]))
            .fold(0.0, f64::max)
    }

    pub fn guard(&mut self, lcs: &Lcs, t: f64, r: usize, x: &[f64]) -> f64 {
        match self.evaluate(lcs, t, x, false) {
            Ok(k) => self.guard_parts(k, r).3,
            Err(why) => {
                self.fail(why);
                f64::NAN
            }
        }
    }

    /// The rounding of guard `r`'s terms and what `atol` on the state
    /// allows it (as `ModeSystem::guard_tolerance`, with the linearization's
    /// sensitivities for the matrix rows).
    pub fn guard_tolerance(&mut self, lcs: &Lcs, t: f64, r: usize, x: &[f64], atol: f64) -> f64 {
        let Ok(k) = self.evaluate(lcs, t, x, true) else {
            return 0.0;
        };
        let (i, of_y, _, _) = self.guard_parts(k, r);
        let s = &self.slots[k];
        let (size, row) = if of_y {
            (s.cmag[i], &s.cy)
        } else {
            let bound = if matches!(self.guards[r], Guard::AboveLo(_)) {
                self.lo[i]
            } else {
                self.hi[i]
            };
            (s.u[i].abs() + bound.abs(), &s.gu)
        };
        let reach: f64 = (0..row.ncols()).map(|c| row[(i, c)].abs()).sum();
        1e-12 * size + atol * reach + f64::MIN_POSITIVE
    }

    /// Whether the mode describes the motion from `(t, x)`: solvable there,
    /// no drift, every guard nonnegative, a guard at zero not decreasing.
    pub fn consistent(&mut self, lcs: &Lcs, t: f64, x: &[f64], atol: f64) -> bool {
        if self.drift(lcs, t, x) > DRIFT_TOL {
            return false;
        }
        let Ok(k) = self.evaluate(lcs, t, x, true) else {
            return false;
        };
        for r in 0..self.guards.len() {
            let (i, of_y, sign, g) = self.guard_parts(k, r);
            let tol = self.guard_tolerance(lcs, t, r, x, atol);
            if !(g >= -tol) {
                return false;
            }
            if g <= tol {
                let s = &self.slots[k];
                let (row, dt) = if of_y {
                    (&s.cy, s.yt[i])
                } else {
                    (&s.gu, s.ut[i])
                };
                let (mut rate, mut size) = (dt, dt.abs());
                for (c, v) in s.f.iter().enumerate() {
                    rate += row[(i, c)] * v;
                    size += (row[(i, c)] * v).abs();
                }
                if sign * rate < -1e-9 * size {
                    return false;
                }
            }
        }
        true
    }

    /// Moves `x` by the least amount (one Gauss–Newton step on the
    /// linearized constraints) that puts at zero the `y` of each pair held
    /// through its derivative and of each pinned pair whose `y` is zero within
    /// `atol` and stays so (see `ModeSystem::project`).
    pub fn project(&mut self, lcs: &Lcs, t: f64, x: &mut [f64], atol: f64) {
        let Ok(k) = self.evaluate(lcs, t, x, true) else {
            return;
        };
        let (nx, nu) = (x.len(), self.u.len());
        let mut chosen = 0;
        for i in 0..nu {
            let s = &self.slots[k];
            let held = match self.active[i] {
                Bound::Free => self.derivative[i],
                _ => {
                    let (mut rate, mut size, mut reach) = (s.yt[i], s.yt[i].abs(), 0.0);
                    for c in 0..nx {
                        rate += s.cy[(i, c)] * s.f[c];
                        size += (s.cy[(i, c)] * s.f[c]).abs();
                        reach += s.cy[(i, c)].abs();
                    }
                    reach > 0.0
                        && s.c[i].abs() <= atol * reach
                        && rate.abs() <= 1e-12 * size.max(1.0)
                }
            };
            if !held {
                continue;
            }
            self.rows[chosen] = i;
            self.fill_gram(k, chosen + 1, nx);
            if self.lu.factor_block(&self.gram, &self.seq[..chosen + 1]) {
                chosen += 1;
            }
        }
        if chosen == 0 {
            return;
        }
        self.fill_gram(k, chosen, nx);
        if !self.lu.factor_block(&self.gram, &self.seq[..chosen]) {
            return;
        }
        let s = &self.slots[k];
        for a in 0..chosen {
            self.sol[a] = s.c[self.rows[a]];
        }
        self.lu.solve(&mut self.sol[..chosen]);
        for a in 0..chosen {
            let i = self.rows[a];
            for c in 0..nx {
                x[c] -= s.cy[(i, c)] * self.sol[a];
            }
        }
    }

    fn fill_gram(&mut self, k: usize, n: usize, nx: usize) {
        let cy = &self.slots[k].cy;
        for a in 0..n {
            for b in 0..n {
                let (i, j) = (self.rows[a], self.rows[b]);
                self.gram[(a, b)] = (0..nx).map(|c| cy[(i, c)] * cy[(j, c)]).sum();
            }
        }
    }
}
