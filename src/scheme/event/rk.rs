//! The numerical pieces of the event-driven scheme that know nothing of
//! complementarity: embedded explicit Runge–Kutta pairs with an error
//! estimate, the cubic Hermite interpolant of an accepted step, the step-size
//! controller and Brent's root finder.
//!
//! Both pairs take a right-hand side `f(t, x)` evaluated through a closure
//! on caller-owned buffers, so a step allocates nothing. The pair is generic
//! over the closure: a linear mode's right-hand side (`x' = Ã x + b̃` with the
//! inputs held) ignores `t`, and once inlined the stage times it is passed
//! cost nothing; a nonlinear mode reads them (sources in `time`).

// Index loops over several slices of one length read more plainly than zips here.
#![allow(clippy::needless_range_loop)]

use crate::model::Integrator;

/// Stage buffers of one embedded step.
pub struct Stages {
    k: [Vec<f64>; 4],
    tmp: Vec<f64>,
    /// The error estimate `x_high - x_low` of the last step.
    pub err: Vec<f64>,
}

impl Stages {
    pub fn new(n: usize) -> Self {
        Stages {
            k: std::array::from_fn(|_| vec![0.0; n]),
            tmp: vec![0.0; n],
            err: vec![0.0; n],
        }
    }

    /// `f(x)` at the start of the next step, when the pair computed it (FSAL).
    pub fn first(&self) -> &[f64] {
        &self.k[0]
    }

    pub fn set_first(&mut self, f0: &[f64]) {
        self.k[0].copy_from_slice(f0);
    }
}

impl Integrator {
    /// Order of the solution that is kept (the higher one).
    pub fn order(self) -> u32 {
        match self {
            Integrator::HeunEuler => 2,
            Integrator::BogackiShampine => 3,
        }
    }

    /// One step of size `h` from `x` at time `t`, whose derivative must be in
    /// `stages.first()`; writes the new state to `out` and its derivative to
    /// `f_out`, the error estimate to `stages.err`, and returns the number of
    /// right-hand-side evaluations it made.
    #[allow(clippy::too_many_arguments)]
    pub fn step<F: FnMut(f64, &[f64], &mut [f64])>(
        self,
        f: &mut F,
        t: f64,
        x: &[f64],
        h: f64,
        stages: &mut Stages,
        out: &mut [f64],
        f_out: &mut [f64],
    ) -> usize {
        let n = x.len();
        let Stages { k, tmp, err } = stages;
        let [k1, k2, k3, k4] = k;
        match self {
            Integrator::HeunEuler => {
                for i in 0..n {
                    tmp[i] = x[i] + h * k1[i];
                }
                f(t + h, tmp, k2);
                for i in 0..n {
                    out[i] = x[i] + 0.5 * h * (k1[i] + k2[i]);
                    err[i] = 0.5 * h * (k2[i] - k1[i]);
                }
                // The Hermite interpolant needs f at the new point: one more evaluation.
                f(t + h, out, f_out);
                2
            }
            Integrator::BogackiShampine => {
                for i in 0..n {
                    tmp[i] = x[i] + 0.5 * h * k1[i];
                }
                f(t + 0.5 * h, tmp, k2);
                for i in 0..n {
                    tmp[i] = x[i] + 0.75 * h * k2[i];
                }
                f(t + 0.75 * h, tmp, k3);
                for i in 0..n {
                    out[i] = x[i] + h * (2.0 / 9.0 * k1[i] + 1.0 / 3.0 * k2[i] + 4.0 / 9.0 * k3[i]);
                }
                f(t + h, out, k4);
                for i in 0..n {
                    // x_high - x_low with the second-order weights (7/24, 1/4, 1/3, 1/8).
                    err[i] = h
                        * ((2.0 / 9.0 - 7.0 / 24.0) * k1[i]
                            + (1.0 / 3.0 - 0.25) * k2[i]
                            + (4.0 / 9.0 - 1.0 / 3.0) * k3[i]
                            - 0.125 * k4[i]);
                    f_out[i] = k4[i];
                }
                3
            }
        }
    }
}

/// The weighted RMS norm of the error: 1 is the tolerance.
pub fn error_norm(err: &[f64], x0: &[f64], x1: &[f64], rtol: f64, atol: f64) -> f64 {
    if err.is_empty() {
        return 0.0;
    }
    let mut s = 0.0;
    for i in 0..err.len() {
        let scale = atol + rtol * x0[i].abs().max(x1[i].abs());
        let e = err[i] / scale;
        s += e * e;
    }
    (s / err.len() as f64).sqrt()
}

/// The next step size after an error `norm` for a pair of `order`.
pub fn next_step(h: f64, norm: f64, order: u32) -> f64 {
    // The error of the lower-order solution scales like h^order.
    let factor = if norm == 0.0 {
        5.0
    } else {
        (0.9 * norm.powf(-1.0 / order as f64)).clamp(0.2, 5.0)
    };
    h * factor
}

