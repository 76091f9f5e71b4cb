//! `lcsfmu simulate`: run a model in process, as an FMI master would.
//!
//! The loop drives an [`Instance`] exactly as FMPy's co-simulation loop drives an
//! FMU: setup, start values, initialization with the inputs at the start time,
//! then communication points `t_k = start + k * step` (a product, never a running
//! sum), the last one clipped to the stop time, inputs applied at each point
//! (linear interpolation of the input table, held beyond its ends), outputs
//! recorded after every step. Because the instance is the FMU's own core, the
//! figures agree with FMPy's to rounding of the input interpolation.

use crate::error::Error;
use crate::instance::variables::{self, Kind};
use crate::instance::Instance;
use crate::model::Model;
use std::io::Write;

/// Time-varying inputs: a time column and one column per input name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InputTable {
    pub names: Vec<String>,
    pub time: Vec<f64>,
    /// `columns[j][k]`: input `names[j]` at `time[k]`.
    pub columns: Vec<Vec<f64>>,
}

impl InputTable {
    /// Reads CSV with a header `time,<input names...>` and increasing times.
    pub fn from_csv(text: &str) -> Result<InputTable, String> {
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let header: Vec<&str> = lines
            .next()
            .ok_or("the input file is empty")?
            .split(',')
            .map(str::trim)
            .collect();
        if header.first() != Some(&"time") {
            return Err("the first column of the input file must be 'time'".into());
        }
        let mut table = InputTable {
            names: header[1..].iter().map(|s| s.to_string()).collect(),
            time: vec![],
            columns: vec![vec![]; header.len() - 1],
        };
        for (row, line) in lines.enumerate() {
            let cells: Vec<&str> = line.split(',').map(str::trim).collect();
            if cells.len() != header.len() {
                return Err(format!(
                    "input row {}: {} values for {} columns",
                    row + 1,
                    cells.len(),
                    header.len()
                ));
            }
            let mut values = cells.iter().map(|c| {
                c.parse::<f64>()
                    .map_err(|_| format!("input row {}: '{c}' is not a number", row + 1))
            });
            let t = values.next().expect("at least the time column")?;
            if table.time.last().is_some_and(|last| !(t >= *last)) || !t.is_finite() {
                return Err(format!("input row {}: time {t} is not increasing", row + 1));
            }
            table.time.push(t);
            for (col, v) in table.columns.iter_mut().zip(values) {
                col.push(v?);
            }
        }
        if table.time.is_empty() {
            return Err("the input file has no rows".into());
        }
        Ok(table)
    }

    /// Column `j` at time `t`: linear between samples, held outside.
    pub fn value(&self, j: usize, t: f64) -> f64 {
        let (ts, vs) = (&self.time, &self.columns[j]);
        let i = ts.partition_point(|&s| s < t);
        if i == 0 {
            return vs[0];
        }
        if i == ts.len() {
            return vs[ts.len() - 1];
        }
        let (t0, t1, v0, v1) = (ts[i - 1], ts[i], vs[i - 1], vs[i]);
        if t == t1 {
            return v1;
        }
        v0 + (v1 - v0) * (t - t0) / (t1 - t0)
    }
}

/// What to simulate; `None` takes the model's default experiment.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub start: Option<f64>,
    pub stop: Option<f64>,
    pub step: Option<f64>,
    /// Parameters, state start values and constant inputs by name.
    pub sets: Vec<(String, f64)>,
    pub inputs: Option<InputTable>,
}

/// Recorded results: `rows[k] = [time, outputs...]` in `ModelVariables` order.
#[derive(Clone, Debug, PartialEq)]
pub struct Trajectory {
    pub header: Vec<String>,
    pub rows: Vec<Vec<f64>>,
    /// Why the run ended early (a discarded step), if it did.
    pub failure: Option<String>,
    /// What the Newton iterations took, for a model with nonlinear dynamics.
    pub newton: Option<crate::scheme::NewtonStats>,
    /// What the event-driven scheme took over the run, when it ran.
    pub events: Option<crate::scheme::event::StepReport>,
}

