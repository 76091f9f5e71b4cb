//! The solved circuit as a first-order [`Model`](crate::model::Model):
//! `x' = A x + B u + f + φ(t)`, `y = C x + D u + g + ψ(t)`, pairs
//! `0 <= u ⟂ y >= 0`, outputs for every node voltage and branch current.
//!
//! States are the capacitor voltages and inductor currents, in netlist
//! order; pairs the diodes, in netlist order. Sources given as `DC` are
//! constants in `f`, `g` and the outputs; the others are programs of `time`
//! (see [`super::waveform`]) weighted by their rows' coefficients. Start
//! values come from `IC=` on the element, else from `.ic V(n)=` of the
//! capacitor's nodes (nodes not listed at 0, as SPICE's `UIC`), else 0:
//! there is no DC operating point.

use super::elements::{Circuit, Kind, Saved, SwitchModel, Waveform};
use super::mna::{axpy, unit, Columns, Row, Slot, Solution};
use super::names::Namer;
use super::topology::Role;
use super::waveform;
use super::NetError;
use crate::model::expr::{BinOp, Expr, Node};
use crate::model::functions::Func;
use crate::model::program::{Form, Nonlinear, Operand};
use crate::model::{ExprMatrix, Output, Pair, System, Variable};

/// What the lowering makes, beside the settings.
pub struct Parts {
    pub states: Vec<Variable>,
    pub pairs: Vec<Pair>,
    pub system: System,
    pub outputs: Vec<Output>,
    pub nonlinear: Nonlinear,
    /// For `check`: what each state, pair and output came from.
    pub summary: Vec<String>,
    /// Each output as an expression of the states, pairs, inputs and
    /// `time` (what a TOML model's own outputs may read).
    pub quantities: Vec<(String, Node)>,
}

