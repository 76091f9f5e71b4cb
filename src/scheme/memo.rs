//! A right-hand side kept from the point where the last step converged.
//!
//! A nonlinear step ends with the forces (or `f`) evaluated at its accepted
//! iterate, and the next step starts there: the θ-method's explicit part
//! `F(q, v, t)` and the first-order predictor's `f(x, ū)` are that same
//! evaluation again. [`PointMemo`] keeps it with the point it was taken at
//! and hands it back only when the point asked for is the same bit for bit
//! (states, pairs, inputs and, where the programs read it, time). The
//! parameters and the linear coefficients are not part of the key: the
//! steppers forget the memo whenever they may change (a new assembly, an FMU
//! state restored, a run restarted). So a value handed back is the number a
//! new evaluation would give, and a run repeats bit for bit whether the memo
//! was kept or forgotten: a restored FMU state needs nothing of it.

/// One evaluation (values and the magnitudes of their terms) with its point.
pub(crate) struct PointMemo {
    valid: bool,
    /// The point's variables, the parts concatenated (`x, u, w`).
    key: Vec<f64>,
    t: f64,
    pub(crate) value: Vec<f64>,
    pub(crate) magnitude: Vec<f64>,
}

impl PointMemo {
    /// Room for a point of `key_len` variables and `n` values.
    pub(crate) fn new(key_len: usize, n: usize) -> Self {
        PointMemo {
            valid: false,
            key: vec![0.0; key_len],
            t: f64::NAN,
            value: vec![0.0; n],
            magnitude: vec![0.0; n],
        }
    }

    /// Drops the evaluation (the parameters or the linear coefficients may
    /// change, or the run jumps).
    pub(crate) fn forget(&mut self) {
        self.valid = false;
    }

    /// Keeps `value` and `magnitude`, evaluated at `parts` and time `t`.
    /// Parts of other lengths than the memo was made for leave it empty.
    pub(crate) fn store(&mut self, parts: [&[f64]; 3], t: f64, value: &[f64], magnitude: &[f64]) {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        self.valid = len == self.key.len()
            && value.len() == self.value.len()
            && magnitude.len() == self.magnitude.len();
        if !self.valid {
            return;
        }
        let mut at = 0;
        for p in parts {
            self.key[at..at + p.len()].copy_from_slice(p);
            at += p.len();
        }
        self.t = t;
        self.value.copy_from_slice(value);
        self.magnitude.copy_from_slice(magnitude);
    }

    /// Whether the memo holds the evaluation at `parts` and time `t` (`None`:
    /// at any time, for programs that do not read it), compared bit for bit.
    pub(crate) fn holds(&self, parts: [&[f64]; 3], t: Option<f64>) -> bool {
        if !self.valid || t.is_some_and(|t| t.to_bits() != self.t.to_bits()) {
            return false;
        }
        let mut key = self.key.iter();
        let same = parts
            .iter()
            .flat_map(|p| p.iter())
            .all(|v| key.next().is_some_and(|k| k.to_bits() == v.to_bits()));
        same && key.next().is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_only_the_same_point_bit_for_bit() {
        let mut m = PointMemo::new(3, 2);
        assert!(!m.holds([&[1.0], &[2.0], &[3.0]], None));
        m.store([&[1.0], &[2.0], &[3.0]], 0.5, &[7.0, 8.0], &[9.0, 10.0]);
        assert!(m.holds([&[1.0], &[2.0], &[3.0]], None));
        assert!(m.holds([&[1.0], &[2.0], &[3.0]], Some(0.5)));
        assert!(!m.holds([&[1.0], &[2.0], &[3.0]], Some(0.75)));
        assert!(!m.holds([&[1.0], &[2.0], &[-3.0]], None));
        // -0.0 == 0.0, but a program may tell them apart (1/x): not the same point.
        m.store([&[0.0], &[2.0], &[3.0]], 0.5, &[7.0, 8.0], &[9.0, 10.0]);
        assert!(!m.holds([&[-0.0], &[2.0], &[3.0]], None));
        // The same variables split differently are the same point; fewer are not.
        assert!(m.holds([&[0.0, 2.0], &[], &[3.0]], None));
        assert!(!m.holds([&[0.0], &[2.0], &[]], None));
        assert_eq!(
            (m.value.as_slice(), m.magnitude.as_slice()),
            (&[7.0, 8.0][..], &[9.0, 10.0][..])
        );
        m.forget();
        assert!(!m.holds([&[0.0], &[2.0], &[3.0]], None));
        // A point of the wrong size is not kept.
        m.store([&[0.0], &[2.0], &[]], 0.5, &[7.0, 8.0], &[9.0, 10.0]);
        assert!(!m.holds([&[0.0], &[2.0], &[]], None));
    }
}