impl Trajectory {
    /// CSV with a header `time,<names...>`; numbers in shortest round-trip form
    /// (Rust's `{:?}` of `f64`).
    ///
    /// Each number is formatted straight into one buffer: a `String` per
    /// value and per row was most of what `simulate` did (78 % of its
    /// instructions on a 10^5-step run, malloc and free alone 20 %). The
    /// buffer also spares a line-buffered `out` (standard output) a write per
    /// row.
    pub fn write_csv(&self, out: impl Write) -> std::io::Result<()> {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
        let mut digits = zmij::Buffer::new();
        writeln!(out, "{}", self.header.join(","))?;
        for row in &self.rows {
            for (k, &v) in row.iter().enumerate() {
                if k > 0 {
                    out.write_all(b",")?;
                }
                write_number(&mut out, &mut digits, v)?;
            }
            out.write_all(b"\n")?;
        }
        out.flush()
    }
}

/// Writes `v` exactly as `{:?}` does, which is most of `simulate` on long runs
/// when `core::fmt` does it; `zmij` writes the same digits several times
/// faster. Both write the shortest digits that read back to `v`, the closest
/// to `v` when several are that short, in fixed notation with at least one
/// decimal (`0.001`, `1.0`) for `1e-4 <= |v| < 1e16` and as `1.5e-7` below;
/// `zmij` writes the exponent as `e-07`, rewritten here. They part where two
/// closest candidates are equally close, a tie `{:?}` breaks upwards and
/// `zmij` to even (`27629683642.8828125`, see [`may_tie`]), and where their
/// layouts switch (`zmij` keeps `0.00001` fixed, `{:?}` writes `1e-5`):
/// `{:?}` writes those numbers, and subnormals, `|v| >= 1e16` and non-finite
/// ones; zeros are written here.
#[inline]
fn write_number(out: &mut impl Write, digits: &mut zmij::Buffer, v: f64) -> std::io::Result<()> {
    let a = v.abs();
    if a == 0.0 {
        // Common (a multiplier at rest), and `{:?}`'s slowest path for its size.
        return out.write_all(if v.is_sign_negative() {
            b"-0.0"
        } else {
            b"0.0"
        });
    }
    let fixed = (1e-4..1e16).contains(&a);
    if !(fixed || (f64::MIN_POSITIVE..1e-5).contains(&a)) || may_tie(a) {
        return write!(out, "{v:?}");
    }
    let text = digits.format_finite(v).as_bytes();
    match text.iter().position(|&c| c == b'e') {
        None => out.write_all(text),
        Some(e) => {
            out.write_all(&text[..=e])?;
            let (sign, exponent) = text[e + 1..].split_at(1);
            if sign == b"-" {
                out.write_all(b"-")?;
            }
            let first = exponent.iter().position(|&c| c != b'0').unwrap_or(0);
            out.write_all(&exponent[first..])
        }
    }
}

/// Whether the shortest digits of the normal, positive `a` may be a tie. A
/// tie between two `L`-digit candidates puts `a` at their midpoint, so its
/// exact decimal expansion has `L + 1 <= 18` significant digits. With `a = m
/// 2^e`, `m` odd: an integer (`e >= 0`) below 1e16 has at most 16 digits and
/// candidates at least a unit apart, so no tie; otherwise the expansion ends
/// `-e` places after the point and starts at the place of `10^floor(log10 a)`,
/// so it has `-e + floor(log10 a) + 1` significant digits, at least `-e +
/// floor(E log10 2) + 1` for `a >= 2^E`. Only a count of 20 or more from that
/// bound (one to spare for its rounding) is taken as no tie.
#[inline]
fn may_tie(a: f64) -> bool {
    let bits = a.to_bits();
    let mantissa = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let e = biased - 1075 + mantissa.trailing_zeros() as i32;
    if e >= 0 {
        return a >= 1e16;
    }
    let lowest_place = ((biased - 1023) as f64 * std::f64::consts::LOG10_2).floor() as i32;
    -e + lowest_place + 1 < 20
}

/// Runs `model` and records every communication point.
pub fn run(model: Model, guid: &str, opts: &Options) -> Result<Trajectory, Error> {
    run_with_progress(model, guid, opts, &mut |_| {})
}