/// Lowers the solved circuit; `inputs` are the FMU inputs' names, which
/// sources may name.
pub fn parts(
    c: &Circuit,
    cols: &Columns,
    sol: &Solution,
    inputs: &[String],
) -> Result<Parts, NetError> {
    let nw = inputs.len();
    let width = cols.width();
    let mut names = Namer::default();
    let starts = start_values(c)?;
    let inverse = inverse_inductances(c)?;
    let (mut states, mut pairs) = (Vec::new(), Vec::new());
    let mut der: Vec<Row> = Vec::new();
    let mut rel: Vec<Row> = Vec::new();
    let mut summary = Vec::new();
    // Switches whose state is a function of time: (pair row, the state as
    // a program of time, the voltage across as a row).
    let mut gates: Vec<(usize, Node, Row)> = Vec::new();
    for (i, e) in c.elements.iter().enumerate() {
        let (p, q) = (&c.nodes[e.nodes[0]], &c.nodes[e.nodes[1]]);
        match (&e.kind, cols.slots[i]) {
            (Kind::Capacitor { c: cap, .. }, Slot::State(s)) => {
                let name = names.take(format!("V_{}", e.name), e.line, &e.name)?;
                let mut row = sol.current(i).expect("a capacitor is voltage-like");
                row.iter_mut().for_each(|v| *v /= cap);
                der.push(row);
                summary.push(format!(
                    "state {name}: voltage of {} (V({p}) - V({q})), {name}' = I({})/{cap:e}",
                    e.name, e.name
                ));
                states.push(Variable {
                    name,
                    start: starts[s],
                    description: format!("voltage of {} (V({p}) - V({q}))", e.name),
                    unit: "V".into(),
                });
            }
            (Kind::Inductor { l, .. }, Slot::State(s)) => {
                let name = names.take(format!("I_{}", e.name), e.line, &e.name)?;
                match inverse.get(&i) {
                    None => {
                        let mut row = sol.across(e.nodes);
                        row.iter_mut().for_each(|v| *v /= l);
                        der.push(row);
                        summary.push(format!(
                            "state {name}: current of {} (from {p} to {q}), {name}' = (V({p}) - V({q}))/{l:e}",
                            e.name
                        ));
                    }
                    Some((terms, by)) => {
                        let mut row = vec![0.0; width];
                        let mut text = Vec::new();
                        for &(j, gamma) in terms {
                            axpy(&mut row, gamma, &sol.across(c.elements[j].nodes));
                            text.push(format!("{gamma:e} v({})", c.elements[j].name));
                        }
                        der.push(row);
                        summary.push(format!(
                            "state {name}: current of {} (from {p} to {q}), coupled by {by}: {name}' = {} (a row of the inverse inductance matrix times the coupled inductors' voltages)",
                            e.name,
                            text.join(" + ")
                        ));
                    }
                }
                states.push(Variable {
                    name,
                    start: starts[s],
                    description: format!("current of {} (from {p} to {q})", e.name),
                    unit: "A".into(),
                });
            }
            (Kind::Diode(m), Slot::Pair(j, role)) => {
                let (suffix, unit_name, what, row) = match role {
                    Role::Current => {
                        let mut y = sol.across(e.nodes);
                        y.iter_mut().for_each(|v| *v = -*v);
                        y[cols.u(j)] += m.switched_resistance();
                        y[cols.one()] += m.vf;
                        let what = format!(
                            "current of {}'s switched branch (anode {p}, cathode {q}); complementary to its reverse voltage",
                            e.name
                        );
                        ("i", "A", what, y)
                    }
                    Role::Voltage => {
                        let y = sol.current(i).expect("a diode by voltage is voltage-like");
                        let what = format!(
                            "reverse voltage of {} (anode {p}, cathode {q}) below its knee; complementary to its current",
                            e.name
                        );
                        ("vr", "V", what, y)
                    }
                };
                let name = names.take(format!("{}_{suffix}", e.name), e.line, &e.name)?;
                summary.push(format!(
                    "pair {name}: {} of {} is the multiplier (0 <= {name} ⟂ y >= 0, y: its {})",
                    if role == Role::Current {
                        "the current"
                    } else {
                        "the reverse voltage"
                    },
                    e.name,
                    if role == Role::Current {
                        "reverse voltage"
                    } else {
                        "current"
                    }
                ));
                rel.push(row);
                pairs.push(Pair {
                    name,
                    lo: Expr::constant(0.0),
                    hi: Expr::constant(f64::INFINITY),
                    description: what,
                    unit: unit_name.into(),
                    algebraic: false,
                });
            }
            (Kind::Switch { control, model, on }, Slot::Gate(j)) => {
                let r2 = model.switched_resistance();
                let across = sol.across(e.nodes);
                let (state, text) = switch_state(c, cols, sol, i, *control, model, *on)?;
                let mut row = unit(width, cols.u(j), r2);
                match state {
                    State::Fixed(s) => axpy(&mut row, -s, &across),
                    State::Time(node) => gates.push((rel.len(), node, across)),
                }
                let name = names.take(format!("{}_i", e.name), e.line, &e.name)?;
                summary.push(format!(
                    "pair {name}: current of {}'s gated branch ({r2:e} Ohm beside ROFF = {:e} Ohm), free: {r2:e} {name} = s V({p}, {q}), s {text}",
                    e.name, model.roff
                ));
                rel.push(row);
                pairs.push(Pair {
                    name,
                    lo: Expr::constant(f64::NEG_INFINITY),
                    hi: Expr::constant(f64::INFINITY),
                    description: format!(
                        "current of {}'s gated branch (from {p} to {q}), zero while the switch is open",
                        e.name
                    ),
                    unit: "A".into(),
                    algebraic: false,
                });
            }
            _ => {}
        }
    }

    // Outputs: node voltages, then branch currents (and diode voltages),
    // each with what `.save` would call it (`None`: always an output).
    let mut outputs: Vec<(String, String, &str, String, Row)> = Vec::new();
    let mut tags: Vec<Option<Saved>> = Vec::new();
    for v in 1..c.nodes.len() {
        let node = &c.nodes[v];
        let name = names.take(
            format!("V_{node}"),
            c.node_lines[v],
            &format!("node {node}"),
        )?;
        outputs.push((
            name,
            format!("voltage of node {node}"),
            "V",
            format!("V({node})"),
            sol.voltage(v),
        ));
        tags.push(Some(Saved::Node(v)));
    }
    for (i, e) in c.elements.iter().enumerate() {
        let current = |name: &str| format!("current of {name} (from its first node to its second)");
        let row = match (&e.kind, cols.slots[i]) {
            (Kind::Resistor(r), _) => {
                let mut row = sol.across(e.nodes);
                row.iter_mut().for_each(|v| *v /= r);
                Some(row)
            }
            (Kind::Capacitor { .. } | Kind::Voltage(_), _) => sol.current(i),
            (Kind::Diode(m), Slot::Pair(j, role)) => {
                let across = sol.across(e.nodes);
                let mut row = match role {
                    Role::Current => unit(width, cols.u(j), 1.0),
                    Role::Voltage => sol.current(i).expect("voltage-like"),
                };
                if m.roff.is_finite() {
                    axpy(&mut row, 1.0 / m.roff, &across);
                }
                Some(row)
            }
            (Kind::Switch { model, .. }, Slot::Gate(j)) => {
                let mut row = unit(width, cols.u(j), 1.0);
                axpy(&mut row, 1.0 / model.roff, &sol.across(e.nodes));
                Some(row)
            }
            (Kind::Vcvs { .. } | Kind::Ccvs { .. }, _) => sol.current(i),
            (Kind::Vccs { control, gain }, _) => {
                let mut row = sol.across(*control);
                row.iter_mut().for_each(|v| *v *= gain);
                Some(row)
            }
            (Kind::Cccs { source, gain }, _) => {
                let mut row = sol
                    .current(*source)
                    .expect("a voltage source is voltage-like");
                row.iter_mut().for_each(|v| *v *= gain);
                Some(row)
            }
            _ => None,
        };
        if let Some(row) = row {
            let name = names.take(format!("I_{}", e.name), e.line, &e.name)?;
            outputs.push((name, current(&e.name), "A", format!("I({})", e.name), row));
            let diode = matches!(e.kind, Kind::Diode(_));
            tags.push((!diode).then_some(Saved::Current(i)));
        }
        if let Kind::Diode(_) = e.kind {
            let name = names.take(format!("V_{}", e.name), e.line, &e.name)?;
            let (p, q) = (&c.nodes[e.nodes[0]], &c.nodes[e.nodes[1]]);
            outputs.push((
                name,
                format!("voltage of {} (anode {p} minus cathode {q})", e.name),
                "V",
                format!("V({p}) - V({q})"),
                sol.across(e.nodes),
            ));
            tags.push(None);
        }
    }
    // `.save V(a, b)`: voltages between nodes, as outputs of their own.
    for (saved, line) in c.saves.iter().flatten() {
        if let Saved::Between(a, b) = *saved {
            let (p, q) = (&c.nodes[a], &c.nodes[b]);
            let name = names.take(format!("V_{p}_{q}"), *line, &format!("V({p}, {q})"))?;
            outputs.push((
                name,
                format!("voltage of node {p} minus node {q}"),
                "V",
                format!("V({p}) - V({q})"),
                sol.across([a, b]),
            ));
            tags.push(Some(*saved));
        }
    }

    // Rows into matrices and programs.
    let sources: Vec<&Waveform> = c
        .elements
        .iter()
        .filter_map(|e| match &e.kind {
            Kind::Voltage(w) | Kind::Current(w) => Some(w),
            _ => None,
        })
        .collect();
    let split = Split { cols, sources };
    let (nx, nu) = (cols.nx, cols.nu);
    let mut system = System {
        a: ExprMatrix::zeros(nx, nx),
        b: ExprMatrix::zeros(nx, nu),
        e: ExprMatrix::zeros(nx, nw),
        f: ExprMatrix::zeros(nx, 1),
        c: ExprMatrix::zeros(nu, nx),
        d: ExprMatrix::zeros(nu, nu),
        fw: ExprMatrix::zeros(nu, nw),
        g: ExprMatrix::zeros(nu, 1),
    };
    let mut nonlinear = Nonlinear::default();
    for (i, row) in der.iter().enumerate() {
        let (constant, program, on_w) = split.tail(row);
        let (a, b, f) = (&mut system.a, &mut system.b, &mut system.f);
        push_row(a, b, f, i, row, cols, constant);
        let e = &mut system.e.entries;
        e.extend(on_w.iter().map(|&(j, v)| (i, j, Expr::constant(v))));
        if let Some(p) = program {
            nonlinear.der.push((i, p));
        }
    }
    let lookup_names: Vec<&str> = states
        .iter()
        .map(|v: &Variable| v.name.as_str())
        .chain(pairs.iter().map(|p: &Pair| p.name.as_str()))
        .collect();
    for (i, row) in rel.iter().enumerate() {
        let (constant, mut program, on_w) = split.tail(row);
        if let Some((_, state, across)) = gates.iter().find(|g| g.0 == i) {
            // `- s(t) v`: a product of a program of time and a row over the
            // variables, the only place a netlist's rows read variables
            // nonlinearly (linear for every fixed time).
            let v = split.node(across, &lookup_names, inputs);
            let term = Node::Neg(Box::new(mul(state.clone(), v)));
            let lookup = |n: &str| {
                lookup_names
                    .iter()
                    .position(|v| *v == n)
                    .or_else(|| inputs.iter().position(|w| w == n).map(|j| nx + nu + j))
                    .map(Operand::Var)
                    .or((n == "time").then_some(Operand::Time))
            };
            let gate = Expr::compile_program(&term, &lookup, Form::Signal)
                .expect("a switch's state reads only time, its voltage is linear");
            debug_assert!(program.is_none(), "the gated row holds only R2 u");
            program = Some(gate);
        }
        let (c, d, g) = (&mut system.c, &mut system.d, &mut system.g);
        push_row(c, d, g, i, row, cols, constant);
        let fw = &mut system.fw.entries;
        fw.extend(on_w.iter().map(|&(j, v)| (i, j, Expr::constant(v))));
        if let Some(p) = program {
            nonlinear.y.push((i, p));
        }
    }
    let variable_names: Vec<&str> = states
        .iter()
        .map(|v: &Variable| v.name.as_str())
        .chain(pairs.iter().map(|p: &Pair| p.name.as_str()))
        .collect();
    let quantities = outputs
        .iter()
        .map(|(name, _, _, _, row)| (name.clone(), split.node(row, &variable_names, inputs)))
        .collect();
    // With `.save` / `.probe`, the outputs are what they name and the
    // diodes' currents and voltages.
    let kept = |tag: &Option<Saved>| match (tag, &c.saves) {
        (None, _) | (_, None) => true,
        (Some(t), Some(list)) => list.iter().any(|(s, _)| s == t),
    };
    let outputs: Vec<_> = outputs
        .into_iter()
        .zip(&tags)
        .filter(|(_, tag)| kept(tag))
        .map(|(o, _)| o)
        .collect();
    if let Some(list) = &c.saves {
        let shown: Vec<&str> = outputs.iter().map(|o| o.3.as_str()).collect();
        summary.push(format!(
            ".save / .probe (line {}): outputs {} (and the states)",
            list.first().map_or(0, |s| s.1),
            shown.join(", ")
        ));
    }
    let mut out = Vec::with_capacity(outputs.len());
    for (k, (name, description, unit_name, definition, row)) in outputs.into_iter().enumerate() {
        let (constant, program, on_w) = split.tail(&row);
        if let Some(p) = program {
            nonlinear.outputs.push((k, p));
        }
        let entries = |range: std::ops::Range<usize>, offset: usize| -> Vec<(usize, Expr)> {
            range
                .filter(|&col| row[col] != 0.0)
                .map(|col| (col - offset, Expr::constant(row[col])))
                .collect()
        };
        out.push(Output {
            name,
            description,
            unit: unit_name.into(),
            definition,
            constant: Expr::constant(constant),
            states: entries(0..nx, 0),
            pairs: entries(nx..nx + nu, nx),
            inputs: on_w.iter().map(|&(j, v)| (j, Expr::constant(v))).collect(),
        });
    }
    Ok(Parts {
        states,
        pairs,
        system,
        outputs: out,
        nonlinear,
        summary,
        quantities,
    })
}

