//! A built FMU as a C master sees it: the archive extracted, its binary
//! `dlopen`ed, the FMI 2.0 or 3.0 functions looked up and called through
//! the C ABI to time `DoStep` (ns per step, best of the caller's rounds).
//! The bench's only `unsafe` code: raw pointers and foreign calls into the
//! FMU under test.
//!
//! Time is the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), not the wall
//! clock: on a machine shared with other work the wall clock also counts the
//! time the thread waited for a core, which swung the same FMU's figure by 2x
//! between rounds; CPU time left a few per cent.

use std::ffi::{c_char, c_int, c_void, CString};
use std::hint::black_box;
use std::path::{Path, PathBuf};

/// The calling thread's CPU time in nanoseconds.
fn cpu_ns() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a pointer to a timespec we own.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime");
    t.tv_sec as f64 * 1e9 + t.tv_nsec as f64
}

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

pub struct Fmu {
    lib: *mut c_void,
    /// The extracted binary (for the instruction counts, which run it apart).
    pub so: PathBuf,
    pub guid: CString,
    /// An FMI 3.0 binary (`fmiVersion="3.0"`).
    fmi3: bool,
    /// `file:` URI of the extracted `resources/` (the prebuilt runtime reads its model there).
    pub resources: CString,
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
    pub fn load(fmu: &Path, dir: &Path, tag: &str) -> Fmu {
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
            so,
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
    pub fn ns_per_step(&self, h: f64, steps: usize) -> f64 {
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
            let start = cpu_ns();
            for k in 0..steps {
                let t = k as f64 * h;
                let status = do_step(black_box(c), t, (k + 1) as f64 * h - t, 1);
                debug_assert_eq!(status, 0);
                black_box(status);
            }
            let ns = (cpu_ns() - start) / steps as f64;
            free(c);
            ns
        }
    }
}

impl Fmu {
    /// [`Fmu::ns_per_step`] through the FMI 3.0 functions.
    pub fn ns_per_step3(&self, h: f64, steps: usize) -> f64 {
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
            let start = cpu_ns();
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
            let ns = (cpu_ns() - start) / steps as f64;
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
