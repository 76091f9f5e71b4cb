//! The checks of the Model Exchange cycle ([`super::exchange`]) that are more
//! than reading and comparing: calls the state machine forbids, which must be
//! refused with an error and change nothing, and the directional derivatives
//! against central finite differences.
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

use super::exchange::{Exchange, ERROR};
use super::exchange_calls::Driver;
use super::{announce, cycle::Status};

/// Relative step of the finite differences.
const DELTA: f64 = 1e-6;
/// Largest difference from the finite differences, relative to the column's scale.
const TOLERANCE: f64 = 1e-6;

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
/// against central finite differences; `Ok` holds the largest relative
/// difference. Leaves states and inputs as they were, which the derivatives
/// read afterwards must show.
///
/// # Safety
/// `d.c` is a live instance in Continuous-Time Mode at the states `x`.
pub unsafe fn directional<A: Exchange>(d: &Driver<A>, x: &[f64]) -> Result<f64, String> {
    let (api, c, me) = (d.api, d.c, d.me);
    let nx = x.len();
    let mut f = vec![0.0; nx];
    d.derivatives(&mut f)?;
    let (mut column, mut plus, mut minus) = (vec![0.0; nx], vec![0.0; nx], vec![0.0; nx]);
    let mut worst = 0.0f64;
    let knowns = me.states.iter().chain(&me.inputs).copied();
    for (j, vr) in knowns.enumerate() {
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
