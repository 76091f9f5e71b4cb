//! Randomized checks of the solver against brute-force enumeration.
//!
//! P-matrix problems have exactly one solution for every `q` and every box,
//! so enumeration gives the reference answer; singular positive semidefinite
//! problems exercise Lemke's degenerate pivoting and its infeasibility claim;
//! garbage input checks that nothing panics. A tiny xorshift generator keeps
//! the crate free of dev-dependencies and the runs reproducible per seed.

use super::enumerate::{all_solutions, first_solution};
use super::{residual, Method, Problem, Settings, Solver, Status};
use nalgebra::{DMatrix, DVector};

/// xorshift64* generator: deterministic, good enough for test data.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub(super) fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `[a, b)`.
    pub(super) fn uniform(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
    }
    pub(super) fn below(&mut self, k: usize) -> usize {
        (self.next_u64() % k.max(1) as u64) as usize
    }
}

fn det(mut a: DMatrix<f64>) -> f64 {
    let n = a.nrows();
    let mut d = 1.0;
    for j in 0..n {
        let p = (j..n).max_by(|&x, &y| a[(x, j)].abs().total_cmp(&a[(y, j)].abs()));
        let p = p.unwrap_or(j);
        if a[(p, j)] == 0.0 {
            return 0.0;
        }
        if p != j {
            a.swap_rows(p, j);
            d = -d;
        }
        d *= a[(j, j)];
        for r in j + 1..n {
            let f = a[(r, j)] / a[(j, j)];
            for c in j..n {
                a[(r, c)] -= f * a[(j, c)];
            }
        }
    }
    d
}

/// Smallest principal minor (2^n - 1 determinants; fine for n <= 8).
fn min_principal_minor(m: &DMatrix<f64>) -> f64 {
    let n = m.nrows();
    let mut lo = f64::INFINITY;
    for mask in 1u32..(1 << n) {
        let idx: Vec<usize> = (0..n).filter(|i| mask >> i & 1 == 1).collect();
        lo = lo.min(det(m.select_rows(&idx).select_columns(&idx)));
    }
    lo
}

fn is_pd(m: &DMatrix<f64>) -> bool {
    nalgebra::linalg::Cholesky::new((m + m.transpose()) * 0.5).is_some()
}

/// Test matrix classes.
#[derive(Clone, Copy, Debug)]
pub(super) enum Class {
    Spd,
    PdNonsym,
    PNotPd,
}

pub(super) fn p_matrix(rng: &mut Rng, n: usize, class: Class) -> DMatrix<f64> {
    let b = DMatrix::from_fn(n, n, |_, _| rng.uniform(-1.0, 1.0));
    let spd = &b * b.transpose() + DMatrix::identity(n, n) * 0.2;
    match class {
        Class::Spd => spd,
        Class::PdNonsym => {
            let s = DMatrix::from_fn(n, n, |_, _| rng.uniform(-1.0, 1.0));
            spd + (&s - s.transpose())
        }
        Class::PNotPd => loop {
            // Upper triangular with a positive diagonal is P (minors are products
            // of diagonal entries); large off-diagonals make it indefinite, and a
            // small dense perturbation plus a permutation hide the structure.
            let mut m = DMatrix::from_fn(n, n, |i, j| match i.cmp(&j) {
                std::cmp::Ordering::Less => rng.uniform(-4.0, 4.0),
                std::cmp::Ordering::Equal => rng.uniform(0.5, 2.0),
                std::cmp::Ordering::Greater => rng.uniform(-0.2, 0.2),
            });
            for k in (1..n).rev() {
                let j = rng.below(k + 1);
                m.swap_rows(k, j);
                m.swap_columns(k, j);
            }
            if min_principal_minor(&m) > 1e-3 && (n == 1 || !is_pd(&m)) {
                break m;
            }
        },
    }
}

/// `q` with deliberate degeneracy: zeros, ties, `q = 0`, or built from a
/// solution where some `u_i` and `w_i` are both zero.
fn degenerate_q(rng: &mut Rng, m: &DMatrix<f64>, variant: usize) -> DVector<f64> {
    let n = m.nrows();
    match variant % 5 {
        0 => DVector::from_fn(n, |_, _| rng.uniform(-2.0, 2.0)),
        1 => DVector::from_fn(n, |_, _| match rng.below(3) {
            0 => 0.0,
            _ => rng.uniform(-2.0, 2.0),
        }),
        2 => DVector::from_fn(n, |_, _| [-1.0, 0.0, 1.0][rng.below(3)]),
        3 => DVector::zeros(n),
        _ => {
            let mut u = DVector::zeros(n);
            let mut w = DVector::zeros(n);
            for i in 0..n {
                match rng.below(3) {
                    0 => u[i] = rng.uniform(0.1, 2.0),
                    1 => w[i] = rng.uniform(0.1, 2.0),
                    _ => {}
                }
            }
            w - m * u
        }
    }
}

