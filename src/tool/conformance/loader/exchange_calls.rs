//! The calls of the Model Exchange cycle on one instance ([`Driver`]): each
//! announced before it is made, its status checked, the description's counts
//! passed and named in the error, the values read checked for finiteness, and
//! the event iteration. FMI 3.0's named event indicators are read by value
//! reference at every reading of the indicators vector, and must equal it. [`super::exchange`] says in which order they come.

use super::cycle::Status;
use super::exchange::{EventUpdate, Exchange, ExchangeNames, ExchangeSpec};
use super::{announce, cycle::Instance};

/// Event iterations at one instant before the FMU is said to loop.
const MAX_ITERATIONS: usize = 100;

/// One instance and the calls made on it, each announced first.
pub struct Driver<'a, A: Exchange> {
    pub api: &'a A,
    pub c: Instance,
    pub n: &'static ExchangeNames,
    pub me: &'a ExchangeSpec,
    pub t: f64,
}

impl<'a, A: Exchange> Driver<'a, A> {
    /// Announces `what`, makes the call; OK and Warning continue.
    pub fn call(&self, what: &str, call: impl FnOnce() -> Status) -> Result<(), String> {
        announce(what);
        match call() {
            0 | 1 => Ok(()),
            s => Err(format!(
                "{what} returned {} (t = {})",
                self.api.status_name(s),
                self.t
            )),
        }
    }

    /// A call with the description's count of states (or indicators) `n`.
    pub fn counted(
        &self,
        name: &str,
        n: usize,
        of: &str,
        call: impl FnOnce() -> Status,
    ) -> Result<(), String> {
        let what = format!("{name} with the description's {n} {of}");
        self.call(&what, call)
    }

    /// # Safety
    /// `self.c` is live; so for every method below.
    pub unsafe fn states(&self, x: &mut [f64]) -> Result<(), String> {
        let (api, c) = (self.api, self.c);
        self.counted(self.n.get_states, x.len(), "states", || {
            api.get_states(c, x)
        })?;
        finite(x, &self.me.states, "state", self.t)
    }

    pub unsafe fn derivatives(&self, dx: &mut [f64]) -> Result<(), String> {
        let (api, c) = (self.api, self.c);
        self.counted(self.n.derivatives, dx.len(), "states", || {
            api.derivatives(c, dx)
        })?;
        finite(dx, &self.me.derivatives, "derivative", self.t)
    }

    pub unsafe fn indicators(&self, z: &mut [f64]) -> Result<(), String> {
        let (api, c) = (self.api, self.c);
        let n = z.len();
        self.counted(self.n.indicators, n, "event indicators", || {
            api.indicators(c, z)
        })?;
        if let Some(i) = z.iter().position(|v| !v.is_finite()) {
            return Err(format!("event indicator {i} is {} at t = {}", z[i], self.t));
        }
        // FMI 3.0 names them: each variable must read as its indicator.
        let named = &self.me.indicators;
        if named.is_empty() {
            return Ok(());
        }
        if named.len() != n {
            return Err(format!(
                "{} EventIndicator entries, but {n} event indicators declared",
                named.len()
            ));
        }
        let mut read = vec![0.0; n];
        let name = self.n.indicators;
        self.same_by_reference(named, z, &mut read, "event indicator", name)
    }

    pub unsafe fn set_states(&self, x: &[f64]) -> Result<(), String> {
        let (api, c) = (self.api, self.c);
        self.counted(self.n.set_states, x.len(), "states", || {
            api.set_states(c, x)
        })
    }

    /// The variables `vrs` read by value reference must be `expected`.
    pub unsafe fn same_by_reference(
        &self,
        vrs: &[u32],
        expected: &[f64],
        read: &mut [f64],
        which: &str,
        call: &str,
    ) -> Result<(), String> {
        let (api, c) = (self.api, self.c);
        let what = format!("{} of the {which}", self.n.get_reals);
        self.call(&what, || api.get_reals(c, vrs, read))?;
        let differs = |(a, b): (&f64, &f64)| a != b && a.to_bits() != b.to_bits();
        match read.iter().zip(expected).position(differs) {
            None => Ok(()),
            Some(i) => Err(format!(
                "{} of value reference {} ({} {which} variable) gives {} where {call} gives {} (t = {})",
                self.n.get_reals,
                vrs[i],
                if which.starts_with('e') { "an" } else { "a" },
                read[i],
                expected[i],
                self.t
            )),
        }
    }

    /// Event Mode until no new discrete states are needed, then
    /// Continuous-Time Mode (unless the FMU asks to terminate: it then stays
    /// in Event Mode).
    pub unsafe fn settle(&self, next_time: &mut Option<f64>) -> Result<Settled, String> {
        let (api, c) = (self.api, self.c);
        let mut settled = Settled::default();
        for k in 1..=MAX_ITERATIONS {
            let mut u = EventUpdate::default();
            self.call(self.n.update, || api.update(c, &mut u))?;
            settled.updates = k;
            settled.values_changed |= u.values_changed;
            if u.terminate {
                settled.terminate = true;
                return Ok(settled);
            }
            if !u.needed {
                *next_time = u.next_time.filter(|t| t.is_finite());
                self.call(self.n.enter_continuous, || api.enter_continuous(c))?;
                return Ok(settled);
            }
        }
        Err(format!(
            "{} still needs new discrete states after {MAX_ITERATIONS} iterations at t = {}",
            self.n.update, self.t
        ))
    }
}

/// What one event iteration did.
#[derive(Clone, Copy, Debug, Default)]
pub struct Settled {
    /// Updates of the discrete states made.
    pub updates: usize,
    pub terminate: bool,
    /// An update said the continuous states changed.
    pub values_changed: bool,
}

/// Whether `v` is finite; the error names the value reference.
pub fn finite(v: &[f64], vrs: &[u32], what: &str, t: f64) -> Result<(), String> {
    match v.iter().position(|x| !x.is_finite()) {
        None => Ok(()),
        Some(i) => Err(format!(
            "the {what} of value reference {} is {} at t = {t}",
            vrs.get(i).copied().unwrap_or(u32::MAX),
            v[i]
        )),
    }
}
