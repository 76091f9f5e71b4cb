//! Sampled-data partitions (`[[discrete]]`): controllers with their own period.
//!
//! Today a partition has a period and an offset (parameter expressions),
//! discrete states with an update program, and held outputs with a value
//! program. Both are stored as extra columns of the input vector `w` after the
//! declared inputs, partition by partition (held outputs, then states), so the
//! continuous part reads a held output exactly as it reads an input: a column
//! of `E` and `F`, or a `Var` of a nonlinear program. Between samples these
//! columns do not change, which is what holding means. The instance writes them
//! at each sample instant `t_k = offset + k * period` (see
//! `instance::sampling`); no stepper knows partitions exist.
//!
//! Only first-order models under the theta scheme take partitions for now
//! (the front end refuses the others with the reason); in Co-Simulation and in
//! Model Exchange, where the sample instants are time events.

use super::expr::Expr;
use super::program::Point;
use serde::{Deserialize, Serialize};

/// A discrete state: its start and its update, a program over the model's
/// variables (`w` includes the partitions' columns) and `time`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiscreteState {
    pub name: String,
    pub start: f64,
    pub update: Expr,
    pub description: String,
    pub unit: String,
}

/// A held output: its value, a program read after the states' update.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeldOutput {
    pub name: String,
    pub value: Expr,
    pub description: String,
    pub unit: String,
}

/// One `[[discrete]]` group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Partition {
    pub name: String,
    /// Parameter expressions; `period > 0` is a condition checked at initialization.
    pub period: Expr,
    pub offset: Expr,
    pub outputs: Vec<HeldOutput>,
    pub states: Vec<DiscreteState>,
    /// Index in `w` of its first held output; its states follow its outputs.
    pub base: usize,
}

impl Partition {
    /// How many columns of `w` it takes.
    pub fn width(&self) -> usize {
        self.outputs.len() + self.states.len()
    }

    /// Sample instant `k`: from `k`, never accumulated, so that the millionth
    /// sample is as exact as the first.
    #[inline]
    pub fn instant(period: f64, offset: f64, k: u64) -> f64 {
        offset + k as f64 * period
    }

    /// Processes one sample at time `t` on `w` (whose partition columns hold
    /// the values before the sample): every state's update reads the values
    /// before the sample (they go through `scratch` first), then the held
    /// outputs read the new states. `scratch` has at least `states.len()`
    /// entries; nothing is allocated.
    pub fn sample(
        &self,
        params: &[f64],
        x: &[f64],
        u: &[f64],
        w: &mut [f64],
        t: f64,
        scratch: &mut [f64],
    ) {
        let first_state = self.base + self.outputs.len();
        {
            let at = Point { x, u, w: &*w, t };
            for (s, d) in scratch.iter_mut().zip(&self.states) {
                *s = d.update.eval_at(params, &at);
            }
        }
        w[first_state..first_state + self.states.len()]
            .copy_from_slice(&scratch[..self.states.len()]);
        self.hold(params, x, u, w, t);
    }

    /// Recomputes the held outputs from the current states (at
    /// initialization when no sample falls on the start time, and after
    /// every sample). An output may read an earlier output of any partition
    /// as it is at that moment: the columns are written in order.
    pub fn hold(&self, params: &[f64], x: &[f64], u: &[f64], w: &mut [f64], t: f64) {
        for (i, o) in self.outputs.iter().enumerate() {
            let v = o.value.eval_at(params, &Point { x, u, w: &*w, t });
            w[self.base + i] = v;
        }
    }
}
