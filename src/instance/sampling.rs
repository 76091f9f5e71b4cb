//! Sample instants of `[[discrete]]` partitions (see `crate::model::sampled`):
//! which sample comes next, communication steps cut at every sample instant
//! (Co-Simulation), and the samples due at a Model Exchange event.
//!
//! Today each partition keeps the index `k` of its next unprocessed sample;
//! `t_k = offset + k * period` is computed from `k` every time, so no error
//! accumulates over a million samples. A communication step runs the scheme up
//! to each sample instant inside it, processes the sample there (the update
//! reads the continuous values at `t_k`), and goes on; a sample within the
//! clock tolerance of the step's end is taken at the end (the master's time),
//! once, since its index then moves on. The indices are not part of a
//! Co-Simulation FMU state: they follow from its time ([`Sampling::resume`]),
//! by the same tolerance, so a state taken between two samples, or just after
//! one, resumes with the same next sample. In Model Exchange the sample
//! instants are time events: the importer integrates up to the next one
//! (`nextEventTime`), and the update of the discrete states there processes
//! every sample due at its time ([`Instance::process_due_samples`]). An
//! importer may stand at a sample instant before or after that update, so a
//! Model Exchange FMU state carries the indices themselves.

use super::{FmiError, FmiResult, Instance, MAX_SUBSTEPS};
use crate::model::sampled::Partition;

/// The tolerance within which a sample instant and a time are the same
/// instant: the one `do_step` accepts between the master's clock and ours.
#[inline]
fn tolerance(t: f64) -> f64 {
    1e-10 * t.abs().max(1.0)
}

/// The sampling state of an instance; empty for a model without partitions.
#[derive(Clone, Debug, Default)]
pub(super) struct Sampling {
    /// Per partition: the next sample not yet processed.
    next: Vec<u64>,
    /// Per partition, at the current parameters.
    period: Vec<f64>,
    offset: Vec<f64>,
    /// Room for the largest partition's new states.
    scratch: Vec<f64>,
}

impl Sampling {
    pub(super) fn new(partitions: &[Partition]) -> Self {
        let n = partitions.len();
        let widest = partitions.iter().map(|p| p.states.len()).max().unwrap_or(0);
        Sampling {
            next: vec![0; n],
            period: vec![1.0; n],
            offset: vec![0.0; n],
            scratch: vec![0.0; widest],
        }
    }

    #[inline]
    pub(super) fn active(&self) -> bool {
        !self.next.is_empty()
    }

    fn instant(&self, p: usize) -> f64 {
        Partition::instant(self.period[p], self.offset[p], self.next[p])
    }

    /// Evaluates periods and offsets at `params` and sets each partition's
    /// next sample to the first one not processed by time `t`: samples at or
    /// before `t` (within the tolerance) count as processed.
    pub(super) fn resume(&mut self, partitions: &[Partition], params: &[f64], t: f64) {
        for (p, part) in partitions.iter().enumerate() {
            let (period, offset) = (part.period.eval(params), part.offset.eval(params));
            self.period[p] = period;
            self.offset[p] = offset;
            self.next[p] = first_after(period, offset, t + tolerance(t));
        }
    }

    /// How many samples, over all partitions, are due at or before `end`
    /// (an estimate to one sample per partition; infinite when the count
    /// itself is not finite).
    fn samples_until(&self, end: f64) -> f64 {
        (0..self.next.len())
            .map(|p| {
                let first = self.instant(p);
                if first > end {
                    0.0
                } else {
                    // The index itself can overflow too: `next` near u64::MAX.
                    let n = ((end - first) / self.period[p]).floor() + 1.0;
                    if n.is_finite() && self.next[p] < u64::MAX / 2 {
                        n
                    } else {
                        f64::INFINITY
                    }
                }
            })
            .sum()
    }

    /// The next sample of each partition (a Model Exchange FMU state keeps them).
    pub(super) fn indices(&self) -> &[u64] {
        &self.next
    }

    /// Puts back indices of [`Sampling::indices`] (same length: checked by
    /// the caller); nothing allocates.
    pub(super) fn set_indices(&mut self, next: &[u64]) {
        self.next.copy_from_slice(next);
    }

    /// The earliest pending sample instant, or infinity.
    pub(super) fn earliest(&self) -> f64 {
        (0..self.next.len())
            .map(|p| self.instant(p))
            .fold(f64::INFINITY, f64::min)
    }
}

/// The smallest `k >= 0` whose instant lies strictly after `t`.
fn first_after(period: f64, offset: f64, t: f64) -> u64 {
    if !(period > 0.0) || offset > t {
        return 0;
    }
    let guess = ((t - offset) / period).floor().max(0.0);
    let mut k = if guess < 9.0e15 {
        guess as u64
    } else {
        return u64::MAX;
    };
    // The division may be off by one either way; the instants decide.
    while k > 0 && Partition::instant(period, offset, k - 1) > t {
        k -= 1;
    }
    while Partition::instant(period, offset, k) <= t {
        k += 1;
    }
    k
}

