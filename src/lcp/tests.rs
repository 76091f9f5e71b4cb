//! Hand-made cases: the validation problems from the spec, the project's own
//! time-stepping examples, warm starting and snapshot determinism.
//!
//! Each case states its expected answer independently of the solver (closed
//! form or the known trajectory), so a wrong pivot, a wrong reformulation sign
//! or a stale cache shows up as a failure here before the random tests.

use super::{residual, Bound, Method, Problem, Settings, Solver, Status};
use nalgebra::{DMatrix, DVector};

fn solve(p: &Problem, settings: Settings) -> (super::Info, Vec<f64>, Vec<f64>) {
    let n = p.n();
    let mut s = Solver::new(n, settings);
    let (mut u, mut w) = (vec![0.0; n], vec![0.0; n]);
    let info = s.solve(p, &mut u, &mut w);
    (info, u, w)
}

/// Murty's LCP: 1 on the diagonal, 2 above it (`upper`) or below it, 0 on the
/// other side, `q = -c 1`. The worst case of pivoting methods (2^n pivots for
/// Lemke on the lower form); the solution is `c e_n` (upper) or `c e_1` (lower).
pub(super) fn murty(n: usize, upper: bool, c: f64) -> Problem {
    let m = DMatrix::from_fn(n, n, |i, j| {
        if i == j {
            1.0
        } else if (i < j) == upper {
            2.0
        } else {
            0.0
        }
    });
    Problem::lcp(m, DVector::from_element(n, -c))
}

fn no_enum() -> Settings {
    Settings {
        enumeration_limit: 0,
        ..Settings::default()
    }
}

#[test]
fn infeasible_problems_are_reported_not_solved() {
    let cases = [
        Problem::lcp(
            DMatrix::from_element(1, 1, -1.0),
            DVector::from_element(1, -1.0),
        ),
        Problem::lcp(-DMatrix::identity(2, 2), DVector::from_element(2, -1.0)),
    ];
    for p in &cases {
        for settings in [Settings::default(), no_enum()] {
            let (info, u, _) = solve(p, settings);
            assert_eq!(info.status, Status::Infeasible, "{info:?}");
            assert!(u.iter().all(|x| x.is_nan()));
        }
    }
}

#[test]
fn singular_psd_ones_matrix() {
    let p = Problem::lcp(
        DMatrix::from_element(2, 2, 1.0),
        DVector::from_element(2, -1.0),
    );
    for settings in [Settings::default(), no_enum()] {
        let (info, u, w) = solve(&p, settings);
        assert_eq!(info.status, Status::Solved);
        assert!(info.residual < 1e-14 && residual(&p, &u, &w) < 1e-14);
        assert!((u[0] + u[1] - 1.0).abs() < 1e-14, "{u:?}");
    }
}

#[test]
fn sign_spiral_steps() {
    let h = 0.2;
    let a = DMatrix::from_row_slice(2, 2, &[-1.0, 2.0, -2.0, -1.0]);
    let m = -&a * h;
    let mut s = Solver::new(2, Settings::default());
    let mut x = DVector::from_vec(vec![-1.0, 1.0]);
    let want = [[-0.4, 1.2], [0.0, 1.0], [0.2, 0.4], [0.0, 0.0]];
    for (k, wk) in want.iter().enumerate() {
        let p = Problem::boxed(
            m.clone(),
            -&x,
            DVector::from_element(2, -1.0),
            DVector::from_element(2, 1.0),
        );
        let (mut u, mut w) = ([0.0; 2], [0.0; 2]);
        let info = s.solve(&p, &mut u, &mut w);
        assert_eq!(info.status, Status::Solved, "step {k}");
        x += &a * DVector::from_row_slice(&u) * h;
        for i in 0..2 {
            assert!((x[i] - wk[i]).abs() <= 1e-12, "step {}: x = {x}", k + 1);
        }
    }
}

#[test]
fn coulomb_friction_block_slides_then_sticks() {
    let (m, g, mu, h) = (100.0, 9.81, 10.0, 0.2);
    let c = h / m;
    let mm = DMatrix::from_row_slice(3, 3, &[c, -c, 1.0, -c, c, 1.0, -1.0, -1.0, 0.0]);
    let mut s = Solver::new(3, Settings::default());
    let (mut v, mut x) = (100.0f64, 0.0f64);
    let want = [80.38, 60.76, 41.14, 21.52, 1.90];
    let mut warm = 0;
    for step in 1..=10 {
        let p = Problem::lcp(mm.clone(), DVector::from_vec(vec![v, -v, mu * m * g]));
        let (mut z, mut w) = ([0.0; 3], [0.0; 3]);
        let info = s.solve(&p, &mut z, &mut w);
        assert_eq!(info.status, Status::Solved, "step {step}");
        warm += usize::from(info.method == Method::WarmStart);
        v += c * (z[0] - z[1]);
        x += h * v;
        let expect = want.get(step - 1).copied().unwrap_or(0.0);
        assert!((v - expect).abs() <= 1e-9, "step {step}: v = {v}");
    }
    assert!((x - 41.14).abs() <= 1e-9, "x = {x}");
    // Slip steps 2..=5 and stick steps 7..=10 keep their mode.
    assert!(warm >= 7, "warm starts: {warm}");
}

