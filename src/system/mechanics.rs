//! The numeric mechanical system for one set of parameter values.
//!
//! `M v' = Fq q + Fv v + F w + f + G^T λ + T^T λ_t`, `q' = v`, gaps
//! `g = G q + g0`, slip velocities `T v + Tw w + t0` (plus, in a model with
//! nonlinear parts, the compiled remainders of [`MechPrograms`], which the
//! Newton step of `scheme::mechanical` (its nonlinear form) evaluates). A [`crate::model::Mechanics`]
//! keeps these as parameter expressions; [`MechSystem::assemble`] evaluates them
//! into sparse matrices whose structure is fixed when the instance is created (a
//! chain of 10,000 bodies has about 30,000 nonzeros, not 10^8), and refuses
//! values that make the scheme meaningless: non-finite entries, a mass matrix
//! that is not symmetric positive definite, a restitution outside [0, 1], a
//! negative friction coefficient.

use crate::model::{ExprMatrix, Mechanics};
use crate::system::mech_nonlinear::MechPrograms;
use nalgebra::DMatrix;

/// Largest contact problem or coupled mass matrix handled with dense matrices:
/// the dense contact solver keeps about `80 n²` bytes (its Lemke tableau), some
/// 80 MB here, and a cold solve costs `O(n³)`.
pub const DENSE_LIMIT: usize = 1000;

/// A sparse matrix with a fixed pattern: `(row, column, value)` triplets.
#[derive(Clone, Debug, PartialEq)]
pub struct Sparse {
    pub rows: usize,
    pub cols: usize,
    pub entries: Vec<(usize, usize, f64)>,
}

impl Sparse {
    /// The pattern of `m`, values zero until assembled.
    pub fn pattern(m: &ExprMatrix) -> Self {
        Sparse {
            rows: m.rows,
            cols: m.cols,
            entries: m.entries.iter().map(|(i, j, _)| (*i, *j, 0.0)).collect(),
        }
    }

    /// A matrix from `(row, column, value)` triplets.
    pub fn from_rows(rows: usize, cols: usize, entries: Vec<(usize, usize, f64)>) -> Self {
        Sparse {
            rows,
            cols,
            entries,
        }
    }

    fn assemble(&mut self, m: &ExprMatrix, params: &[f64], name: &str) -> Result<(), String> {
        for (slot, (i, j, e)) in self.entries.iter_mut().zip(&m.entries) {
            let v = e.eval(params);
            if !v.is_finite() {
                return Err(format!("{name}[{i}][{j}] = {v} is not finite"));
            }
            slot.2 = v;
        }
        Ok(())
    }

    /// `y += alpha A x`.
    #[inline]
    pub fn mul_acc(&self, y: &mut [f64], x: &[f64], alpha: f64) {
        for &(i, j, a) in &self.entries {
            y[i] += alpha * a * x[j];
        }
    }

    /// `y += alpha A^T x`.
    #[inline]
    pub fn mul_t_acc(&self, y: &mut [f64], x: &[f64], alpha: f64) {
        for &(i, j, a) in &self.entries {
            y[j] += alpha * a * x[i];
        }
    }

    /// Whether the pattern has no off-diagonal entries (values aside).
    pub fn is_diagonal(&self) -> bool {
        self.entries.iter().all(|(i, j, _)| i == j)
    }
}

/// Checks that `M` (given by its nonzero entries) is symmetric positive definite.
pub fn check_mass(n: usize, entries: &[(usize, usize, f64)]) -> Result<(), String> {
    if entries.iter().all(|(i, j, _)| i == j) {
        let mut diag = vec![0.0; n];
        for &(i, _, v) in entries {
            diag[i] += v;
        }
        return match diag.iter().position(|m| !(*m > 0.0 && m.is_finite())) {
            Some(i) => Err(format!(
                "the mass matrix is not positive definite: M[{i}][{i}] = {}",
                diag[i]
            )),
            None => Ok(()),
        };
    }
    if n > DENSE_LIMIT {
        return Err(format!(
            "a coupled mass matrix is supported up to {DENSE_LIMIT} coordinates"
        ));
    }
    let mut m = DMatrix::<f64>::zeros(n, n);
    for &(i, j, v) in entries {
        m[(i, j)] += v;
    }
    for i in 0..n {
        for j in 0..i {
            let (a, b): (f64, f64) = (m[(i, j)], m[(j, i)]);
            if (a - b).abs() > 1e-12 * a.abs().max(b.abs()) {
                return Err(format!(
                    "the mass matrix is not symmetric: M[{i}][{j}] = {a} but M[{j}][{i}] = {b}"
                ));
            }
        }
    }
    if m.iter().any(|v| !v.is_finite()) || nalgebra::linalg::Cholesky::new(m).is_none() {
        return Err("the mass matrix is not positive definite".into());
    }
    Ok(())
}

/// The first pivot of the Cholesky factorization of the symmetric `n x n`
/// matrix given by `entries` that is not positive and finite, as
/// `(row, pivot)`; `None` when it is positive definite. `buf` (at least
/// `n²` long) is the workspace: no allocation, for the step path.
pub fn cholesky_failure(
    n: usize,
    entries: &[(usize, usize, f64)],
    buf: &mut [f64],
) -> Option<(usize, f64)> {
    let a = &mut buf[..n * n];
    a.fill(0.0);
    for &(i, j, v) in entries {
        a[i * n + j] += v;
    }
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        if !(d > 0.0 && d.is_finite()) {
            return Some((j, d));
        }
        let l = d.sqrt();
        a[j * n + j] = l;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / l;
        }
    }
    None
}

