//! The sizes a step runs on: read from the model at run time, or fixed when the
//! FMU is compiled.
//!
//! The theta step and its warm-started LCP solve are written once, generic over
//! [`Dims`]. `lcsfmu simulate` runs them with [`Dyn`] (sizes from the instance);
//! an FMU, compiled for one model, installs the instance [`Fixed`] at its sizes
//! (see `Instance::specialize`). Both run the same source with the same
//! floating-point operations in the same order, so they produce the same numbers
//! bit for bit; with constant sizes the compiler unrolls the loops over two or
//! three entries and drops their bounds checks, which for the small models FMUs
//! are usually built from is most of what a step costs.
//!
//! Only sizes are fixed: the matrices stay in the instance's heap buffers
//! (allocated once). The step's vectors (new state, `q`, multipliers, `y`) live
//! on the stack up to [`FIXED_LIMIT`] entries, whatever the sizes' kind: at fixed
//! sizes every index into them is a constant, so they stay in registers from the
//! state to the LCP's verdict (see `theta::advance`). Above [`FIXED_LIMIT`]
//! unknowns an FMU keeps the dynamic path, since full unrolling no longer pays
//! for its code size.

/// The largest number of states, pairs or inputs for which an FMU compiles the
/// step at fixed sizes.
pub const FIXED_LIMIT: usize = 8;

/// Where the step reads its sizes from. Implementations must return the sizes
/// the instance was created with; [`Fixed`] is checked once when installed.
pub trait Dims: Copy {
    /// The sizes for an instance whose run-time sizes are `nx`, `nu`, `nw`.
    fn of(nx: usize, nu: usize, nw: usize) -> Self;
    fn nx(self) -> usize;
    fn nu(self) -> usize;
    fn nw(self) -> usize;
}

/// Sizes known only at run time.
#[derive(Clone, Copy, Debug)]
pub struct Dyn {
    nx: usize,
    nu: usize,
    nw: usize,
}

impl Dims for Dyn {
    #[inline(always)]
    fn of(nx: usize, nu: usize, nw: usize) -> Self {
        Dyn { nx, nu, nw }
    }
    #[inline(always)]
    fn nx(self) -> usize {
        self.nx
    }
    #[inline(always)]
    fn nu(self) -> usize {
        self.nu
    }
    #[inline(always)]
    fn nw(self) -> usize {
        self.nw
    }
}

/// Sizes known when the FMU is compiled.
#[derive(Clone, Copy, Debug)]
pub struct Fixed<const NX: usize, const NU: usize, const NW: usize>;

impl<const NX: usize, const NU: usize, const NW: usize> Fixed<NX, NU, NW> {
    /// Whether these sizes are small enough to pay off. A constant, so that for a
    /// large model the compiler does not even generate the fixed-size step.
    pub const SMALL: bool = NX <= FIXED_LIMIT && NU <= FIXED_LIMIT && NW <= FIXED_LIMIT;

    /// Whether these sizes are an instance's and small enough to pay off.
    pub fn fits(nx: usize, nu: usize, nw: usize) -> bool {
        Self::SMALL && (nx, nu, nw) == (NX, NU, NW)
    }
}

impl<const NX: usize, const NU: usize, const NW: usize> Dims for Fixed<NX, NU, NW> {
    #[inline(always)]
    fn of(nx: usize, nu: usize, nw: usize) -> Self {
        debug_assert!((nx, nu, nw) == (NX, NU, NW));
        Fixed
    }
    #[inline(always)]
    fn nx(self) -> usize {
        NX
    }
    #[inline(always)]
    fn nu(self) -> usize {
        NU
    }
    #[inline(always)]
    fn nw(self) -> usize {
        NW
    }
}
