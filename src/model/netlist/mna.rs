//! Modified nodal analysis: the circuit's node equations, solved once for
//! the node voltages and branch currents as linear functions of the states,
//! the diode variables and the sources.
//!
//! Unknowns `z`: the voltage of every node but the ground, then the current
//! of every voltage-like branch (voltage sources, capacitors, diodes that
//! give their voltage, `E` and `H`, whose equations read their control's
//! voltages or the controlling source's current from `z`; `F` and `G` add
//! such terms to Kirchhoff's current law). Equations: Kirchhoff's current law at each node, and
//! each voltage-like branch's `v(n+) - v(n-) - Rs i = value`. Knowns, the
//! columns of `K`: the states `x` (capacitor voltages, inductor currents),
//! the diode variables `u`, the sources `s` and a constant. `G z = K [x; u;
//! s; 1]` has a unique solution whenever [`super::topology`] accepted the
//! circuit (resistances positive), so `Z = G⁻¹ K` is computed once, by LU
//! with partial pivoting, and every quantity of the circuit is a row over
//! `[x; u; s; 1]`:
//!
//! - `C v' = i_C` and `L i' = v(n+) - v(n-)`: the rows of `A`, `B`, `f`;
//! - a diode by current: `y = v(n-) - v(n+) + R2 u + Vf >= 0`, its reverse
//!   voltage beyond the knee; by voltage (`v = Vf + R2 i - u`): `y = i`;
//! - a switch: `Roff` between its nodes in `G`, and beside it a gated branch
//!   of resistance `R2` (`1/R2 = 1/Ron - 1/Roff`) whose current `u` is a
//!   column of `K`, as a current source's; `lower` closes it with the
//!   equation `R2 u - s(t) (v(n+) - v(n-)) = 0`, `s` the switch's state;
//!   the switch's current is `u + (v(n+) - v(n-))/Roff`;
//! - node voltages and branch currents: the outputs.
//!
//! The matrices are numbers: the values of the elements and of `.param` are
//! fixed when the netlist is read.

use super::elements::{Circuit, DiodeModel, Kind};
use super::topology::Role;
use super::NetError;
use nalgebra::DMatrix;

/// Where each element's variables are: its state, pair or source column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    None,
    State(usize),
    Pair(usize, Role),
    /// A switch's gated branch: its current is pair `j`'s multiplier.
    Gate(usize),
    Source(usize),
}

/// The columns `[x; u; s; 1]` and the element of each.
pub struct Columns {
    pub nx: usize,
    pub nu: usize,
    pub ns: usize,
    /// Per element.
    pub slots: Vec<Slot>,
}

impl Columns {
    pub fn new(c: &Circuit, roles: &[Option<Role>]) -> Self {
        let (mut nx, mut nu, mut ns) = (0, 0, 0);
        let slots = c
            .elements
            .iter()
            .zip(roles)
            .map(|(e, role)| match e.kind {
                Kind::Capacitor { .. } | Kind::Inductor { .. } => {
                    nx += 1;
                    Slot::State(nx - 1)
                }
                Kind::Diode(_) => {
                    nu += 1;
                    Slot::Pair(nu - 1, role.expect("every diode has a role"))
                }
                Kind::Switch { .. } => {
                    nu += 1;
                    Slot::Gate(nu - 1)
                }
                Kind::Voltage(_) | Kind::Current(_) => {
                    ns += 1;
                    Slot::Source(ns - 1)
                }
                Kind::Resistor(_)
                | Kind::Vcvs { .. }
                | Kind::Vccs { .. }
                | Kind::Cccs { .. }
                | Kind::Ccvs { .. } => Slot::None,
            })
            .collect();
        Columns { nx, nu, ns, slots }
    }
    pub fn width(&self) -> usize {
        self.nx + self.nu + self.ns + 1
    }
    pub fn x(&self, i: usize) -> usize {
        i
    }
    pub fn u(&self, j: usize) -> usize {
        self.nx + j
    }
    pub fn s(&self, k: usize) -> usize {
        self.nx + self.nu + k
    }
    pub fn one(&self) -> usize {
        self.nx + self.nu + self.ns
    }
}

/// Most unknowns of the node equations: `G` is dense, 72 MB at 3,000.
const MAX_UNKNOWNS: usize = 3_000;

/// A linear function of `[x; u; s; 1]`.
pub type Row = Vec<f64>;

