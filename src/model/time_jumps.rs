//! Jumps of sources in time: where `step`, `sign`, `floor` and `frac` of an
//! argument that reads only `time` and parameters change value.
//!
//! A PWM carrier `step(d - frac(time/T))` is piecewise constant in time. The
//! theta-method sees it at its steps' ends, as Siconos does; an event-driven
//! integrator must not step across a jump (its error estimate would see a
//! discontinuity of the right-hand side and its stages mix both sides). Each
//! jump site of a model's dynamics is kept here as its argument's program,
//! `a(t)`, with a *level*: `step(a)` is constant while `a >= 0` holds or fails,
//! `sign(a)` while `a` stays positive, zero or negative (0 is a level of its
//! own: `sign(sin(w t))` is 0 at the crossings themselves), `floor(a)` and
//! `frac(a)` while `floor(a)` does not change. A jump lies
//! between two times whose levels differ; [`TimeJumps::next`] brackets the
//! first one to adjacent floating-point times, so that the integrator stops at
//! the left end with every stage on the old side and goes on from the right
//! end with every stage on the new side, both sides evaluated by the very
//! programs the dynamics run.
//!
//! Only the levels at the ends of a step are compared: a jump and its return
//! inside one integrator step (a pulse shorter than the step) are not seen, as
//! a guard that changes sign twice inside a step is not. `max_step` of the
//! scheme bounds the integrator's step when a source has such pulses.

use super::expr::{Expr, Func, Op};
use super::program::Point;

/// The jump sites of a model's dynamics.
#[derive(Clone, Debug, Default)]
pub struct TimeJumps {
    sites: Vec<(Func, Expr)>,
}

impl TimeJumps {
    /// The jump sites (each distinct argument once) of `programs`: every call
    /// of `step`, `sign`, `floor` or `frac` whose argument reads `time` and no
    /// variable (of variables these functions are refused at compilation).
    pub fn of<'a>(programs: impl IntoIterator<Item = &'a Expr>) -> Self {
        let mut sites: Vec<(Func, Expr)> = Vec::new();
        for program in programs {
            for (f, arg) in sites_of(program.ops()) {
                let level = level_kind(f);
                if !sites
                    .iter()
                    .any(|(g, e)| level_kind(*g) == level && e.ops() == arg)
                {
                    sites.push((f, Expr::from_ops(arg.to_vec())));
                }
            }
        }
        TimeJumps { sites }
    }

    pub fn is_empty(&self) -> bool {
        self.sites.is_empty()
    }

    /// Whether every site has the same level at times `s` and `t`.
    fn same_levels(&self, params: &[f64], s: f64, t: f64) -> bool {
        self.sites
            .iter()
            .all(|(f, arg)| level(*f, arg, params, s) == level(*f, arg, params, t))
    }

    /// The first jump after `ta` up to `tb`, bracketed by adjacent times
    /// `(left, right)`: the levels at `left` are those at `ta`, at `right` they
    /// differ. `None` when the levels at `tb` are those at `ta`.
    pub fn next(&self, params: &[f64], ta: f64, tb: f64) -> Option<(f64, f64)> {
        if self.sites.is_empty() || self.same_levels(params, ta, tb) {
            return None;
        }
        // Bisection on "same levels as at ta": the left end keeps them, the
        // right end does not, until no floating-point time lies between.
        let (mut left, mut right) = (ta, tb);
        loop {
            let mid = left + 0.5 * (right - left);
            if mid <= left || mid >= right {
                return Some((left, right));
            }
            if self.same_levels(params, ta, mid) {
                left = mid;
            } else {
                right = mid;
            }
        }
    }
}

/// Sites whose levels change together share one: `floor` and `frac` of the
/// same argument jump at the same times (`step` and `sign` of one argument
/// do not: only `sign` has a level at 0).
fn level_kind(f: Func) -> Func {
    match f {
        Func::Frac => Func::Floor,
        f => f,
    }
}

