//! Nanoseconds per solve for random P-matrix LCPs, cold and warm, and for
//! the band solver on long chains; first, the cold-solve table of issue 11
//! (µs per solve after `reset_active_set` + `matrix_changed`, beside the
//! Siconos figures the issue quotes, which were measured elsewhere).
//! `cargo bench --bench lcp -- issue [WORD]` prints only that table (only the
//! rows whose name contains WORD).
//!
//! Cold calls `reset_active_set` before each solve so the stored guess fails
//! and Lemke (band: block pivoting) runs, the figure for a mode switch inside
//! an FMU step; warm repeats the same problem so the cached active set and LU
//! are reused (the common step); for chains, "perturbed" alternates between
//! two slightly different `q` with the same active set, so the factors are
//! reused but every solve is redone. Plain `main` with `Instant` and
//! `black_box` keeps the crate free of benchmark dependencies; figures are the
//! best of several rounds (shared machines are noisy). Run:
//! `cargo bench --bench lcp`.

use lcsfmu::lcp::{Band, BandProblem, BandSolver, Method, Problem, Settings, Solver, Status};
use lcsfmu::model::validate;
use lcsfmu::scheme::{Mechanical, Stepper, Theta};
use lcsfmu::system::lcs::Lcs;
use nalgebra::{DMatrix, DVector};
use std::hint::black_box;
use std::time::Instant;

struct Rng(u64);

impl Rng {
    fn uniform(&mut self, a: f64, b: f64) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11;
        a + (b - a) * (x as f64 / (1u64 << 53) as f64)
    }
}

/// Positive definite non-symmetric (hence P) matrix with a random `q`.
fn problem(rng: &mut Rng, n: usize) -> Problem {
    let b = DMatrix::from_fn(n, n, |_, _| rng.uniform(-1.0, 1.0));
    let s = DMatrix::from_fn(n, n, |_, _| rng.uniform(-1.0, 1.0));
    let m = &b * b.transpose() / n as f64 + DMatrix::identity(n, n) + (&s - s.transpose()) * 0.5;
    let q = DVector::from_fn(n, |_, _| rng.uniform(-1.0, 1.0));
    Problem::lcp(m, q)
}

/// Mean ns per solve over `reps` rounds of all problems; also counts how
/// many solves ended with each method.
fn run(problems: &[Problem], reps: usize, cold: bool) -> (f64, [usize; 6]) {
    let n = problems[0].n();
    let mut solvers: Vec<Solver> = problems
        .iter()
        .map(|_| Solver::new(n, Settings::default()))
        .collect();
    let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
    for (s, p) in solvers.iter_mut().zip(problems) {
        s.solve(p, &mut u, &mut w);
    }
    let mut methods = [0usize; 6];
    let start = Instant::now();
    for _ in 0..reps {
        for (s, p) in solvers.iter_mut().zip(problems) {
            if cold {
                s.reset_active_set();
            }
            let info = s.solve(black_box(p), &mut u, &mut w);
            assert_eq!(info.status, Status::Solved);
            methods[info.method as usize] += 1;
            black_box(&u);
        }
    }
    let ns = start.elapsed().as_nanos() as f64 / (reps * problems.len()) as f64;
    (ns, methods)
}

/// A chain of `n` beads against a wall (`M = G diag(1/m) G^T`, tridiagonal)
/// with random bead velocities in [-1, 1] (`q = G v`), or, when `pressed`,
/// every bead approaching the wall (`q = -e_0`: all contacts end up active,
/// the slowest cold start, one contact freed per iteration).
fn chain(rng: &mut Rng, n: usize, pressed: bool) -> BandProblem {
    let mass = |i: usize| 1.0 + (i % 3) as f64 * 0.5;
    let mut m = Band::zeros(n, 1, 1);
    for i in 0..n {
        m.add(i, i, 1.0 / mass(i));
        if i > 0 {
            let c = 1.0 / mass(i - 1);
            m.add(i, i, c);
            m.set(i, i - 1, -c);
            m.set(i - 1, i, -c);
        }
    }
    let mut p = BandProblem::new(m);
    let mut prev = 0.0;
    for i in 0..n {
        let v = if pressed {
            -1.0
        } else {
            rng.uniform(-1.0, 1.0)
        };
        p.q[i] = v - prev;
        prev = v;
    }
    p
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Cold,
    Warm,
    Perturbed,
}

