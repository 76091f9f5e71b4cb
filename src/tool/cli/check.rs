//! `lcsfmu check MODEL.toml`: validate and describe a model without building it.
//! `lcsfmu check FILE.fmu`: the FMU's conformance to FMI 2.0 or 3.0 ([`crate::tool::conformance`]),
//! one PASS/FAIL/SKIP line per check; exit status 1 when any check fails.
//!
//! Prints the sizes, the variables with their value references, the laws, and the
//! LCP of one step at the default step size with what its matrix guarantees
//! (positive definite or P: a unique solution every step; positive semidefinite:
//! a solution whenever one is feasible, found by Lemke's method).

use crate::error::Error;
use crate::instance::variables;
use crate::model::{netlist, validate, Model};
use crate::scheme::{Stepper, Theta};
use crate::system::lcs::Lcs;
use crate::tool::conformance;
use nalgebra::{DMatrix, DVector};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Model file (TOML, or a SPICE netlist: .cir, .sp, .net), or an .fmu to check for
    /// FMI 2.0 (or 3.0) conformance.
    model: PathBuf,
    /// Override a size declared in the file's [defines] (NAME=INTEGER, repeatable).
    #[arg(long = "define", value_name = "NAME=INTEGER", value_parser = super::parse_define)]
    defines: Vec<(String, i64)>,
    /// Replace the model file's [scheme] method (theta, zoh, event-driven, moreau-jean, moreau-jean-projected,
    /// moreau-jean-direct-projection,
    /// semi-explicit); the file's other scheme settings stay.
    #[arg(long = "scheme", value_name = "METHOD")]
    scheme: Option<String>,
    /// An .fmu's binary run: seconds before the child running it is killed (a hang).
    #[arg(long, value_name = "SECONDS", default_value_t = 20)]
    time_limit: u64,
    /// An .fmu's binary run: address space of the child running it, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 2048)]
    memory_limit: u64,
}

/// Matrices and variable lists longer than this are summarized, not printed.
const PRINT_LIMIT: usize = 40;

