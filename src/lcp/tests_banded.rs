//! Checks of the band solver: random band P-matrix problems against
//! enumeration and the dense solver, chains with answers known in closed form
//! (up to n = 10,000) and the factor cache across steps; the helpers that build
//! band problems serve the other band tests too.

use super::enumerate::first_solution;
use super::tests_random::Rng;
use super::{Band, BandProblem, BandSolver, Bound, Info, Method, Settings, Solver, Status};
use nalgebra::DMatrix;

pub(super) const INF: f64 = f64::INFINITY;

/// Solves with a fresh solver whose band is `extra` wider than the problem's
/// on each side.
pub(super) fn solve_fresh(p: &BandProblem, extra: usize) -> (Info, Vec<f64>, Vec<f64>) {
    let n = p.n();
    let mut s = BandSolver::new(n, p.m.kl() + extra, p.m.ku() + extra, Settings::default());
    let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
    let info = s.solve(p, &mut u, &mut w);
    (info, u, w)
}

/// The band of a dense matrix; panics when an entry outside it is nonzero.
pub(super) fn band_of(d: &DMatrix<f64>, kl: usize, ku: usize) -> Band {
    let n = d.nrows();
    let mut b = Band::zeros(n, kl, ku);
    for i in 0..n {
        for j in 0..n {
            if j + kl >= i && j <= i + ku {
                b.set(i, j, d[(i, j)]);
            } else {
                assert_eq!(d[(i, j)], 0.0, "({i}, {j}) outside the band");
            }
        }
    }
    b
}

/// Random band P-matrix: `B B^T + 0.05 I` with `B` lower banded (symmetric
/// positive definite, kl = ku = k), or a strictly row-diagonally dominant
/// non-symmetric one with positive diagonal (every principal submatrix is
/// again such, so all principal minors are positive).
pub(super) fn band_p_matrix(rng: &mut Rng, n: usize, kl: usize, ku: usize, spd: bool) -> Band {
    if spd {
        let b = DMatrix::from_fn(n, n, |i, j| {
            if j <= i && i - j <= kl {
                rng.uniform(-1.0, 1.0)
            } else {
                0.0
            }
        });
        return band_of(
            &(&b * b.transpose() + DMatrix::identity(n, n) * 0.05),
            kl,
            kl,
        );
    }
    let mut m = Band::zeros(n, kl, ku);
    for i in 0..n {
        let mut off = 0.0;
        for j in i.saturating_sub(kl)..(i + ku + 1).min(n) {
            if j != i {
                let v = rng.uniform(-1.0, 1.0);
                off += f64::abs(v);
                m.set(i, j, v);
            }
        }
        m.set(i, i, off + rng.uniform(0.05, 1.0));
    }
    m
}

/// Bounds mixing the standard LCP, boxes, free, one-sided and fixed components.
pub(super) fn random_bounds(rng: &mut Rng, p: &mut BandProblem) {
    for i in 0..p.n() {
        let (lo, hi) = match rng.below(6) {
            0 => (0.0, INF),
            1 => (-INF, INF),
            2 => (-INF, rng.uniform(-1.0, 1.0)),
            3 => {
                let v = rng.uniform(-1.0, 1.0);
                (v, v)
            }
            _ => {
                let a = rng.uniform(-1.0, 0.5);
                (a, a + rng.uniform(0.0, 1.0))
            }
        };
        p.lo[i] = lo;
        p.hi[i] = hi;
    }
}

/// Random, all-zero, or tied `q` (the last two make degenerate solutions).
pub(super) fn random_q(rng: &mut Rng, q: &mut [f64], variant: usize) {
    let tie = rng.uniform(-1.0, 1.0);
    for x in q.iter_mut() {
        *x = match variant {
            0 => rng.uniform(-2.0, 2.0),
            1 => 0.0,
            _ if rng.below(2) == 0 => tie,
            _ => 0.0,
        };
    }
}

pub(super) fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

