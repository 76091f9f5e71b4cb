//! The linear part of a nonlinear first-order model's `f` or `c`: the
//! constant and the structurally nonzero coefficients of its matrices, taken
//! at each assembly and summed at each evaluation with the magnitudes of the
//! terms beside them (see [`super`]).

use crate::model::program::Point;
use crate::model::ExprMatrix;
use nalgebra::{DMatrix, DVector};

/// One structurally nonzero coefficient of a linear part: `out[row] += coef * v[col]`.
#[derive(Clone, Copy, Debug)]
struct Term {
    row: usize,
    col: usize,
    coef: f64,
}

/// The linear part of `f` (`A x + B u + E w + f`) or of `c` (`C x + D u +
/// F w + g`): the constant and the structurally nonzero terms along the
/// states, the pairs and the inputs, in the matrices' entry order. The dense
/// matrices are mostly zero, and the residual is evaluated several times per
/// step.
#[derive(Clone, Debug)]
pub(super) struct Linear {
    constant: Vec<f64>,
    terms: [Vec<Term>; 3],
}

impl Linear {
    pub(super) fn new(m: [&ExprMatrix; 3], rows: usize) -> Self {
        let terms = m.map(|m| {
            m.entries
                .iter()
                .map(|(row, col, _)| Term {
                    row: *row,
                    col: *col,
                    coef: 0.0,
                })
                .collect()
        });
        Linear {
            constant: vec![0.0; rows],
            terms,
        }
    }

    /// Takes the coefficients of an assembly (the matrices have the model's shapes).
    pub(super) fn set(&mut self, m: [&DMatrix<f64>; 3], constant: &DVector<f64>) {
        self.constant.copy_from_slice(constant.as_slice());
        for (terms, m) in self.terms.iter_mut().zip(m) {
            for t in terms.iter_mut() {
                t.coef = m[(t.row, t.col)];
            }
        }
    }

    /// The linear part of every row at `at` into `out`, with the magnitudes
    /// of its terms into `mag` (the same operations in the same order as a
    /// pass over the dense matrices' entries).
    #[inline]
    pub(super) fn eval(&self, at: &Point, out: &mut [f64], mag: &mut [f64]) {
        for ((o, g), c) in out.iter_mut().zip(mag.iter_mut()).zip(&self.constant) {
            *o = *c;
            *g = c.abs();
        }
        for (terms, v) in self.terms.iter().zip([at.x, at.u, at.w]) {
            for t in terms {
                let term = t.coef * v[t.col];
                out[t.row] += term;
                mag[t.row] += term.abs();
            }
        }
    }
}
