//! `lcsfmu check MODEL.toml`: validate and describe a model without building it.
//!
//! Prints the sizes, the variables with their value references, the laws, and the
//! LCP of one step at the default step size with what its matrix guarantees
//! (positive definite or P: a unique solution every step; positive semidefinite:
//! a solution whenever one is feasible, found by Lemke's method).

use crate::error::Error;
use crate::fmi2::variables;
use crate::lcs::Lcs;
use crate::model::validate;
use crate::scheme::Stepper;
use nalgebra::DMatrix;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Model file (TOML).
    model: PathBuf,
}

pub fn run(args: Args) -> Result<ExitCode, Error> {
    let model = validate::load(&args.model)?;
    println!("{}: ok", args.model.display());
    println!(
        "model {}: {} states, {} complementarity pairs, {} inputs, {} parameters, {} outputs",
        model.name,
        model.nx(),
        model.nu(),
        model.nw(),
        model.np(),
        model.outputs.len()
    );
    println!(
        "scheme: theta = {}{}",
        model.scheme.theta,
        model
            .scheme
            .max_step
            .map_or(String::new(), |h| format!(", max_step = {h}"))
    );
    let e = model.experiment;
    println!(
        "experiment: start {}, stop {}, step {}",
        e.start, e.stop, e.step
    );
    println!("\nvariables (value reference, name, causality/variability/initial):");
    for (vr, v) in variables::variables(&model).iter().enumerate() {
        let (c, var, i) = v.attributes();
        let start = v.start.map_or(String::new(), |s| format!(" start {s}"));
        println!(
            "  {vr:>4}  {:<16} {c}/{var}{}{start}",
            v.name,
            i.map_or(String::new(), |i| format!("/{i}"))
        );
    }
    let mut lcs = Lcs::new(&model);
    lcs.assemble(&model, &model.default_parameters())
        .map_err(Error::Simulation)?;
    println!("\ncomplementarity laws at the default parameters:");
    for (i, p) in model.pairs.iter().enumerate() {
        println!(
            "  {} <= {} <= {}  ⟂  y{}",
            lcs.lo[i],
            p.name,
            lcs.hi[i],
            i + 1
        );
    }
    let mut stepper = Stepper::new(model.nx(), model.nu(), model.nw(), model.scheme.theta);
    let h = model
        .scheme
        .max_step
        .map_or(e.step, |m| e.step / (e.step / m).ceil());
    match stepper.lcp_matrix(&lcs, h) {
        Ok(m) => {
            println!("\nLCP of one step (h = {h}): y = M u + q with M =");
            for row in m.row_iter() {
                let cells: Vec<String> = row.iter().map(|v| format!("{v:>12.6}")).collect();
                println!("  [{} ]", cells.join(""));
            }
            println!("  {}", classify(m));
        }
        Err(e) => println!("\nthe step at h = {h} is not defined: {e}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// What the matrix guarantees about each step's LCP.
fn classify(m: &DMatrix<f64>) -> String {
    let n = m.nrows();
    if n == 0 {
        return "no complementarity pairs: every step is linear".into();
    }
    let sym = (m + m.transpose()) * 0.5;
    let eig = sym.symmetric_eigenvalues();
    let (min, scale) = (eig.min(), eig.amax().max(f64::MIN_POSITIVE));
    if min > 1e-12 * scale {
        return "positive definite: a unique solution for every q".into();
    }
    if n <= 12 && is_p_matrix(m) {
        return "a P-matrix: a unique solution for every q".into();
    }
    if min >= -1e-12 * scale {
        return "positive semidefinite: a solution whenever the step is feasible (Lemke finds it)"
            .into();
    }
    "indefinite and not a P-matrix: a step may have no or several solutions".into()
}

/// All principal minors positive (exponential in n: only for small n).
fn is_p_matrix(m: &DMatrix<f64>) -> bool {
    let n = m.nrows();
    (1u32..(1 << n)).all(|mask| {
        let idx: Vec<usize> = (0..n).filter(|i| mask & (1 << i) != 0).collect();
        let sub = DMatrix::from_fn(idx.len(), idx.len(), |i, j| m[(idx[i], idx[j])]);
        sub.determinant() > 0.0
    })
}
