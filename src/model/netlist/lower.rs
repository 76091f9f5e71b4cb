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

use super::elements::{Circuit, Kind, Waveform};
use super::mna::{axpy, unit, Columns, Row, Slot, Solution};
use super::names::Namer;
use super::topology::Role;
use super::waveform;
use super::NetError;
use crate::model::expr::{BinOp, Expr, Node};
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
    let (mut states, mut pairs) = (Vec::new(), Vec::new());
    let mut der: Vec<Row> = Vec::new();
    let mut rel: Vec<Row> = Vec::new();
    let mut summary = Vec::new();
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
                let mut row = sol.across(e.nodes);
                row.iter_mut().for_each(|v| *v /= l);
                der.push(row);
                summary.push(format!(
                    "state {name}: current of {} (from {p} to {q}), {name}' = (V({p}) - V({q}))/{l:e}",
                    e.name
                ));
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
            _ => {}
        }
    }

    // Outputs: node voltages, then branch currents (and diode voltages).
    let mut outputs: Vec<(String, String, &str, String, Row)> = Vec::new();
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
            _ => None,
        };
        if let Some(row) = row {
            let name = names.take(format!("I_{}", e.name), e.line, &e.name)?;
            outputs.push((name, current(&e.name), "A", format!("I({})", e.name), row));
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
    for (i, row) in rel.iter().enumerate() {
        let (constant, program, on_w) = split.tail(row);
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