pub fn run(args: Args) -> Result<ExitCode, Error> {
    if args.model.extension().is_some_and(|e| e == "fmu") {
        return check_fmu(&args);
    }
    // A netlist given --define is refused by load_with.
    let (model, circuit) = if netlist::is_netlist(&args.model) && args.defines.is_empty() {
        let lowered = netlist::load(&args.model, args.scheme.as_deref())?;
        (lowered.model, lowered.summary)
    } else {
        let model = validate::load_with(&args.model, &args.defines, args.scheme.as_deref())?;
        (model, Vec::new())
    };
    println!("{}: ok", args.model.display());
    for line in &circuit {
        println!("{line}");
    }
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
        "scheme: {}{}{}{}",
        model.scheme.method.file_name(),
        if model.scheme.method.uses_theta() {
            format!(", theta = {}", model.scheme.theta)
        } else {
            String::new()
        },
        if model.scheme.method.velocity_level() {
            format!(", impact = {}", model.scheme.impact.file_name())
        } else {
            String::new()
        },
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
    let vars = variables::variables(&model);
    if vars.len() > PRINT_LIMIT {
        println!("  ({} variables; the first {PRINT_LIMIT}:)", vars.len());
    }
    for (vr, v) in vars.iter().enumerate().take(PRINT_LIMIT) {
        let (c, var, i) = v.attributes();
        let start = v.start.map_or(String::new(), |s| format!(" start {s}"));
        println!(
            "  {vr:>4}  {:<16} {c}/{var}{}{start}",
            v.name,
            i.map_or(String::new(), |i| format!("/{i}"))
        );
    }
    print_blocks(&model);
    let mut lcs = Lcs::new(&model);
    lcs.assemble(&model, &model.default_parameters())
        .map_err(Error::Simulation)?;
    println!("\ncomplementarity laws at the default parameters:");
    if model.pairs.len() > PRINT_LIMIT {
        println!("  ({} pairs; the first {PRINT_LIMIT}:)", model.pairs.len());
    }
    for (i, p) in model.pairs.iter().enumerate().take(PRINT_LIMIT) {
        println!(
            "  {} <= {} <= {}  ⟂  y{}",
            lcs.lo[i],
            p.name,
            lcs.hi[i],
            i + 1
        );
    }
    let h = model
        .scheme
        .max_step
        .map_or(e.step, |m| e.step / (e.step / m).ceil());
    // The step's LCP is over the pairs. A large one is only summarized, and never
    // made dense (nor is a stepper made for it): the 100,000-bead chain's would be
    // 80 GB, and the failed allocation aborted `check` (seen while looking into
    // the fuzzer's slow inputs: model files with large `[defines]` sizes).
    if model.nu() > PRINT_LIMIT {
        println!(
            "\nLCP of one step (h = {h}): {0} x {0}, not printed",
            model.nu()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut stepper = Stepper::new(&model, &lcs);
    super::nonlinear::print(&model, &lcs, &mut stepper, h);
    super::mech_nonlinear::print(&model, &lcs, &mut stepper, h);
    let newton = model.nonlinear_dynamics() && !matches!(stepper, Stepper::Theta(Theta::Affine(_)));
    if newton || model.nonlinear_mechanics() {
        return Ok(ExitCode::SUCCESS);
    }
    match stepper.lcp_matrix(&lcs, h) {
        Ok(m) => {
            println!("\nLCP of one step (h = {h}): y = M u + q with M =");
            for row in m.row_iter() {
                let cells: Vec<String> = row.iter().map(|v| format!("{v:>12.6}")).collect();
                println!("  [{} ]", cells.join(""));
            }
            println!("  {}", classify_mixed(&m, &lcs.lo, &lcs.hi));
        }
        Err(e) => println!("\nthe step at h = {h} is not defined: {e}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the conformance report of an FMU; fails when a check fails.
fn check_fmu(args: &Args) -> Result<ExitCode, Error> {
    if !args.defines.is_empty() || args.scheme.is_some() {
        return Err(Error::Simulation(
            "--define and --scheme apply to model files; an FMU's sizes and scheme were fixed when it was built"
                .into(),
        ));
    }
    // The binary runs in a child `lcsfmu __run-binary`: this very executable.
    let runner = std::env::current_exe().map_err(|source| Error::Io {
        path: "/proc/self/exe".into(),
        source,
    })?;
    let limits = conformance::Limits {
        time: std::time::Duration::from_secs(args.time_limit.max(1)),
        memory: args.memory_limit.saturating_mul(1 << 20),
    };
    let report = conformance::check_with(&args.model, Some(&runner), limits);
    println!("== {}", args.model.display());
    for line in report.lines() {
        println!("{line}");
    }
    println!("{}", report.summary());
    Ok(if report.failed() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Each block of a signal-form model with the pairs and variables it became.
fn print_blocks(model: &Model) {
    if model.blocks.is_empty() {
        return;
    }
    println!("\nblocks and what they became:");
    for b in &model.blocks {
        println!("  {} = {}({})", b.name, b.kind, b.settings_text());
        for law in &b.laws {
            println!("      {law}");
        }
        let (mut pairs, mut algebraic) = (vec![], vec![]);
        for &j in &b.pairs {
            let p = &model.pairs[j];
            if p.is_free() {
                algebraic.push(p.name.as_str());
            } else {
                pairs.push(p.name.as_str());
            }
        }
        let mut parts = vec![];
        if let Some(i) = b.state {
            parts.push(format!("state {}", model.states[i].name));
        }
        if !pairs.is_empty() {
            parts.push(format!("pairs {}", pairs.join(", ")));
        }
        if !algebraic.is_empty() {
            parts.push(format!(
                "algebraic variables (free pairs) {}",
                algebraic.join(", ")
            ));
        }
        println!("      -> {}", parts.join("; "));
    }
}

/// What a step's LCP guarantees when some components are free (equations):
/// they are eliminated first (their block must be nonsingular), and the
/// Schur complement on the others decides, as for a plain LCP.
fn classify_mixed(m: &DMatrix<f64>, lo: &DVector<f64>, hi: &DVector<f64>) -> String {
    let n = m.nrows();
    let free = |i: usize| lo[i] == f64::NEG_INFINITY && hi[i] == f64::INFINITY;
    let f: Vec<usize> = (0..n).filter(|&i| free(i)).collect();
    let b: Vec<usize> = (0..n).filter(|&i| !free(i)).collect();
    let boxed = b.iter().all(|&i| lo[i].is_finite() && hi[i].is_finite());
    if f.is_empty() {
        return classify(m, boxed);
    }
    let pick = |rows: &[usize], cols: &[usize]| {
        DMatrix::from_fn(rows.len(), cols.len(), |i, j| m[(rows[i], cols[j])])
    };
    let k = f.len();
    let plural = |k: usize, what: &str| format!("{k} {what}{}", if k == 1 { "" } else { "s" });
    let mff = pick(&f, &f);
    // Nearly singular is as bad as singular: the reduced matrix would be noise.
    let sv = mff.clone().svd(false, false).singular_values;
    let inv = (sv.min() > 1e-12 * sv.max())
        .then(|| mff.try_inverse())
        .flatten();
    let Some(inv) = inv else {
        return format!(
            "the equations of {} are (nearly) singular: a loop of blocks may have no or several solutions",
            plural(k, "algebraic variable")
        );
    };
    let reduced = pick(&b, &b) - pick(&b, &f) * inv * pick(&f, &b);
    format!(
        "{} eliminated (a nonsingular block); on the {} left: {}",
        plural(k, "algebraic variable"),
        plural(b.len(), "pair"),
        classify(&reduced, boxed)
    )
}

/// What the matrix guarantees about each step's LCP; `boxed` when every
/// component has two finite bounds, which makes a solution exist always.
fn classify(m: &DMatrix<f64>, boxed: bool) -> String {
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
    let semidefinite = min >= -1e-12 * scale;
    match (semidefinite, boxed) {
        (true, false) => {
            "positive semidefinite: a solution whenever the step is feasible (Lemke finds it)".into()
        }
        (true, true) => "positive semidefinite, every pair bounded on both sides: a solution every step (the set of solutions is convex)".into(),
        (false, true) => "indefinite and not a P-matrix, but every pair is bounded on both sides: a solution every step, possibly several".into(),
        (false, false) => "indefinite and not a P-matrix: a step may have no or several solutions".into(),
    }
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