/// The solved node equations.
pub struct Solution {
    nodes: usize,
    /// The row of each voltage-like branch's current, by element.
    branch: Vec<Option<usize>>,
    z: DMatrix<f64>,
    width: usize,
}

impl Solution {
    /// The voltage of node `v` (zero for the ground).
    pub fn voltage(&self, v: usize) -> Row {
        if v == 0 {
            vec![0.0; self.width]
        } else {
            self.z.row(v - 1).iter().copied().collect()
        }
    }

    /// `v(n+) - v(n-)` of element nodes `[p, q]`. A coefficient that
    /// cancels to rounding (a source's share in both ends' voltages) is an
    /// exact zero, so that the sparsity `check` prints is the circuit's.
    pub fn across(&self, [p, q]: [usize; 2]) -> Row {
        let (a, b) = (self.voltage(p), self.voltage(q));
        a.iter()
            .zip(&b)
            .map(|(x, y)| {
                let d = x - y;
                if d.abs() <= 4.0 * f64::EPSILON * (x.abs() + y.abs()) {
                    0.0
                } else {
                    d
                }
            })
            .collect()
    }

    /// The current of voltage-like element `i` from `n+` through it to `n-`.
    pub fn current(&self, i: usize) -> Option<Row> {
        let k = self.branch[i]?;
        Some(self.z.row(self.nodes - 1 + k).iter().copied().collect())
    }
}

/// A unit row.
pub fn unit(width: usize, col: usize, value: f64) -> Row {
    let mut r = vec![0.0; width];
    r[col] = value;
    r
}

/// `a + k b`, in place.
pub fn axpy(a: &mut Row, k: f64, b: &Row) {
    for (x, y) in a.iter_mut().zip(b) {
        *x += k * y;
    }
}