/// The level of site `f(arg)` at time `t`: what stays constant between jumps.
fn level(f: Func, arg: &Expr, params: &[f64], t: f64) -> f64 {
    let at = Point {
        x: &[],
        u: &[],
        w: &[],
        t,
    };
    let a = arg.eval_at(params, &at);
    match f {
        Func::Step => f64::from(u8::from(a >= 0.0)),
        Func::Sign => Func::Sign.apply(a),
        _ => a.floor(),
    }
}

/// The jump calls of a postfix program with their arguments' instructions: in
/// postfix order each stack entry is computed by a contiguous run of
/// instructions, tracked here with whether it reads `time` or a variable.
fn sites_of(ops: &[Op]) -> Vec<(Func, &[Op])> {
    // Per stack entry: (first instruction, reads time, reads a variable).
    let mut stack: Vec<(usize, bool, bool)> = Vec::new();
    let mut sites = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        match *op {
            Op::Const(_) | Op::Param(_) => stack.push((i, false, false)),
            Op::Time => stack.push((i, true, false)),
            Op::Var(_) => stack.push((i, false, true)),
            Op::Neg => {}
            Op::Call(f) => {
                let &(start, time, var) = stack.last().expect("a well-formed program");
                if f.jumps() && time && !var {
                    sites.push((f, &ops[start..i]));
                }
            }
            Op::Bin(_) => {
                let (_, t2, v2) = stack.pop().expect("a well-formed program");
                let top = stack.last_mut().expect("a well-formed program");
                top.1 |= t2;
                top.2 |= v2;
            }
        }
    }
    sites
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::expr::parse;
    use crate::model::program::{Form, Operand};

    fn program(src: &str) -> Expr {
        let lookup = |name: &str| match name {
            "time" => Some(Operand::Time),
            "T" => Some(Operand::Param(0)),
            "d" => Some(Operand::Param(1)),
            "x" => Some(Operand::Var(0)),
            _ => None,
        };
        Expr::compile_program(&parse(src).unwrap(), &lookup, Form::Signal).unwrap()
    }

    #[test]
    fn a_pwm_carrier_has_two_sites_and_jumps_at_both_edges() {
        let p = program("x*step(d - frac(time/T)) + floor(time/T)");
        let jumps = TimeJumps::of([&p]);
        // step(d - frac(time/T)) and frac(time/T); floor(time/T) shares frac's.
        assert_eq!(jumps.sites.len(), 2);
        let params = [1e-4, 0.3];
        let (l, r) = jumps.next(&params, 1e-6, 5e-5).unwrap_or_else(|| panic!());
        assert_eq!(r, f64::from_bits(l.to_bits() + 1));
        assert!((l - 0.3e-4).abs() < 1e-18, "{l:e}");
        let (l, r) = jumps
            .next(&params, 4e-5, 1.5e-4)
            .unwrap_or_else(|| panic!());
        assert_eq!(r, f64::from_bits(l.to_bits() + 1));
        assert!((l - 1e-4).abs() < 1e-18, "{l:e}");
        assert_eq!(jumps.next(&params, 4e-5, 9e-5), None);
    }

    #[test]
    fn sign_has_zero_as_a_level_of_its_own() {
        // sign(time - d) is -1, then 0 at time = d exactly, then 1.
        let p = program("x*sign(time - d)");
        let jumps = TimeJumps::of([&p]);
        let params = [1e-4, 0.25];
        let (l, r) = jumps.next(&params, 0.0, 1.0).unwrap_or_else(|| panic!());
        assert_eq!((l, r), (f64::from_bits(0.25f64.to_bits() - 1), 0.25));
        let (l, r) = jumps.next(&params, 0.25, 1.0).unwrap_or_else(|| panic!());
        assert_eq!((l, r), (0.25, f64::from_bits(0.25f64.to_bits() + 1)));
        // step of the same argument is a site of its own (no level at 0).
        let both = program("sign(time - d) + step(time - d)");
        assert_eq!(TimeJumps::of([&both]).sites.len(), 2);
    }

    #[test]
    fn arguments_that_read_variables_or_no_time_are_not_sites() {
        let p = program("step(d - 0.5) + sin(time) + x");
        assert!(TimeJumps::of([&p]).is_empty());
        assert!(sites_of(program("exp(floor(time))").ops()).len() == 1);
    }
}