fn random_bounds(rng: &mut Rng, n: usize) -> (DVector<f64>, DVector<f64>) {
    let inf = f64::INFINITY;
    let mut lo = DVector::zeros(n);
    let mut hi = DVector::zeros(n);
    for i in 0..n {
        let (a, b) = match rng.below(5) {
            0 => (rng.uniform(-1.0, 0.5), inf),
            1 => (-inf, rng.uniform(-0.5, 1.0)),
            2 => (-inf, inf),
            3 => {
                let a = rng.uniform(-1.0, 0.0);
                (a, a)
            }
            _ => {
                let a = rng.uniform(-1.0, 0.0);
                (a, a + rng.uniform(0.01, 2.0))
            }
        };
        lo[i] = a;
        hi[i] = b;
    }
    (lo, hi)
}

/// Solves with a fresh solver and checks against the unique enumerated
/// solution; returns the method used.
fn check_unique(p: &Problem, settings: Settings, what: &str) -> Method {
    let sols = all_solutions(p, 1e-9);
    assert_eq!(
        sols.len(),
        1,
        "{what}: P-matrix problem must have one solution"
    );
    let n = p.n();
    let mut s = Solver::new(n, settings);
    let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
    let info = s.solve(p, &mut u, &mut w);
    assert_eq!(info.status, Status::Solved, "{what}: {info:?}\n{p:?}");
    let scale = 1.0 + sols[0].amax();
    for i in 0..n {
        assert!(
            (u[i] - sols[0][i]).abs() <= 1e-9 * scale,
            "{what}: {u:?} vs {}",
            sols[0]
        );
    }
    assert!(residual(p, &u, &w) <= 1e-9);
    info.method
}

#[test]
fn p_matrix_standard_lcp_matches_enumeration_with_lemke_alone() {
    // No enumeration fallback: Lemke must process every P-matrix LCP.
    let settings = Settings {
        enumeration_limit: 0,
        ..Settings::default()
    };
    for n in 1..=8 {
        for class in [Class::Spd, Class::PdNonsym, Class::PNotPd] {
            for seed in 0..40u64 {
                let mut rng = Rng::new(seed * 1000 + n as u64);
                let m = p_matrix(&mut rng, n, class);
                let q = degenerate_q(&mut rng, &m, seed as usize);
                let what = format!("lcp n={n} {class:?} seed={seed}");
                check_unique(&Problem::lcp(m, q), settings, &what);
            }
        }
    }
}

#[test]
fn p_matrix_box_mcp_matches_enumeration() {
    let mut counts = [0usize; 6];
    for n in 1..=7 {
        for class in [Class::Spd, Class::PdNonsym, Class::PNotPd] {
            for seed in 0..25u64 {
                let mut rng = Rng::new(seed * 7919 + n as u64);
                let m = p_matrix(&mut rng, n, class);
                let q = degenerate_q(&mut rng, &m, seed as usize % 4);
                let (lo, hi) = random_bounds(&mut rng, n);
                let what = format!("box n={n} {class:?} seed={seed}");
                let method =
                    check_unique(&Problem::boxed(m, q, lo, hi), Settings::default(), &what);
                counts[method as usize] += 1;
                if !matches!(class, Class::PNotPd) {
                    // PD M keeps the reformulation copositive-plus: Lemke suffices.
                    assert_ne!(method, Method::Enumeration, "{what}");
                }
            }
        }
    }
    println!(
        "box methods [WarmStart, Lemke, Enumeration, None, BlockPivot, Substitution]: {counts:?}"
    );
}

#[test]
fn psd_singular_problems_solve_whenever_feasible() {
    let settings = Settings {
        enumeration_limit: 0,
        ..Settings::default()
    };
    let (mut feasible, mut infeasible) = (0, 0);
    for n in 2..=7 {
        for seed in 0..60u64 {
            let mut rng = Rng::new(seed * 31 + n as u64);
            let k = 1 + rng.below(n - 1);
            let b = DMatrix::from_fn(n, k, |_, _| rng.uniform(-1.0, 1.0));
            let s = DMatrix::from_fn(n, n, |_, _| rng.uniform(-1.0, 1.0));
            let skew = if seed % 2 == 0 {
                &s - s.transpose()
            } else {
                DMatrix::zeros(n, n)
            };
            let m = &b * b.transpose() + skew;
            let q = degenerate_q(&mut rng, &m, seed as usize);
            let p = Problem::lcp(m, q);
            let mut solver = Solver::new(n, settings);
            let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
            let info = solver.solve(&p, &mut u, &mut w);
            let what = format!("psd n={n} seed={seed}: {info:?}");
            assert!(
                matches!(info.status, Status::Solved | Status::Infeasible),
                "{what}"
            );
            if first_solution(&p, 1e-9).is_some() {
                feasible += 1;
                assert_eq!(info.status, Status::Solved, "{what}");
            } else {
                infeasible += 1;
            }
            if info.status == Status::Solved {
                assert!(residual(&p, &u, &w) <= 1e-9, "{what}");
                assert!(u.iter().all(|&x| x >= 0.0), "{what}");
            }
        }
    }
    println!("psd: {feasible} feasible by enumeration, {infeasible} not");
    assert!(feasible > 50 && infeasible > 5);
}

