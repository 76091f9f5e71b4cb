//! Co-simulates an FMU through the `fmi` crate, a second importer: the FMPy
//! tests run this command and compare its numbers with FMPy's bit for bit
//! (`tests/python/test_second_importer.py`).
//!
//! ```text
//! cargo run --release --example fmi_cosim -- FMU --stop T --step H [--start T0]
//!     [--set NAME=VALUE]... [--input FILE.csv] [-o OUT.csv]
//! ```
//!
//! It drives the FMU the way FMPy's co-simulation loop does, so that equal
//! numbers mean the FMU answers two importers alike: start values set before
//! initialization, communication points `start + k * step` with the last one
//! clipped to the stop time (a point within `math.isclose` of the stop ends the
//! run), inputs interpolated linearly in the table (held outside it) and set at
//! each point before the step, the outputs read after it. On `fmi2Discard` with
//! `fmi2Terminated` the run ends with a row at `fmi2LastSuccessfulTime`. The
//! result is CSV (`time` and every output in model-description order) with
//! numbers in shortest round-trip form; exit status 1 on any failure.

use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::instance::{CoSimulation, Common, InstanceCS};
use fmi::fmi2::schema::Causality;
use fmi::fmi2::{Fmi2Error, Fmi2Res};
use fmi::traits::FmiImport;
use std::io::Write;

struct Args {
    fmu: String,
    start: f64,
    stop: f64,
    step: f64,
    sets: Vec<(String, f64)>,
    input: Option<String>,
    out: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let mut a = Args {
        fmu: String::new(),
        start: 0.0,
        stop: f64::NAN,
        step: f64::NAN,
        sets: Vec::new(),
        input: None,
        out: None,
    };
    let number = |v: Option<String>, flag: &str| {
        v.and_then(|s| s.parse::<f64>().ok())
            .ok_or(format!("{flag} needs a number"))
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--start" => a.start = number(args.next(), "--start")?,
            "--stop" => a.stop = number(args.next(), "--stop")?,
            "--step" => a.step = number(args.next(), "--step")?,
            "--set" => {
                let s = args.next().ok_or("--set needs NAME=VALUE")?;
                let (name, value) = s.split_once('=').ok_or("--set needs NAME=VALUE")?;
                a.sets
                    .push((name.to_string(), number(Some(value.into()), "--set")?));
            }
            "--input" => a.input = Some(args.next().ok_or("--input needs a file")?),
            "-o" => a.out = Some(args.next().ok_or("-o needs a file")?),
            _ if a.fmu.is_empty() && !arg.starts_with('-') => a.fmu = arg,
            _ => return Err(format!("unexpected argument {arg}")),
        }
    }
    if a.fmu.is_empty() || !a.stop.is_finite() || !(a.step > 0.0) {
        return Err("usage: fmi_cosim FMU --stop T --step H [--start T0] [--set NAME=VALUE]... [--input FILE.csv] [-o OUT.csv]".into());
    }
    Ok(a)
}

/// Python's `math.isclose` with its default tolerances.
fn isclose(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// A CSV table `time,<input names>` with rows in increasing time.
struct Table {
    names: Vec<String>,
    times: Vec<f64>,
    rows: Vec<Vec<f64>>,
}

impl Table {
    fn read(path: &str) -> Result<Table, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        let mut lines = text.lines();
        let header: Vec<String> = lines
            .next()
            .ok_or(format!("{path}: empty"))?
            .split(',')
            .map(|s| s.trim().to_string())
            .collect();
        if header.first().map(String::as_str) != Some("time") {
            return Err(format!("{path}: the first column must be time"));
        }
        let (mut times, mut rows) = (Vec::new(), Vec::new());
        for line in lines.filter(|l| !l.trim().is_empty()) {
            let v = line
                .split(',')
                .map(|s| s.trim().parse::<f64>())
                .collect::<Result<Vec<f64>, _>>()
                .map_err(|e| format!("{path}: {e}"))?;
            if v.len() != header.len() {
                return Err(format!("{path}: a row has {} columns", v.len()));
            }
            times.push(v[0]);
            rows.push(v[1..].to_vec());
        }
        Ok(Table {
            names: header[1..].to_vec(),
            times,
            rows,
        })
    }

    /// The values at `t`: held before the first and after the last row,
    /// otherwise `w0 v0 + w1 v1` between the rows around it, as FMPy computes them.
    fn at(&self, t: f64) -> Vec<f64> {
        let i1 = self.times.partition_point(|&x| x < t);
        if i1 == 0 {
            return self.rows[0].clone();
        }
        if i1 == self.times.len() {
            return self.rows[i1 - 1].clone();
        }
        let (t0, t1) = (self.times[i1 - 1], self.times[i1]);
        let w0 = (t1 - t) / (t1 - t0);
        let w1 = 1.0 - w0;
        self.rows[i1 - 1]
            .iter()
            .zip(&self.rows[i1])
            .map(|(v0, v1)| w0 * v0 + w1 * v1)
            .collect()
    }
}

