//! Nanoseconds per solve for random P-matrix LCPs, cold and warm.
//!
//! Cold calls `reset_active_set` before each solve so the stored guess fails
//! and Lemke runs (the figure for a mode switch inside an FMU step); warm
//! repeats the same problem so the cached active set and LU are reused (the
//! common step). Plain `main` with `Instant` and `black_box` keeps the crate
//! free of benchmark dependencies. Run: `cargo bench --bench lcp`.

use lcsfmu::lcp::{Method, Problem, Settings, Solver, Status};
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
fn run(problems: &[Problem], reps: usize, cold: bool) -> (f64, [usize; 4]) {
    let n = problems[0].n();
    let mut solvers: Vec<Solver> = problems
        .iter()
        .map(|_| Solver::new(n, Settings::default()))
        .collect();
    let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
    for (s, p) in solvers.iter_mut().zip(problems) {
        s.solve(p, &mut u, &mut w);
    }
    let mut methods = [0usize; 4];
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

fn main() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    println!("size  cold ns/solve  warm ns/solve  cold methods [warm,lemke,enum,none]");
    for n in [2usize, 5, 10, 20, 50] {
        let problems: Vec<Problem> = (0..16).map(|_| problem(&mut rng, n)).collect();
        // Aim at roughly 0.3 s per measurement on a small machine.
        let reps = (200_000 / (n * n)).clamp(20, 20_000);
        let (cold, methods) = run(&problems, reps, true);
        let (warm, wm) = run(&problems, reps * 4, false);
        assert_eq!(wm[Method::WarmStart as usize], reps * 4 * problems.len());
        println!("{n:>4}  {cold:>13.0}  {warm:>13.0}  {methods:?}");
    }
}
