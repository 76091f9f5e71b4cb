//! Integration tests of lcsfmu, in one binary.
//!
//! Contents:
//! - `alloc`        a counting allocator shared by the allocation tests
//! - `lcp_alloc`    the LCP solver allocates nothing on any path
//! - `models`       every bundled model against validation.md (through `simulate`)
//! - `instance`     the FMI life cycle: illegal calls, bad values, failed steps,
//!   FMU-state replay and serialization, reset, zero-allocation steps
//! - `model_exchange` the Model Exchange life cycle: refusals, an Euler importer on the
//!   relay (one event, then sliding), zero allocations per call
//! - `me_nonlinear`   Model Exchange of buck_pwm: time events at the switching instants,
//!   nothing allocated per call, a step past a time event asks for Event Mode;
//!   outputs follow `fmi2SetTime` alone (diode_bridge_source)
//! - `model_exchange3` FMI 3.0's additions: named indicators == get_event_indicators bit
//!   for bit, a Co-Simulation instance's indicators, adjoint == transposed Jacobian
//! - `nonlinear`    the Newton step: sources in time against input tables, convergence
//!   order, line search, failed steps, FMU-state replay
//! - `sources`      sources in time on a model linear in its unknowns: one LCP per
//!   step; the driven stick–slip oscillator at every step size, bit for bit its
//!   twin driven through an input; the Newton step on the same with a nonlinear term
//! - `random_models` random models in the signal form (2–6 states, every block type,
//!   sources in time, smooth nonlinear terms, states at 0, h from 1e-4 to 0.1, both θ):
//!   10^4 steps each without a discarded step
//! - `pwm_grid`     buck_pwm's switch read from the inductor current against the carrier
//!   on the floating-point step grid: the ties `time/T` rounding decides, the realized
//!   duty; a carrier half a step off the grid has none
//! - `nonlinear_events` the event-driven scheme on nonlinear models: a nonlinear guard
//!   against its exact time, a source in time against the theta-method, a free pair's
//!   failed Newton iteration, FMU-state replay, zero-allocation steps
//! - `time_events`  jumps of sources in time under the event-driven scheme: a PWM-driven
//!   clamp against its closed form, `buck_pwm`'s average, replay, zero allocations
//! - `golden_csv`   SHA-256 of `simulate`'s CSV for every bundled model at its own step
//!   and at 0.0007 against `tests/data/golden/simulate_csv.sha256` (rewritten with
//!   `LCSFMU_UPDATE_GOLDEN=1`); the CLI prints the very bytes hashed
//! - `model_errors` the corpus of bad model files in `tests/data/bad/`
//! - `netlist`      SPICE netlists: the corpus of bad netlists in `tests/data/bad_netlist/`
//!   (each refused with `file:line` and the reason), small circuits' matrices against
//!   hand-derived ones, SPICE's reading details, arbitrary text
//! - `netlist_circuits` the bundled circuits against Siconos' DiodeBridge result, the
//!   matrix model of the same circuit, the half-wave rectifier's closed form, and ngspice
//!   (where installed) within the derived device and step differences
//! - `netlist_elements` controlled sources E F G H and coupled inductors K against
//!   discrete closed forms, subcircuits against the flat bridge bit for bit, `.save`
//!   choosing the outputs, and ngspice (where installed)
//! - `netlist_toml` a netlist inside a TOML model: an FMU input as a source (bit for bit
//!   the netlist's own source), outputs over the circuit's quantities, refusals at the
//!   file's lines
//! - `netlist_random` random RC/RL/RLC ladders with diodes and sources in time, states at
//!   0, h from 1e-4 to 0.1, both θ: every step taken
//! - `description`  modelDescription.xml: golden file and structural rules
//! - `coupled`      the coupled bead column (dense contact LCP, N = 100): every step solved
//! - `friction_column` the columns of 10 and 30 beads with Coulomb friction (dense, Lemke): 1000
//!   steps through `simulate`, each contact's percussions within Coulomb's cone
//! - `long_chain`   the struck bead column at N = 10,000 (band contact LCP): every step
//!   solved to the end, the floor's percussions and gravity account for the momentum
//! - `event`        the event-driven scheme: switching times and states against closed
//!   forms, accumulation, events at communication points, FMU-state replay
//! - `blocks`       the signal form: lowering against matrix models, feedthrough of
//!   inputs into block outputs, block parameters checked at initialization
//! - `mech_nonlinear` mechanical models with nonlinear forces and gaps: linear models keep
//!   the linear stepper, the Newton loop, failed steps, FMU-state replay
//! - `mass_matrix`  a configuration-dependent mass matrix: a step where it is not positive
//!   definite is discarded, the double pendulum's FMU states replay and match Siconos 4.4
//!   converged, random M(q) models
//! - `constraints`  equality constraints: the Cartesian pendulum's rate and drift, its
//!   FMU states, the same in millimetres, dependent rows solved or discarded by name
//! - `mechanics`    mechanical models: parameters checked at initialization,
//!   `[defines]`, the contact LCP matrices, friction under Moreau–Jean
//! - `siconos_options` gamma and the direct projection: Siconos' bouncing-ball
//!   example against its result file, the default gamma bit for bit
//! - `tiny_steps`   a master that accumulates its time: the tiny last step keeps the
//!   multipliers of its mode
//! - `units`        bundled models in grams and milliamperes: the same active set at every
//!   step, the same trajectories after unscaling
//! - `woodpecker`   Siconos' Woodpecker example against Siconos' result file, and the
//!   same motion in grams and in millimetres (same contact modes, same trajectory)
//! - `docs`         documentation/index.html: well-formed, every variable, law, matrix
//!   and plotted series of each bundled model; capped matrices; the page inside the FMU
//! - `plot`         `simulate --plot`: SVG and PNG read back (series, legend, titles),
//!   `--plot-vars`, the cap per panel, an FMU plotted like its model file
//!
//! The built FMU binaries, through a second importer (the `fmi` crate):
//! - `fmus`           builds every model once per process into `target/conformance/`,
//!   imports it, drives raw instances (`Raw`)
//! - `log_capture`    what each instance logged, through the crate's printf-style logger
//! - `importer`       state replay and serialization, reset, two alternated and eight
//!   threaded instances, resource locations, NULL callbacks, wrong GUID, Model Exchange
//! - `abuse`          every function in every state the standard forbids, bad arguments
//!   of legal calls, damaged and foreign FMU states, a NULL instance
//! - `numeric`        non-finite values, extreme step sizes, infeasible and overflowing
//!   parameters, an LCP beyond the pivot budget
//! - `call_sequences` 10,000 seeded random call sequences (status histogram printed)
//! - `random_calls`   one random FMI 2.0 call of those sequences, legal or illegal arguments
//! - `sequence_args`  what every random sequence draws from: the seeded generator, numbers,
//!   value references, bytes to deserialize, seed and count from the environment
//! - `sequence_rules` the rules every random call is judged by (FMI 2.0 and 3.0), the
//!   status histogram and the closing assertions
//! - `call_sequences_me` 10,000 seeded random sequences on Model Exchange instances: ME
//!   calls in any state, NaN states and times, time backwards, wrong sizes, NULL arrays,
//!   Co-Simulation calls; refused calls change nothing an importer can read
//! - `me_calls`       its targets, observations and random Model Exchange calls
//! - `forced_panic`   a template built to panic in `fmi2DoStep`: fmi2Fatal, the message
//!   logged, every later call refused, the process and the library usable
//! - `fmi3`           FMI 3.0: `--fmi 3` archive passes `check`; Event Mode and early
//!   return of the core instance on rlc_diode
//! - `importer3`      FMI 3.0 FMUs through the `fmi` crate == the core instance, bit for
//!   bit, with and without Event Mode; the early return at rlc_diode's switch
//! - `call_sequences3` seeded random FMI 3.0 call sequences (status histogram printed)
//! - `random_calls3`  one random FMI 3.0 call of those sequences; DoStep and
//!   UpdateDiscreteStates with their out-parameters
//! - `sequences3_instance` the FMI 3.0 instances those sequences drive, through raw bindings
//! - `importer3_me`   FMI 3.0 Model Exchange FMUs through the `fmi` crate: an Euler
//!   importer with located events == the core instance, bit for bit
//! - `fmu_check`      `lcsfmu check FILE.fmu`: every bundled FMU passes; broken copies
//!   (edited XML, bad entries, a renamed symbol) fail with exactly the expected line
//! - `me_check`       `lcsfmu check` on the `me` and `cs,me` FMUs of every
//!   first-order model: the Model Exchange run in the child passes; descriptions with
//!   wrong counts of states or indicators, or swapped `der(x)` references, fail with one line
//! - `binary_run`     the binary's run in a child process: foreign binaries (gcc-built
//!   from `tests/c/foreign_fmu.c`) that crash (stepping or loading), hang, fail, exit,
//!   fork, hog memory or lack a symbol
//! - `hostile`        hostile archives under `check` and `simulate`: `../` and absolute
//!   entries, symbolic links, zip bombs, a 1 GiB XML; nothing written outside a temporary
//!   directory, a 1 GiB address-space limit
//!
//! The C interface, without building an FMU:
//! - `c_header`     cbindgen's C headers of the template, compiled by gcc with the FMI 2.0
//!   headers of the `fmi-sys` crate; deliberate mistakes that must not compile
//!
//! FMPy tests the same binaries from Python (`tests/python`), and compares its
//! numbers with the `fmi` crate's (`examples/fmi_cosim.rs`).