/// Best-of-`rounds` ns per band solve, and the block iterations of the last.
fn band_run(p: &BandProblem, mode: Mode, reps: usize, rounds: usize) -> (f64, usize) {
    let n = p.n();
    let mut s = BandSolver::new(n, 1, 1, Settings::default());
    let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
    assert_eq!(s.solve(p, &mut u, &mut w).status, Status::Solved);
    // The perturbed twin keeps every contact's side: a relative change of 1e-9.
    let mut p2 = p.clone();
    for x in p2.q.iter_mut() {
        *x *= 1.0 + 1e-9;
    }
    let factored = s.factorizations();
    let (mut best, mut iterations) = (f64::INFINITY, 0);
    for _ in 0..rounds {
        let start = Instant::now();
        for k in 0..reps {
            if mode == Mode::Cold {
                s.reset_active_set();
            }
            let q = if mode == Mode::Perturbed && k % 2 == 1 {
                &p2
            } else {
                p
            };
            let info = s.solve(black_box(q), &mut u, &mut w);
            assert_eq!(info.status, Status::Solved);
            iterations = info.iterations;
            black_box(&u);
        }
        best = best.min(start.elapsed().as_nanos() as f64 / reps as f64);
    }
    if mode != Mode::Cold {
        assert_eq!(s.factorizations(), factored, "warm solves refactored");
    }
    (best, iterations)
}

fn band_main(rng: &mut Rng) {
    println!();
    println!("band chain (kl = ku = 1), best of 5 rounds, ns per solve");
    println!("    N   cold (iters)   pressed cold (iters)   warm   perturbed");
    for n in [10usize, 100, 1000, 10_000] {
        let p = chain(rng, n, false);
        let pressed = chain(rng, n, true);
        let reps = (2_000_000 / n).clamp(10, 100_000);
        let (cold, ci) = band_run(&p, Mode::Cold, reps / 10 + 1, 5);
        let (pcold, pi) = band_run(&pressed, Mode::Cold, (reps / n).max(2), 5);
        let (warm, _) = band_run(&p, Mode::Warm, reps, 5);
        let (pert, _) = band_run(&p, Mode::Perturbed, reps, 5);
        println!(
            "{n:>5}  {cold:>9.0} ({ci:>3})  {pcold:>13.0} ({pi:>5})  {warm:>9.0}  {pert:>9.0}"
        );
    }
}

/// Symmetric positive definite `B B^T / n + I` with a random `q`.
fn spd(rng: &mut Rng, n: usize) -> Problem {
    let b = DMatrix::from_fn(n, n, |_, _| rng.uniform(-1.0, 1.0));
    let m = &b * b.transpose() / n as f64 + DMatrix::identity(n, n);
    let q = DVector::from_fn(n, |_, _| rng.uniform(-1.0, 1.0));
    Problem::lcp(m, q)
}

/// Murty's matrix (1 on the diagonal, 2 above it, 0 below) with `q = -1`.
fn murty(n: usize) -> Problem {
    let m = DMatrix::from_fn(n, n, |i, j| match i.cmp(&j) {
        std::cmp::Ordering::Equal => 1.0,
        std::cmp::Ordering::Less => 2.0,
        std::cmp::Ordering::Greater => 0.0,
    });
    Problem::lcp(m, DVector::from_element(n, -1.0))
}

/// The LCP of a bundled model's step as its stepper builds it: the first step
/// from the start values whose multipliers are not all zero (else the first),
/// with `M` from `lcp_matrix` and `q = y - M u` read back off that step.
fn model_step(stem: &str) -> (Problem, usize) {
    let path = format!("{}/models/{stem}.toml", env!("CARGO_MANIFEST_DIR"));
    let model = validate::load(std::path::Path::new(&path)).unwrap_or_else(|e| panic!("{e}"));
    let mut lcs = Lcs::new(&model);
    lcs.assemble(&model, &model.default_parameters()).unwrap();
    let mut stepper = Stepper::new(&model, &lcs);
    let h = model.experiment.step;
    let mut x: Vec<f64> = model.states.iter().map(|v| v.start).collect();
    let w: Vec<f64> = model.inputs.iter().map(|v| v.start).collect();
    let mut u = vec![0.0; model.nu()];
    let m = stepper.lcp_matrix(&lcs, h).unwrap();
    let mut first = None;
    for k in 0..200 {
        stepper.step(&lcs, &x, &u, &w, 0.0, h).unwrap();
        let y = match &stepper {
            Stepper::Theta(Theta::Affine(s)) => s.y_next.clone(),
            Stepper::Mechanical(Mechanical::Linear(s)) => s.y_next.clone(),
            Stepper::EventDriven(_) => panic!("{stem}: event-driven"),
            _ => panic!("{stem}: nonlinear"),
        };
        let uk = stepper.multipliers().to_vec();
        let q = DVector::from_vec(y) - &m * DVector::from_column_slice(&uk);
        let p = Problem::boxed(m.clone(), q, lcs.lo.clone(), lcs.hi.clone());
        if uk.iter().any(|&v| v != 0.0) {
            return (p, k);
        }
        first.get_or_insert((p, k));
        stepper.take_result(&mut x, &mut u);
    }
    first.unwrap()
}

