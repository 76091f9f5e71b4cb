//! The circuit's graph: the refusals of ill-posed circuits, and the role of
//! each diode (its current or its voltage as the complementarity variable).
//!
//! With the states fixed (a capacitor as a voltage source of its voltage, an
//! inductor as a current source of its current) and each diode either a
//! current source of its current or a voltage source of its voltage, the
//! rest of the circuit is resistive, and its node equations are solvable for
//! every value of the states, sources and diode variables exactly when the
//! voltage-like branches (voltage sources, capacitors, diodes by voltage)
//! contain no loop and the current-like branches (current sources,
//! inductors, diodes by current) contain no cut-set. Both are read off one
//! spanning tree, built greedily in the order voltage sources, capacitors,
//! resistors, diodes, inductors, current sources (a *normal tree*):
//!
//! - a voltage source or capacitor left out of the tree closes a loop of
//!   voltage sources and capacitors (refused: their voltages are not
//!   independent);
//! - an inductor or current source taken into the tree lies in a cut-set of
//!   inductors and current sources (refused: their currents are not);
//! - a diode is taken into the tree only when no path of sources,
//!   capacitors and resistors joins its ends (a diode in series with an
//!   inductor, or the bridge between two parts of a circuit): its voltage is
//!   then the complementarity variable and its current follows from the
//!   currents of its cut-set (inductors, current sources, the other diodes).
//!   Every other diode gives its current. Either way each diode's current
//!   reaches the states only through the multipliers: switched branches are
//!   fully implicit in the theta step (`h B u`), whatever theta.
//!
//! Controlled sources take the class of the source they are: `E` and `H`
//! voltage sources, `F` and `G` current sources (their control only senses,
//! so a node that only a control names is refused). A switch `S` is a
//! resistor (its `Roff`, always present; the gated branch beside it is a
//! current the nodal analysis injects, `netlist/mna.rs`).
//!
//! Before that: an element whose two ends are one node, a node with one
//! connection and a part of the circuit not connected to the ground are
//! refused, with the elements named.

use super::elements::{Circuit, Kind};
use super::NetError;

/// Which side of a diode's pair is the multiplier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `0 <= i ⟂ -v >= 0`: the current is the variable.
    Current,
    /// `0 <= -v ⟂ i >= 0`: the reverse voltage is the variable.
    Voltage,
}

/// Branch classes in the order the tree takes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    Voltage,
    Capacitor,
    Resistor,
    Diode,
    Inductor,
    Current,
}

struct Edge {
    element: usize,
    class: Class,
    ends: [usize; 2],
}

struct Forest {
    parent: Vec<usize>,
}

impl Forest {
    fn new(n: usize) -> Self {
        Forest {
            parent: (0..n).collect(),
        }
    }
    fn find(&mut self, mut a: usize) -> usize {
        while self.parent[a] != a {
            self.parent[a] = self.parent[self.parent[a]];
            a = self.parent[a];
        }
        a
    }
    fn union(&mut self, a: usize, b: usize) -> bool {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return false;
        }
        self.parent[ra] = rb;
        true
    }
}

