//! The nonlinear forces, gaps and slips of a mechanical model at run time.
//!
//! A model with nonlinear rows (see [`crate::model::mech_nonlinear`]) keeps
//! their linear terms in [`MechSystem`]'s matrices and adds one compiled
//! program per row: `F(q, v, w, t) = Fq q + Fv v + F w + f + φ(q, v, w, t)`,
//! `g(q) = G q + g0 + γ(q)`, slip `s = T v + Tw w + t0 + σ(q, v, w)` with `σ`
//! linear in `v`. [`MechPrograms`] evaluates them with the parameters of the
//! last assembly, and writes their Jacobians into a *linearized* system: a copy
//! of the model's [`MechSystem`] whose patterns hold, after the model's own
//! entries, one entry for every coordinate or velocity a program reads
//! ([`MechPrograms::linearized`]). The Newton step hands that copy to the same
//! contact assembly the linear scheme uses. Derivatives are forward-mode
//! automatic differentiation (one dual-number pass per variable a program
//! reads), never finite differences; nothing here allocates after
//! construction.
//!
//! This file holds one row's program and the model's set of them with their
//! evaluation (the step path); building them, with the Jacobian entries
//! appended to the linearized patterns, is in `mech_nonlinear/construction.rs`.

mod construction;

use crate::model::expr::{Expr, Op};
use crate::model::gradient::NO_DIRECTION;
use crate::model::program::Point;
use crate::system::mechanics::{MechSystem, Sparse};

/// Programs no deeper than this run on a small evaluation stack (clearing the
/// largest one would cost more than most programs).
const SMALL_STACK: usize = 8;

/// One nonlinear row: its index, program, the variables it reads and, per
/// variable, the entry of the linearized matrix its derivative goes to.
#[derive(Clone, Debug)]
struct Program {
    row: usize,
    /// The program as compiled.
    source: Expr,
    /// `source` with its parameter-only subprograms folded at the last
    /// assembly's parameters (see [`Expr::fold_parameters_into`]): what runs.
    expr: Expr,
    reads: Vec<usize>,
    slots: Vec<Slot>,
    /// Per `Var` of the program in program order, its position in `reads`
    /// when its derivative goes to a slot ([`NO_DIRECTION`] otherwise): the
    /// directions of the one-pass gradient.
    directions: Vec<u8>,
    small: bool,
}

/// Where the derivative along one variable goes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Slot {
    /// Entry of the linearized position (or, for gaps, gap) matrix.
    Position(usize),
    /// Entry of the linearized velocity (or, for slips, slip) matrix.
    Velocity(usize),
    /// Not part of the iteration matrix (inputs; coordinates in a slip's
    /// coefficients, whose curvature the iteration leaves out).
    None,
}

impl Program {
    fn new(row: usize, expr: &Expr) -> Self {
        Program {
            row,
            reads: expr.variables(),
            slots: vec![],
            directions: vec![],
            small: expr.depth() <= SMALL_STACK,
            source: expr.clone(),
            expr: expr.clone(),
        }
    }

    #[inline]
    fn tangent(&self, p: &[f64], at: &Point, seed: usize) -> (f64, f64) {
        if self.small {
            self.expr.eval_tangent_in::<SMALL_STACK>(p, at, seed as u32)
        } else {
            self.expr.eval_tangent(p, at, seed as u32)
        }
    }

    #[inline]
    fn magnitude(&self, p: &[f64], at: &Point) -> (f64, f64) {
        if self.small {
            self.expr.eval_magnitude_in::<SMALL_STACK>(p, at)
        } else {
            self.expr.eval_magnitude(p, at)
        }
    }

    /// Fills `directions` from `slots` (once `slots` is known).
    fn set_directions(&mut self) {
        let (reads, slots) = (&self.reads, &self.slots);
        self.directions = self
            .expr
            .ops()
            .iter()
            .filter_map(|op| match op {
                Op::Var(j) => Some(
                    reads
                        .iter()
                        .position(|&r| r == *j as usize)
                        .filter(|&k| slots[k] != Slot::None)
                        .and_then(|k| u8::try_from(k).ok())
                        .unwrap_or(NO_DIRECTION),
                ),
                _ => None,
            })
            .collect();
    }