#[test]
fn infeasible_step_is_reported() {
    // Skew-symmetric (copositive-plus) M with q that no u >= 0 can offset:
    // w_0 = -u_1 - 1 < 0. Ray termination alone is a proof here.
    let p = Problem::lcp(
        DMatrix::from_row_slice(2, 2, &[0.0, -1.0, 1.0, 0.0]),
        DVector::from_vec(vec![-1.0, -1.0]),
    );
    let (info, _, _) = solve(&p, no_enum());
    assert_eq!(
        (info.status, info.method),
        (Status::Infeasible, Method::Lemke)
    );
    let (info, _, _) = solve(&p, Settings::default());
    assert_eq!(
        (info.status, info.method),
        (Status::Infeasible, Method::Enumeration)
    );
}

fn sample() -> Problem {
    let m = DMatrix::from_row_slice(3, 3, &[4.0, 1.0, -1.0, 1.0, 3.0, 0.5, 0.0, -1.0, 2.0]);
    let inf = f64::INFINITY;
    Problem::boxed(
        m,
        DVector::from_vec(vec![-3.0, -6.0, -2.0]),
        DVector::from_vec(vec![0.0, -1.0, -inf]),
        DVector::from_vec(vec![inf, 1.0, 0.25]),
    )
}

#[test]
fn warm_start_hits_and_repeats_bitwise() {
    let p = sample();
    let mut s = Solver::new(3, Settings::default());
    s.reset_active_set();
    let (mut u1, mut w1) = ([0.0; 3], [0.0; 3]);
    let i1 = s.solve(&p, &mut u1, &mut w1);
    assert_eq!((i1.status, i1.method), (Status::Solved, Method::BlockPivot));
    let (mut u2, mut w2) = ([0.0; 3], [0.0; 3]);
    let i2 = s.solve(&p, &mut u2, &mut w2);
    assert_eq!(
        (i2.status, i2.method, i2.iterations),
        (Status::Solved, Method::WarmStart, 1)
    );
    for i in 0..3 {
        assert!((u1[i] - u2[i]).abs() < 1e-14);
    }
    let (mut u3, mut w3) = ([0.0; 3], [0.0; 3]);
    s.solve(&p, &mut u3, &mut w3);
    assert_eq!((u2, w2), (u3, w3));
    // A small change of q keeps the active set: still a warm start.
    let mut p2 = p.clone();
    p2.q[0] += 1e-3;
    let i4 = s.solve(&p2, &mut u3, &mut w3);
    assert_eq!(
        i4.method,
        Method::WarmStart,
        "{u2:?} {w2:?} {:?}",
        s.active_set()
    );
    assert!(u3[0] != u2[0]);
}

#[test]
fn snapshot_restore_is_bit_identical() {
    let p = sample();
    let mut s = Solver::new(3, Settings::default());
    let (mut u, mut w) = ([0.0; 3], [0.0; 3]);
    s.solve(&p, &mut u, &mut w);
    let snap: Vec<Bound> = s.active_set().to_vec();
    let mut p2 = p.clone();
    p2.q[1] = -5.0;
    let (mut a, mut aw) = ([0.0; 3], [0.0; 3]);
    s.solve(&p2, &mut a, &mut aw);
    // Restore the snapshot into this solver (cache now stale by mask) and into a
    // fresh one after matrix_changed: all three must agree bit for bit.
    let mut results = Vec::new();
    for fresh in [false, true] {
        let mut t = if fresh {
            Solver::new(3, Settings::default())
        } else {
            s.clone()
        };
        t.set_active_set(&snap);
        if fresh {
            t.matrix_changed();
        }
        let (mut b, mut bw) = ([0.0; 3], [0.0; 3]);
        let info = t.solve(&p2, &mut b, &mut bw);
        results.push((info, b, bw, t.active_set().to_vec()));
    }
    assert_eq!(results[0], results[1]);
    s.set_active_set(&snap);
    let (mut c, mut cw) = ([0.0; 3], [0.0; 3]);
    let info = s.solve(&p2, &mut c, &mut cw);
    assert_eq!((info, c, cw), (results[0].0, results[0].1, results[0].2));
}