/// Adds row `i`'s state, pair and constant entries.
fn push_row(
    on_x: &mut ExprMatrix,
    on_u: &mut ExprMatrix,
    constant_column: &mut ExprMatrix,
    i: usize,
    row: &Row,
    cols: &Columns,
    constant: f64,
) {
    for j in 0..cols.nx {
        if row[cols.x(j)] != 0.0 {
            on_x.entries.push((i, j, Expr::constant(row[cols.x(j)])));
        }
    }
    for j in 0..cols.nu {
        if row[cols.u(j)] != 0.0 {
            on_u.entries.push((i, j, Expr::constant(row[cols.u(j)])));
        }
    }
    if constant != 0.0 {
        constant_column
            .entries
            .push((i, 0, Expr::constant(constant)));
    }
}

/// Splits a row's source and constant columns into a number and a program of time.
struct Split<'c> {
    cols: &'c Columns,
    sources: Vec<&'c Waveform>,
}

impl Split<'_> {
    /// The constant (DC sources included), the program of the sources in
    /// time, and the coefficients of the inputs.
    fn tail(&self, row: &Row) -> (f64, Option<Expr>, Vec<(usize, f64)>) {
        let mut constant = row[self.cols.one()];
        let mut sum: Option<Node> = None;
        let mut on_w: Vec<(usize, f64)> = Vec::new();
        for (k, w) in self.sources.iter().enumerate() {
            let coef = row[self.cols.s(k)];
            if coef == 0.0 {
                continue;
            }
            match (w.constant(), w) {
                (Some(v), _) => constant += coef * v,
                (None, Waveform::Input(j)) => match on_w.iter_mut().find(|(i, _)| i == j) {
                    Some(entry) => entry.1 += coef,
                    None => on_w.push((*j, coef)),
                },
                (None, _) => {
                    let term = mul(Node::Num(coef), waveform::program(w));
                    sum = Some(match sum {
                        None => term,
                        Some(s) => add(s, term),
                    });
                }
            }
        }
        on_w.sort_by_key(|(j, _)| *j);
        on_w.retain(|(_, v)| *v != 0.0);
        let program = sum.map(|node| {
            let lookup = |n: &str| (n == "time").then_some(Operand::Time);
            Expr::compile_program(&node, &lookup, Form::Signal)
                .expect("waveforms are smooth functions of time with a bounded stack")
        });
        (constant, program, on_w)
    }

    /// A row as an expression over the variables' names and `time`.
    fn node(&self, row: &Row, variables: &[&str], inputs: &[String]) -> Node {
        let mut out = Node::Num(row[self.cols.one()]);
        let name = |n: &str| Node::Name(n.to_string());
        for (col, v) in variables.iter().enumerate() {
            if row[col] != 0.0 {
                out = add(out, mul(Node::Num(row[col]), name(v)));
            }
        }
        for (k, w) in self.sources.iter().enumerate() {
            let coef = row[self.cols.s(k)];
            if coef == 0.0 {
                continue;
            }
            let value = match w {
                Waveform::Input(j) => name(&inputs[*j]),
                w => waveform::program(w),
            };
            out = add(out, mul(Node::Num(coef), value));
        }
        out
    }
}