    /// The value and the magnitude of its terms (those of
    /// [`Program::magnitude`]), handing `add(slot, derivative)` the
    /// derivative along every variable with a slot (those of
    /// [`Program::tangent`]): one pass when the program reads at most
    /// [`GRADIENT_DIRECTIONS`] variables and fits the small stack, else a
    /// magnitude pass and a tangent pass per slot.
    fn value_and_gradient(
        &self,
        p: &[f64],
        at: &Point,
        mut add: impl FnMut(Slot, f64),
    ) -> (f64, f64) {
        // The fewest directions that hold the program's variables: every
        // direction carried costs on every operation.
        let (mut g2, mut g4) = ([0.0; 2], [0.0; GRADIENT_DIRECTIONS]);
        let (dirs, small) = (&self.directions, self.small);
        let pass = match self.reads.len() {
            _ if !small => None,
            0..=2 => Some((
                self.expr
                    .eval_gradient_in::<SMALL_STACK, 2>(p, at, dirs, &mut g2),
                &g2[..],
            )),
            3..=GRADIENT_DIRECTIONS => Some((
                self.expr
                    .eval_gradient_in::<SMALL_STACK, GRADIENT_DIRECTIONS>(p, at, dirs, &mut g4),
                &g4[..],
            )),
            _ => None,
        };
        if let Some((vm, grad)) = pass {
            for (&slot, &d) in self.slots.iter().zip(grad) {
                if slot != Slot::None {
                    add(slot, d);
                }
            }
            return vm;
        }
        for (&j, &slot) in self.reads.iter().zip(&self.slots) {
            if slot != Slot::None {
                add(slot, self.tangent(p, at, j).1);
            }
        }
        self.magnitude(p, at)
    }
}

/// The most variables a force program's one-pass gradient carries (a
/// coordinate and a velocity of a few bodies); programs reading more take
/// one pass per variable.
const GRADIENT_DIRECTIONS: usize = 4;

/// One entry of a configuration-dependent mass matrix: its program of `q`
/// (`row` is the entry's slot in the mass pattern; the slot of a derivative
/// along `reads[r]` is `Slot::Position(r)`), its place `(i, j)`, and per
/// coordinate it reads the slots of `∂F/∂v` its gyroscopic terms touch.
#[derive(Clone, Debug)]
struct MassEntry {
    program: Program,
    at: (usize, usize),
    /// Per `reads[r] = k`: the slots of `(i, k)`, `(k, i)`, `(k, j)`.
    gyro: Vec<[usize; 3]>,
    /// The slot of `(i, j)`.
    gyro_ij: usize,
}

/// The compiled remainders of one mechanical model.
#[derive(Clone, Debug)]
pub struct MechPrograms {
    force: Vec<Program>,
    /// Entries of `M(q)` (empty for a constant mass matrix).
    mass: Vec<MassEntry>,
    gap: Vec<Program>,
    /// Rows are friction rows (the order of `MechSystem::friction_contact`).
    slip: Vec<Program>,
    params: Vec<f64>,
    force_reads_time: bool,
    /// The number of coordinates (the velocities follow them in a point).
    mass_dof: usize,
    /// The linearized system's patterns (values zero), built once.
    linearized: Box<MechSystem>,
}

impl MechPrograms {
    /// Takes the parameters of a new assembly, folding the programs'
    /// parameter-only subprograms at them (the same numbers, fewer operations
    /// per evaluation).
    pub fn set_params(&mut self, params: &[f64]) {
        self.params.copy_from_slice(params);
        for p in self
            .force
            .iter_mut()
            .chain(&mut self.gap)
            .chain(&mut self.slip)
            .chain(self.mass.iter_mut().map(|e| &mut e.program))
        {
            p.source.fold_parameters_into(params, &mut p.expr);
        }
    }

    /// A linearized system: the model's patterns extended by the programs'
    /// Jacobian entries (values zero until [`MechPrograms::force_jacobian`],
    /// [`MechPrograms::gap_jacobian`] and [`MechPrograms::slip`] fill them).
    pub fn linearized(&self) -> MechSystem {
        (*self.linearized).clone()
    }

