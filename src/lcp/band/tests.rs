//! Checks of band storage, its product and its LU factors against dense matrices.

use super::*;
use crate::lcp::Bound;

fn sample() -> Band {
    // 5x5 with kl = 2, ku = 1; entry (i, j) = 10 i + j + 1 inside the band.
    let mut b = Band::zeros(5, 2, 1);
    for i in 0..5usize {
        for j in i.saturating_sub(2)..(i + 2).min(5) {
            b.set(i, j, (10 * i + j + 1) as f64);
        }
    }
    b
}

#[test]
fn entries_and_dense_copy() {
    let mut b = sample();
    assert_eq!(b.get(3, 1), 32.0);
    assert_eq!(b.get(0, 3), 0.0);
    b.add(3, 1, 0.5);
    let d = b.to_dense();
    assert_eq!(d[(3, 1)], 32.5);
    assert_eq!(d[(1, 2)], 13.0);
    assert_eq!(d[(0, 2)], 0.0);
    assert_eq!(d.iter().filter(|x| **x != 0.0).count(), 5 + 4 + 3 + 4);
    b.fill_zero();
    assert_eq!(b.to_dense(), DMatrix::zeros(5, 5));
}

#[test]
#[should_panic(expected = "outside the band")]
fn set_outside_band_panics() {
    Band::zeros(5, 2, 1).set(0, 2, 1.0);
}

#[test]
fn product_matches_dense() {
    let b = sample();
    let x = [1.0, -2.0, 0.5, 3.0, -1.0];
    let q = [0.1, 0.2, 0.3, 0.4, 0.5];
    let mut w = [0.0; 5];
    b.mul_add(&x, &q, &mut w);
    let want = b.to_dense() * nalgebra::DVector::from_row_slice(&x);
    for i in 0..5 {
        assert!((w[i] - want[i] - q[i]).abs() < 1e-12, "row {i}");
    }
}

#[test]
fn fused_passes_match_the_separate_ones_to_the_bit() {
    // Tridiagonal, pentadiagonal (the specialized widths) and the sample's
    // kl = 2, ku = 1, each with edge rows clipped, at sizes below and above
    // the band's width.
    for (kl, ku) in [(1, 1), (2, 2), (2, 1)] {
        for n in [1, 2, 3, 7] {
            let mut b = Band::zeros(n, kl, ku);
            for i in 0..n {
                for j in i.saturating_sub(kl)..(i + ku + 1).min(n) {
                    let v = 0.3 + (7 * i + 3 * j) as f64 / 11.0;
                    b.set(i, j, if (i + j) % 3 == 0 { -v } else { v });
                }
            }
            let x: Vec<f64> = (0..n).map(|i| (i as f64 - 2.5) / 3.0).collect();
            let q: Vec<f64> = (0..n).map(|i| 0.7 - i as f64 / 7.0).collect();
            let (mut w, mut s) = (vec![0.0; n], vec![0.0; n]);
            let (mut w2, mut s2) = (vec![0.0; n], vec![0.0; n]);
            b.mul_add(&x, &q, &mut w);
            b.magnitudes(&x, &q, &mut s);
            b.mul_add_magnitudes(&x, &q, &mut w2, &mut s2);
            assert_eq!((&w, &s), (&w2, &s2), "kl={kl} ku={ku} n={n}");
            // The resolution against its definition, entry by entry: every
            // fourth component on its lower bound, which lends no scale.
            let d: Vec<f64> = (0..n).map(|i| 1.0 + i as f64 / 5.0).collect();
            let on_bound = |j: usize| j.is_multiple_of(4);
            let lo: Vec<f64> = (0..n)
                .map(|j| if on_bound(j) { x[j] } else { f64::NEG_INFINITY })
                .collect();
            let hi = vec![f64::INFINITY; n];
            let (mut scale, mut sigma) = (vec![0.0; n], vec![0.0; n]);
            b.resolution_with(&d, &s, (&lo, &hi, &x), &mut scale, &mut sigma);
            for i in 0..n {
                let cols = i.saturating_sub(kl)..(i + ku + 1).min(n);
                let lent = |j: usize| if on_bound(j) { 0.0 } else { s[j] / d[j] };
                let want = cols.fold(s[i], |x, j| x + b.get(i, j).abs() * lent(j));
                assert_eq!(sigma[i], want, "kl={kl} ku={ku} n={n} row {i}");
            }
        }
    }
}