/// [`run`], telling `progress` the fraction of the run done after every
/// communication step (for progress bars; the numbers are the same).
pub fn run_with_progress(
    model: Model,
    guid: &str,
    opts: &Options,
    progress: &mut dyn FnMut(f64),
) -> Result<Trajectory, Error> {
    let e = model.experiment;
    let (start, stop, step) = (
        opts.start.unwrap_or(e.start),
        opts.stop.unwrap_or(e.stop),
        opts.step.unwrap_or(e.step),
    );
    if !(start.is_finite() && stop > start && step > 0.0 && step.is_finite()) {
        return Err(Error::Simulation(format!(
            "start {start}, stop {stop}, step {step} do not define a run"
        )));
    }
    let vars = variables::variables(&model);
    let find = |name: &str| {
        vars.iter().position(|v| v.name == name).ok_or_else(|| {
            let settable: Vec<&str> = vars
                .iter()
                .filter(|v| matches!(v.kind, Kind::Parameter(_) | Kind::State(_) | Kind::Input(_)))
                .map(|v| v.name)
                .collect();
            Error::Simulation(format!(
                "'{name}' is not a variable of {} (settable: {})",
                model.name,
                settable.join(", ")
            ))
        })
    };
    let sets: Vec<(u32, f64)> = opts
        .sets
        .iter()
        .map(|(n, v)| Ok((find(n)? as u32, *v)))
        .collect::<Result<_, Error>>()?;
    let input_vrs: Vec<u32> = match &opts.inputs {
        Some(table) => table
            .names
            .iter()
            .map(|n| match find(n) {
                Ok(vr) if matches!(vars[vr].kind, Kind::Input(_)) => Ok(vr as u32),
                Ok(_) => Err(Error::Simulation(format!(
                    "input table column '{n}' is not an input"
                ))),
                Err(e) => Err(e),
            })
            .collect::<Result<_, _>>()?,
        None => vec![],
    };
    let outputs: Vec<u32> = (0..vars.len() as u32)
        .filter(|&vr| vars[vr as usize].attributes().0 == "output")
        .collect();
    let mut header = vec!["time".to_string()];
    header.extend(outputs.iter().map(|&vr| vars[vr as usize].name.to_string()));
    drop(vars);

    let sim = |e: crate::instance::FmiError| Error::Simulation(e.message);
    let mut inst = Instance::new(model, guid);
    inst.setup_experiment(start, Some(stop)).map_err(sim)?;
    let (vrs, values): (Vec<u32>, Vec<f64>) = sets.into_iter().unzip();
    inst.set_reals(&vrs, &values).map_err(sim)?;
    inst.enter_initialization_mode().map_err(sim)?;
    let mut input_values = vec![0.0; input_vrs.len()];
    let mut warned = false;
    let mut apply_inputs = |inst: &mut Instance, t: f64| -> Result<(), Error> {
        if let Some(table) = &opts.inputs {
            for (j, v) in input_values.iter_mut().enumerate() {
                *v = table.value(j, t);
            }
            match inst.set_reals(&input_vrs, &input_values) {
                // Said once: a lasting condition would repeat it every step.
                Err(e) if e.severity == crate::instance::Severity::Warning => {
                    if !warned {
                        eprintln!(
                            "warning: {} (later warnings of this run are not shown)",
                            e.message
                        );
                        warned = true;
                    }
                }
                other => other.map_err(sim)?,
            }
        }
        Ok(())
    };
    apply_inputs(&mut inst, start)?;
    if let Some(warning) = inst.exit_initialization_mode().map_err(sim)? {
        eprintln!("warning: {warning}");
    }
    let mut row = vec![0.0; outputs.len()];
    let mut record = |inst: &mut Instance, rows: &mut Vec<Vec<f64>>| -> Result<(), Error> {
        inst.get_reals(&outputs, &mut row).map_err(sim)?;
        rows.push(
            std::iter::once(inst.time())
                .chain(row.iter().copied())
                .collect(),
        );
        Ok(())
    };
    // One row per communication point, known in advance: the list of rows is
    // not moved as it grows (capped, so that an absurd run fails in its steps
    // rather than in one allocation).
    let points = ((stop - start) / step).ceil().min(1e7) as usize + 2;
    let mut rows = Vec::with_capacity(points);
    record(&mut inst, &mut rows)?;
    let mut failure = None;
    let mut time = start;
    for k in 1u64.. {
        if time > stop || is_close(time, stop) {
            break;
        }
        let mut next = start + k as f64 * step;
        if next > stop && !is_close(next, stop) {
            next = stop;
        }
        apply_inputs(&mut inst, time)?;
        if let Err(e) = inst.do_step(time, next - time) {
            failure = Some(e.message);
            record(&mut inst, &mut rows)?;
            break;
        }
        time = next;
        record(&mut inst, &mut rows)?;
        progress((time - start) / (stop - start));
    }
    Ok(Trajectory {
        header,
        rows,
        failure,
        newton: inst.newton_stats().cloned(),
        events: inst.run_report(),
    })
}