fn check(what: &str, r: Result<Fmi2Res, Fmi2Error>) -> Result<(), String> {
    match r {
        Ok(Fmi2Res::OK) | Ok(Fmi2Res::Warning) => Ok(()),
        other => Err(format!("{what}: {other:?}")),
    }
}

fn run(a: &Args) -> Result<String, String> {
    let import: Fmi2Import =
        fmi::import::from_path(&a.fmu).map_err(|e| format!("{}: {e}", a.fmu))?;
    let variables = &import.model_description().model_variables.variables;
    let vr = |name: &str| {
        variables
            .iter()
            .find(|v| v.name == name)
            .map(|v| v.value_reference)
            .ok_or(format!("no variable {name}"))
    };
    let outputs: Vec<_> = variables
        .iter()
        .filter(|v| v.causality == Causality::Output)
        .collect();
    let output_vrs: Vec<u32> = outputs.iter().map(|v| v.value_reference).collect();
    let table = a.input.as_deref().map(Table::read).transpose()?;
    let input_vrs = match &table {
        Some(t) => t
            .names
            .iter()
            .map(|n| vr(n))
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
    };

    let mut inst: InstanceCS = import
        .instantiate_cs("fmi_cosim", false, false)
        .map_err(|e| format!("fmi2Instantiate: {e}"))?;
    check(
        "fmi2SetupExperiment",
        Common::setup_experiment(&mut inst, None, a.start, Some(a.stop)),
    )?;
    for (name, value) in &a.sets {
        check(
            &format!("setting {name}"),
            inst.set_real(&[vr(name)?], &[*value]),
        )?;
    }
    check(
        "fmi2EnterInitializationMode",
        Common::enter_initialization_mode(&mut inst),
    )?;
    let apply = |inst: &mut InstanceCS, t: f64| match &table {
        Some(table) => check(
            "setting the inputs",
            inst.set_real(&input_vrs, &table.at(t)),
        ),
        None => Ok(()),
    };
    apply(&mut inst, a.start)?;
    check(
        "fmi2ExitInitializationMode",
        Common::exit_initialization_mode(&mut inst),
    )?;

    let mut csv = String::from("time");
    for v in &outputs {
        csv += &format!(",{}", v.name);
    }
    csv.push('\n');
    let mut values = vec![0.0; output_vrs.len()];
    let mut record = |inst: &mut InstanceCS, t: f64, csv: &mut String| {
        check("fmi2GetReal", inst.get_real(&output_vrs, &mut values))?;
        *csv += &format!("{t:e}");
        for v in &values {
            *csv += &format!(",{v:e}");
        }
        csv.push('\n');
        Ok::<(), String>(())
    };
    let mut time = a.start;
    record(&mut inst, time, &mut csv)?;
    let mut n = 0u64;
    while !(time > a.stop || isclose(time, a.stop)) {
        let mut next = a.start + (n + 1) as f64 * a.step;
        if next > a.stop && !isclose(next, a.stop) {
            next = a.stop;
        }
        apply(&mut inst, time)?;
        match inst.do_step(time, next - time, true) {
            Ok(_) => time = next,
            Err(Fmi2Error::Discard) => {
                if inst
                    .terminated()
                    .map_err(|e| format!("fmi2GetBooleanStatus: {e}"))?
                {
                    time = inst
                        .last_successful_time()
                        .map_err(|e| format!("fmi2GetRealStatus: {e}"))?;
                    record(&mut inst, time, &mut csv)?;
                    break;
                }
            }
            Err(e) => return Err(format!("fmi2DoStep at t = {time}: {e}")),
        }
        record(&mut inst, time, &mut csv)?;
        n += 1;
    }
    check("fmi2Terminate", Common::terminate(&mut inst))?;
    Ok(csv)
}

fn main() {
    let result = parse_args().and_then(|a| {
        let csv = run(&a)?;
        match &a.out {
            Some(path) => std::fs::write(path, csv).map_err(|e| format!("{path}: {e}")),
            None => std::io::stdout()
                .write_all(csv.as_bytes())
                .map_err(|e| e.to_string()),
        }
    });
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