fn add(a: Node, b: Node) -> Node {
    Node::Bin(BinOp::Add, Box::new(a), Box::new(b))
}

fn mul(a: Node, b: Node) -> Node {
    Node::Bin(BinOp::Mul, Box::new(a), Box::new(b))
}

/// The start value of every state (capacitors and inductors in order).
fn start_values(c: &Circuit) -> Result<Vec<f64>, NetError> {
    let mut node_ic = vec![None; c.nodes.len()];
    node_ic[0] = Some(0.0);
    for &(v, value, _) in &c.ic {
        node_ic[v] = Some(value);
    }
    let mut used = vec![false; c.nodes.len()];
    let mut starts = Vec::new();
    for e in &c.elements {
        match e.kind {
            Kind::Capacitor { ic, .. } => {
                let [p, q] = e.nodes;
                let from_nodes = node_ic[p].is_some() && p != 0 || node_ic[q].is_some() && q != 0;
                if ic.is_none() && from_nodes {
                    used[p] = true;
                    used[q] = true;
                }
                starts.push(
                    ic.unwrap_or_else(|| node_ic[p].unwrap_or(0.0) - node_ic[q].unwrap_or(0.0)),
                );
            }
            Kind::Inductor { ic, .. } => starts.push(ic.unwrap_or(0.0)),
            _ => {}
        }
    }
    if let Some(&(v, _, line)) = c.ic.iter().find(|(v, _, _)| !used[*v]) {
        return Err(NetError::at(
            line,
            format!(
                ".ic V({}): no capacitor without IC= is connected to node '{}', so its voltage is not a state to start (set IC= on capacitors, or drop it)",
                c.nodes[v], c.nodes[v]
            ),
        ));
    }
    Ok(starts)
}