impl Instance {
    /// At the end of initialization: holds the outputs of the start values,
    /// then processes the samples that fall on the start time. Returns whether
    /// the held outputs were set (the multipliers must then be solved again).
    pub(super) fn start_sampling(&mut self) -> bool {
        if !self.sampling.active() {
            return false;
        }
        let t = self.time;
        // Samples before the start time never happen: resume just before it.
        let before = t - 2.0 * tolerance(t);
        self.sampling
            .resume(&self.model.sampled, &self.params, before);
        for part in &self.model.sampled {
            part.hold(&self.params, &self.states, &self.pairs, &mut self.inputs, t);
        }
        self.process_samples_at(t);
        true
    }

    /// After an FMU state was restored: the next samples follow from its time.
    pub(super) fn resume_sampling(&mut self) {
        if self.sampling.active() {
            let t = self.time;
            self.sampling.resume(&self.model.sampled, &self.params, t);
        }
    }

    /// The next sample of each partition (a Model Exchange FMU state's).
    pub(super) fn sampling_indices(&self) -> &[u64] {
        self.sampling.indices()
    }

    /// Puts back indices of a Model Exchange FMU state, of as many
    /// partitions (checked before the restore began).
    pub(super) fn set_sampling_indices(&mut self, next: &[u64]) {
        self.sampling.set_indices(next);
    }

    /// Processes, in file order, every partition whose next sample is at `t`
    /// (within the tolerance); returns whether any was.
    fn process_samples_at(&mut self, t: f64) -> bool {
        let limit = t + tolerance(t);
        let mut any = false;
        for (p, part) in self.model.sampled.iter().enumerate() {
            if self.sampling.instant(p) <= limit {
                let scratch = &mut self.sampling.scratch;
                part.sample(
                    &self.params,
                    &self.states,
                    &self.pairs,
                    &mut self.inputs,
                    t,
                    scratch,
                );
                self.sampling.next[p] = self.sampling.next[p].saturating_add(1);
                any = true;
            }
        }
        any
    }

    /// Model Exchange, at an update of the discrete states at `self.time`:
    /// processes, in order, every sample due by then (normally the one at
    /// the time event the importer stopped at; more when it stepped past
    /// some). The continuous values the partitions read (`self.pairs`) are
    /// the caller's. Returns whether any sample was processed; refuses, before
    /// anything moves, a time that leaves more than `MAX_SUBSTEPS` due.
    pub(super) fn process_due_samples(&mut self) -> FmiResult<bool> {
        if !self.sampling.active() {
            return Ok(false);
        }
        let t = self.time;
        let samples = self.sampling.samples_until(t + tolerance(t));
        if samples > MAX_SUBSTEPS {
            return Err(FmiError::error(format!(
                "the time {t} leaves {samples:e} samples of the [[discrete]] partitions due; at most {MAX_SUBSTEPS:e} are processed at one event"
            )));
        }
        let mut any = false;
        while self.process_samples_at(t) {
            any = true;
        }
        Ok(any)
    }

    /// Model Exchange: the earliest pending sample instant, a time event.
    pub(super) fn next_sample(&self) -> Option<f64> {
        let t = self.sampling.earliest();
        t.is_finite().then_some(t)
    }

    /// Model Exchange: whether a sample is due at the current time.
    pub(super) fn sample_due(&self) -> bool {
        self.sampling.earliest() <= self.time + tolerance(self.time)
    }

    /// Model Exchange, at a completed integrator step: whether the importer
    /// went past a pending sample instant (it ignored `nextEventTime`).
    pub(super) fn past_a_sample(&self) -> bool {
        self.sampling.earliest() < self.time - tolerance(self.time)
    }

    /// `do_step(t, h)` of a model with partitions (validated by the caller):
    /// the scheme runs from sample instant to sample instant inside the step.
    pub(super) fn sampled_step(&mut self, t: f64, h: f64) -> FmiResult<()> {
        let end = t + h;
        let tol = tolerance(end);
        // Each sample is processed in turn: a step over more of them than
        // `MAX_SUBSTEPS` (a huge step, a tiny period set as a parameter, a
        // start time of 1e300) would not end; refused before anything moves.
        let samples = self.sampling.samples_until(end + tol);
        if samples > MAX_SUBSTEPS {
            return Err(FmiError::error(format!(
                "step {h} from t = {t} would process {samples:e} samples of the [[discrete]] partitions; at most {MAX_SUBSTEPS:e} are allowed in one step"
            )));
        }
        // Adopt the master's clock, as `do_step` does.
        self.time = t;
        loop {
            let next = self.sampling.earliest();
            if next > end + tol {
                if end > self.time {
                    self.advance(self.time, end - self.time)?;
                }
                break;
            }
            // A sample within the tolerance of the end is taken at the end.
            let target = if next >= end - tol { end } else { next };
            if target > self.time + tolerance(self.time) {
                self.advance(self.time, target - self.time)?;
                // `time + (target - time)` may miss `target` by an ulp; only
                // an FMI 3.0 early return at an event stops clearly before it.
                if self.time < target - tolerance(target) {
                    return Ok(());
                }
            }
            self.time = self.time.max(target);
            self.process_samples_at(target);
            if target == end {
                break;
            }
        }
        self.time = end;
        self.last_successful_time = end;
        Ok(())
    }
}
