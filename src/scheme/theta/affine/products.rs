//! The arithmetic of one theta step: where each per-step product lies in the
//! stepper's `step_data` ([`Layout`]), those products borrowed for one step
//! ([`Products`]), where the step writes ([`Vectors`]), and the step itself
//! ([`advance`]): products, the LCP, the new state.

use crate::lcp::{self, Problem, Solver};
use crate::linalg::RowsRef;
use crate::scheme::dims::Dims;
use crate::scheme::{tidy, StepError};

/// Where each per-step product starts in [`ThetaStepper`](super::ThetaStepper)'s
/// `step_data`, in the order the step reads them; each ends where the next
/// starts, the last at `len`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    pub(super) x: usize,
    pub(super) fx: usize,
    pub(super) xw: usize,
    pub(super) q: usize,
    pub(super) q0: usize,
    pub(super) qw: usize,
    pub(super) gamma: usize,
    pub(super) len: usize,
}

impl Layout {
    #[inline(always)]
    pub(super) fn of(nx: usize, nu: usize, nw: usize) -> Self {
        let x = 0;
        let fx = x + nx * nx;
        let xw = fx + nx;
        let q = xw + nx * nw;
        let q0 = q + nu * nx;
        let qw = q0 + nu;
        let gamma = qw + nu * nw;
        let len = gamma + nx * nu;
        Layout {
            x,
            fx,
            xw,
            q,
            q0,
            qw,
            gamma,
            len,
        }
    }
}

/// The per-step products of [`ThetaStepper`](super::ThetaStepper), borrowed for
/// one step.
pub(super) struct Products<'a> {
    x: RowsRef<'a>,
    fx: &'a [f64],
    xw: RowsRef<'a>,
    q: RowsRef<'a>,
    q0: &'a [f64],
    qw: RowsRef<'a>,
    gamma: RowsRef<'a>,
}

impl<'a> Products<'a> {
    /// The products in `data` at sizes `d`.
    #[inline(always)]
    pub(super) fn of<D: Dims>(d: D, data: &'a [f64]) -> Self {
        let (nx, nu, nw) = (d.nx(), d.nu(), d.nw());
        let o = Layout::of(nx, nu, nw);
        // One check of the whole length; the slices below lie inside it at
        // offsets the compiler knows when the sizes are constants.
        let data = &data[..o.len];
        Products {
            x: RowsRef::new(&data[o.x..o.fx], nx, nx),
            fx: &data[o.fx..o.xw],
            xw: RowsRef::new(&data[o.xw..o.q], nx, nw),
            q: RowsRef::new(&data[o.q..o.q0], nu, nx),
            q0: &data[o.q0..o.qw],
            qw: RowsRef::new(&data[o.qw..o.gamma], nu, nw),
            gamma: RowsRef::new(&data[o.gamma..o.len], nx, nu),
        }
    }
}

/// Where one step writes: the new state, `q` (work space), the multipliers and
/// `y = M u + q`.
pub(super) struct Vectors<'a> {
    pub(super) x: &'a mut [f64],
    pub(super) q: &'a mut [f64],
    pub(super) u: &'a mut [f64],
    pub(super) y: &'a mut [f64],
}

/// One step from `x` with inputs `w` into `out`; `problem.q` receives `q` for
/// the solver's fallback. Whether the vectors live on the stack or in the
/// stepper's buffers is the caller's choice (the arithmetic is the same).
#[inline(always)]
pub(super) fn advance<D: Dims>(
    d: D,
    m: &Products,
    solver: &mut Solver,
    problem: &mut Problem,
    x: &[f64],
    w: &[f64],
    out: Vectors,
) -> Result<lcp::Info, StepError> {
    let (nx, nu, nw) = (d.nx(), d.nu(), d.nw());
    let (x, w) = (&x[..nx], &w[..nw]);
    let Vectors { x: x_next, q, u, y } = out;
    m.x.mul_from(x_next, m.fx, x);
    m.xw.mul_acc(x_next, w);
    m.q.mul_from(q, m.q0, x);
    m.qw.mul_acc(q, w);
    problem.q.as_mut_slice()[..nu].copy_from_slice(q);
    let info = solver.solve_with(nu, problem, q, u, y);
    if info.status != lcp::Status::Solved {
        return Err(StepError::Lcp(info));
    }
    m.gamma.mul_acc(x_next, u);
    if !tidy(x_next) || !tidy(u) {
        return Err(StepError::NotFinite);
    }
    Ok(info)
}
