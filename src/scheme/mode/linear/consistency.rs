//! Whether a linear mode holds at a state, and putting the state back on it:
//! the guards' values and tolerances, the drift of the pairs held through
//! their derivative, the consistency test an event's new mode must pass, the
//! least-change projection onto the constraints the mode holds, and whether a
//! pair's `y` stays where it is.

// Index loops over rows and columns of several matrices read more plainly here.
#![allow(clippy::needless_range_loop)]

use crate::scheme::mode::linear::{ModeSystem, DRIFT_TOL};

impl ModeSystem {
    /// How far the free pairs held through their derivative are from `y = 0`
    /// at `x`, relative to the size of their terms (at least 1): the
    /// derivative keeps `y` where it starts, so the mode only describes the
    /// motion when this is at rounding level.
    pub fn drift(&self, x: &[f64]) -> f64 {
        let mut worst = 0.0f64;
        for &i in &self.derivative {
            let (mut y, mut size) = (self.y0[i], 1.0 + self.y0[i].abs());
            for (c, xc) in x.iter().enumerate() {
                y += self.cy[(i, c)] * xc;
                size += (self.cy[(i, c)] * xc).abs();
            }
            worst = worst.max(y.abs() / size);
        }
        worst
    }

    /// Whether the mode describes the motion from `x`: every guard is
    /// nonnegative (to rounding), a guard at zero does not decrease, and the
    /// pairs held at `y = 0` through their derivative are at `y = 0`.
    pub fn consistent(&mut self, x: &[f64], atol: f64) -> bool {
        if self.drift(x) > DRIFT_TOL {
            return false;
        }
        crate::linalg::gemv_from(&mut self.xdot, self.b.as_slice(), &self.a, x);
        for r in 0..self.guards.len() {
            let (g, tol) = (self.guard(r, x), self.guard_tolerance(r, x, atol));
            if g < -tol {
                return false;
            }
            if g <= tol {
                let (mut rate, mut size) = (0.0, 0.0f64);
                for (c, v) in self.xdot.iter().enumerate() {
                    rate += self.gx[(r, c)] * v;
                    size += (self.gx[(r, c)] * v).abs();
                }
                if rate < -1e-9 * size {
                    return false;
                }
            }
        }
        true
    }

    /// How negative guard `r` may be at `x` and still count as zero: its
    /// rounding, and what the integrator's absolute tolerance `atol` on the
    /// state allows it (a stop located a hair late leaves v at -5e-12).
    pub fn guard_tolerance(&self, r: usize, x: &[f64], atol: f64) -> f64 {
        let (mut size, mut reach) = (self.g0[r].abs(), 0.0);
        for (c, xc) in x.iter().enumerate() {
            size += (self.gx[(r, c)] * xc).abs();
            reach += self.gx[(r, c)].abs();
        }
        1e-12 * size + atol * reach + f64::MIN_POSITIVE
    }

    /// Moves `x` by the least amount that puts the constraints the mode holds
    /// at zero exactly there: the `y` of each free pair held through its
    /// derivative, and of each pinned pair whose `y` is zero to within `atol`
    /// and stays so in this mode (a stuck mass's `v`). Their values are
    /// rounding or the width of a located event, which the derivative would
    /// otherwise keep for ever (a stuck mass creeping at 5e-12 m/s, a sliding
    /// relay off its surface, an integrator 5e-14 past its limit). Dependent
    /// constraints (the two sides of a stuck friction contact) count once.
    pub fn project(&mut self, x: &mut [f64], atol: f64) {
        self.project_holding(x, atol, &[]);
    }

    /// [`ModeSystem::project`], with the `y` of each pinned pair `i` with
    /// `hold[i]` also put at zero, however far it is (the capture rule).
    pub fn project_holding(&mut self, x: &mut [f64], atol: f64, hold: &[bool]) {
        let nu = self.y0.len();
        crate::linalg::gemv_from(&mut self.xdot, self.b.as_slice(), &self.a, x);
        let mut chosen = 0;
        for i in 0..nu {
            let held = if self.derivative.contains(&i) || hold.get(i) == Some(&true) {
                true
            } else if self.free.contains(&i) {
                false
            } else {
                let (mut y, mut rate, mut size, mut reach) = (self.y0[i], 0.0, 0.0f64, 0.0);
                for (c, xc) in x.iter().enumerate() {
                    y += self.cy[(i, c)] * xc;
                    rate += self.cy[(i, c)] * self.xdot[c];
                    size += (self.cy[(i, c)] * self.xdot[c]).abs();
                    reach += self.cy[(i, c)].abs();
                }
                reach > 0.0 && y.abs() <= atol * reach && rate.abs() <= 1e-12 * size.max(1.0)
            };
            if !held {
                continue;
            }
            self.rows[chosen] = i;
            self.gram(chosen + 1, x.len());
            if self.lu.factor_block(&self.k, &self.seq[..chosen + 1]) {
                chosen += 1;
            }
        }
        if chosen == 0 {
            return;
        }
        self.gram(chosen, x.len());
        if !self.lu.factor_block(&self.k, &self.seq[..chosen]) {
            return;
        }
        for a in 0..chosen {
            let i = self.rows[a];
            let mut r = self.y0[i];
            for (c, xc) in x.iter().enumerate() {
                r += self.cy[(i, c)] * xc;
            }
            self.sol[a] = r;
        }
        self.lu.solve(&mut self.sol[..chosen]);
        for a in 0..chosen {
            let i = self.rows[a];
            for (c, xc) in x.iter_mut().enumerate() {
                *xc -= self.cy[(i, c)] * self.sol[a];
            }
        }
    }

    /// The Gram matrix of the first `n` chosen constraint rows, into `k`.
    fn gram(&mut self, n: usize, nx: usize) {
        for a in 0..n {
            for b in 0..n {
                let (i, j) = (self.rows[a], self.rows[b]);
                let mut g = 0.0;
                for c in 0..nx {
                    g += self.cy[(i, c)] * self.cy[(j, c)];
                }
                self.k[(a, b)] = g;
            }
        }
    }

    /// Whether free pair `i` is held at `y_i = 0` through its derivative in
    /// this mode (it slides).
    pub fn slides(&self, i: usize) -> bool {
        self.derivative.contains(&i)
    }

    /// Whether the mode keeps `y_i` where it is at `x`: pair `i` slides, or
    /// it is pinned and `y_i` does not change there (to rounding: a stuck
    /// mass with no force on it).
    pub fn keeps_y(&mut self, i: usize, x: &[f64]) -> bool {
        if self.slides(i) {
            return true;
        }
        if self.free.contains(&i) {
            return false;
        }
        crate::linalg::gemv_from(&mut self.xdot, self.b.as_slice(), &self.a, x);
        let (mut rate, mut size, mut reach) = (0.0, 0.0f64, 0.0);
        for (c, v) in self.xdot.iter().enumerate() {
            rate += self.cy[(i, c)] * v;
            size += (self.cy[(i, c)] * v).abs();
            reach += self.cy[(i, c)].abs();
        }
        reach > 0.0 && rate.abs() <= 1e-12 * size.max(1.0)
    }

    /// Guard `r` at state `x` (nonnegative while the mode holds).
    pub fn guard(&self, r: usize, x: &[f64]) -> f64 {
        let mut s = self.g0[r];
        for (c, xc) in x.iter().enumerate() {
            s += self.gx[(r, c)] * xc;
        }
        s
    }
}