fn garbage(rng: &mut Rng) -> f64 {
    match rng.below(12) {
        0 => f64::NAN,
        1 => f64::INFINITY,
        2 => f64::NEG_INFINITY,
        3 => 1e300,
        4 => -1e300,
        5 => 1e-300,
        6 => 0.0,
        7 => rng.uniform(-1e150, 1e150),
        _ => rng.uniform(-3.0, 3.0),
    }
}

#[test]
fn garbage_never_panics_and_never_lies() {
    super::lemke::CHECK_INVARIANT.with(|c| c.set(false));
    for seed in 0..4000u64 {
        let mut rng = Rng::new(seed);
        let n = rng.below(5);
        let pn = if rng.below(10) == 0 { rng.below(5) } else { n };
        let mn = if rng.below(20) == 0 { rng.below(5) } else { pn };
        let g = seed % 3 == 0;
        let val = |rng: &mut Rng| {
            if g {
                garbage(rng)
            } else {
                rng.uniform(-2.0, 2.0)
            }
        };
        let m = DMatrix::from_fn(mn, pn, |_, _| val(&mut rng));
        let q = DVector::from_fn(pn, |_, _| val(&mut rng));
        let lo = DVector::from_fn(pn, |_, _| {
            [val(&mut rng), f64::NEG_INFINITY, 0.0][rng.below(3)]
        });
        let hi = DVector::from_fn(pn, |_, _| [val(&mut rng), f64::INFINITY][rng.below(2)]);
        let p = Problem::boxed(m, q, lo, hi);
        let settings = Settings {
            tol: [1e-9, 0.0, f64::NAN, -1.0, 1e-3][rng.below(5)],
            max_pivots: rng.below(6),
            warm_start: rng.below(2) == 0,
            enumeration_limit: rng.below(6),
        };
        let mut s = Solver::new(n, settings);
        let un = if rng.below(15) == 0 { rng.below(5) } else { n };
        let (mut u, mut w) = (vec![0.0; un], vec![0.0; n]);
        let valid = p.validate().is_ok();
        for _ in 0..2 {
            let info = s.solve(&p, &mut u, &mut w);
            if info.status == Status::Solved {
                // 0 * inf = NaN in w, so a non-finite M can never verify.
                assert!(valid, "{seed}: {info:?}");
                for ((x, lo), hi) in u.iter().zip(p.lo.iter()).zip(p.hi.iter()) {
                    assert!(x >= lo && x <= hi, "{seed}");
                }
                assert!(n == 0 || info.residual <= settings.tol, "{seed}: {info:?}");
            }
        }
        let _ = residual(&p, &u, &w);
        if n <= 3 {
            let _ = all_solutions(&p, settings.tol);
        }
    }
}

#[test]
fn compact_boxes_are_never_called_infeasible() {
    // A box MCP with every bound finite always has a solution, whatever M is.
    // Lemke alone ray-terminates on many indefinite M (about a quarter here);
    // enumeration must then rescue it, and without it the status must not
    // claim infeasibility.
    let no_enum = Settings {
        enumeration_limit: 0,
        ..Settings::default()
    };
    let mut lemke_failures = 0;
    for seed in 0..600u64 {
        let mut rng = Rng::new(seed + 5);
        let n = 1 + rng.below(6);
        let m = DMatrix::from_fn(n, n, |_, _| rng.uniform(-2.0, 2.0));
        let q = DVector::from_fn(n, |_, _| rng.uniform(-2.0, 2.0));
        let lo = DVector::from_fn(n, |_, _| rng.uniform(-1.0, 0.0));
        let hi = DVector::from_fn(n, |i, _| lo[i] + rng.uniform(0.0, 2.0));
        let p = Problem::boxed(m, q, lo, hi);
        let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
        let info = Solver::new(n, no_enum).solve(&p, &mut u, &mut w);
        assert_ne!(info.status, Status::Infeasible, "seed {seed}");
        lemke_failures += usize::from(info.status != Status::Solved);
        let info = Solver::new(n, Settings::default()).solve(&p, &mut u, &mut w);
        assert_eq!(info.status, Status::Solved, "seed {seed}");
    }
    println!("compact boxes: Lemke alone failed on {lemke_failures}/600");
    assert!(
        lemke_failures > 0,
        "the test no longer exercises the fallback"
    );
}
