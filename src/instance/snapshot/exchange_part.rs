//! The Model Exchange part of an FMU state's bytes: the importer's tolerance
//! and the event engine's [`History`] (mode and event history), written after
//! the active set when the flag `EXCHANGE` is set, and checked field by field
//! when read (see [`History::refusal`]); from version 5 on, the next sample of
//! each `[[discrete]]` partition follows (an importer may save the state at a
//! sample instant before or after the update that processes it, so the time
//! alone does not tell).

use super::{Reader, Sizes, TOLERANCE_DEFINED};
use crate::lcp::Bound;
use crate::scheme::exchange::History;

/// The Model Exchange part of a snapshot.
#[derive(Clone, Debug, PartialEq)]
pub struct ExchangeState {
    /// The importer's tolerance from `fmi2SetupExperiment`, if given.
    pub tolerance: Option<f64>,
    /// The event engine (its `active` is the snapshot's active set).
    pub engine: History,
    /// Per `[[discrete]]` partition: the index of its next sample.
    pub samples: Vec<u64>,
}

pub(super) fn write_exchange(b: &mut Vec<u8>, me: &ExchangeState) {
    let h = &me.engine;
    let f = |b: &mut Vec<u8>, v: f64| b.extend_from_slice(&v.to_le_bytes());
    let n = |b: &mut Vec<u8>, v: u64| b.extend_from_slice(&v.to_le_bytes());
    f(b, me.tolerance.unwrap_or(0.0));
    f(b, h.atol);
    n(b, h.events);
    f(b, h.last_event);
    for v in &h.changed_at {
        n(b, *v);
    }
    for v in &h.step_start {
        f(b, *v);
    }
    f(b, h.path);
    f(b, h.path_since_event_before);
    n(b, h.steps_since_event);
    n(b, h.steps_between_events);
    b.push(u8::from(h.overshoot) | u8::from(h.overshoot_before) << 1);
    n(b, h.iterate.len() as u64);
    for v in &h.iterate {
        f(b, *v);
    }
    for bracket in [h.next_jump, h.jump] {
        let (l, r) = bracket.unwrap_or((f64::NAN, f64::NAN));
        f(b, l);
        f(b, r);
    }
    f(b, h.levels_at);
    n(b, me.samples.len() as u64);
    for k in &me.samples {
        n(b, *k);
    }
}

pub(super) fn read_exchange(
    r: &mut Reader,
    flags: u8,
    active: &[Bound],
    sizes: Sizes,
    version: u16,
) -> Result<ExchangeState, String> {
    let tolerance = r.f64()?;
    let tolerance = (flags & TOLERANCE_DEFINED != 0).then_some(tolerance);
    if let Some(t) = tolerance {
        if !(t > 0.0 && t < 1.0) {
            return Err(format!("FMU state has the tolerance {t}, not in (0, 1)"));
        }
    }
    let (atol, events, last_event) = (r.f64()?, r.u64()?, r.f64()?);
    let changed_at = (0..sizes.nu)
        .map(|_| r.u64())
        .collect::<Result<Vec<_>, _>>()?;
    let step_start = (0..sizes.nx)
        .map(|_| r.f64())
        .collect::<Result<Vec<_>, _>>()?;
    let (path, path_since_event_before) = (r.f64()?, r.f64()?);
    let (steps_since_event, steps_between_events) = (r.u64()?, r.u64()?);
    let bits = r.u8()?;
    if bits > 3 {
        return Err("FMU state has invalid overshoot flags".into());
    }
    let (mut iterate, mut brackets, mut levels_at) = (Vec::new(), [None, None], f64::NEG_INFINITY);
    if version >= 3 {
        let len = r.u64()?;
        if len != 0 && len != sizes.nu as u64 {
            return Err(format!(
                "FMU state has an iterate of {len} free pairs; this model has {}",
                sizes.nu
            ));
        }
        iterate = (0..len).map(|_| r.f64()).collect::<Result<Vec<_>, _>>()?;
        for b in &mut brackets {
            let (l, r) = (r.f64()?, r.f64()?);
            *b = (!(l.is_nan() && r.is_nan())).then_some((l, r));
        }
        levels_at = r.f64()?;
    }
    let mut samples = Vec::new();
    if version >= 5 {
        let len = r.u64()?;
        // Checked against the model's partitions on restore; bounded here
        // by the bytes left, so a corrupted length allocates nothing huge.
        if len > r.remaining() as u64 / 8 {
            return Err(format!(
                "FMU state has {len} sample indices, more than its bytes hold"
            ));
        }
        samples = (0..len).map(|_| r.u64()).collect::<Result<Vec<_>, _>>()?;
    }
    Ok(ExchangeState {
        tolerance,
        samples,
        engine: History {
            atol,
            active: active.to_vec(),
            events,
            last_event,
            changed_at,
            step_start,
            path,
            path_since_event_before,
            steps_since_event,
            steps_between_events,
            overshoot: bits & 1 != 0,
            overshoot_before: bits & 2 != 0,
            iterate,
            next_jump: brackets[0],
            jump: brackets[1],
            levels_at,
        },
    })
}
