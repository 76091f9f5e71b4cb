//! Checks of the monotone sweep for tridiagonal Z-matrix problems: its active
//! set against enumeration and the dense solver on small random M-matrices
//! (with fixed components splitting the chain into runs and shifted lower
//! bounds), the worst cases for block pivoting (a load travelling the length
//! of a chain from the wrong stored active set) at n = 10,000 in two solves,
//! and the problems it must leave to block pivoting.

use super::enumerate::first_solution;
use super::sweep::Sweep;
use super::tests_banded::{chain, chain_mass, max_diff};
use super::tests_random::Rng;
use super::{Band, BandProblem, BandSolver, Bound, Method, Settings, Solver, Status};

const INF: f64 = f64::INFINITY;

/// Random tridiagonal M-matrix: negative off-diagonals and a diagonal that
/// dominates its row (`slack` > 0), or only just (`slack` near 0: a badly
/// conditioned chain, like a long column of beads).
fn m_matrix(rng: &mut Rng, n: usize, slack: f64) -> Band {
    let mut m = Band::zeros(n, 1, 1);
    for i in 0..n {
        let mut off = 0.0;
        for j in [i.wrapping_sub(1), i + 1] {
            if j < n {
                let v = -rng.uniform(0.0, 1.0);
                off -= v;
                m.set(i, j, v);
            }
        }
        m.set(i, i, off + slack * rng.uniform(0.01, 1.0));
    }
    m
}

/// Standard, shifted and fixed components (the sweep's whole domain).
fn z_bounds(rng: &mut Rng, p: &mut BandProblem) {
    for i in 0..p.n() {
        let lo = if rng.below(3) == 0 {
            rng.uniform(-1.0, 1.0)
        } else {
            0.0
        };
        p.lo[i] = lo;
        p.hi[i] = if rng.below(4) == 0 { lo } else { INF };
    }
}

#[test]
fn sweep_active_sets_match_enumeration_and_the_dense_solver() {
    let mut rng = Rng::new(41);
    let mut swept = 0;
    for n in 1..=9 {
        for trial in 0..40 {
            let slack = if trial % 2 == 0 { 0.5 } else { 1e-3 };
            let mut p = BandProblem::new(m_matrix(&mut rng, n, slack));
            for x in p.q.iter_mut() {
                *x = match trial % 3 {
                    0 => rng.uniform(-2.0, 2.0),
                    // Ties make degenerate components (w = 0 at u = lo).
                    1 if rng.below(2) == 0 => 0.0,
                    _ => rng.uniform(-1.0, 0.5),
                };
            }
            if trial % 4 >= 2 {
                z_bounds(&mut rng, &mut p);
            }
            assert!(Sweep::applies(&p));
            let what = format!("n={n} trial={trial}");
            let d = p.to_dense();
            let want = first_solution(&d, 1e-9).expect("an M-matrix problem has a solution");

            // The sweep alone: its active set, solved as one linear system,
            // is the answer.
            let mut sweep = Sweep::new(n);
            let mut active = vec![Bound::Upper; n];
            assert!(sweep.run(&p, 1e-12, &mut active), "{what}");
            assert!(active.iter().all(|b| *b != Bound::Upper), "{what}");
            for (i, b) in active.iter().enumerate() {
                if p.lo[i] == p.hi[i] {
                    assert_eq!(*b, Bound::Lower, "{what}: fixed {i}");
                }
            }
            let mut s = BandSolver::new(n, 1, 1, Settings::default());
            s.set_active_set(&active);
            let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
            let info = s.solve(&p, &mut u, &mut w);
            assert_eq!(info.status, Status::Solved, "{what} {info:?}");
            assert!(max_diff(&u, want.as_slice()) < 1e-7, "{what} {u:?} {want}");
            swept += usize::from(info.method == Method::WarmStart);

            // From the default start the solver gets there by itself.
            let mut s = BandSolver::new(n, 1, 1, Settings::default());
            let info = s.solve(&p, &mut u, &mut w);
            assert_eq!(info.status, Status::Solved, "{what} {info:?}");
            assert!(info.iterations <= 2, "{what} {info:?}");
            assert!(max_diff(&u, want.as_slice()) < 1e-7, "{what}");
            let mut ds = Solver::new(n, Settings::default());
            let (mut du, mut dw) = (vec![0.0; n], vec![0.0; n]);
            assert_eq!(ds.solve(&d, &mut du, &mut dw).status, Status::Solved);
            assert!(max_diff(&u, &du) < 1e-7, "{what}");
        }
    }
    // Degenerate ties may leave a component pinned with w within the flip
    // tolerance of zero, which verification accepts: nearly every sweep
    // verifies as it stands.
    assert!(swept >= 9 * 40 - 10, "{swept}");
}