#[test]
fn random_band_p_matrices_match_enumeration_and_the_dense_solver() {
    let mut rng = Rng::new(17);
    let mut methods = [0usize; 6];
    for n in 1..=8 {
        for (kl, ku) in [(1, 1), (2, 2), (2, 1), (0, 2)] {
            for trial in 0..12 {
                let spd = trial % 2 == 0 && kl == ku;
                let mut p = BandProblem::new(band_p_matrix(&mut rng, n, kl, ku, spd));
                random_q(&mut rng, &mut p.q, trial % 3);
                if trial % 4 >= 2 {
                    random_bounds(&mut rng, &mut p);
                }
                let d = p.to_dense();
                let want = first_solution(&d, 1e-9).expect("a P-matrix problem has a solution");
                let (info, u, w) = solve_fresh(&p, trial % 2);
                let what = format!("n={n} kl={kl} ku={ku} trial={trial}: {info:?}");
                assert_eq!(info.status, Status::Solved, "{what}");
                assert!(info.residual <= 1e-9, "{what}");
                // The reported residual is against the terms of each `w_i`
                // when that already passes, an upper bound of the resolved one.
                assert!(p.residual(&u, &w) <= info.residual, "{what}");
                assert!(max_diff(&u, want.as_slice()) < 1e-7, "{what} {u:?} {want}");
                methods[info.method as usize] += 1;

                let mut ds = Solver::new(n, Settings::default());
                let (mut du, mut dw) = (vec![0.0; n], vec![0.0; n]);
                assert_eq!(ds.solve(&d, &mut du, &mut dw).status, Status::Solved);
                assert!(max_diff(&u, &du) < 1e-7, "{what}");
            }
        }
    }
    // P-matrices never need the dense fallback.
    let band_path = methods[Method::WarmStart as usize] + methods[Method::BlockPivot as usize];
    assert_eq!(band_path, methods.iter().sum::<usize>(), "{methods:?}");
    assert!(methods[Method::BlockPivot as usize] > 100, "{methods:?}");
}

/// `M = G diag(1/m) G^T` for beads on a line against a wall: contact 0 is
/// bead 0 with the wall, contact i > 0 is bead i with bead i - 1, so `G` is
/// lower bidiagonal and `M` tridiagonal, symmetric positive definite.
pub(super) fn chain(n: usize, mass: impl Fn(usize) -> f64) -> Band {
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
    m
}

pub(super) fn chain_mass(i: usize) -> f64 {
    1.0 + (i % 3) as f64 * 0.5
}

/// The load of random bead velocities `v` in [-1, 1]: `q = G v`, the
/// approach speed of each contact (negative: closing).
pub(super) fn chain_load(rng: &mut Rng, q: &mut [f64]) {
    let mut prev = 0.0;
    for x in q.iter_mut() {
        let v = rng.uniform(-1.0, 1.0);
        *x = v - prev;
        prev = v;
    }
}

#[test]
fn chain_pressed_against_the_wall_matches_the_closed_form() {
    // Every bead approaches the wall at speed 1: only the wall contact sees it
    // (q_0 = -1, the others 0), and stopping the whole chain takes the impulse
    // u_i = sum of the masses behind contact i, with every contact active.
    for n in [10, 1000, 10_000] {
        let mut p = BandProblem::new(chain(n, chain_mass));
        p.q[0] = -1.0;
        let (info, u, w) = solve_fresh(&p, 0);
        assert_eq!(info.status, Status::Solved, "n={n} {info:?}");
        assert_eq!(info.method, Method::BlockPivot);
        // From all pinned, flipping would free one contact per solve; on this
        // tridiagonal Z-matrix the sweep's active set is right at once.
        assert_eq!(info.iterations, 2, "n={n} {info:?}");
        // The condition number of M grows like n^2, and so does the error.
        let rel = 1e-15 * (n * n) as f64;
        let mut behind = 0.0;
        for i in (0..n).rev() {
            behind += chain_mass(i);
            assert!(
                (u[i] - behind).abs() <= rel * behind,
                "n={n} u[{i}]={}",
                u[i]
            );
            assert!(w[i].abs() <= 1e-9, "w[{i}]={}", w[i]);
        }
    }
}

