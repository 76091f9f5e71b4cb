//! A nonlinear mode kept aside and brought back as it was, for the Model
//! Exchange event that fails.
//!
//! A failed event must leave the instance as it found it. A linear mode is
//! simply built again (its build does not depend on anything but the active
//! set and the inputs), but a nonlinear one may not come back that way: its
//! build solves the free pairs by a Newton iteration from wherever the last
//! evaluation left the iterate, and whether a pair is held algebraically or
//! through its derivative is decided by whether that solve succeeds (the
//! buck converter's diode row, see `NonlinearMode::build`). A rebuild after
//! the event's trial modes starts from another iterate and can decide
//! otherwise. So the event keeps what the mode is (active set, inputs,
//! bounds, free pairs and how each is held, guards, iterate) and puts it
//! back, in buffers sized once.

use crate::lcp::Bound;
use crate::scheme::mode::linear::Guard;
use crate::scheme::mode::nonlinear::NonlinearMode;

/// What a [`NonlinearMode`] is between builds.
pub(super) struct Kept {
    active: Vec<Bound>,
    w: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    free: Vec<usize>,
    derivative: Vec<bool>,
    guards: Vec<Guard>,
    u: Vec<f64>,
}

impl Kept {
    pub(super) fn new(nu: usize, nw: usize) -> Self {
        Kept {
            active: vec![Bound::Free; nu],
            w: vec![0.0; nw],
            lo: vec![0.0; nu],
            hi: vec![0.0; nu],
            free: Vec::with_capacity(nu),
            derivative: vec![false; nu],
            guards: Vec::with_capacity(2 * nu),
            u: vec![0.0; nu],
        }
    }
}

impl NonlinearMode {
    /// Keeps the mode as it is now (see the module's text).
    pub fn keep(&mut self) {
        let k = &mut self.kept;
        k.active.copy_from_slice(&self.active);
        k.w.copy_from_slice(&self.w);
        k.lo.copy_from_slice(&self.lo);
        k.hi.copy_from_slice(&self.hi);
        // Within the capacities sized at construction: no allocation.
        k.free.clear();
        k.free.extend_from_slice(&self.free);
        k.derivative.copy_from_slice(&self.derivative);
        k.guards.clear();
        k.guards.extend_from_slice(&self.guards);
        k.u.copy_from_slice(&self.u);
    }

    /// Makes the mode the one [`NonlinearMode::keep`] kept, its evaluations
    /// forgotten (the next one solves from the kept iterate, as it would have).
    pub fn bring_back(&mut self) {
        let k = &self.kept;
        self.active.copy_from_slice(&k.active);
        self.w.copy_from_slice(&k.w);
        self.lo.copy_from_slice(&k.lo);
        self.hi.copy_from_slice(&k.hi);
        self.free.clear();
        self.free.extend_from_slice(&k.free);
        self.derivative.copy_from_slice(&k.derivative);
        self.guards.clear();
        self.guards.extend_from_slice(&k.guards);
        self.u.copy_from_slice(&k.u);
        self.forget();
        self.failure = None;
    }
}
