//! The Model Exchange life cycle the child runs, written once for any FMI
//! version: a version's table of C functions implements [`Exchange`] (FMI 2.0:
//! [`super::api_me::ApiMe`], FMI 3.0: [`super::api3_me::Api3Me`]) and this
//! file says which calls a careful importer makes and what must come out of
//! them.
//!
//! The cycle: instantiate for Model Exchange; where the version has the calls
//! (FMI 3.0), the numbers of states and event indicators must be the
//! description's; a derivative asked for before initialization must be
//! refused, then `Reset`; initialize; the event iteration (new discrete states
//! until none are needed); in Continuous-Time Mode the directional
//! derivatives against finite differences, and the adjoint ones against their
//! transpose when declared ([`super::exchange_checks`]), then a fixed-step
//! explicit Euler that detects events by a sign change of an indicator (FMI's
//! `z > 0` against `z <= 0`) or by `CompletedIntegratorStep`, and handles them
//! in Event Mode, reading the states back when they changed. Every call passes
//! the description's numbers of states and event indicators
//! ([`super::exchange_calls`] makes and checks each call); the states read by
//! value reference must be the continuous states, the `der(x)` variables the
//! derivatives, FMI 3.0's event indicator variables the indicators,
//! everything finite. At the end, calls the state machine forbids in
//! Continuous-Time Mode must be refused and change nothing; `Reset` and the
//! same initialization must give the same start; terminate and free.

use super::cycle::{Instance, Status};
use super::exchange_calls::{finite, Driver};
use super::exchange_checks;
use super::{announce, Spec};

/// What the description declares for Model Exchange; the run holds the binary to it.
#[derive(Clone, Debug, Default)]
pub struct ExchangeSpec {
    /// Value references of the continuous states, in the order of the states
    /// vector (the order of the description's derivatives).
    pub states: Vec<u32>,
    /// Value references of their derivatives, in the same order.
    pub derivatives: Vec<u32>,
    /// Value references of the continuous Real inputs: knowns of the
    /// directional derivatives.
    pub inputs: Vec<u32>,
    pub event_indicators: usize,
    /// FMI 3.0: value references of the named event indicators, in the order
    /// of the indicators vector (empty for FMI 2.0, which does not name them).
    pub indicators: Vec<u32>,
    /// `providesDirectionalDerivative(s)`.
    pub directional: bool,
    /// FMI 3.0's `providesAdjointDerivatives`.
    pub adjoint: bool,
}

/// What an update of the discrete states says, in any version.
#[derive(Clone, Copy, Debug, Default)]
pub struct EventUpdate {
    pub needed: bool,
    pub terminate: bool,
    pub values_changed: bool,
    pub next_time: Option<f64>,
}

/// The names a version gives the calls of the cycle, as announced.
pub struct ExchangeNames {
    pub reset: &'static str,
    pub terminate: &'static str,
    pub free_instance: &'static str,
    pub get_reals: &'static str,
    pub set_reals: &'static str,
    pub enter_event_mode: &'static str,
    pub update: &'static str,
    pub enter_continuous: &'static str,
    pub completed: &'static str,
    pub set_time: &'static str,
    pub set_states: &'static str,
    pub get_states: &'static str,
    pub derivatives: &'static str,
    pub indicators: &'static str,
    pub nominals: &'static str,
    pub directional: &'static str,
    pub adjoint: &'static str,
    pub number_of_states: &'static str,
    pub number_of_indicators: &'static str,
    pub do_step: &'static str,
}

/// How one FMI version makes the Model Exchange calls. Each method makes one
/// call and returns its status, except `instantiate` and `initialize`, which
/// return an error naming the call that failed.
pub trait Exchange {
    fn names(&self) -> &'static ExchangeNames;
    /// The name of a status value.
    fn status_name(&self, s: Status) -> String;