#[test]
fn chain_with_a_planted_solution_is_recovered() {
    // Choose the answer first: contacts alternate in runs between active
    // (u > 0, w = 0) and separating (u = 0, w > 0), and q = w - M u. A
    // P-matrix LCP has exactly that solution.
    let mut rng = Rng::new(5);
    for n in [10, 1000, 10_000] {
        let mut p = BandProblem::new(chain(n, chain_mass));
        let mut u_star = vec![0.0; n];
        let mut w_star = vec![0.0; n];
        let mut active = true;
        for i in 0..n {
            if rng.below(7) == 0 {
                active = !active;
            }
            if active {
                u_star[i] = rng.uniform(0.1, 2.0);
            } else {
                w_star[i] = rng.uniform(0.1, 2.0);
            }
        }
        let mut mu = vec![0.0; n];
        p.m.mul_add(&u_star, &vec![0.0; n], &mut mu);
        for i in 0..n {
            p.q[i] = w_star[i] - mu[i];
        }
        let (info, u, w) = solve_fresh(&p, 0);
        assert_eq!(info.status, Status::Solved, "n={n} {info:?}");
        assert!(max_diff(&u, &u_star) < 1e-8, "n={n}");
        assert!(max_diff(&w, &w_star) < 1e-8, "n={n}");
        // Random bead velocities are solved too (no closed form: the residual speaks).
        chain_load(&mut rng, &mut p.q);
        let (info, u, w) = solve_fresh(&p, 0);
        assert_eq!(info.status, Status::Solved, "n={n} {info:?}");
        assert!(p.residual(&u, &w) <= 1e-9);
    }
}

#[test]
fn all_free_chain_solves_the_linear_system() {
    // No bounds at all: the answer is M u = -q, checked through the product.
    let n = 1000;
    let mut p = BandProblem::new(chain(n, chain_mass));
    let mut rng = Rng::new(9);
    random_q(&mut rng, &mut p.q, 0);
    p.lo.fill(-INF);
    let (info, u, w) = solve_fresh(&p, 1);
    // With no finite bound the default active set is all free: one solve.
    assert_eq!(
        (info.status, info.method),
        (Status::Solved, Method::WarmStart)
    );
    assert_eq!(info.iterations, 1);
    let mut r = vec![0.0; n];
    p.m.mul_add(&u, &p.q, &mut r);
    assert!(r.iter().all(|x| x.abs() < 1e-9), "{:?}", &r[..5]);
    assert_eq!(r, w);
}

