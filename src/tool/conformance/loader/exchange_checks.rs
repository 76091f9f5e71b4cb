//! The checks of the Model Exchange cycle ([`super::exchange`]) that are more
//! than reading and comparing: the numbers of states and event indicators the
//! binary reports (FMI 3.0) against the description's, calls the state
//! machine forbids, which must be refused with an error and change nothing,
//! the directional derivatives against central finite differences, and the
//! adjoint derivatives (FMI 3.0) against the transpose of the directional
//! ones.
//!
//! A refused call must return exactly the version's Error status: OK or
//! Warning would mean the FMU did what the standard forbids, Fatal that it
//! gave up an instance a wrong call should not harm. "Nothing changed" is
//! read where an importer can read it: the continuous states, the derivatives
//! and the event indicators, bit for bit. The finite differences step each
//! known by `1e-6` of its size (at least `1e-6`) both ways; in a mode of a
//! linear model the derivatives are affine, so the difference is exact to
//! rounding, about `1e-10` of the scale. The tolerance, `1e-6` of the
//! column's scale (the largest sensitivity, or the derivatives over the
//! known's size), leaves room for the curvature of a nonlinear foreign FMU.
//! Adjoint and directional derivatives are the same Jacobian read two ways,
//! with no step between them: they must agree to [`ADJOINT_TOLERANCE`] of
//! the Jacobian's largest entry (rounding of a different order of sums).

use super::exchange::{Exchange, ERROR};
use super::exchange_calls::Driver;
use super::{announce, cycle::Status};

/// Relative step of the finite differences.
const DELTA: f64 = 1e-6;
/// Largest difference from the finite differences, relative to the column's scale.
const TOLERANCE: f64 = 1e-6;
/// Largest difference of an adjoint derivative from the directional one,
/// relative to the Jacobian's largest entry.
const ADJOINT_TOLERANCE: f64 = 1e-12;

/// The numbers of states and event indicators the binary reports, where the
/// version has the calls, against the description's; `Ok` holds what the
/// summary says of them (empty without the calls).
///
/// # Safety
/// `d.c` is a live instance.
pub unsafe fn counts<A: Exchange>(d: &Driver<A>) -> Result<String, String> {
    let (api, c, me) = (d.api, d.c, d.me);
    if !api.has_counts() {
        return Ok(String::new());
    }
    let (nx, nz) = (d.n.number_of_states, d.n.number_of_indicators);
    for (name, declared) in [(nx, me.states.len()), (nz, me.event_indicators)] {
        let mut n = usize::MAX;
        d.call(name, || {
            let status = match name == nx {
                true => api.number_of_states(c, &mut n),
                false => api.number_of_indicators(c, &mut n),
            };
            status.unwrap_or(ERROR)
        })?;
        if n != declared {
            return Err(format!(
                "{name} gives {n} where the description declares {declared}"
            ));
        }
    }
    Ok(format!(" and by {nx} and {nz}"))
}

/// The status of a call that must have been refused.
fn refused<A: Exchange>(d: &Driver<A>, what: &str, status: Status) -> Result<(), String> {
    if status == ERROR {
        return Ok(());
    }
    Err(format!(
        "{what} returned {}, not {}: the state machine of the standard does not allow the call there",
        d.api.status_name(status),
        d.api.status_name(ERROR)
    ))
}

/// The derivatives asked for right after instantiation must be refused.
///
/// # Safety
/// `d.c` is a live, just instantiated instance.
pub unsafe fn refused_before_initialization<A: Exchange>(
    d: &Driver<A>,
    dx: &mut [f64],
) -> Result<(), String> {
    let what = format!("{} before initialization", d.n.derivatives);
    announce(&what);
    refused(d, &what, d.api.derivatives(d.c, dx))
}

/// What an importer can read of the instance: states, derivatives, indicators.
unsafe fn observe<A: Exchange>(
    d: &Driver<A>,
    x: &mut [f64],
    dx: &mut [f64],
    z: &mut [f64],
) -> Result<Vec<u64>, String> {
    d.states(x)?;
    d.derivatives(dx)?;
    d.indicators(z)?;
    Ok(x.iter()
        .chain(dx.iter())
        .chain(z.iter())
        .map(|v| v.to_bits())
        .collect())
}

/// In Continuous-Time Mode: a co-simulation step (when the binary exports
/// one), an update of the discrete states and entering Continuous-Time Mode
/// again must each be refused without a change; `Ok` holds how many were made.
///
/// # Safety
/// `d.c` is a live instance in Continuous-Time Mode; the slices are the
/// description's sizes.
pub unsafe fn refused_in_continuous_time<A: Exchange>(
    d: &Driver<A>,
    x: &mut [f64],
    dx: &mut [f64],
    z: &mut [f64],
) -> Result<usize, String> {
    let (api, c, n) = (d.api, d.c, d.n);
    let before = observe(d, x, dx, z)?;
    let mut made = 0;
    for k in 0..3 {
        let name = [n.do_step, n.update, n.enter_continuous][k];
        let what = format!("{name} in Continuous-Time Mode");
        announce(&what);
        let status = match k {
            0 => match api.co_simulation_step(c, d.t, 0.01) {
                Some(s) => s,
                None => continue,
            },
            1 => api.update(c, &mut Default::default()),
            _ => api.enter_continuous(c),
        };
        refused(d, &what, status)?;
        made += 1;
        if observe(d, x, dx, z)? != before {
            return Err(format!(
                "{what} was refused, but the states, derivatives or event indicators changed"
            ));
        }
    }
    Ok(made)
}

