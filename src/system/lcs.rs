//! The numeric linear complementarity system for one set of parameter values.
//!
//! `x' = A x + B u + E w + f`, `y = C x + D u + F w + g`, `lo <= u <= hi ⟂ y`,
//! named outputs `z = Hx x + Hu u + Hw w + h`. A [`Model`] keeps these entries as
//! parameter expressions; [`Lcs::assemble`] evaluates them into buffers sized once
//! when an instance is created, so re-initializing with new parameters does not
//! allocate, and it refuses values that would make the time-stepping meaningless
//! (non-finite entries, empty intervals) with a message naming the entry.

use crate::model::{ExprMatrix, Model};
use crate::system::mechanics::MechSystem;
use crate::system::ncs::Ncs;
use nalgebra::{DMatrix, DVector};

/// Assembled matrices; field names follow the formulation above.
#[derive(Clone, Debug)]
pub struct Lcs {
    pub a: DMatrix<f64>,
    pub b: DMatrix<f64>,
    pub e: DMatrix<f64>,
    pub f: DVector<f64>,
    pub c: DMatrix<f64>,
    pub d: DMatrix<f64>,
    pub fw: DMatrix<f64>,
    pub g: DVector<f64>,
    pub lo: DVector<f64>,
    pub hi: DVector<f64>,
    pub hx: DMatrix<f64>,
    pub hu: DMatrix<f64>,
    pub hw: DMatrix<f64>,
    pub h0: DVector<f64>,
    /// The dynamics of a mechanical model (whose first-order matrices are empty).
    pub mech: Option<MechSystem>,
    /// The nonlinear remainders of a first-order model's rows and outputs.
    pub nl: Option<Ncs>,
}

impl Lcs {
    /// Zero matrices of the model's sizes.
    pub fn new(model: &Model) -> Self {
        let (nx, nu, nw, no) = (model.nx(), model.nu(), model.nw(), model.outputs.len());
        let s = &model.system;
        let dense = |m: &ExprMatrix| DMatrix::zeros(m.rows, m.cols);
        Lcs {
            a: dense(&s.a),
            b: dense(&s.b),
            e: dense(&s.e),
            f: DVector::zeros(s.f.rows),
            c: dense(&s.c),
            d: dense(&s.d),
            fw: dense(&s.fw),
            g: DVector::zeros(s.g.rows),
            lo: DVector::zeros(nu),
            hi: DVector::zeros(nu),
            hx: DMatrix::zeros(no, nx),
            hu: DMatrix::zeros(no, nu),
            hw: DMatrix::zeros(no, nw),
            h0: DVector::zeros(no),
            mech: model
                .mechanics
                .as_ref()
                .map(|m| MechSystem::new(m, nw, model.np())),
            nl: model
                .nonlinear
                .as_ref()
                .map(|n| Ncs::new(n, &model.system, model.np())),
        }
    }

    /// Evaluates every entry with `params`; on error the buffers hold partial values
    /// and must be assembled again before use.
    pub fn assemble(&mut self, model: &Model, params: &[f64]) -> Result<(), String> {
        // Before anything is overwritten: refused parameters leave the buffers as they were.
        if let Some(why) = model.conditions.iter().find_map(|c| c.violated(params)) {
            return Err(why);
        }
        let s = &model.system;
        fill(&mut self.a, &s.a, params, "A")?;
        fill(&mut self.b, &s.b, params, "B")?;
        fill(&mut self.e, &s.e, params, "E")?;
        fill(self.f.as_mut_slice(), &s.f, params, "f")?;
        fill(&mut self.c, &s.c, params, "C")?;
        fill(&mut self.d, &s.d, params, "D")?;
        fill(&mut self.fw, &s.fw, params, "F")?;
        fill(self.g.as_mut_slice(), &s.g, params, "g")?;
        if let (Some(mech), Some(m)) = (&mut self.mech, &model.mechanics) {
            mech.assemble(m, params)?;
        }
        if let Some(nl) = &mut self.nl {
            nl.set_params(params);
            nl.set_linear(
                [&self.a, &self.b, &self.e],
                &self.f,
                [&self.c, &self.d, &self.fw],
                &self.g,
            );
        }
        for (i, pair) in model.pairs.iter().enumerate() {
            let (lo, hi) = (pair.lo.eval(params), pair.hi.eval(params));
            if lo.is_nan()
                || hi.is_nan()
                || lo > hi
                || lo == f64::INFINITY
                || hi == f64::NEG_INFINITY
            {
                return Err(format!(
                    "bounds of {}: lo = {lo}, hi = {hi} do not form an interval",
                    pair.name
                ));
            }
            self.lo[i] = lo;
            self.hi[i] = hi;
        }
        for (k, out) in model.outputs.iter().enumerate() {
            let bad = |v: f64| {
                format!(
                    "output {} has a coefficient {v} with these parameters",
                    out.name
                )
            };
            let h0 = out.constant.eval(params);
            if !h0.is_finite() {
                return Err(bad(h0));
            }
            self.h0[k] = h0;
            for (m, terms) in [
                (&mut self.hx, &out.states),
                (&mut self.hu, &out.pairs),
                (&mut self.hw, &out.inputs),
            ] {
                m.row_mut(k).fill(0.0);
                for (j, e) in terms {
                    let v = e.eval(params);
                    if !v.is_finite() {
                        return Err(bad(v));
                    }
                    m[(k, *j)] = v;
                }
            }
        }
        Ok(())
    }

    /// Named outputs `z = Hx x + Hu u + Hw w + h` into `z`.
    pub fn outputs(&self, x: &[f64], u: &[f64], w: &[f64], z: &mut [f64]) {
        z.copy_from_slice(self.h0.as_slice());
        crate::linalg::gemv_acc(z, &self.hx, x);
        crate::linalg::gemv_acc(z, &self.hu, u);
        crate::linalg::gemv_acc(z, &self.hw, w);
    }
}

/// Writes the entries of `src` into a dense buffer (a matrix or a vector).
fn fill<M>(dst: &mut M, src: &ExprMatrix, params: &[f64], name: &str) -> Result<(), String>
where
    M: DenseTarget + ?Sized,
{
    dst.clear();
    for (i, j, e) in &src.entries {
        let v = e.eval(params);
        if !v.is_finite() {
            return Err(format!(
                "entry {name}[{i}][{j}] evaluates to {v} with these parameters"
            ));
        }
        dst.set(*i, *j, v);
    }
    Ok(())
}

trait DenseTarget {
    fn clear(&mut self);
    fn set(&mut self, i: usize, j: usize, v: f64);
}

impl DenseTarget for DMatrix<f64> {
    fn clear(&mut self) {
        self.fill(0.0);
    }
    fn set(&mut self, i: usize, j: usize, v: f64) {
        self[(i, j)] = v;
    }
}

impl DenseTarget for [f64] {
    fn clear(&mut self) {
        self.fill(0.0);
    }
    fn set(&mut self, i: usize, _j: usize, v: f64) {
        self[i] = v;
    }
}