#[test]
fn travelling_loads_take_two_solves_at_ten_thousand() {
    // The worst cases for flipping: the stored active set is wrong everywhere
    // the answer needs information from the far end of the chain.
    let n = 10_000;
    let mut p = BandProblem::new(chain(n, chain_mass));
    let mut s = BandSolver::new(n, 1, 1, Settings::default());
    let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
    // (1) A blow at the far end from all pinned: every contact must be freed,
    // the whole chain carries it to the wall. Flipping frees one contact per
    // solve from this start.
    p.q[n - 1] = -1.0;
    s.set_active_set(&vec![Bound::Lower; n]);
    let info = s.solve(&p, &mut u, &mut w);
    assert_eq!(
        (info.status, info.method, info.iterations),
        (Status::Solved, Method::BlockPivot, 2),
        "{info:?}"
    );
    assert!(u.iter().all(|x| *x > 0.0));
    // The wall contact holds the last bead's momentum (mass 1 + (n-1)%3 / 2).
    let last = 1.0 + ((n - 1) % 3) as f64 * 0.5;
    assert!((u[0] - last).abs() < 1e-6 * last, "{}", u[0]);
    // (2) The same chain separating everywhere but one contact in the middle,
    // from all free: the answer pins every contact but one.
    p.q.fill(1.0);
    p.q[n / 2] = -1.0;
    s.set_active_set(&vec![Bound::Free; n]);
    let info = s.solve(&p, &mut u, &mut w);
    assert_eq!((info.status, info.iterations), (Status::Solved, 2));
    let free = s.active_set().iter().filter(|b| **b == Bound::Free).count();
    assert_eq!(free, 1);
    assert!(u[n / 2] > 0.0);
    // (3) Fixed components every 100 contacts split the chain into runs;
    // alternate runs are loaded at their right end, from all pinned.
    for i in 0..n {
        p.q[i] = if i % 200 == 199 { -1.0 } else { 0.0 };
        p.hi[i] = if i % 100 == 0 { 0.0 } else { INF };
    }
    s.set_active_set(&vec![Bound::Lower; n]);
    let info = s.solve(&p, &mut u, &mut w);
    assert_eq!((info.status, info.iterations), (Status::Solved, 2));
    for (i, ui) in u.iter().enumerate() {
        // Loaded runs are pressed together, the others stay at rest.
        let loaded = (i / 100) % 2 == 1 && i % 100 != 0;
        assert_eq!(*ui > 0.0, loaded, "u[{i}] = {ui}");
    }
    assert!(info.residual <= 1e-9);
}

#[test]
fn problems_outside_the_sweep_go_to_block_pivoting() {
    let n = 6;
    let mut p = BandProblem::new(chain(n, chain_mass));
    assert!(Sweep::applies(&p));
    // An upper bound that can become active.
    p.hi[2] = 1.0;
    assert!(!Sweep::applies(&p));
    p.hi[2] = INF;
    // An unbounded component.
    p.lo[3] = -INF;
    assert!(!Sweep::applies(&p));
    p.lo[3] = 0.0;
    // A positive off-diagonal entry (not a Z-matrix).
    p.m.set(1, 2, 0.1);
    assert!(!Sweep::applies(&p));
    // A wider band.
    let mut wide = BandProblem::new(Band::zeros(n, 2, 2));
    for i in 0..n {
        wide.m.set(i, i, 1.0);
    }
    assert!(!Sweep::applies(&wide));
    // Block pivoting still solves the non-Z problem from a wrong start.
    p.q.fill(-1.0);
    let mut s = BandSolver::new(n, 1, 1, Settings::default());
    s.set_active_set(&vec![Bound::Lower; n]);
    let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
    let info = s.solve(&p, &mut u, &mut w);
    assert_eq!(info.status, Status::Solved, "{info:?}");
}

#[test]
fn a_z_matrix_without_the_p_property_is_never_misreported() {
    // [[1, -2], [-2, 1]] is a Z-matrix but not a P-matrix (its determinant is
    // -3): the merge's determinant is negative and the sweep gives up; the
    // solver still answers only with a verified solution.
    let mut m = Band::zeros(2, 1, 1);
    m.set(0, 0, 1.0);
    m.set(1, 1, 1.0);
    m.set(0, 1, -2.0);
    m.set(1, 0, -2.0);
    let mut p = BandProblem::new(m);
    p.q[0] = -1.0;
    p.q[1] = 1.0;
    assert!(Sweep::applies(&p));
    let mut active = vec![Bound::Lower; 2];
    let mut sweep = Sweep::new(2);
    assert!(!sweep.run(&p, 0.0, &mut active));
    let mut s = BandSolver::new(2, 1, 1, Settings::default());
    let (mut u, mut w) = (vec![0.0; 2], vec![0.0; 2]);
    let info = s.solve(&p, &mut u, &mut w);
    if info.status == Status::Solved {
        assert!(p.residual(&u, &w) <= 1e-9, "{info:?} {u:?}");
    } else {
        assert!(u.iter().all(|x| x.is_nan()));
    }
}
