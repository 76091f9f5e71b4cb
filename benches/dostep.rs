//! Nanoseconds per `fmi2DoStep` called through the C ABI of built FMUs, and per
//! `fmi3DoStep` of the same models built with `--fmi 3` (same core step, the
//! FMI 3.0 shell; no Event Mode), in the same rounds.
//!
//! Builds the FMUs with the library's own `export::build` (reporting how long a
//! build takes with a warm cache, unchanged and after an edit of the model),
//! extracts each binary, `dlopen`s it and calls the FMI functions as a C master
//! would: no Python, no Rust wrapper in between. A linear model without
//! complementarity (`x' = -x`) built the same way gives the floor that the FMI
//! shell and the theta step cost without any LCP.
//!
//! A peer from outside the project can be measured in the same run: set
//! `LCSFMU_PEER_BOUNCINGBALL` to the `BouncingBall.fmu` of the Modelica Reference
//! FMUs (built from modelica/Reference-FMUs with `-DFMI_VERSION=2
//! -DCMAKE_BUILD_TYPE=Release`; nothing of it is in this repository). It is
//! stepped with its own fixed solver step, 1 ms, so each `fmi2DoStep` is one
//! explicit Euler step without any LCP; without the variable that line and its
//! ratios are left out.
//!
//! The nonlinear step (Newton–Josephy, `vdp_saturation`) is measured beside
//! `vdp_linear`, the same model with its one nonlinear term made linear
//! (`mu*(1 - x1^2)*x2` -> `mu*x2`): same sizes, same blocks, the linear step.
//!
//! The nonlinear Moreau–Jean step (`pendulum_stop`, a Newton loop per step)
//! is measured beside `bouncing_ball`, a linear mechanical model of the same
//! size (one coordinate, one contact).
//!
//! Each model is also built with the prebuilt runtime (`--runtime prebuilt`:
//! one library for every model, the model read from `resources/model.json` at
//! instantiation, run-time sizes) when the tool has one (`LCSFMU_RUNTIME_DIR`,
//! from `scripts/build-runtime.sh`), and both binaries are stepped in the same
//! rounds; the build times of that route are printed too.
//!
//! Run: `cargo bench --bench dostep`. Figures depend on the machine; they are
//! printed, never asserted. The five rounds visit every FMU in turn, so a
//! burst of load on a shared machine hits all of them alike, and the ratios
//! compare minima taken over the same stretch of time.

use lcsfmu::export::{self, BuildEnv};
use lcsfmu::fmi_version::FmiVersion;
use lcsfmu::model::{validate, Model};
use lcsfmu::runtimes::{self, Runtime};
use std::ffi::{c_char, c_int, c_void, CString};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

type Instantiate = unsafe extern "C" fn(
    *const c_char,
    c_int,
    *const c_char,
    *const c_char,
    *const Callbacks,
    c_int,
    c_int,
) -> *mut c_void;
type Setup = unsafe extern "C" fn(*mut c_void, c_int, f64, f64, c_int, f64) -> c_int;
type Simple = unsafe extern "C" fn(*mut c_void) -> c_int;
type DoStep = unsafe extern "C" fn(*mut c_void, f64, f64, c_int) -> c_int;
type Free = unsafe extern "C" fn(*mut c_void);
type Instantiate3 = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const c_char,
    bool,
    bool,
    bool,
    bool,
    *const u32,
    usize,
    *mut c_void,
    *const c_void,
    *const c_void,
) -> *mut c_void;
type Enter3 = unsafe extern "C" fn(*mut c_void, bool, f64, f64, bool, f64) -> c_int;
type DoStep3 = unsafe extern "C" fn(
    *mut c_void,
    f64,
    f64,
    bool,
    *mut bool,
    *mut bool,
    *mut bool,
    *mut f64,
) -> c_int;

#[repr(C)]
struct Callbacks {
    logger: *const c_void,
    allocate: *const c_void,
    free: *const c_void,
    step_finished: *const c_void,
    environment: *mut c_void,
}