/// Builds and solves the node equations of `c` with the columns `cols`.
pub fn solve(c: &Circuit, cols: &Columns) -> Result<Solution, NetError> {
    let nodes = c.nodes.len();
    let width = cols.width();
    let mut branch = vec![None; c.elements.len()];
    let mut nv = 0;
    for (i, e) in c.elements.iter().enumerate() {
        let voltage_like = matches!(
            (&e.kind, cols.slots[i]),
            (
                Kind::Voltage(_) | Kind::Capacitor { .. } | Kind::Vcvs { .. } | Kind::Ccvs { .. },
                _
            ) | (Kind::Diode(_), Slot::Pair(_, Role::Voltage))
        );
        if voltage_like {
            branch[i] = Some(nv);
            nv += 1;
        }
    }
    let nz = nodes - 1 + nv;
    if nz > MAX_UNKNOWNS {
        return Err(NetError::at(
            c.elements.first().map_or(1, |e| e.line),
            format!(
                "{} nodes and {nv} voltage-like branches: the node equations are solved densely, for at most {MAX_UNKNOWNS} unknowns",
                nodes - 1
            ),
        ));
    }
    let mut g = DMatrix::<f64>::zeros(nz, nz);
    let mut k = DMatrix::<f64>::zeros(nz, width);
    // Row/column of node v, none for the ground.
    let at = |v: usize| v.checked_sub(1);
    let conductance = |g: &mut DMatrix<f64>, [p, q]: [usize; 2], y: f64| {
        for (a, b, s) in [(p, p, y), (q, q, y), (p, q, -y), (q, p, -y)] {
            if let (Some(a), Some(b)) = (at(a), at(b)) {
                g[(a, b)] += s;
            }
        }
    };
    let branch_row = |i: usize| nodes - 1 + branch[i].expect("voltage-like");
    for (i, e) in c.elements.iter().enumerate() {
        let [p, q] = e.nodes;
        // Controlled sources: entries of G only.
        match e.kind {
            Kind::Vcvs {
                control: [cp, cq],
                gain,
            } => {
                // v(n+) - v(n-) - gain (v(nc+) - v(nc-)) = 0.
                let m = branch_row(i);
                for (v, s) in [(cp, -gain), (cq, gain)] {
                    if let Some(v) = at(v) {
                        g[(m, v)] += s;
                    }
                }
            }
            Kind::Ccvs { source, gain } => {
                // v(n+) - v(n-) - gain i(Vc) = 0.
                let m = branch_row(i);
                g[(m, branch_row(source))] -= gain;
            }
            Kind::Vccs {
                control: [cp, cq],
                gain,
            } => {
                // gain (v(nc+) - v(nc-)) leaves n+ and enters n-.
                for (row, sr) in [(p, 1.0), (q, -1.0)] {
                    for (col, sc) in [(cp, 1.0), (cq, -1.0)] {
                        if let (Some(r), Some(k)) = (at(row), at(col)) {
                            g[(r, k)] += sr * sc * gain;
                        }
                    }
                }
                continue;
            }
            Kind::Cccs { source, gain } => {
                let k = branch_row(source);
                for (row, sr) in [(p, 1.0), (q, -1.0)] {
                    if let Some(r) = at(row) {
                        g[(r, k)] += sr * gain;
                    }
                }
                continue;
            }
            _ => {}
        }
        // The branch's value as a row of K.
        let (value, rs): (Row, f64) = match (&e.kind, cols.slots[i]) {
            (Kind::Resistor(r), _) => {
                conductance(&mut g, e.nodes, 1.0 / r);
                continue;
            }
            (Kind::Capacitor { .. } | Kind::Inductor { .. }, Slot::State(s)) => {
                (unit(width, cols.x(s), 1.0), 0.0)
            }
            (Kind::Voltage(_) | Kind::Current(_), Slot::Source(s)) => {
                (unit(width, cols.s(s), 1.0), 0.0)
            }
            (Kind::Diode(m), Slot::Pair(j, role)) => {
                if m.roff.is_finite() {
                    conductance(&mut g, e.nodes, 1.0 / m.roff);
                }
                match role {
                    Role::Current => (unit(width, cols.u(j), 1.0), 0.0),
                    Role::Voltage => {
                        // v = Vf + R2 i - u.
                        let mut v = unit(width, cols.u(j), -1.0);
                        v[cols.one()] = m.vf;
                        (v, DiodeModel::switched_resistance(m))
                    }
                }
            }
            (Kind::Switch { model, .. }, Slot::Gate(j)) => {
                // `Roff` always, and beside it the gated branch's current,
                // a multiplier injected like a current source.
                conductance(&mut g, e.nodes, 1.0 / model.roff);
                (unit(width, cols.u(j), 1.0), 0.0)
            }
            (Kind::Vcvs { .. } | Kind::Ccvs { .. }, _) => (vec![0.0; width], 0.0),
            _ => unreachable!("slots follow the elements"),
        };
        match branch[i] {
            Some(b) => {
                let m = nodes - 1 + b;
                if let Some(p) = at(p) {
                    g[(p, m)] += 1.0;
                    g[(m, p)] += 1.0;
                }
                if let Some(q) = at(q) {
                    g[(q, m)] -= 1.0;
                    g[(m, q)] -= 1.0;
                }
                g[(m, m)] -= rs;
                for (col, v) in value.iter().enumerate() {
                    k[(m, col)] += v;
                }
            }
            None => {
                // A current leaving n+ through the element: to the right side.
                for (col, v) in value.iter().enumerate() {
                    if let Some(p) = at(p) {
                        k[(p, col)] -= v;
                    }
                    if let Some(q) = at(q) {
                        k[(q, col)] += v;
                    }
                }
            }
        }
    }
    // The topology's checks leave G nonsingular for positive resistances;
    // an exact zero pivot would mean a case they missed.
    let scale = g.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let lu = g.lu();
    // A controlled source can make G singular for particular gains (a
    // voltage-controlled voltage source of gain 1 around its own control):
    // a pivot at rounding level of the largest entry is a zero pivot.
    let u = lu.u();
    let controlled: Vec<&str> = c
        .elements
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                Kind::Vcvs { .. } | Kind::Vccs { .. } | Kind::Cccs { .. } | Kind::Ccvs { .. }
            )
        })
        .map(|e| e.name.as_str())
        .collect();
    let tiny = !controlled.is_empty() && (0..u.nrows()).any(|i| u[(i, i)].abs() <= 1e-13 * scale);
    let singular = || {
        NetError::at(
            c.elements.first().map_or(1, |e| e.line),
            if controlled.is_empty() {
                "the circuit's node equations are singular for these element values".to_string()
            } else {
                format!(
                    "the circuit's node equations are singular for these element values (the controlled sources {} make a node voltage or a source current undetermined: check their gains and loops)",
                    super::topology::list(&controlled)
                )
            },
        )
    };
    if tiny {
        return Err(singular());
    }
    let z = lu.solve(&k).ok_or_else(singular)?;
    if z.iter().any(|v| !v.is_finite()) {
        return Err(singular());
    }
    Ok(Solution {
        nodes,
        branch,
        z,
        width,
    })
}