/// Python's `math.isclose` with its default relative tolerance, as FMPy uses it.
fn is_close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`write_number`] against `{:?}`: boundaries of the fixed range, powers
    /// of ten and their neighbours, integers, ties, and a million pseudo-random
    /// bit patterns, as they are and with 0 to 52 trailing zero bits (short
    /// expansions, where ties are) at any exponent and in the fixed range.
    #[test]
    fn numbers_are_written_as_debug_writes_them() {
        let mut digits = zmij::Buffer::new();
        let mut check = |v: f64| {
            let mut text = Vec::new();
            write_number(&mut text, &mut digits, v).unwrap();
            assert_eq!(String::from_utf8(text).unwrap(), format!("{v:?}"), "{v:e}");
        };
        let mut values = vec![0.0, -0.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY];
        values.extend([f64::MIN_POSITIVE, f64::MAX, f64::MIN, f64::EPSILON, 5e-324]);
        for e in -320..=308 {
            let p = 10f64.powi(e);
            for x in [p, 0.5 * p, 1.5 * p, 9.999999999999999 * p] {
                values.extend([x, -x, f64::from_bits(x.to_bits() + 1)]);
                values.push(f64::from_bits(x.to_bits().saturating_sub(1)));
            }
        }
        values.extend((0..2000).map(|k| k as f64 * 0.001));
        values.extend((0..2000).map(|k| (k as f64).powi(5)));
        // Ties, exact sums of a few bits (`{:?}` rounds them up, zmij to even).
        values.extend([
            27629683642.0 + 113.0 / 128.0,
            1500000000000000.0 + 0.25,
            -(167581363823776.0 + 0.125),
        ]);
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..1_000_000 {
            // xorshift64*: any bit pattern, so every exponent and sign.
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            let r = state.wrapping_mul(0x2545_f491_4f6c_dd1d);
            values.push(f64::from_bits(r));
            // The same bits moved into the fixed range (exponents -14..=53)
            // with 0 to 52 trailing zeros: short expansions, where ties are.
            let exponent = (1023 - 14 + (r >> 58) % 68) << 52;
            let zeros = (r >> 52) % 53;
            let fraction = (r & ((1 << 52) - 1)) >> zeros << zeros;
            values.push(f64::from_bits(exponent | fraction));
            // And at any exponent, with the same trailing zeros.
            values.push(f64::from_bits((r & (0x7ff << 52)) | fraction));
        }
        for v in values {
            check(v);
        }
    }

    #[test]
    fn input_table_interpolates_and_holds() {
        let t = InputTable::from_csv("time, u\n0, 0\n1, 10\n3, 30\n").unwrap();
        assert_eq!(t.value(0, -1.0), 0.0);
        assert_eq!(t.value(0, 0.5), 5.0);
        assert_eq!(t.value(0, 1.0), 10.0);
        assert_eq!(t.value(0, 2.0), 20.0);
        assert_eq!(t.value(0, 9.0), 30.0);
        assert!(InputTable::from_csv("t,u\n0,1\n").is_err());
        assert!(InputTable::from_csv("time,u\n1,1\n0,1\n")
            .unwrap_err()
            .contains("not increasing"));
        assert!(InputTable::from_csv("time,u\n0,x\n")
            .unwrap_err()
            .contains("not a number"));
    }
}