/// The rows of the inverse inductance matrix of every coupled inductor (by
/// element index): the terms `(inductor, Γ_ij)` and the `K` lines that couple
/// it. Inductors that no `K` names keep `1/L`. Each group of inductors
/// joined by `K` lines gets its matrix `L_ii = Li`, `L_ij = k sqrt(Li Lj)`,
/// which must be positive definite (the magnetic energy `i' L i / 2` of
/// every current): `|k| = 1` makes it singular (an ideal transformer, whose
/// magnetizing current is not a state), and several `K` lines can make it
/// indefinite even with each `|k| < 1`; both are refused.
#[allow(clippy::type_complexity)]
fn inverse_inductances(
    c: &Circuit,
) -> Result<std::collections::HashMap<usize, (Vec<(usize, f64)>, String)>, NetError> {
    use std::collections::HashMap;
    let mut out = HashMap::new();
    if c.couplings.is_empty() {
        return Ok(out);
    }
    // Groups: union of the inductors each K line names.
    let mut group: HashMap<usize, usize> = HashMap::new();
    let find = |group: &HashMap<usize, usize>, mut a: usize| {
        while let Some(&p) = group.get(&a) {
            if p == a {
                break;
            }
            a = p;
        }
        a
    };
    for k in &c.couplings {
        for &i in &k.inductors {
            group.entry(i).or_insert(i);
        }
        let root = find(&group, k.inductors[0]);
        for &i in &k.inductors[1..] {
            let r = find(&group, i);
            group.insert(r, root);
        }
    }
    let mut members: Vec<usize> = group.keys().copied().collect();
    members.sort_unstable();
    let mut roots: Vec<usize> = members.iter().map(|&i| find(&group, i)).collect();
    roots.sort_unstable();
    roots.dedup();
    let inductance = |i: usize| match c.elements[i].kind {
        Kind::Inductor { l, .. } => l,
        _ => unreachable!("couplings name inductors"),
    };
    for root in roots {
        let list: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&i| find(&group, i) == root)
            .collect();
        let lines: Vec<&super::elements::Coupling> = c
            .couplings
            .iter()
            .filter(|k| list.contains(&k.inductors[0]))
            .collect();
        let n = list.len();
        let mut m = nalgebra::DMatrix::<f64>::zeros(n, n);
        for (a, &i) in list.iter().enumerate() {
            m[(a, a)] = inductance(i);
        }
        for k in &lines {
            for (x, &i) in k.inductors.iter().enumerate() {
                for &j in &k.inductors[x + 1..] {
                    let (a, b) = (
                        list.iter().position(|&v| v == i).unwrap(),
                        list.iter().position(|&v| v == j).unwrap(),
                    );
                    let mutual = k.k * (inductance(i) * inductance(j)).sqrt();
                    m[(a, b)] = mutual;
                    m[(b, a)] = mutual;
                }
            }
        }
        let names: Vec<&str> = list.iter().map(|&i| c.elements[i].name.as_str()).collect();
        let k_names: Vec<&str> = lines.iter().map(|k| k.name.as_str()).collect();
        // Positive definite, with room: the smallest eigenvalue above
        // rounding of the largest (k = 1 leaves it at rounding level).
        let eig = m.clone().symmetric_eigenvalues();
        let (lo, hi) = eig.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &v| {
            (lo.min(v), hi.max(v.abs()))
        });
        if !(lo > 1e-12 * hi) {
            let first = lines[0];
            let why = if lines.iter().any(|k| k.k.abs() == 1.0) {
                "|k| = 1 (perfect coupling, an ideal transformer) makes it singular: the magnetizing current is not a state; use |k| < 1 (e.g. 0.9999) or model the ideal transformer with E and F sources"
            } else {
                "the coupling coefficients together make it indefinite (no magnetic energy is negative): lower them"
            };
            return Err(NetError::at(
                first.line,
                format!(
                    "{}: the inductance matrix of {} is not positive definite (smallest eigenvalue {lo:e} H): {why}",
                    super::topology::list(&k_names),
                    super::topology::list(&names),
                ),
            ));
        }
        let inv = m
            .try_inverse()
            .expect("a positive definite matrix has an inverse");
        let by = super::topology::list(&k_names);
        for (a, &i) in list.iter().enumerate() {
            let terms = list
                .iter()
                .enumerate()
                .filter(|(b, _)| inv[(a, *b)] != 0.0)
                .map(|(b, &j)| (j, inv[(a, b)]))
                .collect();
            out.insert(i, (terms, by.clone()));
        }
    }
    Ok(out)
}