struct Fmu {
    lib: *mut c_void,
    guid: CString,
    /// An FMI 3.0 binary (`fmiVersion="3.0"`).
    fmi3: bool,
    /// `file:` URI of the extracted `resources/` (the prebuilt runtime reads its model there).
    resources: CString,
}

/// The value of the first `attribute="..."` in an XML text.
fn attribute<'a>(xml: &'a str, attribute: &str) -> Option<&'a str> {
    let from = xml.find(&format!(" {attribute}=\""))? + attribute.len() + 3;
    xml[from..].split('"').next()
}

impl Fmu {
    /// Extracts and loads the binary of an FMU (its identifier and GUID read
    /// from its modelDescription.xml), and its model into `dir/<id><tag>-resources/`.
    /// `tag` keeps the files of two FMUs of one model apart (one `dlopen` each).
    fn load(fmu: &Path, dir: &Path, tag: &str) -> Fmu {
        let file = std::fs::File::open(fmu).unwrap_or_else(|e| panic!("{}: {e}", fmu.display()));
        let mut zip = zip::ZipArchive::new(file).unwrap();
        let mut xml = String::new();
        std::io::Read::read_to_string(&mut zip.by_name("modelDescription.xml").unwrap(), &mut xml)
            .unwrap();
        let id = attribute(&xml, "modelIdentifier").expect("modelIdentifier");
        let fmi3 = attribute(&xml, "fmiVersion") == Some("3.0");
        let (token, platform) = match fmi3 {
            false => ("guid", "linux64"),
            true => ("instantiationToken", "x86_64-linux"),
        };
        let guid = CString::new(attribute(&xml, token).expect("token")).unwrap();
        let so = dir.join(format!("{id}{tag}.so"));
        let mut entry = zip
            .by_name(&format!("binaries/{platform}/{id}.so"))
            .unwrap();
        std::io::copy(&mut entry, &mut std::fs::File::create(&so).unwrap()).unwrap();
        drop(entry);
        let resources = dir.join(format!("{id}{tag}-resources"));
        std::fs::create_dir_all(&resources).unwrap();
        if let Ok(mut model) = zip.by_name("resources/model.json") {
            let file = &mut std::fs::File::create(resources.join("model.json")).unwrap();
            std::io::copy(&mut model, file).unwrap();
        }
        // The directory names are plain ASCII here: no percent-encoding needed.
        let resources = CString::new(format!("file://{}/", resources.display())).unwrap();
        let path = CString::new(so.to_str().unwrap()).unwrap();
        // SAFETY: loading an FMU binary, as any FMI importer does.
        let lib = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        assert!(!lib.is_null(), "dlopen {}", so.display());
        Fmu {
            lib,
            guid,
            fmi3,
            resources,
        }
    }

    fn sym<T: Copy>(&self, name: &str) -> T {
        let n = CString::new(name).unwrap();
        // SAFETY: the symbol exists (checked) and has the FMI 2.0 signature T.
        unsafe {
            let p = libc::dlsym(self.lib, n.as_ptr());
            assert!(!p.is_null(), "{name} missing");
            std::mem::transmute_copy(&p)
        }
    }