/// The directional derivatives of the derivatives by each state and input
/// against central finite differences, then the adjoint ones, when declared,
/// against their transpose; `Ok` holds the largest relative differences.
/// Leaves states and inputs as they were, which the derivatives read
/// afterwards must show.
///
/// # Safety
/// `d.c` is a live instance in Continuous-Time Mode at the states `x`.
pub unsafe fn directional<A: Exchange>(
    d: &Driver<A>,
    x: &[f64],
) -> Result<(f64, Option<f64>), String> {
    let (api, c, me) = (d.api, d.c, d.me);
    let nx = x.len();
    let mut f = vec![0.0; nx];
    d.derivatives(&mut f)?;
    let (mut column, mut plus, mut minus) = (vec![0.0; nx], vec![0.0; nx], vec![0.0; nx]);
    let mut worst = 0.0f64;
    let knowns: Vec<u32> = me.states.iter().chain(&me.inputs).copied().collect();
    let mut jacobian = Vec::with_capacity(knowns.len());
    for (j, &vr) in knowns.iter().enumerate() {
        let what = format!(
            "{} of the derivatives by value reference {vr}",
            d.n.directional
        );
        d.call(&what, || {
            api.directional(c, &me.derivatives, &[vr], &[1.0], &mut column)
        })?;
        if let Some(i) = column.iter().position(|v| !v.is_finite()) {
            return Err(format!(
                "{what} gives {} for value reference {}",
                column[i], me.derivatives[i]
            ));
        }
        let base = match x.get(j) {
            Some(&xj) => xj,
            None => {
                let mut w = [0.0];
                d.call(d.n.get_reals, || api.get_reals(c, &[vr], &mut w))?;
                w[0]
            }
        };
        let delta = DELTA * base.abs().max(1.0);
        let (up, down) = (base + delta, base - delta);
        for (value, out) in [(up, &mut plus), (down, &mut minus)] {
            set_known(d, x, j, vr, value)?;
            d.derivatives(out)?;
        }
        set_known(d, x, j, vr, base)?;
        let span = up - down;
        let inf = |v: &mut dyn Iterator<Item = f64>| v.fold(0.0f64, |m, a| m.max(a.abs()));
        let scale =
            inf(&mut column.iter().copied()).max(inf(&mut f.iter().copied()) / base.abs().max(1.0));
        let mut err = 0.0f64;
        for i in 0..nx {
            err = err.max((column[i] - (plus[i] - minus[i]) / span).abs());
        }
        if err > TOLERANCE * scale {
            return Err(format!(
                "{what} differs from central finite differences by {err:e} (scale {scale:e})"
            ));
        }
        if scale > 0.0 {
            worst = worst.max(err / scale);
        }
        jacobian.push(column.clone());
    }
    let mut again = vec![0.0; nx];
    d.derivatives(&mut again)?;
    let moved = |(a, b): (&f64, &f64)| a.to_bits() != b.to_bits();
    if let Some(i) = again.iter().zip(&f).position(moved) {
        return Err(format!(
            "after the finite differences, states and inputs restored, the derivative of value reference {} is {} where it was {}",
            me.derivatives[i], again[i], f[i]
        ));
    }
    let adjoint = match me.adjoint {
        true => Some(adjoint(d, &knowns, &jacobian)?),
        false => None,
    };
    Ok((worst, adjoint))
}

/// Row `i` of the Jacobian by the adjoint derivatives (seed: the unit vector
/// of derivative `i`) against column `i` of the directional ones' transpose;
/// `Ok` holds the largest difference relative to the largest entry.
unsafe fn adjoint<A: Exchange>(
    d: &Driver<A>,
    knowns: &[u32],
    jacobian: &[Vec<f64>],
) -> Result<f64, String> {
    let (api, c, me) = (d.api, d.c, d.me);
    let nx = me.derivatives.len();
    let largest = jacobian
        .iter()
        .flatten()
        .fold(0.0f64, |m, a| m.max(a.abs()));
    let (mut seed, mut row) = (vec![0.0; nx], vec![0.0; knowns.len()]);
    let mut worst = 0.0f64;
    for i in 0..nx {
        let what = format!(
            "{} of the derivative of value reference {} by the states and inputs",
            d.n.adjoint, me.derivatives[i]
        );
        seed.iter_mut().for_each(|s| *s = 0.0);
        seed[i] = 1.0;
        announce(&what);
        let status = api.adjoint(c, &me.derivatives, knowns, &seed, &mut row);
        let status = status.ok_or_else(|| {
            format!(
                "providesAdjointDerivatives=\"true\", but the binary does not export {}",
                d.n.adjoint
            )
        })?;
        d.call(&what, || status)?;
        for (j, column) in jacobian.iter().enumerate() {
            let err = (row[j] - column[i]).abs();
            // Written so that a NaN fails too.
            if !(err <= ADJOINT_TOLERANCE * largest) {
                return Err(format!(
                    "{what} gives {} by value reference {} where {} gives {}",
                    row[j], knowns[j], d.n.directional, column[i]
                ));
            }
            if largest > 0.0 {
                worst = worst.max(err / largest);
            }
        }
    }
    Ok(worst)
}

/// Known `j` (a state below the number of states, else input `vr`) set to `value`.
unsafe fn set_known<A: Exchange>(
    d: &Driver<A>,
    x: &[f64],
    j: usize,
    vr: u32,
    value: f64,
) -> Result<(), String> {
    if j < x.len() {
        let mut moved = x.to_vec();
        moved[j] = value;
        return d.set_states(&moved);
    }
    let (api, c) = (d.api, d.c);
    d.call(d.n.set_reals, || api.set_reals(c, &[vr], &[value]))
}
