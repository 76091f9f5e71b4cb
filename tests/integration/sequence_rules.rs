//! The rules every random call sequence is judged by, FMI 2.0 and 3.0 alike
//! (`call_sequences`, `call_sequences3`), and the histogram they report.
//!
//! Around each call the sequence reads the instance ([`Before::read`]: its
//! time, its outputs, its serialized state, and the log emptied), and after it
//! [`judge`] asserts:
//! - the status is OK, Warning, Discard or Error: never Fatal (a caught panic)
//!   and never Pending or a value outside the enumeration;
//! - every status other than OK comes with a logged message when a logger exists;
//! - a discarded step keeps the outputs of the last good (sub-)step: the
//!   outputs from before the call when the time did not move;
//! - a call that returns Error changes nothing (the serialized FMU state is the
//!   same bytes), except leaving initialization, whose failure is the error
//!   state itself.
//!
//! At the end [`report`] prints and writes the histogram and asserts that every
//! outcome occurred (so the sequences reached every kind of state), that none
//! was Fatal or out of range, and that more steps succeeded than there were
//! sequences.

use std::collections::BTreeMap;

const OK: u32 = 0;
const DISCARD: u32 = 2;
const ERROR: u32 = 3;

/// What the rules read from an instance under test (an FMI 2.0 `Raw`, an FMI
/// 3.0 `Instance3`).
pub trait Observed {
    /// The messages logged since the last call, taken out of the log.
    fn messages(&mut self) -> Vec<String>;
    /// The status of reading the Float64 (Real) variables `vrs`, and their values.
    fn read(&mut self, vrs: &[u32]) -> (u32, Vec<f64>);
    /// The serialized FMU state: equal bytes before and after a call prove
    /// that the call changed nothing.
    fn state_bytes(&mut self) -> Vec<u8>;
}

/// The instance as read before a call.
pub struct Before {
    /// The FMU's time (0 when it cannot be read).
    pub now: f64,
    outputs_readable: u32,
    outputs: Vec<f64>,
    state: Vec<u8>,
}

impl Before {
    /// Reads `r` before a call: time first (in initialization mode reads
    /// update the multipliers), then the outputs and the state; empties the log.
    pub fn read(r: &mut impl Observed, outputs: &[u32]) -> Before {
        let now = match r.read(&[0]) {
            (OK, v) => v[0],
            _ => 0.0,
        };
        let (outputs_readable, values) = r.read(outputs);
        let state = r.state_bytes();
        r.messages();
        Before {
            now,
            outputs_readable,
            outputs: values,
            state,
        }
    }
}

/// One call as the rules see it.
pub struct Call<'a> {
    pub function: &'static str,
    pub status: u32,
    /// Whether the instance was given a logger.
    pub logger: bool,
    /// The function whose Error is allowed to change the state
    /// (`fmi2ExitInitializationMode`, `fmi3ExitInitializationMode`).
    pub error_state_from: &'static str,
    /// What names the call in a failed assertion.
    pub context: &'a dyn Fn() -> String,
}

/// Asserts the rules of the module text on one call of `r`, read `before` it.
pub fn judge(r: &mut impl Observed, before: &Before, outputs: &[u32], call: Call) {
    let Call {
        function,
        status,
        logger,
        error_state_from,
        context,
    } = call;
    assert!(status <= ERROR, "{}: status {status}", context());
    let logged = r.messages();
    if status != OK && logger {
        assert!(
            !logged.is_empty() && logged.iter().all(|l| !l.is_empty()),
            "{}: status {status} without a message",
            context()
        );
    }
    if status == DISCARD && before.outputs_readable == OK {
        // A step split into sub-steps (`max_step`) keeps the state of its last
        // good sub-step, at the time it reports; only a discard at the step's
        // start must leave the outputs as they were.
        let now = match r.read(&[0]) {
            (OK, v) => v[0],
            _ => before.now,
        };
        assert!(
            now >= before.now,
            "{}: a discard went back to t = {now}",
            context()
        );
        if now == before.now {
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            let after = r.read(outputs).1;
            assert_eq!(
                bits(&after),
                bits(&before.outputs),
                "{}: a discard at the step's start moved the state",
                context()
            );
        }
    }
    if status == ERROR && function != error_state_from {
        assert!(
            r.state_bytes() == before.state,
            "{}: refused, but the instance changed",
            context()
        );
    }
}

/// Statuses per FMI function.
#[derive(Default)]
pub struct Histogram(pub BTreeMap<&'static str, [usize; 6]>);

impl Histogram {
    pub fn add(&mut self, function: &'static str, status: u32) {
        self.0.entry(function).or_default()[status.min(5) as usize] += 1;
    }
    pub fn total(&self) -> [usize; 6] {
        let mut t = [0; 6];
        for row in self.0.values() {
            for (a, b) in t.iter_mut().zip(row) {
                *a += b;
            }
        }
        t
    }
    pub fn table(&self) -> String {
        let mut s = format!(
            "{:<30}{:>9}{:>9}{:>9}{:>9}{:>7}\n",
            "function", "OK", "Warning", "Discard", "Error", "Fatal"
        );
        let rows = self.0.iter().map(|(k, v)| (*k, *v));
        for (name, r) in rows.chain(std::iter::once(("total", self.total()))) {
            s += &format!(
                "{name:<30}{:>9}{:>9}{:>9}{:>9}{:>7}\n",
                r[0],
                r[1],
                r[2],
                r[3],
                r[4] + r[5]
            );
        }
        s
    }
}

/// Prints `headline` and the histogram, writes them to
/// `target/conformance/<file>`, and asserts the module text's closing rules
/// (`step` names the version's step function). Returns the summary.
pub fn report(
    histogram: &Histogram,
    headline: String,
    file: &str,
    sequences: usize,
    step: &str,
) -> String {
    let total = histogram.total();
    let summary = format!("{headline}\n{}", histogram.table());
    println!("{summary}");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/conformance");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(file), &summary).unwrap();
    assert!(
        total[0] > 0 && total[1] > 0 && total[2] > 0 && total[3] > 0,
        "{summary}"
    );
    assert_eq!(total[4] + total[5], 0);
    let steps_ok = histogram.0[step][0];
    assert!(
        steps_ok > sequences,
        "only {steps_ok} successful steps:\n{summary}"
    );
    summary
}