    /// `F(at)` into `f` and the magnitudes of its terms into `mag`; with
    /// `lin`, also `∂F/∂q` and `∂F/∂v` into its force matrices, from the
    /// same pass over each program (the numbers of
    /// [`MechPrograms::force_jacobian`]). `at.x` is `(q, v)`.
    pub fn force(
        &self,
        sys: &MechSystem,
        at: &Point,
        f: &mut [f64],
        mag: &mut [f64],
        lin: Option<&mut MechSystem>,
    ) {
        let n = sys.dof;
        let (q, v) = at.x.split_at(n);
        f.copy_from_slice(&sys.force);
        for (m, x) in mag.iter_mut().zip(&sys.force) {
            *m = x.abs();
        }
        let mut acc = |a: &Sparse, x: &[f64]| {
            for &(i, j, c) in &a.entries {
                let t = c * x[j];
                f[i] += t;
                mag[i] += t.abs();
            }
        };
        acc(&sys.input_force, at.w);
        acc(&sys.position_force, q);
        acc(&sys.velocity_force, v);
        let Some(lin) = lin else {
            for p in &self.force {
                let (value, m) = p.magnitude(&self.params, at);
                f[p.row] += value;
                mag[p.row] += m;
            }
            self.gyroscopic(at, Some((f, mag)), None);
            return;
        };
        copy_values(&mut lin.position_force, &sys.position_force);
        copy_values(&mut lin.velocity_force, &sys.velocity_force);
        for p in &self.force {
            let (value, m) = p.value_and_gradient(&self.params, at, |slot, d| match slot {
                Slot::Position(s) => lin.position_force.entries[s].2 += d,
                Slot::Velocity(s) => lin.velocity_force.entries[s].2 += d,
                Slot::None => {}
            });
            f[p.row] += value;
            mag[p.row] += m;
        }
        self.gyroscopic(at, Some((f, mag)), Some(&mut lin.velocity_force));
    }

    /// Subtracts the gyroscopic and centrifugal forces of `M(q)` from `F`
    /// (with the magnitudes of their terms), and with `jac` adds their part
    /// of `∂F/∂v`. From one gradient pass per entry `M_ij(q)`, with
    /// `d_k = ∂M_ij/∂q_k` and `s = Σ_k d_k v_k`:
    /// `F_gyr = (∂(M v)/∂q) v - ½ ∂(vᵀ M v)/∂q` gets `s v_j` in row `i` and
    /// `-½ d_k v_i v_j` in row `k`. Their derivatives along `v` are linear in
    /// `v`; the derivative along `q` (second derivatives of `M`) is left out
    /// of the iteration matrix, as the gaps' curvature is: the convergence
    /// test is on the full residual.
    fn gyroscopic(
        &self,
        at: &Point,
        mut f: Option<(&mut [f64], &mut [f64])>,
        mut jac: Option<&mut Sparse>,
    ) {
        if self.mass.is_empty() {
            return;
        }
        let n = self.mass_dof;
        let v = &at.x[n..2 * n];
        for e in &self.mass {
            let (i, j) = e.at;
            let (vi, vj) = (v[i], v[j]);
            let (mut s, mut s_mag) = (0.0, 0.0);
            let reads = &e.program.reads;
            e.program.value_and_gradient(&self.params, at, |slot, d| {
                let Slot::Position(r) = slot else { return };
                let k = reads[r];
                s += d * v[k];
                s_mag += (d * v[k] * vj).abs();
                // -F_gyr gets +½ d_k v_i v_j in row k.
                let t = 0.5 * d * vi * vj;
                if let Some((f, mag)) = &mut f {
                    f[k] += t;
                    mag[k] += t.abs();
                }
                if let Some(jac) = &mut jac {
                    let [ik, ki, kj] = e.gyro[r];
                    jac.entries[ik].2 -= d * vj;
                    jac.entries[ki].2 += 0.5 * d * vj;
                    jac.entries[kj].2 += 0.5 * d * vi;
                }
            });
            if let Some((f, mag)) = &mut f {
                f[i] -= s * vj;
                mag[i] += s_mag;
            }
            if let Some(jac) = &mut jac {
                jac.entries[e.gyro_ij].2 -= s;
            }
        }
    }

    /// Whether the mass matrix depends on the coordinates.
    pub fn mass_varies(&self) -> bool {
        !self.mass.is_empty()
    }

    /// `M(q)` at `at` (`at.x` starts with `q`) into the entries of `lin.mass`
    /// that hold programs (the others keep the assembled constants).
    pub fn mass(&self, at: &Point, lin: &mut MechSystem) {
        for e in &self.mass {
            let p = &e.program;
            lin.mass.entries[p.row].2 = p.tangent(&self.params, at, usize::MAX).0;
        }
    }

