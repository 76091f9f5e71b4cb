//! FMU states: snapshots of an instance, and their byte format.
//!
//! A [`Snapshot`] holds every piece of dynamic data that decides what the next
//! step computes: phase, time, parameters, inputs, states, multipliers, the LCP
//! warm start and the step size whose factorization was in use. Restoring one and
//! stepping again therefore repeats the original run bit for bit.
//!
//! The serialized form is little-endian and position independent:
//! `"LCSF" | u16 version | u16 GUID length | GUID | u8 phase | u8 flags |
//! f64 time, start, stop, last successful time, cached step |
//! u32 np, nw, nx, nu | f64 parameters, inputs, states, multipliers | u8 active set |
//! [Model Exchange part] | u64 FNV-1a checksum of everything before it`. The
//! Model Exchange part (flag 8; an FMU state of a Model Exchange instance) is
//! `f64 importer tolerance (flag 16 when given), event tolerance | u64 events |
//! f64 last event time | u64 per pair: event of its last change | f64 per
//! state: where the importer's step started | f64 two paths | u64 two step
//! counts | u8 overshoot bits | u64 length and f64 values of the free pairs'
//! iterate (0 for a linear model) | f64 pending and handled time event
//! brackets (NaN: none), time since which the levels are known` (see
//! [`crate::scheme::exchange::History`]; the last three from version 3 on) |
//! u64 count and u64 values: the next sample of each `[[discrete]]` partition
//! (from version 5 on).
//! The trend part (flag 32, from version 4 on; an instance whose Newton
//! predictor continues a trend, see [`crate::scheme::theta::trend`]) is `f64 step
//! size, end time | f64 per state: right-hand side`, written before the
//! Model Exchange part.
//! Reading checks every part, so truncated, corrupted or foreign bytes are
//! refused with a reason.

use super::state::Phase;
use crate::lcp::Bound;

mod exchange_part;

use crate::scheme::theta::trend::Trend;
pub use exchange_part::ExchangeState;
use exchange_part::{read_exchange, write_exchange};

const MAGIC: &[u8; 4] = b"LCSF";
/// 2 added the Model Exchange part, 3 its nonlinear engine's iterate and time
/// events, 4 the trend, 5 the Model Exchange part's sample indices; states
/// of versions 1 to 4 are read too.
const VERSION: u16 = 5;
const TERMINATED: u8 = 1;
const CONSISTENT: u8 = 2;
const STOP_DEFINED: u8 = 4;
const EXCHANGE: u8 = 8;
const TOLERANCE_DEFINED: u8 = 16;
const TREND: u8 = 32;

/// The dynamic data of an instance.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    pub phase: Phase,
    pub time: f64,
    pub start_time: f64,
    pub stop_time: Option<f64>,
    pub last_successful_time: f64,
    pub terminated: bool,
    /// Whether the multipliers are consistent with the current states and inputs.
    pub consistent: bool,
    /// Step size of the cached factorization (NaN when none).
    pub cached_step: f64,
    pub params: Vec<f64>,
    pub inputs: Vec<f64>,
    pub states: Vec<f64>,
    pub pairs: Vec<f64>,
    pub active_set: Vec<Bound>,
    /// The Newton predictor's trend, when it continues one.
    pub trend: Option<Trend>,
    /// Of a Model Exchange instance.
    pub exchange: Option<ExchangeState>,
}