#[test]
fn warm_steps_reuse_the_factorization() {
    let n = 1000;
    let mut rng = Rng::new(23);
    let mut p = BandProblem::new(chain(n, chain_mass));
    chain_load(&mut rng, &mut p.q);
    let mut s = BandSolver::new(n, 1, 1, Settings::default());
    let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
    let cold = s.solve(&p, &mut u, &mut w);
    assert_eq!(
        (cold.status, cold.method),
        (Status::Solved, Method::BlockPivot)
    );
    let factored = s.factorizations();
    assert!(factored >= 2);

    // Same problem again: the stored active set verifies on the cached LU.
    let u_cold = u.clone();
    let info = s.solve(&p, &mut u, &mut w);
    assert_eq!(
        (info.status, info.method),
        (Status::Solved, Method::WarmStart)
    );
    assert_eq!((info.iterations, s.factorizations()), (1, factored));
    assert_eq!(u, u_cold);

    // A slightly different load keeps the active set: one more solve, no factorization.
    for x in p.q.iter_mut() {
        *x += 1e-6;
    }
    let info = s.solve(&p, &mut u, &mut w);
    assert_eq!((info.method, info.iterations), (Method::WarmStart, 1));
    assert_eq!(s.factorizations(), factored);
    assert!(max_diff(&u, &u_cold) > 0.0);

    // Pinning a separated contact (lo = hi = 0, as for contacts outside the
    // step's index set) changes no free row: the factors still serve.
    let sep = s
        .active_set()
        .iter()
        .position(|b| *b == Bound::Lower)
        .unwrap();
    let act = s
        .active_set()
        .iter()
        .position(|b| *b == Bound::Free)
        .unwrap();
    p.hi[sep] = 0.0;
    let info = s.solve(&p, &mut u, &mut w);
    assert_eq!(
        (info.method, s.factorizations()),
        (Method::WarmStart, factored)
    );
    // Pinning an active one frees nothing but pins a free row: refactor, and
    // the answer is that of a fresh solver.
    p.hi[act] = 0.0;
    let info = s.solve(&p, &mut u, &mut w);
    assert_eq!(info.status, Status::Solved);
    assert!(s.factorizations() > factored);
    assert_eq!(s.active_set()[act], Bound::Lower);
    let (_, fresh_u, _) = solve_fresh(&p, 0);
    assert!(max_diff(&u, &fresh_u) < 1e-9);

    // A wrong stored active set is recovered from.
    s.set_active_set(&vec![Bound::Free; n]);
    let info = s.solve(&p, &mut u, &mut w);
    assert_eq!(
        (info.status, info.method),
        (Status::Solved, Method::BlockPivot)
    );
    assert!(max_diff(&u, &fresh_u) < 1e-9);

    // A new matrix after matrix_changed is factored again, not served stale.
    let before = s.factorizations();
    for i in 0..n {
        p.m.add(i, i, 1.0);
    }
    s.matrix_changed();
    let info = s.solve(&p, &mut u, &mut w);
    assert_eq!(info.status, Status::Solved);
    assert_eq!(s.factorizations(), before + info.iterations as u64);
    let (_, fresh_u, _) = solve_fresh(&p, 0);
    assert!(max_diff(&u, &fresh_u) < 1e-9);
}

#[test]
fn active_set_restore_reset_and_cold_settings() {
    // One box component pinned at its upper bound, one at its lower.
    let mut m = Band::zeros(2, 1, 1);
    m.set(0, 0, 2.0);
    m.set(1, 1, 2.0);
    m.set(0, 1, 1.0);
    let mut p = BandProblem::new(m);
    p.q.copy_from_slice(&[-10.0, 3.0]);
    p.lo[0] = -INF;
    p.hi[0] = 1.0;
    let mut s = BandSolver::new(2, 1, 1, Settings::default());
    let (mut u, mut w) = ([0.0; 2], [0.0; 2]);
    assert_eq!(s.solve(&p, &mut u, &mut w).status, Status::Solved);
    assert_eq!(u, [1.0, 0.0]);
    assert_eq!(w, [-8.0, 3.0]);
    assert_eq!(s.active_set(), [Bound::Upper, Bound::Lower]);
    // Defaults come from the bounds of the last solve: lo_0 = -inf means Upper.
    s.set_active_set(&[Bound::Free, Bound::Free]);
    s.reset_active_set();
    assert_eq!(s.active_set(), [Bound::Upper, Bound::Lower]);
    s.set_active_set(&[Bound::Free]);
    assert_eq!(s.active_set(), [Bound::Upper, Bound::Lower]);
    // Without warm start the stored set is ignored: the defaults happen to
    // verify here, which is then a block-pivoting answer of one solve.
    let mut cold = BandSolver::new(
        2,
        1,
        1,
        Settings {
            warm_start: false,
            ..Settings::default()
        },
    );
    cold.set_active_set(&[Bound::Free, Bound::Free]);
    let info = cold.solve(&p, &mut u, &mut w);
    assert_eq!((info.method, info.iterations), (Method::BlockPivot, 1));
    assert_eq!(u, [1.0, 0.0]);
}