    /// `∂F/∂q` and `∂F/∂v` at `at` into the force matrices of `lin`.
    pub fn force_jacobian(&self, sys: &MechSystem, at: &Point, lin: &mut MechSystem) {
        copy_values(&mut lin.position_force, &sys.position_force);
        copy_values(&mut lin.velocity_force, &sys.velocity_force);
        for p in &self.force {
            for (&j, &slot) in p.reads.iter().zip(&p.slots) {
                let d = match slot {
                    Slot::None => continue,
                    _ => p.tangent(&self.params, at, j).1,
                };
                match slot {
                    Slot::Position(s) => lin.position_force.entries[s].2 += d,
                    Slot::Velocity(s) => lin.velocity_force.entries[s].2 += d,
                    Slot::None => {}
                }
            }
        }
        self.gyroscopic(at, None, Some(&mut lin.velocity_force));
    }

    /// The gaps `g(q)` into `g` (`at.x` starts with `q`).
    pub fn gap(&self, sys: &MechSystem, at: &Point, g: &mut [f64]) {
        g.copy_from_slice(&sys.gap0);
        sys.gap.mul_acc(g, &at.x[..sys.dof], 1.0);
        for p in &self.gap {
            g[p.row] += p.tangent(&self.params, at, usize::MAX).0;
        }
    }

    /// The magnitudes of the gaps' terms at `at` (`|g0| + Σ|G q|` plus the
    /// remainder's), the size their rounding is relative to.
    pub fn gap_magnitude(&self, sys: &MechSystem, at: &Point, mag: &mut [f64]) {
        for (m, g0) in mag.iter_mut().zip(&sys.gap0) {
            *m = g0.abs();
        }
        for &(k, j, a) in &sys.gap.entries {
            mag[k] += (a * at.x[j]).abs();
        }
        for p in &self.gap {
            mag[p.row] += p.magnitude(&self.params, at).1;
        }
    }

    /// `G(q) = ∂g/∂q` into `lin.gap`.
    pub fn gap_jacobian(&self, sys: &MechSystem, at: &Point, lin: &mut MechSystem) {
        copy_values(&mut lin.gap, &sys.gap);
        for p in &self.gap {
            for (&j, &slot) in p.reads.iter().zip(&p.slots) {
                if let Slot::Position(s) = slot {
                    lin.gap.entries[s].2 += p.tangent(&self.params, at, j).1;
                }
            }
        }
    }

    /// `T(q) = ∂s/∂v` into `lin.slip`, and the slip's part free of `v`
    /// (`s = T(q) v + offset`) into `offset`, at `at = ((q, v), w)`.
    pub fn slip(&self, sys: &MechSystem, at: &Point, lin: &mut MechSystem, offset: &mut [f64]) {
        copy_values(&mut lin.slip, &sys.slip);
        offset.copy_from_slice(&sys.slip0);
        sys.slip_inputs.mul_acc(offset, at.w, 1.0);
        for p in &self.slip {
            let mut value = p.tangent(&self.params, at, usize::MAX).0;
            for (&j, &slot) in p.reads.iter().zip(&p.slots) {
                if let Slot::Velocity(s) = slot {
                    let d = p.tangent(&self.params, at, j).1;
                    lin.slip.entries[s].2 += d;
                    value -= d * at.x[j];
                }
            }
            offset[p.row] += value;
        }
    }

    /// Whether `F` reads `time` (only its programs can), so that its value at
    /// one point depends on the time too.
    pub fn force_reads_time(&self) -> bool {
        self.force_reads_time
    }

    /// Whether the gaps' Jacobian changes with `q` (else `G` is the model's).
    pub fn gaps_nonlinear(&self) -> bool {
        !self.gap.is_empty()
    }

    /// Whether the slips' coefficients change with `q`.
    pub fn slips_nonlinear(&self) -> bool {
        !self.slip.is_empty()
    }
}

/// Copies the model's values into the first entries of a linearized matrix
/// and zeroes the entries the programs add.
fn copy_values(lin: &mut Sparse, base: &Sparse) {
    let nb = base.entries.len();
    for (l, b) in lin.entries.iter_mut().zip(&base.entries) {
        l.2 = b.2;
    }
    for l in &mut lin.entries[nb..] {
        l.2 = 0.0;
    }
}