/// The cubic Hermite interpolant of a step at `s = (t - t0) / h` in [0, 1].
pub fn hermite(x0: &[f64], f0: &[f64], x1: &[f64], f1: &[f64], h: f64, s: f64, out: &mut [f64]) {
    let (s2, s3) = (s * s, s * s * s);
    let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
    let h10 = s3 - 2.0 * s2 + s;
    let h01 = -2.0 * s3 + 3.0 * s2;
    let h11 = s3 - s2;
    for i in 0..out.len() {
        out[i] = h00 * x0[i] + h10 * h * f0[i] + h01 * x1[i] + h11 * h * f1[i];
    }
}

/// A root of `g` in `[a, b]` where `g(a) = ga` and `g(b) = gb` have opposite
/// signs (or one is zero), to within `tol` (Brent's method: bisection,
/// secant and inverse quadratic interpolation). Returns the end of the final
/// bracket on `b`'s side, where `g` has `gb`'s sign, so the caller steps
/// just past the crossing.
pub fn brent(g: &mut dyn FnMut(f64) -> f64, a: f64, b: f64, ga: f64, gb: f64, tol: f64) -> f64 {
    let (mut a, mut b, mut fa, mut fb) = (a, b, ga, gb);
    if fb == 0.0 {
        return b;
    }
    let (mut c, mut fc) = (a, fa);
    let (mut d, mut e) = (b - a, b - a);
    for _ in 0..200 {
        if (fb > 0.0) == (fc > 0.0) && fb != 0.0 && fc != 0.0 {
            // Keep the root between b and c.
            c = a;
            fc = fa;
            d = b - a;
            e = d;
        }
        if fc.abs() < fb.abs() {
            a = b;
            b = c;
            c = a;
            fa = fb;
            fb = fc;
            fc = fa;
        }
        let tol1 = 2.0 * f64::EPSILON * b.abs() + 0.5 * tol;
        let xm = 0.5 * (c - b);
        if xm.abs() <= tol1 || fb == 0.0 {
            // b is the best estimate; return the side where g has gb's sign
            // at most tol away, so the crossing is certainly behind it.
            return if (fb > 0.0) == (gb > 0.0) || fb == 0.0 {
                b
            } else {
                c
            };
        }
        if e.abs() >= tol1 && fa.abs() > fb.abs() {
            let s = fb / fa;
            let (mut p, mut q);
            if a == c {
                p = 2.0 * xm * s;
                q = 1.0 - s;
            } else {
                let qq = fa / fc;
                let r = fb / fc;
                p = s * (2.0 * xm * qq * (qq - r) - (b - a) * (r - 1.0));
                q = (qq - 1.0) * (r - 1.0) * (s - 1.0);
            }
            if p > 0.0 {
                q = -q;
            }
            p = p.abs();
            if 2.0 * p < (3.0 * xm * q - (tol1 * q).abs()).min((e * q).abs()) {
                e = d;
                d = p / q;
            } else {
                d = xm;
                e = d;
            }
        } else {
            d = xm;
            e = d;
        }
        a = b;
        fa = fb;
        b += if d.abs() > tol1 { d } else { tol1.copysign(xm) };
        fb = g(b);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_have_their_order_on_exponential_decay() {
        // x' = -x from 1 over [0, 1] with fixed steps: error ratio 2^order.
        for pair in [Integrator::HeunEuler, Integrator::BogackiShampine] {
            let run = |n: usize| {
                let h = 1.0 / n as f64;
                let mut st = Stages::new(1);
                let (mut x, mut out, mut f1) = (vec![1.0], vec![0.0], vec![0.0]);
                let mut f = |_: f64, x: &[f64], y: &mut [f64]| y[0] = -x[0];
                st.set_first(&[-1.0]);
                for _ in 0..n {
                    pair.step(&mut f, 0.0, &x, h, &mut st, &mut out, &mut f1);
                    x.copy_from_slice(&out);
                    st.set_first(&f1);
                }
                (x[0] - (-1.0f64).exp()).abs()
            };
            let ratio = run(50) / run(100);
            let want = 2f64.powi(pair.order() as i32);
            assert!((ratio / want - 1.0).abs() < 0.1, "{pair:?}: {ratio}");
        }
    }

    #[test]
    fn brent_finds_a_root_to_tolerance_on_the_far_side() {
        let mut g = |t: f64| (t - 0.3).powi(3) + 0.1 * (t - 0.3);
        let (ga, gb) = (g(0.0), g(1.0));
        let r = brent(&mut g, 0.0, 1.0, ga, gb, 1e-13);
        assert!((r - 0.3).abs() <= 1e-13, "{r}");
        assert!(g(r) >= 0.0, "the result is on b's side");
    }

    #[test]
    fn hermite_is_exact_for_cubics() {
        // x = t^3 - t on [1, 3]
        let (x0, f0, x1, f1) = ([0.0], [2.0], [24.0], [26.0]);
        let mut out = [0.0];
        hermite(&x0, &f0, &x1, &f1, 2.0, 0.25, &mut out);
        let t: f64 = 1.5;
        assert!((out[0] - (t.powi(3) - t)).abs() < 1e-14);
    }
}