    /// # Safety
    /// `self` holds the functions of one loaded library.
    unsafe fn instantiate(&self, spec: &Spec) -> Result<Instance, String>;
    /// From instantiated to Event Mode, the experiment ending at `stop`.
    ///
    /// # Safety
    /// `c` is a live Model Exchange instance of this library; so for every
    /// method below; slices hold as many values as the call is told.
    unsafe fn initialize(&self, c: Instance, spec: &Spec, stop: f64) -> Result<(), String>;
    unsafe fn reset(&self, c: Instance) -> Status;
    unsafe fn terminate(&self, c: Instance) -> Status;
    unsafe fn free_instance(&self, c: Instance);
    unsafe fn get_reals(&self, c: Instance, vrs: &[u32], values: &mut [f64]) -> Status;
    unsafe fn set_reals(&self, c: Instance, vrs: &[u32], values: &[f64]) -> Status;
    unsafe fn enter_event_mode(&self, c: Instance) -> Status;
    unsafe fn update(&self, c: Instance, update: &mut EventUpdate) -> Status;
    unsafe fn enter_continuous(&self, c: Instance) -> Status;
    /// `(status, enterEventMode, terminateSimulation)`.
    unsafe fn completed(&self, c: Instance) -> (Status, bool, bool);
    unsafe fn set_time(&self, c: Instance, t: f64) -> Status;
    unsafe fn set_states(&self, c: Instance, x: &[f64]) -> Status;
    unsafe fn get_states(&self, c: Instance, x: &mut [f64]) -> Status;
    unsafe fn derivatives(&self, c: Instance, dx: &mut [f64]) -> Status;
    unsafe fn indicators(&self, c: Instance, z: &mut [f64]) -> Status;
    unsafe fn nominals(&self, c: Instance, n: &mut [f64]) -> Status;
    unsafe fn directional(
        &self,
        c: Instance,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        out: &mut [f64],
    ) -> Status;
    /// The adjoint derivatives (`seed` per unknown, `out` per known); `None`
    /// when the version or the binary has none.
    unsafe fn adjoint(
        &self,
        _c: Instance,
        _unknowns: &[u32],
        _knowns: &[u32],
        _seed: &[f64],
        _out: &mut [f64],
    ) -> Option<Status> {
        None
    }
    /// Whether the version has calls for the numbers of states and event
    /// indicators (FMI 3.0), which the binary's answers must then match.
    fn has_counts(&self) -> bool {
        false
    }
    /// The number of continuous states the binary reports; `None` when the
    /// version has no such call (FMI 2.0).
    unsafe fn number_of_states(&self, _c: Instance, _n: &mut usize) -> Option<Status> {
        None
    }
    /// The number of event indicators, likewise.
    unsafe fn number_of_indicators(&self, _c: Instance, _n: &mut usize) -> Option<Status> {
        None
    }
    /// A co-simulation step on the Model Exchange instance, which must be
    /// refused; `None` when the binary exports no such function.
    unsafe fn co_simulation_step(&self, c: Instance, t: f64, h: f64) -> Option<Status>;
}

/// `fmi2Error` and `fmi3Error` alike: what a refused call returns.
pub const ERROR: Status = 3;
/// Euler steps per grid point at most: time events may shorten steps, not
/// multiply them without end.
const MAX_STEPS_PER_GRID_POINT: usize = 10;

/// Whether an indicator changed its domain, `z > 0` against `z <= 0` (FMI 2.0
/// section 3.1, FMI 3.0 section 3.1.1).
fn crossed(before: &[f64], after: &[f64]) -> bool {
    before
        .iter()
        .zip(after)
        .any(|(a, b)| (*a > 0.0) != (*b > 0.0))
}

