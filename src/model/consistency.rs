//! The checks on a model read back from an FMU's embedded JSON.
//!
//! A model compiled into an FMU is trusted by the stepping code (shapes,
//! indices, well-formed expressions), but the text may come from an old or
//! damaged FMU; [`Model::from_json`] runs these checks before anything else
//! touches it, so a bad file is an error, not an out-of-bounds panic later.

use super::expr::Expr;
use super::{Method, Model};

impl Model {
    pub(super) fn check_consistency(&self) -> Result<(), String> {
        let (nx, nu, nw, np) = (self.nx(), self.nu(), self.nw(), self.np());
        let ok_expr = |e: &Expr| e.is_well_formed(np);
        let s = &self.system;
        let mut shapes = vec![
            ("A", &s.a, nx, nx),
            ("B", &s.b, nx, nu),
            ("E", &s.e, nx, nw),
            ("f", &s.f, nx, 1),
            ("C", &s.c, nu, nx),
            ("D", &s.d, nu, nu),
            ("F", &s.fw, nu, nw),
            ("g", &s.g, nu, 1),
        ];
        if let Some(m) = &self.mechanics {
            let (n, nc) = (m.dof, m.contacts.len());
            if 2 * n != nx || self.scheme.method.first_order() {
                return Err("embedded model: mechanical sizes are inconsistent".into());
            }
            // A mechanical model keeps its first-order matrices empty.
            for shape in &mut shapes {
                shape.2 = 0;
                shape.3 = 0;
            }
            shapes.extend([
                ("M", &m.mass, n, n),
                ("Fq", &m.position_force, n, n),
                ("Fv", &m.velocity_force, n, n),
                ("f", &m.force, n, 1),
                ("F", &m.input_force, n, nw),
                ("G", &m.gap, nc, n),
                ("g0", &m.gap0, nc, 1),
            ]);
            let mut next = 0;
            for c in &m.contacts {
                let width = if c.friction.is_some() { 4 } else { 1 };
                let friction_ok = c.friction.as_ref().is_none_or(|f| {
                    ok_expr(&f.mu)
                        && ok_expr(&f.slip0)
                        && f.slip.iter().all(|(j, e)| *j < n && ok_expr(e))
                        && f.slip_inputs.iter().all(|(j, e)| *j < nw && ok_expr(e))
                });
                // A constraint is stepped by the Newton step only.
                let bilateral_ok = !c.bilateral || m.nonlinear.is_some();
                if c.pair != next
                    || c.pair + width > nu
                    || !ok_expr(&c.restitution)
                    || !friction_ok
                    || !bilateral_ok
                {
                    return Err("embedded model: contacts are inconsistent".into());
                }
                next += width;
            }
            if next != nu {
                return Err("embedded model: contacts are inconsistent".into());
            }
            if let Some(nl) = &m.nonlinear {
                let slips_frictional = nl
                    .slip
                    .iter()
                    .all(|(k, _)| m.contacts.get(*k).is_some_and(|c| c.friction.is_some()));
                // Each entry of M(q) has its placeholder in the mass pattern
                // (the run time writes there), and only Moreau–Jean steps M(q).
                let mass_placed = nl
                    .mass
                    .iter()
                    .all(|(i, j, _)| m.mass.entries.iter().any(|(a, b, _)| (a, b) == (i, j)));
                let mass_scheme = nl.mass.is_empty() || self.scheme.method == Method::MoreauJean;
                // Constraints: after the contacts, frictionless, plain Moreau–Jean.
                let first = m.contacts.iter().position(|c| c.bilateral);
                let constraints_ok = first.is_none_or(|f| {
                    self.scheme.method == Method::MoreauJean
                        && m.contacts[f..]
                            .iter()
                            .all(|c| c.bilateral && c.friction.is_none())
                });
                if !nl.is_consistent(np, n, nw, nc)
                    || !slips_frictional
                    || !mass_placed
                    || !mass_scheme
                    || !constraints_ok
                    || self.scheme.method == Method::MoreauJeanDirectProjection
                {
                    return Err("embedded model: nonlinear mechanics are inconsistent".into());
                }
            }
        } else if !self.scheme.method.first_order() {
            return Err("embedded model: a first-order model needs a first-order scheme".into());
        }
        for (name, m, r, c) in shapes {
            if m.rows != r
                || m.cols != c
                || m.entries
                    .iter()
                    .any(|(i, j, e)| *i >= r || *j >= c || !ok_expr(e))
            {
                return Err(format!("embedded model: matrix {name} is inconsistent"));
            }
        }
        let pairs_ok = self.pairs.iter().all(|p| ok_expr(&p.lo) && ok_expr(&p.hi))
            && self.conditions.iter().all(|c| ok_expr(&c.value))
            && self
                .blocks
                .iter()
                .all(|b| b.pairs.iter().all(|&j| j < nu) && b.state.is_none_or(|i| i < nx));
        let outputs_ok = self.outputs.iter().all(|o| {
            ok_expr(&o.constant)
                && o.states.iter().all(|(j, e)| *j < nx && ok_expr(e))
                && o.pairs.iter().all(|(j, e)| *j < nu && ok_expr(e))
                && o.inputs.iter().all(|(j, e)| *j < nw && ok_expr(e))
        });
        if !pairs_ok || !outputs_ok {
            return Err("embedded model: bounds or outputs are inconsistent".into());
        }
        if let Some(nl) = &self.nonlinear {
            let rows = (nx, nu, self.outputs.len());
            if !nl.is_consistent(np, nx + nu + nw, rows)
                || (nl.dynamics() && !self.scheme.method.first_order())
                || (self.scheme.method == Method::Zoh && nl.reads_unknowns(nx + nu))
            {
                return Err("embedded model: nonlinear programs are inconsistent".into());
            }
        }
        // Partitions tile the columns of w after the declared inputs, in order.
        let mut base = self.inputs.len();
        for p in &self.sampled {
            let programs = p.outputs.iter().map(|o| &o.value);
            let programs_ok = programs
                .chain(p.states.iter().map(|d| &d.update))
                .all(|e| e.is_well_formed_program(np, nx + nu + nw));
            if p.base != base
                || !programs_ok
                || !ok_expr(&p.period)
                || !ok_expr(&p.offset)
                || !self.scheme.method.first_order()
            {
                return Err("embedded model: discrete partitions are inconsistent".into());
            }
            base += p.width();
        }
        Ok(())
    }
}