mod abuse;
mod alloc;
mod binary_run;
mod blocks;
mod build_first_steps;
mod c_header;
mod call_sequences;
mod call_sequences3;
mod call_sequences3_me;
mod call_sequences_me;
mod compare_cli;
mod constraints;
mod coupled;
mod description;
mod docs;
mod event;
mod exchange;
mod fmi3;
mod fmi3_check;
mod fmu_check;
mod fmus;
mod forced_panic;
mod friction_column;
mod golden_csv;
mod hostile;
mod importer;
mod importer3;
mod importer3_me;
mod instance;
mod lcp_alloc;
mod log_capture;
mod long_chain;
mod mass_matrix;
mod me3_calls;
mod me3_check;
mod me3_target;
mod me_calls;
mod me_check;
mod me_nonlinear;
mod mech_nonlinear;
mod mech_schemes;
mod mechanics;
mod model_errors;
mod model_exchange;
mod model_exchange3;
mod models;
mod netlist;
mod netlist_circuits;
mod netlist_elements;
mod netlist_random;
mod netlist_toml;
mod nonlinear;
mod nonlinear_events;
mod numeric;
mod plot;
mod pwm_grid;
mod random_calls;
mod random_calls3;
mod random_models;
mod sampled;
mod sampled_me;
mod sequence_args;
mod sequence_rules;
mod sequences3_instance;
mod siconos_options;
mod siconos_pendulum_on_slider;
mod siconos_rocking_block;
mod sources;
mod theta_gamma;
mod time_events;
mod tiny_steps;
mod units;
mod woodpecker;
mod zoh;