#[test]
fn factor_solves_the_active_set_system_in_a_wider_band() {
    // Diagonally dominant, so every principal minor is nonzero.
    let mut m = sample();
    for i in 0..5 {
        m.add(i, i, 100.0);
    }
    let active = [
        Bound::Free,
        Bound::Lower,
        Bound::Free,
        Bound::Free,
        Bound::Upper,
    ];
    let mut lu = BandLu::new(5, 3, 2);
    assert!(lu.factor_from(&m, &active, 0));
    let x = [1.0, -2.0, 0.5, 3.0, -1.0];
    // Right-hand side of the system: M x on free rows, x on pinned ones.
    let mut b = [0.0; 5];
    m.mul_add(&x, &[0.0; 5], &mut b);
    b[1] = x[1];
    b[4] = x[4];
    lu.solve(&mut b);
    for i in 0..5 {
        assert!((b[i] - x[i]).abs() < 1e-12, "{b:?}");
    }
    // Pinned rows come back exactly.
    assert_eq!((b[1], b[4]), (x[1], x[4]));
}

#[test]
fn zero_or_nan_pivot_is_singular() {
    let mut m = Band::zeros(3, 1, 1);
    m.set(0, 1, 1.0);
    m.set(1, 0, 1.0);
    m.set(1, 1, 1.0);
    m.set(2, 2, 1.0);
    let mut lu = BandLu::new(3, 1, 1);
    // M(0, 0) = 0 is a vanishing leading minor: no row exchange can help here.
    assert!(!lu.factor_from(&m, &[Bound::Free; 3], 0));
    // Pinning component 0 leaves the nonsingular block {1, 2}.
    assert!(lu.factor_from(&m, &[Bound::Lower, Bound::Free, Bound::Free], 0));
    m.set(2, 2, f64::NAN);
    assert!(!lu.factor_from(&m, &[Bound::Lower, Bound::Free, Bound::Free], 0));
}

#[test]
fn the_pivot_test_does_not_depend_on_the_units() {
    // The chain [[2, -1], [-1, 2]] with its second unknown in units 1e18
    // times smaller: row 0 is [2, -1e-18], row 1 [-1, 2e-18]. The second
    // pivot, 1.5e-18, is three quarters of its row's diagonal; against the
    // row's largest entry it looked singular.
    let mut m = Band::zeros(2, 1, 1);
    m.set(0, 0, 2.0);
    m.set(0, 1, -1e-18);
    m.set(1, 0, -1.0);
    m.set(1, 1, 2e-18);
    let mut lu = BandLu::new(2, 1, 1);
    assert!(lu.factor_from(&m, &[Bound::Free; 2], 0));
    let mut x = [1.0, 1.0];
    lu.solve(&mut x);
    // [2, -1; -1, 2] y = [1, 1] has y = [1, 1]; here x_1 = 1e18 y_1.
    assert!(
        (x[0] - 1.0).abs() < 1e-15 && (x[1] / 1e18 - 1.0).abs() < 1e-15,
        "{x:?}"
    );
}

#[test]
fn refactoring_from_a_row_matches_a_full_factorization() {
    // Diagonally dominant bands of several shapes; the pattern changes at
    // or after `from`, and the factors (hence the solutions) must be
    // those of a factorization from scratch, bit for bit.
    for (kl, ku) in [(1, 1), (2, 2), (2, 1), (0, 2), (3, 1)] {
        let n = 12;
        let mut m = Band::zeros(n, kl, ku);
        for i in 0..n {
            for j in i.saturating_sub(kl)..(i + ku + 1).min(n) {
                let v = ((7 * i + 3 * j) % 11) as f64 / 11.0 - 0.5;
                m.set(i, j, if i == j { 4.0 + v } else { v });
            }
        }
        let pattern = |seed: usize| -> Vec<Bound> {
            (0..n)
                .map(|i| match (i * 5 + seed) % 3 {
                    0 => Bound::Lower,
                    1 => Bound::Upper,
                    _ => Bound::Free,
                })
                .collect()
        };
        let base = pattern(0);
        for from in 0..=n {
            let mut changed = base.clone();
            for b in &mut changed[from..] {
                *b = if *b == Bound::Free {
                    Bound::Lower
                } else {
                    Bound::Free
                };
            }
            let mut part = BandLu::new(n, kl, ku);
            assert!(part.factor_from(&m, &base, 0));
            assert!(part.factor_from(&m, &changed, from));
            let mut full = BandLu::new(n, kl, ku);
            assert!(full.factor_from(&m, &changed, 0));
            assert_eq!(part.f, full.f, "kl={kl} ku={ku} from={from}");
            assert_eq!(part.inv, full.inv, "kl={kl} ku={ku} from={from}");
        }
    }
}