/// A switch's state `s` (1 closed, 0 open).
enum State {
    /// The control is constant: the switch never changes.
    Fixed(f64),
    /// The control is a function of time: `s(t)` as a program whose `step`
    /// is a time jump (located by `model::time_jumps`).
    Time(Node),
}

/// The state of switch `i` from its control voltage `v(nc+) - v(nc-)`,
/// with a sentence for `check`. Supported: a control that is a function of
/// time only (the sources, through any resistive network), hysteresis only
/// when that control is constant. Refused, with why: a control that reads
/// the circuit's states or switched currents (a relay, whose state is a
/// state event), a control that reads an FMU input, and hysteresis on a
/// control that moves (inside the band the state is the history's).
fn switch_state(
    c: &Circuit,
    cols: &Columns,
    sol: &Solution,
    i: usize,
    control: [usize; 2],
    m: &SwitchModel,
    on: bool,
) -> Result<(State, String), NetError> {
    let e = &c.elements[i];
    let vc = sol.across(control);
    let (cp, cq) = (&c.nodes[control[0]], &c.nodes[control[1]]);
    let reads: Vec<&str> = c
        .elements
        .iter()
        .zip(&cols.slots)
        .filter(|(_, slot)| match **slot {
            Slot::State(k) => vc[cols.x(k)] != 0.0,
            Slot::Pair(k, _) | Slot::Gate(k) => vc[cols.u(k)] != 0.0,
            _ => false,
        })
        .map(|(e, _)| e.name.as_str())
        .collect();
    if !reads.is_empty() {
        return Err(NetError::at(
            e.line,
            format!(
                "{}: its control voltage V({cp}) - V({cq}) depends on the circuit's state through {}: a switch controlled by the circuit itself (a relay: its state changes at a state event) is not supported yet; only controls that are functions of time are (V and I sources, DC, SIN, PULSE or PWL, through resistors and controlled sources)",
                e.name,
                super::topology::list(&reads)
            ),
        ));
    }
    let mut constant = vc[cols.one()];
    let mut time: Option<Node> = None;
    for (src, slot) in c.elements.iter().zip(&cols.slots) {
        let (Slot::Source(k), Kind::Voltage(w) | Kind::Current(w)) = (*slot, &src.kind) else {
            continue;
        };
        let coef = vc[cols.s(k)];
        if coef == 0.0 {
            continue;
        }
        match (w.constant(), w) {
            (Some(v), _) => constant += coef * v,
            (None, Waveform::Input(_)) => {
                return Err(NetError::at(
                    e.line,
                    format!(
                        "{}: its control voltage V({cp}) - V({cq}) reads the FMU input of {}: a switch driven by an input is not supported yet (its state would change when the importer sets the input, an event the FMU does not locate); drive it from a source in time",
                        e.name, src.name
                    ),
                ))
            }
            (None, _) => {
                let term = mul(Node::Num(coef), waveform::program(w));
                time = Some(match time {
                    None => term,
                    Some(t) => add(t, term),
                });
            }
        }
    }
    let Some(time) = time else {
        let s = if constant > m.vt + m.vh {
            1.0
        } else if constant < m.vt - m.vh {
            0.0
        } else if on {
            1.0
        } else {
            0.0
        };
        let text = format!(
            "= {s}: the control is constant, {constant:e} V (VT = {:e}, VH = {:e})",
            m.vt, m.vh
        );
        return Ok((State::Fixed(s), text));
    };
    if m.vh > 0.0 {
        return Err(NetError::at(
            e.line,
            format!(
                "{}: hysteresis VH = {:e} with a control that varies in time is not supported yet (inside the band VT - VH to VT + VH the state is the history's, which a function of time does not carry); set VH = 0",
                e.name, m.vh
            ),
        ));
    }
    let vc_node = add(Node::Num(constant), time);
    // VH = 0: closed above VT, open below; at VT exactly ngspice keeps the
    // previous state, here the ON/OFF keyword's (which it starts from).
    let s = if on {
        Node::Call(Func::Step, Box::new(sub(vc_node, Node::Num(m.vt))))
    } else {
        sub(
            Node::Num(1.0),
            Node::Call(Func::Step, Box::new(sub(Node::Num(m.vt), vc_node))),
        )
    };
    let text = format!(
        "= 1 while V({cp}) - V({cq}) (a function of time) is {} VT = {:e} V, else 0",
        if on { "at or above" } else { "above" },
        m.vt
    );
    Ok((State::Time(s), text))
}

fn sub(a: Node, b: Node) -> Node {
    Node::Bin(BinOp::Sub, Box::new(a), Box::new(b))
}