    /// ns per doStep over `steps` steps of size h, after initialization.
    fn ns_per_step(&self, h: f64, steps: usize) -> f64 {
        if self.fmi3 {
            return self.ns_per_step3(h, steps);
        }
        let instantiate: Instantiate = self.sym("fmi2Instantiate");
        let setup: Setup = self.sym("fmi2SetupExperiment");
        let enter: Simple = self.sym("fmi2EnterInitializationMode");
        let exit: Simple = self.sym("fmi2ExitInitializationMode");
        let do_step: DoStep = self.sym("fmi2DoStep");
        let free: Free = self.sym("fmi2FreeInstance");
        let cb = Callbacks {
            // lcsfmu accepts a NULL logger, the Reference FMUs do not.
            logger: quiet as *const c_void,
            allocate: std::ptr::null(),
            free: std::ptr::null(),
            step_finished: std::ptr::null(),
            environment: std::ptr::null_mut(),
        };
        // SAFETY: FMI calls in the order the standard prescribes, on one instance.
        unsafe {
            let c = instantiate(
                c"bench".as_ptr(),
                1,
                self.guid.as_ptr(),
                self.resources.as_ptr(),
                &cb,
                0,
                0,
            );
            assert!(!c.is_null());
            assert_eq!(setup(c, 0, 0.0, 0.0, 0, 0.0), 0);
            assert_eq!(enter(c), 0);
            assert_eq!(exit(c), 0);
            let start = Instant::now();
            for k in 0..steps {
                let t = k as f64 * h;
                let status = do_step(black_box(c), t, (k + 1) as f64 * h - t, 1);
                debug_assert_eq!(status, 0);
                black_box(status);
            }
            let ns = start.elapsed().as_nanos() as f64 / steps as f64;
            free(c);
            ns
        }
    }
}

impl Fmu {
    /// [`Fmu::ns_per_step`] through the FMI 3.0 functions.
    fn ns_per_step3(&self, h: f64, steps: usize) -> f64 {
        let instantiate: Instantiate3 = self.sym("fmi3InstantiateCoSimulation");
        let enter: Enter3 = self.sym("fmi3EnterInitializationMode");
        let exit: Simple = self.sym("fmi3ExitInitializationMode");
        let do_step: DoStep3 = self.sym("fmi3DoStep");
        let free: Free = self.sym("fmi3FreeInstance");
        // SAFETY: FMI 3.0 calls in the order the standard prescribes, on one instance.
        unsafe {
            let c = instantiate(
                c"bench".as_ptr(),
                self.guid.as_ptr(),
                std::ptr::null(),
                false,
                false,
                false,
                false,
                std::ptr::null(),
                0,
                std::ptr::null_mut(),
                quiet3 as *const c_void,
                std::ptr::null(),
            );
            assert!(!c.is_null());
            assert_eq!(enter(c, false, 0.0, 0.0, false, 0.0), 0);
            assert_eq!(exit(c), 0);
            let (mut event, mut terminate, mut early, mut last) = (false, false, false, 0.0);
            let start = Instant::now();
            for k in 0..steps {
                let t = k as f64 * h;
                let status = do_step(
                    black_box(c),
                    t,
                    (k + 1) as f64 * h - t,
                    true,
                    &mut event,
                    &mut terminate,
                    &mut early,
                    &mut last,
                );
                debug_assert_eq!(status, 0);
                black_box(status);
            }
            let ns = start.elapsed().as_nanos() as f64 / steps as f64;
            free(c);
            ns
        }
    }
}

/// FMI 3.0's logger, which drops every message.
unsafe extern "C" fn quiet3(
    _env: *mut c_void,
    _status: c_int,
    _category: *const c_char,
    _message: *const c_char,
) {
}

/// A logger that drops every message. FMUs call it as a C variadic function; the
/// System V x86-64 convention lets a callee that reads only the fixed arguments
/// ignore the rest (and nothing is logged on the measured path).
unsafe extern "C" fn quiet(
    _env: *mut c_void,
    _name: *const c_char,
    _status: c_int,
    _category: *const c_char,
    _message: *const c_char,
) {
}

/// `vdp_saturation` with its nonlinear term made linear: the linear model of
/// the same size.
fn vdp_linear(root: &Path) -> (Model, PathBuf) {
    let p = root.join("models").join("vdp_saturation.toml");
    let text = std::fs::read_to_string(&p).unwrap();
    let text = text
        .replace("mu*(1 - x1^2)*x2", "mu*x2")
        .replace("name = \"vdp_saturation\"", "name = \"vdp_linear\"");
    let model = validate::from_str(&text, &p).unwrap();
    assert!(!model.nonlinear_dynamics());
    (model, p)
}

