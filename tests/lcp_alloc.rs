//! Proof that `Solver::solve` never touches the heap, on every path.
//!
//! A counting global allocator is process-wide, so this lives in its own
//! integration-test binary where it cannot disturb other tests. Counting is
//! per thread (a const-initialised thread-local with no destructor, so the
//! counter itself never allocates), which keeps the test harness's own
//! threads out of the figures. Implementing `GlobalAlloc` needs `unsafe`;
//! the unsafe code here only forwards to `System` and is confined to this
//! test binary (the library keeps `#![forbid(unsafe_code)]`).

use lcsfmu::lcp::{Bound, Method, Problem, Settings, Solver, Status};
use nalgebra::{DMatrix, DVector};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

fn bump() {
    // try_with: the thread-local may already be gone during thread teardown.
    let _ = COUNT.try_with(|c| c.set(c.get() + 1));
}

struct Counting;

// SAFETY: every method forwards its arguments unchanged to `System`, which
// upholds the `GlobalAlloc` contract; the counter does not allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        bump();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn allocations<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = COUNT.with(|c| c.get());
    let out = f();
    (COUNT.with(|c| c.get()) - before, out)
}

/// Diagonally dominant non-symmetric matrix (a P-matrix) of size `n`.
fn p_matrix(n: usize) -> DMatrix<f64> {
    DMatrix::from_fn(n, n, |i, j| {
        if i == j {
            2.0 * n as f64
        } else {
            ((3 * i + 7 * j) % 5) as f64 - 2.0
        }
    })
}

#[test]
fn solve_never_allocates() {
    let n = 6;
    let q = DVector::from_fn(n, |i, _| if i % 2 == 0 { -1.0 - i as f64 } else { 0.5 });
    let inf = f64::INFINITY;
    let lo = DVector::from_vec(vec![0.0, -1.0, -inf, -inf, 0.0, -0.5]);
    let hi = DVector::from_vec(vec![inf, 1.0, 0.2, inf, 0.0, inf]);
    let problems = [
        Problem::lcp(p_matrix(n), q.clone()),
        Problem::boxed(p_matrix(n), q, lo, hi),
    ];
    let mut u = vec![0.0; n];
    let mut w = vec![0.0; n];
    for p in &problems {
        let mut s = Solver::new(n, Settings::default());

        s.reset_active_set();
        let (count, info) = allocations(|| s.solve(p, &mut u, &mut w));
        assert_eq!((info.status, info.method), (Status::Solved, Method::Lemke));
        assert_eq!(count, 0, "Lemke path allocated");

        let (count, info) = allocations(|| s.solve(p, &mut u, &mut w));
        assert_eq!(
            (info.status, info.method),
            (Status::Solved, Method::WarmStart)
        );
        assert_eq!(count, 0, "warm-start path allocated");

        // Force the enumeration fallback: no warm start, a one-pivot budget.
        s.set_settings(Settings {
            warm_start: false,
            max_pivots: 1,
            ..Settings::default()
        });
        let (count, info) = allocations(|| s.solve(p, &mut u, &mut w));
        assert_eq!(
            (info.status, info.method),
            (Status::Solved, Method::Enumeration)
        );
        assert_eq!(count, 0, "enumeration path allocated");

        s.set_active_set(&[Bound::Free; 6]);
        s.matrix_changed();
        let (count, _) = allocations(|| s.solve(p, &mut u, &mut w));
        assert_eq!(count, 0, "restored active set allocated");
    }

    // Failure paths: infeasible (Lemke ray + enumeration) and invalid input.
    let p = Problem::lcp(-DMatrix::identity(2, 2), DVector::from_element(2, -1.0));
    let mut s = Solver::new(2, Settings::default());
    let (mut u2, mut w2) = (vec![0.0; 2], vec![0.0; 2]);
    let (count, info) = allocations(|| s.solve(&p, &mut u2, &mut w2));
    assert_eq!(info.status, Status::Infeasible);
    assert_eq!(count, 0, "infeasible path allocated");
    let (count, info) = allocations(|| s.solve(&problems[0], &mut u2, &mut w2));
    assert_eq!(info.status, Status::InvalidProblem);
    assert_eq!(count, 0, "invalid path allocated");

    // The counter itself works.
    let (count, v) = allocations(|| vec![1u8; 3]);
    assert!(count >= 1 && v.len() == 3);
}
