//! Building a model's [`MechPrograms`] once, at instantiation: one program per
//! nonlinear force, gap and slip row and per entry of `M(q)` (with the entries
//! of `∂F/∂v` its gyroscopic forces touch), and for every variable a program reads
//! the entry of the linearized matrices its derivative goes to ([`slot_in`]),
//! appended to the model's patterns when they lack it. Nothing here runs on
//! the step path.

use super::{MassEntry, MechPrograms, Program, Slot};
use crate::model::mech_nonlinear::MechNonlinear;
use crate::system::mechanics::{MechSystem, Sparse};

/// The slot of `(row, col)` in `m`, appending a zero entry when the pattern
/// lacks it.
fn slot_in(m: &mut Sparse, row: usize, col: usize) -> usize {
    match m.entries.iter().position(|e| e.0 == row && e.1 == col) {
        Some(s) => s,
        None => {
            m.entries.push((row, col, 0.0));
            m.entries.len() - 1
        }
    }
}

impl MechPrograms {
    /// The remainders `nl` of the system `sys` (patterns only) over `np` parameters.
    pub fn new(nl: &MechNonlinear, sys: &MechSystem, np: usize) -> Self {
        let n = sys.dof;
        let mut lin = sys.clone();
        let mut force: Vec<Program> = nl.force.iter().map(|(i, e)| Program::new(*i, e)).collect();
        for p in &mut force {
            p.slots = p
                .reads
                .iter()
                .map(|&j| match j {
                    j if j < n => Slot::Position(slot_in(&mut lin.position_force, p.row, j)),
                    j if j < 2 * n => {
                        Slot::Velocity(slot_in(&mut lin.velocity_force, p.row, j - n))
                    }
                    _ => Slot::None,
                })
                .collect();
            p.set_directions();
        }
        let mut gap: Vec<Program> = nl.gap.iter().map(|(k, e)| Program::new(*k, e)).collect();
        for p in &mut gap {
            p.slots = p
                .reads
                .iter()
                .map(|&j| Slot::Position(slot_in(&mut lin.gap, p.row, j)))
                .collect();
        }
        let mut slip = Vec::with_capacity(nl.slip.len());
        for (k, e) in &nl.slip {
            let r = sys
                .friction_contact
                .iter()
                .position(|c| c == k)
                .expect("a slip belongs to a frictional contact");
            let mut p = Program::new(r, e);
            p.slots = p
                .reads
                .iter()
                .map(|&j| match j {
                    j if (n..2 * n).contains(&j) => {
                        Slot::Velocity(slot_in(&mut lin.slip, r, j - n))
                    }
                    _ => Slot::None,
                })
                .collect();
            slip.push(p);
        }
        let mut mass = Vec::with_capacity(nl.mass.len());
        for (i, j, e) in &nl.mass {
            let (i, j) = (*i, *j);
            let entry = sys
                .mass
                .entries
                .iter()
                .position(|m| (m.0, m.1) == (i, j))
                .expect("a mass program has its placeholder in the pattern");
            let mut program = Program::new(entry, e);
            program.slots = (0..program.reads.len()).map(Slot::Position).collect();
            program.set_directions();
            let vf = &mut lin.velocity_force;
            let gyro = program
                .reads
                .iter()
                .map(|&k| [slot_in(vf, i, k), slot_in(vf, k, i), slot_in(vf, k, j)])
                .collect();
            let gyro_ij = slot_in(vf, i, j);
            mass.push(MassEntry {
                program,
                at: (i, j),
                gyro,
                gyro_ij,
            });
        }
        let force_reads_time = force.iter().any(|p| p.expr.reads_time());
        MechPrograms {
            force,
            mass,
            mass_dof: n,
            gap,
            slip,
            params: vec![0.0; np],
            force_reads_time,
            linearized: Box::new(lin),
        }
    }
}