use lcsfmu::instance::Instance;
use lcsfmu::model::{validate, Model};
use lcsfmu::tool::simulate::{self, Options, Trajectory};
use std::path::{Path, PathBuf};

/// Path of a bundled model.
pub fn model_path(stem: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    // A bundled circuit is a netlist; no stem is both.
    let netlist = dir.join(format!("{stem}.cir"));
    if netlist.is_file() {
        return netlist;
    }
    dir.join(format!("{stem}.toml"))
}

/// A bundled model, validated.
pub fn model(stem: &str) -> Model {
    validate::load(&model_path(stem)).unwrap_or_else(|e| panic!("{e}"))
}

/// A bundled model with its text edited (`from` must occur).
pub fn model_edited(stem: &str, from: &str, to: &str) -> Model {
    let text = std::fs::read_to_string(model_path(stem)).unwrap();
    assert!(text.contains(from), "{stem} has no '{from}'");
    validate::from_str(&text.replace(from, to), &model_path(stem)).unwrap_or_else(|e| panic!("{e}"))
}

/// Simulates and insists on a complete run.
pub fn run(model: Model, opts: Options) -> Trajectory {
    let t = simulate::run(model, "{test}", &opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.failure, None);
    t
}

/// One recorded column by name.
pub fn column(t: &Trajectory, name: &str) -> Vec<f64> {
    let j = t
        .header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name}"));
    t.rows.iter().map(|r| r[j]).collect()
}

/// The rows of a reference table in `tests/data` (comma-separated numbers;
/// lines starting with `#` say where the figures come from; a header line of
/// column names is skipped).
pub fn reference_rows(file: &str) -> Vec<Vec<f64>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // Comments start with '#'; a header line of column names, with a letter.
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with(|c: char| c.is_ascii_alphabetic()))
        .map(|l| l.split(',').map(|x| x.trim().parse().unwrap()).collect())
        .collect()
}

/// `|a - b| <= tol * max(1, |b|)`, validation.md's rule.
pub fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

/// An instance of `m` initialized at time 0, no stop time.
pub fn initialized(m: Model) -> Instance {
    let mut i = Instance::new(m, "{g}");
    i.setup_experiment(0.0, None).unwrap();
    i.enter_initialization_mode().unwrap();
    i.exit_initialization_mode().unwrap();
    i
}

/// An instance of `m` in Model Exchange's Continuous-Time Mode after
/// initialization and the first event update.
pub fn running_me(m: Model) -> Instance {
    let mut i = Instance::new(m, "test");
    i.use_model_exchange().unwrap();
    i.setup_experiment(0.0, None).unwrap();
    i.enter_initialization_mode().unwrap();
    i.exit_initialization_mode().unwrap();
    assert_eq!(i.phase(), lcsfmu::instance::state::Phase::EventMode);
    i.new_discrete_states().unwrap();
    i.enter_continuous_time_mode().unwrap();
    i
}

/// Steps `m` at its experiment's step through `before` steps, serializes the
/// FMU state there, steps on through `after`, restores the state from its
/// bytes and asserts that the same steps give the same states and pairs, bit
/// for bit (`what` names the case in the failure). Returns the pairs after
/// each step of the window, for a caller to check what the window crossed.
pub fn assert_fmu_state_replays(
    m: Model,
    before: usize,
    after: usize,
    what: &str,
) -> Vec<Vec<f64>> {
    let h = m.experiment.step;
    let mut i = initialized(m);
    for k in 0..before {
        i.do_step(k as f64 * h, h).unwrap();
    }
    let bytes = i.serialize(&i.snapshot());
    let run = |i: &mut Instance| {
        let (mut bits, mut pairs) = (Vec::new(), Vec::new());
        for k in before..after {
            i.do_step(k as f64 * h, h).unwrap();
            bits.extend(i.states().iter().chain(i.pairs()).map(|v| v.to_bits()));
            pairs.push(i.pairs().to_vec());
        }
        (bits, pairs)
    };
    let (first, pairs) = run(&mut i);
    let back = i.deserialize(&bytes).unwrap();
    i.restore(&back).unwrap();
    assert_eq!(run(&mut i).0, first, "{what}");
    pairs
}
