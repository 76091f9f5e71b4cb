//! What `lcsfmu check` says about a nonlinear model: which states, pairs and
//! outputs have nonlinear parts (and which read `time`), the remainders as
//! compiled, the sparsity of the Jacobians the Newton iteration forms, and
//! the LCP of its first iteration from the start values (or, when the
//! remainders are sources in time, that the step is the linear one).

use crate::model::program::Nonlinear;
use crate::model::{ExprMatrix, Model};
use crate::scheme::{Stepper, Theta};
use crate::system::lcs::Lcs;
use crate::tool::docs::equations::program_text;

/// Prints the nonlinear parts of `model` (nothing for a linear model).
pub fn print(model: &Model, lcs: &Lcs, stepper: &mut Stepper, h: f64) {
    let Some(nl) = &model.nonlinear else {
        return;
    };
    let params: Vec<&str> = model.parameters.iter().map(|p| p.name.as_str()).collect();
    let vars: Vec<&str> = model
        .states
        .iter()
        .map(|v| v.name.as_str())
        .chain(model.pairs.iter().map(|p| p.name.as_str()))
        .chain(model.inputs.iter().map(|v| v.name.as_str()))
        .collect();
    println!(
        "\nnonlinear parts (added to the linear terms; Jacobians by forward-mode differentiation):"
    );
    let time = |e: &crate::model::expr::Expr| if e.reads_time() { "  [reads time]" } else { "" };
    let der = nl
        .der
        .iter()
        .map(|(i, e)| (format!("der({})", model.states[*i].name), e));
    let y =
        nl.y.iter()
            .map(|(j, e)| (format!("y of {}", model.pairs[*j].name), e));
    let outputs = nl
        .outputs
        .iter()
        .map(|(k, e)| (format!("output {}", model.outputs[*k].name), e));
    for (what, e) in der.chain(y).chain(outputs) {
        println!("  {what} += {}{}", program_text(e, &params, &vars), time(e));
    }
    let blocks: Vec<&str> = model
        .blocks
        .iter()
        .filter(|b| b.pairs.iter().any(|j| nl.y.iter().any(|(k, _)| k == j)))
        .map(|b| b.name.as_str())
        .collect();
    if !blocks.is_empty() {
        println!("  blocks with a nonlinear input: {}", blocks.join(", "));
    }
    if !nl.dynamics() {
        if model.mechanics.is_none() {
            println!("  the dynamics are linear: the step is the linear theta step");
        }
        return;
    }
    let (nx, nu) = (model.nx(), model.nu());
    let s = &model.system;
    println!("\nJacobian sparsity ('x' linear, 'n' nonlinear, '.' zero):");
    pattern(
        "df/dx",
        &s.a,
        nl,
        Rows::Der,
        0,
        nx,
        &model
            .states
            .iter()
            .map(|v| v.name.as_str())
            .collect::<Vec<_>>(),
        nx,
    );
    pattern(
        "df/du",
        &s.b,
        nl,
        Rows::Der,
        nx,
        nu,
        &model
            .states
            .iter()
            .map(|v| v.name.as_str())
            .collect::<Vec<_>>(),
        nx,
    );
    let pair_names: Vec<&str> = model.pairs.iter().map(|p| p.name.as_str()).collect();
    pattern("dc/dx", &s.c, nl, Rows::Y, 0, nx, &pair_names, nu);
    pattern("dc/du", &s.d, nl, Rows::Y, nx, nu, &pair_names, nu);
    if matches!(stepper, Stepper::Theta(Theta::Affine(_))) {
        println!(
            "  the remainders read only time, inputs and parameters: sources of an affine \
             time-varying LCS, one LCP per step (the linear theta step, each source an input \
             read at the scheme's evaluation points)"
        );
    }
    if let Some(newton) = stepper.newton() {
        let x: Vec<f64> = model.states.iter().map(|v| v.start).collect();
        let w: Vec<f64> = model.inputs.iter().map(|v| v.start).collect();
        match newton.lcp_matrix(lcs, &x, &w, h) {
            Ok(m) if m.nrows() <= 40 => {
                println!(
                    "\nLCP of the first Newton iteration from the start values (h = {h}): M ="
                );
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
}

#[derive(Clone, Copy)]
enum Rows {
    Der,
    Y,
}

/// One Jacobian block's pattern: rows of `rows`, columns `first..first + cols`
/// of the variables.
#[allow(clippy::too_many_arguments)]
fn pattern(
    title: &str,
    linear: &ExprMatrix,
    nl: &Nonlinear,
    rows: Rows,
    first: usize,
    cols: usize,
    names: &[&str],
    n: usize,
) {
    if n == 0 || cols == 0 {
        return;
    }
    println!("  {title}:");
    let programs = match rows {
        Rows::Der => &nl.der,
        Rows::Y => &nl.y,
    };
    for (i, name) in names.iter().enumerate().take(40) {
        let reads: Vec<usize> = programs
            .iter()
            .filter(|(r, _)| *r == i)
            .flat_map(|(_, e)| e.variables())
            .collect();
        let line: String = (0..cols.min(80))
            .map(|j| {
                if reads.contains(&(first + j)) {
                    'n'
                } else if linear.entries.iter().any(|(r, c, _)| *r == i && *c == j) {
                    'x'
                } else {
                    '.'
                }
            })
            .collect();
        println!("    {line}  {name}");
    }
}