fn timed_build(model: &Model, origin: &Path, out: &Path, env: &BuildEnv) -> f64 {
    let start = Instant::now();
    export::build(model, origin, out, env).unwrap_or_else(|e| panic!("{e}"));
    start.elapsed().as_secs_f64()
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("target").join("bench-fmus");
    std::fs::create_dir_all(&dir).unwrap();
    let env = BuildEnv::from_env();
    let decay = "[model]\nname = \"decay\"\ndescription = \"x' = -x, no complementarity\"\n[[states]]\nname = \"x\"\nstart = 1.0\n[system]\nA = [[-1]]\n";
    let models: Vec<(Model, PathBuf)> = [
        "sign_spiral",
        "coulomb_friction",
        "rlc_diode",
        "saturated_integrator",
        // The signal form: a sliding mode, a friction block with an algebraic
        // variable, two blocks of three pairs each.
        "relay_feedback",
        "friction_block",
        "servo_deadzone",
        // Nonlinear dynamics: the Newton step.
        "vdp_saturation",
        // Mechanical, one coordinate and one contact: the linear Moreau–Jean
        // step and the Newton loop (a nonlinear gravity torque).
        "bouncing_ball",
        "pendulum_stop",
    ]
    .iter()
    .map(|s| {
        let p = root.join("models").join(format!("{s}.toml"));
        (validate::load(&p).unwrap(), p)
    })
    .chain(std::iter::once(vdp_linear(&root)))
    .chain(std::iter::once((
        validate::from_str(decay, Path::new("decay.toml")).unwrap(),
        PathBuf::from("decay.toml"),
    )))
    .collect();

    println!("lcsfmu build with a warm cache (seconds):");
    for (model, origin) in &models {
        let out = dir.join(format!("{}.fmu", model.name));
        timed_build(model, origin, &out, &env);
        let again = timed_build(model, origin, &out, &env);
        let mut edited = model.clone();
        edited.description.push_str(" (edited)");
        let changed = timed_build(&edited, origin, &dir.join("edited.fmu"), &env);
        println!(
            "  {:<22} unchanged {again:>5.2}   after an edit {changed:>5.2}",
            model.name
        );
    }
    // Leave the template built for the unedited last model.
    timed_build(
        &models[0].0,
        &models[0].1,
        &dir.join(format!("{}.fmu", models[0].0.name)),
        &env,
    );

    let prebuilt_env = BuildEnv {
        runtime: Some(Runtime::Prebuilt),
        ..env.clone()
    };
    let has_runtime = runtimes::prebuilt("linux64").unwrap().is_some();
    if has_runtime {
        println!("\nlcsfmu build --runtime prebuilt (seconds, best of 3; no compiler):");
        for (model, origin) in &models {
            let out = dir.join(format!("{}-prebuilt.fmu", model.name));
            let best = (0..3)
                .map(|_| timed_build(model, origin, &out, &prebuilt_env))
                .fold(f64::INFINITY, f64::min);
            println!("  {:<22} {best:>5.3}", model.name);
        }
    } else {
        println!("\n(no prebuilt runtime: set LCSFMU_RUNTIME_DIR, see scripts/build-runtime.sh)");
    }

    // Name, step size and binary of every FMU measured.
    let mut fmus: Vec<(String, f64, Fmu)> = Vec::new();
    for (model, _) in &models {
        let fmu = Fmu::load(&dir.join(format!("{}.fmu", model.name)), &dir, "");
        fmus.push((model.name.clone(), model.experiment.step, fmu));
        if has_runtime {
            let path = dir.join(format!("{}-prebuilt.fmu", model.name));
            let fmu = Fmu::load(&path, &dir, "-prebuilt");
            let name = format!("{} (prebuilt)", model.name);
            fmus.push((name, model.experiment.step, fmu));
        }
    }
    // The FMI 3.0 builds of three of them, loaded from a directory of their own
    // (their binaries have the FMI 2.0 ones' names).
    let env3 = BuildEnv {
        fmi: FmiVersion::V3,
        runtime: Some(Runtime::Compiled),
        ..env.clone()
    };
    let dir3 = dir.join("fmi3");
    std::fs::create_dir_all(&dir3).unwrap();
    for (model, origin) in models
        .iter()
        .filter(|(m, _)| ["sign_spiral", "coulomb_friction", "decay"].contains(&m.name.as_str()))
    {
        let out = dir3.join(format!("{}.fmu", model.name));
        println!(
            "  {:<22} --fmi 3 {:>5.2}",
            model.name,
            timed_build(model, origin, &out, &env3)
        );
        let fmu = Fmu::load(&out, &dir3, "");
        fmus.push((
            format!("{} (fmi3DoStep)", model.name),
            model.experiment.step,
            fmu,
        ));
    }
    if let Some(peer) = std::env::var_os("LCSFMU_PEER_BOUNCINGBALL") {
        let peer_dir = dir.join("peer");
        std::fs::create_dir_all(&peer_dir).unwrap();
        // The Reference FMUs' fixed solver step: one Euler step per doStep.
        let fmu = Fmu::load(Path::new(&peer), &peer_dir, "");
        fmus.push(("BouncingBall (Reference FMUs)".into(), 1e-3, fmu));
    }
    let mut best = vec![f64::INFINITY; fmus.len()];
    for _ in 0..5 {
        for ((_, h, fmu), best) in fmus.iter().zip(best.iter_mut()) {
            *best = best.min(fmu.ns_per_step(*h, 1_000_000));
        }
    }
    println!("\nns per fmi2DoStep (fmi3DoStep where marked) through the C ABI (best of 5 rounds of 1e6 steps):");
    for ((name, h, _), ns) in fmus.iter().zip(&best) {
        println!("  {name:<30} h = {h:<6} {ns:>7.1} ns");
    }
    let ns = |name: &str| {
        fmus.iter()
            .position(|(n, _, _)| n.starts_with(name))
            .map(|i| best[i])
    };
    println!("\nratios measured in this run:");
    for (model, _) in models.iter().filter(|_| has_runtime) {
        let prebuilt = format!("{} (prebuilt)", model.name);
        if let (Some(p), Some(c)) = (ns(&prebuilt), ns(&model.name)) {
            println!("  {:<18} prebuilt / compiled {:>5.2}", model.name, p / c);
        }
    }
    if let (Some(a), Some(b)) = (ns("vdp_saturation"), ns("vdp_linear")) {
        println!(
            "  vdp_saturation     / vdp_linear {:>5.2}   (Newton step / linear step, same sizes)",
            a / b
        );
    }
    if let (Some(a), Some(b)) = (ns("pendulum_stop"), ns("bouncing_ball")) {
        println!(
            "  pendulum_stop      / bouncing_ball {:>5.2}   (Moreau–Jean with Newton / linear, 1 coordinate, 1 contact)",
            a / b
        );
    }
    for name in ["sign_spiral", "coulomb_friction", "decay"] {
        let three = format!("{name} (fmi3DoStep)");
        let pos = |n: &str| fmus.iter().position(|(m, _, _)| m == n).map(|i| best[i]);
        if let (Some(a), Some(b)) = (pos(&three), pos(name)) {
            println!("  {three:<30} / fmi2DoStep {:>5.2}", a / b);
        }
    }
    for lcp in ["sign_spiral", "coulomb_friction"] {
        let (Some(a), Some(decay)) = (ns(lcp), ns("decay")) else {
            continue;
        };
        print!("  {lcp:<18} / decay {:>5.2}", a / decay);
        match ns("BouncingBall") {
            Some(ball) => println!("   / BouncingBall {:>5.2}", a / ball),
            None => println!("   (set LCSFMU_PEER_BOUNCINGBALL for the peer ratio)"),
        }
    }
}
