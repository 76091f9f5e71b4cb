//! What `lcsfmu check` says about a mechanical model with nonlinear parts:
//! which forces, gaps and slips are nonlinear (and which forces read
//! `time`), the remainders as compiled, the sparsity of the Jacobians the
//! Newton loop forms (`∂F/∂q`, `∂F/∂v`, `G = ∂g/∂q`, `T = ∂s/∂v`), and the
//! contact LCP of its first iteration from the start values.

use crate::model::expr::Expr;
use crate::model::{ExprMatrix, Model};
use crate::scheme::Stepper;
use crate::system::lcs::Lcs;
use crate::tool::docs::equations::program_text;

/// Prints the nonlinear mechanics of `model` (nothing for a linear model).
pub fn print(model: &Model, lcs: &Lcs, stepper: &mut Stepper, h: f64) {
    let Some(mech) = &model.mechanics else { return };
    let Some(nl) = &mech.nonlinear else { return };
    let n = mech.dof;
    let params: Vec<&str> = model.parameters.iter().map(|p| p.name.as_str()).collect();
    // The programs' variables: coordinates, velocities, inputs.
    let vars: Vec<&str> = model
        .states
        .iter()
        .map(|v| v.name.as_str())
        .chain(model.inputs.iter().map(|v| v.name.as_str()))
        .collect();
    let contact = |k: usize| model.pairs[mech.contacts[k].pair].name.as_str();
    println!(
        "\nnonlinear forces, gaps and slips (added to the linear terms; Jacobians by forward-mode differentiation):"
    );
    let time = |e: &Expr| if e.reads_time() { "  [reads time]" } else { "" };
    for (i, e) in &nl.force {
        let text = program_text(e, &params, &vars);
        println!("  force on {} += {text}{}", vars[*i], time(e));
    }
    for (k, e) in &nl.gap {
        println!(
            "  gap of {} += {}",
            contact(*k),
            program_text(e, &params, &vars)
        );
    }
    for (k, e) in &nl.slip {
        println!(
            "  slip of {} += {}",
            contact(*k),
            program_text(e, &params, &vars)
        );
    }
    println!("\nJacobian sparsity ('x' linear, 'n' nonlinear, '.' zero):");
    let coords = &vars[..n];
    let reads = |list: &[(usize, Expr)], row: usize, first: usize| -> Vec<usize> {
        list.iter()
            .filter(|(r, _)| *r == row)
            .flat_map(|(_, e)| e.variables())
            .filter(|j| *j >= first && *j < first + n)
            .map(|j| j - first)
            .collect()
    };
    let rows_named: Vec<String> = coords.iter().map(|c| format!("F on {c}")).collect();
    let block = |title: &str,
                 linear: &dyn Fn(usize, usize) -> bool,
                 nonlinear: &dyn Fn(usize) -> Vec<usize>,
                 rows: &[String]| {
        println!("  {title}  (columns {}):", coords.join(" "));
        for (i, name) in rows.iter().enumerate().take(40) {
            let nl = nonlinear(i);
            let line: String = (0..n.min(80))
                .map(|j| {
                    if nl.contains(&j) {
                        'n'
                    } else if linear(i, j) {
                        'x'
                    } else {
                        '.'
                    }
                })
                .collect();
            println!("    {line}  {name}");
        }
    };
    let has =
        |m: &ExprMatrix, i: usize, j: usize| m.entries.iter().any(|(r, c, _)| *r == i && *c == j);
    block(
        "dF/dq",
        &|i, j| has(&mech.position_force, i, j),
        &|i| reads(&nl.force, i, 0),
        &rows_named,
    );
    block(
        "dF/dv",
        &|i, j| has(&mech.velocity_force, i, j),
        &|i| reads(&nl.force, i, n),
        &rows_named,
    );
    let gaps: Vec<String> = (0..mech.contacts.len())
        .map(|k| format!("g of {}", contact(k)))
        .collect();
    block(
        "G = dg/dq",
        &|k, j| has(&mech.gap, k, j),
        &|k| reads(&nl.gap, k, 0),
        &gaps,
    );
    let frictional: Vec<usize> = (0..mech.contacts.len())
        .filter(|k| mech.contacts[*k].friction.is_some())
        .collect();
    if !frictional.is_empty() {
        let slips: Vec<String> = frictional
            .iter()
            .map(|k| format!("s of {}", contact(*k)))
            .collect();
        block(
            "T = ds/dv",
            &|r, j| {
                let f = mech.contacts[frictional[r]].friction.as_ref();
                f.is_some_and(|f| f.slip.iter().any(|(c, _)| *c == j))
            },
            &|r| reads(&nl.slip, frictional[r], n),
            &slips,
        );
    }
    let Some(newton) = stepper.mech_newton() else {
        return;
    };
    let x: Vec<f64> = model.states.iter().map(|v| v.start).collect();
    let w: Vec<f64> = model.inputs.iter().map(|v| v.start).collect();
    match newton.lcp_matrix(lcs, &x, &w, h) {
        Ok(m) if m.nrows() <= 40 => {
            println!("\nLCP of the first Newton iteration from the start values (h = {h}): M =");
            for row in m.row_iter() {
                let cells: Vec<String> = row.iter().map(|v| format!("{v:>12.6}")).collect();
                println!("  [{} ]", cells.join(""));
            }
        }
        Ok(m) => println!(
            "\nLCP of the first Newton iteration: {0} x {0}, not printed",
            m.nrows()
        ),
        Err(e) => println!("\nthe first Newton iteration at h = {h} is not defined: {e}"),
    }
}