/// Best-of-3 µs per cold solve (`reset_active_set` + `matrix_changed` before
/// each) over `problems`, the largest residual, the methods used and the
/// most iterations (Lemke pivots or active-set solves) of one solve.
fn cold_us(problems: &[Problem], reps: usize) -> (f64, f64, [usize; 6], usize) {
    let n = problems[0].n();
    let mut s = Solver::new(n, Settings::default());
    let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
    let (mut best, mut worst, mut methods) = (f64::INFINITY, 0.0f64, [0usize; 6]);
    let mut iterations = 0;
    for _ in 0..3 {
        let start = Instant::now();
        for _ in 0..reps {
            for p in problems {
                s.reset_active_set();
                s.matrix_changed();
                let info = s.solve(black_box(p), &mut u, &mut w);
                assert_eq!(info.status, Status::Solved);
                worst = worst.max(lcsfmu::lcp::residual(p, &u, &w));
                methods[info.method as usize] += 1;
                iterations = iterations.max(info.iterations);
                black_box(&u);
            }
        }
        let us = start.elapsed().as_secs_f64() * 1e6 / (reps * problems.len()) as f64;
        best = best.min(us);
    }
    (best, worst, methods, iterations)
}

/// The rows of issue 11 (target 3): lcsfmu's cold solve beside the Siconos
/// figure quoted in the issue (measured elsewhere, not by this bench).
fn issue_table(rng: &mut Rng) {
    println!("cold solves (reset_active_set + matrix_changed), best of 3, µs per solve");
    println!("problem                  lcsfmu µs   max residual   issue's Siconos µs   iters   methods [warm,lemke,enum,none,block,subst]");
    // `cargo bench --bench lcp -- issue WORD` keeps the rows whose name has WORD.
    let only = std::env::args()
        .skip_while(|a| a != "issue")
        .skip(1)
        .find(|a| !a.starts_with('-'));
    let row = |name: &str, problems: &[Problem], reps: usize, siconos: &str| {
        if only.as_ref().is_some_and(|w| !name.contains(w.as_str())) {
            return;
        }
        let (us, r, methods, its) = cold_us(problems, reps);
        println!("{name:<24} {us:>10.3}   {r:>12.1e}   {siconos:>18}   {its:>5}   {methods:?}");
    };
    for (n, siconos) in [
        (2usize, "0.22"),
        (4, "0.44"),
        (10, "1.44"),
        (50, "54"),
        (100, "633"),
    ] {
        let problems: Vec<Problem> = (0..16).map(|_| spd(rng, n)).collect();
        let reps = (100_000 / (n * n * n)).clamp(2, 10_000);
        row(&format!("random SPD n = {n}"), &problems, reps, siconos);
    }
    let (p, k) = model_step("two_carts");
    row(&format!("two-carts step {k}"), &[p], 100_000, "0.27");
    let (p, k) = model_step("coulomb_friction");
    row(&format!("Coulomb step {k}"), &[p], 100_000, "0.56");
    row("Murty n = 16 (q = -1)", &[murty(16)], 20_000, "1.5");
    for (n, siconos, reps) in [(100usize, "672", 100), (1000, "193000", 1)] {
        let p = chain(rng, n, false).to_dense();
        row(&format!("dense chain N = {n}"), &[p], reps, siconos);
    }
}

fn main() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    issue_table(&mut rng);
    if std::env::args().any(|a| a == "issue") {
        return;
    }
    println!();
    if std::env::args().any(|a| a == "band") {
        band_main(&mut rng);
        return;
    }
    println!("size  cold ns/solve  warm ns/solve  cold methods [warm,lemke,enum,none,block,subst]");
    for n in [2usize, 5, 10, 20, 50] {
        let problems: Vec<Problem> = (0..16).map(|_| problem(&mut rng, n)).collect();
        // Aim at roughly 0.3 s per measurement on a small machine.
        let reps = (200_000 / (n * n)).clamp(20, 20_000);
        let (cold, methods) = run(&problems, reps, true);
        let (warm, wm) = run(&problems, reps * 4, false);
        assert_eq!(wm[Method::WarmStart as usize], reps * 4 * problems.len());
        println!("{n:>4}  {cold:>13.0}  {warm:>13.0}  {methods:?}");
    }
    band_main(&mut rng);
}