/// Assembled mechanical data; see the module documentation for the formulation.
#[derive(Clone, Debug)]
pub struct MechSystem {
    pub dof: usize,
    pub mass: Sparse,
    pub position_force: Sparse,
    pub velocity_force: Sparse,
    pub force: Vec<f64>,
    pub input_force: Sparse,
    pub gap: Sparse,
    pub gap0: Vec<f64>,
    pub restitution: Vec<f64>,
    /// Per contact, the index of its normal pair.
    pub pair: Vec<usize>,
    /// Per frictional contact: the contact, `mu`, and (as rows of the next
    /// three) the slip velocity `T v + Tw w + t0`.
    pub friction_contact: Vec<usize>,
    pub mu: Vec<f64>,
    pub slip: Sparse,
    pub slip_inputs: Sparse,
    pub slip0: Vec<f64>,
    /// The nonlinear forces, gaps and slips, when the model has any.
    pub nonlinear: Option<MechPrograms>,
}

impl MechSystem {
    /// Buffers with the model's sparsity, values unset.
    pub fn new(m: &Mechanics, nw: usize, np: usize) -> Self {
        let nc = m.contacts.len();
        let mut slip = Vec::new();
        let mut slip_inputs = Vec::new();
        let mut friction_contact = Vec::new();
        for (k, c) in m.contacts.iter().enumerate() {
            if let Some(f) = &c.friction {
                let r = friction_contact.len();
                slip.extend(f.slip.iter().map(|(j, _)| (r, *j, 0.0)));
                slip_inputs.extend(f.slip_inputs.iter().map(|(j, _)| (r, *j, 0.0)));
                friction_contact.push(k);
            }
        }
        let nf = friction_contact.len();
        let mut sys = MechSystem {
            dof: m.dof,
            mass: Sparse::pattern(&m.mass),
            position_force: Sparse::pattern(&m.position_force),
            velocity_force: Sparse::pattern(&m.velocity_force),
            force: vec![0.0; m.dof],
            input_force: Sparse::pattern(&m.input_force),
            gap: Sparse::pattern(&m.gap),
            gap0: vec![0.0; nc],
            restitution: vec![0.0; nc],
            pair: m.contacts.iter().map(|c| c.pair).collect(),
            friction_contact,
            mu: vec![0.0; nf],
            slip: Sparse::from_rows(nf, m.dof, slip),
            slip_inputs: Sparse::from_rows(nf, nw, slip_inputs),
            slip0: vec![0.0; nf],
            nonlinear: None,
        };
        if let Some(nl) = &m.nonlinear {
            sys.nonlinear = Some(MechPrograms::new(nl, &sys, np));
        }
        sys
    }

    pub fn contacts(&self) -> usize {
        self.gap0.len()
    }

    /// Whether the iteration matrix `M - hθFv - h²θ²Fq` is diagonal for every h,
    /// which makes the contact problem as sparse as the contacts' coupling.
    pub fn lumped(&self) -> bool {
        self.mass.is_diagonal()
            && self.position_force.is_diagonal()
            && self.velocity_force.is_diagonal()
    }

    /// Evaluates every entry with `params`; on error the buffers hold partial
    /// values and must be assembled again before use.
    pub fn assemble(&mut self, m: &Mechanics, params: &[f64]) -> Result<(), String> {
        self.mass.assemble(&m.mass, params, "M")?;
        // M(q) holds placeholders until the step writes it (and checks it
        // at every iterate).
        if m.nonlinear.as_ref().is_none_or(|nl| nl.mass.is_empty()) {
            check_mass(self.dof, &self.mass.entries)?;
        }
        self.position_force
            .assemble(&m.position_force, params, "Fq")?;
        self.velocity_force
            .assemble(&m.velocity_force, params, "Fv")?;
        self.input_force.assemble(&m.input_force, params, "F")?;
        self.gap.assemble(&m.gap, params, "G")?;
        dense_vector(&mut self.force, &m.force, params, "f")?;
        dense_vector(&mut self.gap0, &m.gap0, params, "g0")?;
        if let Some(nl) = &mut self.nonlinear {
            nl.set_params(params);
        }
        let (mut r, mut s, mut si) = (0, 0, 0);
        for (k, c) in m.contacts.iter().enumerate() {
            let e = c.restitution.eval(params);
            if !(0.0..=1.0).contains(&e) {
                return Err(format!("restitution of contact {k} is {e}, outside [0, 1]"));
            }
            self.restitution[k] = e;
            let Some(f) = &c.friction else { continue };
            let mu = f.mu.eval(params);
            let t0 = f.slip0.eval(params);
            if !(mu >= 0.0 && mu.is_finite() && t0.is_finite()) {
                return Err(format!(
                    "friction of contact {k}: mu = {mu}, slip offset = {t0} (need finite, mu >= 0)"
                ));
            }
            self.mu[r] = mu;
            self.slip0[r] = t0;
            r += 1;
            for (_, e) in &f.slip {
                self.slip.entries[s].2 = finite(e.eval(params), "slip", k)?;
                s += 1;
            }
            for (_, e) in &f.slip_inputs {
                self.slip_inputs.entries[si].2 = finite(e.eval(params), "slip", k)?;
                si += 1;
            }
        }
        Ok(())
    }
}

fn finite(v: f64, what: &str, k: usize) -> Result<f64, String> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("{what} of contact {k} has the coefficient {v}"))
    }
}

fn dense_vector(v: &mut [f64], m: &ExprMatrix, params: &[f64], name: &str) -> Result<(), String> {
    v.fill(0.0);
    for (i, _, e) in &m.entries {
        let x = e.eval(params);
        if !x.is_finite() {
            return Err(format!("{name}[{i}] = {x} is not finite"));
        }
        v[*i] = x;
    }
    Ok(())
}