/// The sizes a snapshot must have to belong to a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    pub np: usize,
    pub nw: usize,
    pub nx: usize,
    pub nu: usize,
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl Snapshot {
    /// Serializes for the model with this GUID.
    pub fn to_bytes(&self, guid: &str) -> Vec<u8> {
        let mut b = Vec::with_capacity(
            64 + guid.len() + 8 * (self.params.len() + self.states.len() + 2 * self.pairs.len()),
        );
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.extend_from_slice(&(guid.len() as u16).to_le_bytes());
        b.extend_from_slice(guid.as_bytes());
        b.push(self.phase as u8);
        let flags = (if self.terminated { TERMINATED } else { 0 })
            | (if self.consistent { CONSISTENT } else { 0 })
            | (if self.stop_time.is_some() {
                STOP_DEFINED
            } else {
                0
            })
            | (if self.exchange.is_some() { EXCHANGE } else { 0 })
            | (if self.trend.is_some() { TREND } else { 0 })
            | (match &self.exchange {
                Some(ExchangeState {
                    tolerance: Some(_), ..
                }) => TOLERANCE_DEFINED,
                _ => 0,
            });
        b.push(flags);
        for v in [
            self.time,
            self.start_time,
            self.stop_time.unwrap_or(0.0),
            self.last_successful_time,
            self.cached_step,
        ] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        for n in [
            self.params.len(),
            self.inputs.len(),
            self.states.len(),
            self.pairs.len(),
        ] {
            b.extend_from_slice(&(n as u32).to_le_bytes());
        }
        for v in self
            .params
            .iter()
            .chain(&self.inputs)
            .chain(&self.states)
            .chain(&self.pairs)
        {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend(self.active_set.iter().map(|s| *s as u8));
        if let Some(trend) = &self.trend {
            for v in [trend.h, trend.t].iter().chain(&trend.rhs) {
                b.extend_from_slice(&v.to_le_bytes());
            }
        }
        if let Some(me) = &self.exchange {
            write_exchange(&mut b, me);
        }
        let sum = fnv1a(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    /// Reads bytes written by [`Snapshot::to_bytes`] for the same model.
    pub fn from_bytes(bytes: &[u8], guid: &str, sizes: Sizes) -> Result<Snapshot, String> {
        if bytes.len() < 8 + 8 || &bytes[..4] != MAGIC {
            return Err("not an lcsfmu FMU state (bad header)".into());
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if fnv1a(body) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
            return Err("FMU state is corrupt or truncated (checksum mismatch)".into());
        }
        let mut r = Reader {
            bytes: body,
            pos: 4,
        };
        let version = r.u16()?;
        if !(1..=VERSION).contains(&version) {
            return Err(format!(
                "FMU state format version {version} is not supported (expected {VERSION})"
            ));
        }
        let glen = r.u16()? as usize;
        if r.take(glen)? != guid.as_bytes() {
            return Err("FMU state belongs to a different model (GUID differs)".into());
        }
        let phase = Phase::from_u8(r.u8()?).ok_or("FMU state has an unknown phase")?;
        let flags = r.u8()?;
        let [time, start_time, stop, last, cached_step] =
            [r.f64()?, r.f64()?, r.f64()?, r.f64()?, r.f64()?];
        let got = Sizes {
            np: r.u32()? as usize,
            nw: r.u32()? as usize,
            nx: r.u32()? as usize,
            nu: r.u32()? as usize,
        };
        if got != sizes {
            return Err(format!(
                "FMU state sizes {got:?} do not match the model {sizes:?}"
            ));
        }
        let mut vec = |n: usize| {
            (0..n)
                .map(|_| r.f64())
                .collect::<Result<Vec<f64>, String>>()
        };
        let (params, inputs, states, pairs) = (
            vec(sizes.np)?,
            vec(sizes.nw)?,
            vec(sizes.nx)?,
            vec(sizes.nu)?,
        );
        let active_set = r
            .take(sizes.nu)?
            .iter()
            .map(|b| match b {
                0 => Ok(Bound::Free),
                1 => Ok(Bound::Lower),
                2 => Ok(Bound::Upper),
                _ => Err("FMU state has an invalid active set".to_string()),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let trend = if flags & TREND != 0 {
            if version < 4 {
                return Err(format!(
                    "FMU state format version {version} has no trend part"
                ));
            }
            let (h, t) = (r.f64()?, r.f64()?);
            let rhs = (0..sizes.nx)
                .map(|_| r.f64())
                .collect::<Result<Vec<f64>, String>>()?;
            if !(h > 0.0 && h.is_finite() && t.is_finite() && rhs.iter().all(|v| v.is_finite())) {
                return Err("FMU state has an unusable trend (a step size that is not positive, or non-finite values)".into());
            }
            Some(Trend { h, t, rhs })
        } else {
            None
        };
        let exchange = if flags & EXCHANGE != 0 {
            if version == 1 {
                return Err("FMU state format version 1 has no Model Exchange part".into());
            }
            let me = read_exchange(&mut r, flags, &active_set, sizes, version)?;
            if let Some(why) = me.engine.refusal(sizes.nx, sizes.nu) {
                return Err(format!("FMU state is unusable: {why}"));
            }
            Some(me)
        } else {
            None
        };
        if r.pos != body.len() {
            return Err("FMU state has trailing bytes".into());
        }
        let finite = [time, start_time, stop, last]
            .iter()
            .chain(&params)
            .chain(&inputs)
            .chain(&states)
            .chain(&pairs)
            .all(|v| v.is_finite());
        if !finite {
            return Err("FMU state holds non-finite values".into());
        }
        Ok(Snapshot {
            phase,
            time,
            start_time,
            stop_time: (flags & STOP_DEFINED != 0).then_some(stop),
            last_successful_time: last,
            terminated: flags & TERMINATED != 0,
            consistent: flags & CONSISTENT != 0,
            cached_step,
            params,
            inputs,
            states,
            pairs,
            active_set,
            trend,
            exchange,
        })
    }
}

pub(super) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    /// Bytes not read yet.
    pub(super) fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }
    pub(super) fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|e| *e <= self.bytes.len())
            .ok_or("FMU state is truncated")?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    pub(super) fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    pub(super) fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes(
            self.take(2)?.try_into().expect("2 bytes"),
        ))
    }
    pub(super) fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    pub(super) fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
    pub(super) fn f64(&mut self) -> Result<f64, String> {
        Ok(f64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
}

#[cfg(test)]
mod tests;