/// The role of each diode (`None` for other elements), or the refusal.
pub fn analyse(c: &Circuit) -> Result<Vec<Option<Role>>, NetError> {
    let n = c.nodes.len();
    let mut edges = Vec::new();
    for (i, e) in c.elements.iter().enumerate() {
        let [p, q] = e.nodes;
        if p == q {
            return Err(NetError::at(
                e.line,
                format!(
                    "{}: both ends are on node '{}' (the {} is shorted)",
                    e.name,
                    c.nodes[p],
                    e.kind.noun()
                ),
            ));
        }
        let class = match &e.kind {
            Kind::Voltage(_) | Kind::Vcvs { .. } | Kind::Ccvs { .. } => Class::Voltage,
            Kind::Capacitor { .. } => Class::Capacitor,
            // A switch's `Roff` is always there; its gated branch is a
            // current injected beside it (see `mna`), which never closes a
            // loop or a cut-set the `Roff` branch does not already make.
            Kind::Resistor(_) | Kind::Switch { .. } => Class::Resistor,
            Kind::Diode(m) => {
                if m.roff.is_finite() {
                    edges.push(Edge {
                        element: i,
                        class: Class::Resistor,
                        ends: e.nodes,
                    });
                }
                Class::Diode
            }
            Kind::Inductor { .. } => Class::Inductor,
            Kind::Current(_) | Kind::Vccs { .. } | Kind::Cccs { .. } => Class::Current,
        };
        edges.push(Edge {
            element: i,
            class,
            ends: e.nodes,
        });
    }

    // A node with one connection.
    let mut incident: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in c.elements.iter().enumerate() {
        for &v in &e.nodes {
            incident[v].push(i);
        }
    }
    for (v, list) in incident.iter().enumerate().skip(1) {
        if list.is_empty() {
            // Only a controlled source's control terminal names it.
            let sensing = c.elements.iter().find(|e| match e.kind {
                Kind::Vcvs { control, .. }
                | Kind::Vccs { control, .. }
                | Kind::Switch { control, .. } => control.contains(&v),
                _ => false,
            });
            let (line, name) = sensing.map_or((c.node_lines[v], "a control"), |e| {
                (e.line, e.name.as_str())
            });
            return Err(NetError::at(
                line,
                format!(
                    "node '{}' is only sensed (by {name}'s control terminals): no element connects it, so its voltage is undetermined",
                    c.nodes[v]
                ),
            ));
        }
        if let [only] = list[..] {
            let e = &c.elements[only];
            return Err(NetError::at(
                e.line,
                format!(
                    "node '{}' has one connection only ({}): nothing else is connected to it",
                    c.nodes[v], e.name
                ),
            ));
        }
    }

    // Parts not connected to the ground.
    let mut all = Forest::new(n);
    for e in &edges {
        all.union(e.ends[0], e.ends[1]);
    }
    let ground = all.find(0);
    if let Some(v) = (1..n).find(|&v| all.find(v) != ground) {
        let root = all.find(v);
        let nodes: Vec<usize> = (1..n).filter(|&u| all.find(u) == root).collect();
        let names: Vec<&str> = nodes.iter().map(|&u| c.nodes[u].as_str()).collect();
        let mut elements: Vec<usize> = nodes
            .iter()
            .flat_map(|&u| incident[u].iter().copied())
            .collect();
        elements.sort_unstable();
        elements.dedup();
        let element_names: Vec<&str> = elements
            .iter()
            .map(|&i| c.elements[i].name.as_str())
            .collect();
        return Err(NetError::at(
            c.elements[elements[0]].line,
            format!(
                "floating: node{} {} connected to the ground (node 0) by no element ({} float{}); connect the part to node 0",
                if names.len() > 1 { "s" } else { "" },
                quoted(&names),
                list(&element_names),
                if element_names.len() > 1 { "" } else { "s" },
            ),
        ));
    }

    // The normal tree.
    let mut order: Vec<usize> = (0..edges.len()).collect();
    order.sort_by_key(|&k| (edges[k].class, k));
    let mut tree = Forest::new(n);
    let mut adjacent: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roles = vec![None; c.elements.len()];
    for &k in &order {
        let e = &edges[k];
        let [p, q] = e.ends;
        let joins = tree.find(p) != tree.find(q);
        match e.class {
            Class::Voltage | Class::Capacitor if !joins => {
                let mut path = tree_path(&adjacent, &edges, p, q);
                path.push(e.element);
                let names: Vec<&str> = path.iter().map(|&i| c.elements[i].name.as_str()).collect();
                return Err(NetError::at(
                    c.elements[e.element].line,
                    format!(
                        "{} form a loop of voltage sources and capacitors: the voltage of each is fixed by the others (add a resistance in series)",
                        list(&names)
                    ),
                ));
            }
            Class::Inductor | Class::Current if joins => {
                return Err(cutset(c, &edges, &mut tree, k));
            }
            Class::Diode => {
                roles[e.element] = Some(if joins { Role::Voltage } else { Role::Current });
            }
            _ => {}
        }
        if joins {
            tree.union(p, q);
            adjacent[p].push(k);
            adjacent[q].push(k);
        }
    }
    Ok(roles)
}

/// The elements on the tree's path from `a` to `b` (which it connects).
fn tree_path(adjacent: &[Vec<usize>], edges: &[Edge], a: usize, b: usize) -> Vec<usize> {
    let mut via: Vec<Option<usize>> = vec![None; adjacent.len()];
    let mut seen = vec![false; adjacent.len()];
    let mut queue = std::collections::VecDeque::from([a]);
    seen[a] = true;
    while let Some(v) = queue.pop_front() {
        if v == b {
            break;
        }
        for &k in &adjacent[v] {
            let [p, q] = edges[k].ends;
            let w = if p == v { q } else { p };
            if !seen[w] {
                seen[w] = true;
                via[w] = Some(k);
                queue.push_back(w);
            }
        }
    }
    let mut out = Vec::new();
    let mut v = b;
    while let Some(k) = via[v] {
        out.push(edges[k].element);
        let [p, q] = edges[k].ends;
        v = if p == v { q } else { p };
    }
    out.reverse();
    out
}

/// The refusal of inductor or current source `k`, which joins two parts
/// that no source, capacitor, resistor or diode joins: every branch between
/// them is an inductor or a current source.
fn cutset(c: &Circuit, edges: &[Edge], parts: &mut Forest, k: usize) -> NetError {
    let [p, q] = edges[k].ends;
    let ground = parts.find(0);
    let side = if parts.find(p) == ground { q } else { p };
    let part = parts.find(side);
    let roots: Vec<usize> = (0..c.nodes.len()).map(|v| parts.find(v)).collect();
    let inside = |v: usize| roots[v] == part;
    let mut members: Vec<usize> = edges
        .iter()
        .filter(|e| inside(e.ends[0]) != inside(e.ends[1]))
        .map(|e| e.element)
        .collect();
    members.dedup();
    let names: Vec<&str> = members
        .iter()
        .map(|&i| c.elements[i].name.as_str())
        .collect();
    let nodes: Vec<&str> = (1..c.nodes.len())
        .filter(|&v| inside(v))
        .map(|v| c.nodes[v].as_str())
        .collect();
    let e = &c.elements[edges[k].element];
    NetError::at(
        e.line,
        format!(
            "{} form a cut-set of inductors and current sources around node{} {}: the current into {} is fixed by them alone (connect a resistor from {} to another node)",
            list(&names),
            if nodes.len() > 1 { "s" } else { "" },
            quoted(&nodes),
            if nodes.len() > 1 { "those nodes" } else { "that node" },
            quoted(&nodes[..1]),
        ),
    )
}

/// `a`, `a and b`, `a, b and c`.
pub fn list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn quoted(names: &[&str]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    let r: Vec<&str> = q.iter().map(String::as_str).collect();
    list(&r)
}