/// One Model Exchange life cycle; `Ok` holds its summary.
///
/// # Safety
/// `api` holds the functions of one loaded library.
pub unsafe fn life_cycle(api: &impl Exchange, spec: &Spec) -> Result<String, String> {
    let me = spec
        .model_exchange
        .as_ref()
        .ok_or("no Model Exchange description given")?;
    let (nx, nz) = (me.states.len(), me.event_indicators);
    let c = api.instantiate(spec)?;
    let mut d = Driver {
        api,
        c,
        n: api.names(),
        me,
        t: spec.start,
    };
    let (mut x, mut dx, mut read) = (vec![0.0; nx], vec![0.0; nx], vec![0.0; nx]);
    let counted = exchange_checks::counts(&d)?;
    exchange_checks::refused_before_initialization(&d, &mut dx)?;
    d.call(d.n.reset, || api.reset(c))?;
    let stop = spec.start + spec.steps as f64 * spec.step;
    api.initialize(c, spec, stop)?;
    let mut next_time = None;
    let first = d.settle(&mut next_time)?;
    let (mut updates, mut terminated, mut moved) = (first.updates, first.terminate, 0);
    d.states(&mut x)?;
    let start_states = x.clone();
    d.same_by_reference(&me.states, &x, &mut read, "state", d.n.get_states)?;
    d.derivatives(&mut dx)?;
    d.same_by_reference(
        &me.derivatives,
        &dx,
        &mut read,
        "derivative",
        d.n.derivatives,
    )?;
    let mut nominals = vec![0.0; nx];
    d.counted(d.n.nominals, nx, "states", || {
        api.nominals(c, &mut nominals)
    })?;
    finite(&nominals, &me.states, "nominal", d.t)?;
    let mut directional = String::new();
    if me.directional && !terminated {
        let (e, adjoint) = exchange_checks::directional(&d, &x)?;
        directional = format!(
            "; directional derivatives == finite differences (largest relative difference {e:.1e})"
        );
        if let Some(a) = adjoint {
            directional += &format!(
                "; adjoint derivatives == their transpose (largest relative difference {a:.1e})"
            );
        }
    }
    let (mut z, mut z_before) = (vec![0.0; nz], vec![0.0; nz]);
    d.indicators(&mut z_before)?;
    // `grid`: the points of the grid reached; a time event adds a step between two.
    let (mut grid, mut steps, mut events) = (0usize, 0usize, 0usize);
    while grid < spec.steps && !terminated {
        if steps >= MAX_STEPS_PER_GRID_POINT * spec.steps {
            return Err(format!(
                "{steps} steps for {grid} of the {} grid points: time events crowd (t = {})",
                spec.steps, d.t
            ));
        }
        d.derivatives(&mut dx)?;
        d.same_by_reference(
            &me.derivatives,
            &dx,
            &mut read,
            "derivative",
            d.n.derivatives,
        )?;
        // A time event ends the step early.
        let next_grid = spec.start + (grid + 1) as f64 * spec.step;
        let timed = next_time.filter(|&te| te > d.t && te < next_grid);
        let t1 = timed.unwrap_or(next_grid);
        let h = t1 - d.t;
        for (xi, di) in x.iter_mut().zip(&dx) {
            *xi += h * di;
        }
        d.t = t1;
        d.call(d.n.set_time, || api.set_time(c, t1))?;
        d.set_states(&x)?;
        d.same_by_reference(&me.states, &x, &mut read, "state", d.n.set_states)?;
        d.indicators(&mut z)?;
        let (status, enter, stop_now) = api.completed(c);
        d.call(d.n.completed, || status)?;
        steps += 1;
        grid += usize::from(timed.is_none());
        if stop_now {
            terminated = true;
            break;
        }
        if enter || timed.is_some() || crossed(&z_before, &z) {
            events += 1;
            d.call(d.n.enter_event_mode, || api.enter_event_mode(c))?;
            let settled = d.settle(&mut next_time)?;
            updates += settled.updates;
            terminated = settled.terminate;
            moved += usize::from(settled.values_changed);
            // A careful importer reads them back after any event, changed or not.
            d.states(&mut x)?;
            d.indicators(&mut z)?;
        }
        std::mem::swap(&mut z, &mut z_before);
    }
    let mut summary = format!(
        "{steps} explicit Euler steps of h = {} from t = {} to {}, {events} events \
         ({updates} {} calls, {moved} changing the mode or the states); {nx} states and {nz} event \
         indicators as declared{counted}; the state and der(x) variables by {} == {} and {}{directional}",
        spec.step, spec.start, d.t, d.n.update, d.n.get_reals, d.n.get_states, d.n.derivatives
    );
    if !me.indicators.is_empty() {
        summary += &format!(
            "; the event indicator variables by {} == {}",
            d.n.get_reals, d.n.indicators
        );
    }
    if terminated {
        summary += &format!("; terminateSimulation at t = {}", d.t);
    } else {
        let refused = exchange_checks::refused_in_continuous_time(&d, &mut x, &mut dx, &mut z)?;
        summary += &format!("; {refused} calls the state machine forbids refused without a change");
    }
    // Back to the start: the same start states, bit for bit.
    d.call(d.n.reset, || api.reset(c))?;
    d.t = spec.start;
    api.initialize(c, spec, stop)?;
    d.settle(&mut next_time)?;
    d.states(&mut x)?;
    let differs = |(a, b): (&f64, &f64)| a.to_bits() != b.to_bits();
    if let Some(i) = x.iter().zip(&start_states).position(differs) {
        return Err(format!(
            "after {} and the same initialization, the state of value reference {} is {} where the first start gave {}",
            d.n.reset, me.states[i], x[i], start_states[i]
        ));
    }
    summary += &format!("; {} to the same start states", d.n.reset);
    d.call(d.n.terminate, || api.terminate(c))?;
    announce(d.n.free_instance);
    api.free_instance(c);
    Ok(summary)
}