#[test]
fn invalid_input_and_edge_sizes() {
    let p = sample();
    let mut s = Solver::new(2, Settings::default());
    let (mut u, mut w) = ([0.0; 2], [0.0; 2]);
    assert_eq!(s.solve(&p, &mut u, &mut w).status, Status::InvalidProblem);
    let mut s = Solver::new(3, Settings::default());
    let mut bad = p.clone();
    bad.q[2] = f64::NAN;
    let (mut u, mut w) = ([0.0; 3], [0.0; 3]);
    let info = s.solve(&bad, &mut u, &mut w);
    assert_eq!(
        (info.status, info.method),
        (Status::InvalidProblem, Method::None)
    );
    assert!(info.residual.is_nan());
    let mut bad = p.clone();
    bad.lo[0] = 2.0;
    bad.hi[0] = 1.0;
    assert_eq!(s.solve(&bad, &mut u, &mut w).status, Status::InvalidProblem);
    let empty = Problem::lcp(DMatrix::zeros(0, 0), DVector::zeros(0));
    let info = Solver::new(0, Settings::default()).solve(&empty, &mut [], &mut []);
    assert_eq!(info.status, Status::Solved);
}

#[test]
fn equalities_fixed_components_and_budget() {
    // Row 0 free (equation), component 1 fixed at 0.5, component 2 boxed.
    let m = DMatrix::from_row_slice(3, 3, &[2.0, 1.0, 0.0, 1.0, 2.0, 1.0, 0.0, 1.0, 2.0]);
    let inf = f64::INFINITY;
    let p = Problem::boxed(
        m,
        DVector::from_vec(vec![1.0, 5.0, -10.0]),
        DVector::from_vec(vec![-inf, 0.5, 0.0]),
        DVector::from_vec(vec![inf, 0.5, 1.0]),
    );
    let (info, u, w) = solve(&p, no_enum());
    assert_eq!(info.status, Status::Solved, "{info:?}");
    // u_1 = 0.5, u_2 = 1 (w_2 = 0.5 + 2 - 10 < 0), row 0: 2 u_0 + 0.5 + 1 = 0.
    assert!(
        (u[0] + 0.75).abs() < 1e-14 && u[1] == 0.5 && u[2] == 1.0,
        "{u:?}"
    );
    assert!(w[0].abs() < 1e-14 && w[2] < 0.0);
    let tight = Settings {
        max_pivots: 1,
        warm_start: false,
        enumeration_limit: 0,
        ..Settings::default()
    };
    let (info, _, _) = solve(&p, tight);
    assert_eq!(info.status, Status::MaxIterations);
    let (info, _, _) = solve(
        &p,
        Settings {
            enumeration_limit: 3,
            ..tight
        },
    );
    assert_eq!(
        (info.status, info.method),
        (Status::Solved, Method::Enumeration)
    );
}

/// A new matrix announced by `matrix_values_changed` (bounds kept) is solved
/// as after `matrix_changed`, bit for bit: the exchange rates the acceptance
/// test reads are those of the new matrix, not the old one's.
#[test]
fn a_matrix_change_without_new_bounds_solves_as_a_full_change() {
    let box_of = |m: [[f64; 2]; 2], q: [f64; 2]| {
        Problem::boxed(
            DMatrix::from_fn(2, 2, |i, j| m[i][j]),
            DVector::from_row_slice(&q),
            DVector::from_element(2, -1.0),
            DVector::from_element(2, 1.0),
        )
    };
    let first = box_of([[2.0, 1.0], [0.5, 3.0]], [-1.0, 4.0]);
    let (mut values, mut full) = (
        Solver::new(2, Settings::default()),
        Solver::new(2, Settings::default()),
    );
    let (mut u, mut w, mut u0, mut w0) = (vec![0.0; 2], vec![0.0; 2], vec![0.0; 2], vec![0.0; 2]);
    assert_eq!(values.solve(&first, &mut u, &mut w).status, Status::Solved);
    assert_eq!(full.solve(&first, &mut u0, &mut w0).status, Status::Solved);
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    // Scaled by 1e6: rates kept from the first matrix would misjudge the
    // answer; then one that moves the active set.
    for second in [
        box_of([[2e6, 1e6], [0.5e6, 3e6]], [-1e6, 4e6]),
        box_of([[1.0, -0.5], [0.25, 1.0]], [0.3, -0.2]),
        box_of([[1.0, -0.5], [0.25, 1.0]], [-3.0, 2.0]),
    ] {
        values.matrix_values_changed();
        full.matrix_changed();
        let a = values.solve(&second, &mut u, &mut w);
        let b = full.solve(&second, &mut u0, &mut w0);
        assert_eq!(a.status, Status::Solved);
        assert_eq!(
            (a.method, a.residual.to_bits()),
            (b.method, b.residual.to_bits())
        );
        assert_eq!((bits(&u), bits(&w)), (bits(&u0), bits(&w0)));
        assert_eq!(values.active_set(), full.active_set());
        assert!(residual(&second, &u, &w) <= 1e-12, "{u:?} {w:?}");
    }
}
