//! The FMU template's C interface, checked by a C compiler against the standard.
//!
//! The FMI 2.0 types and the 34 exported signatures are written by hand in
//! `template/src/fmi2/ffi.rs` and `fmi2/common.rs`. Here cbindgen turns those sources
//! into C headers (in `target/c-header/`, never in the repository) and gcc compiles
//! `tests/c/fmi2_header_check.c`, which includes them together with the FMI 2.0.4
//! headers that the `fmi-sys` crate ships (read from the local cargo registry):
//! a parameter, return type, typedef, struct member, enum value or constant that
//! differs from the standard is a compile error. That exactly the standard's
//! functions are exported is checked here, from cbindgen's list: the 34 of
//! co-simulation, and the 10 of Model Exchange (`fmi2/exchange.rs`, the template's
//! `model-exchange` feature, seen through the macro `LCSFMU_MODEL_EXCHANGE`, which
//! the check defines so that their signatures are compiled too). Which of them a
//! built binary exports is checked on the binary (`tests/python/test_conformance.py`).
//!
//! The FMI 3.0 shell (`template/src/fmi3/`, the template's `fmi3` feature, seen
//! through the macro `LCSFMU_FMI3`) is checked the same way against the FMI 3.0
//! headers of the same crate by `tests/c/fmi3_header_check.c`: its types, its
//! status values, and exactly the 75 functions of `fmi3Functions.h`.
//!
//! cbindgen parses the sources without compiling them, so the template's
//! generated model file (`LCSFMU_GENERATED`) is not needed. The second test
//! proves the check can fail: it edits copies of the sources (a wrong parameter
//! or return type, a wrong enum value, a wrong typedef, struct members swapped, a
//! function no longer exported) and requires each copy to be refused with the
//! expected message.
//!
//! Generating and checking the headers is in `c_header/headers.rs`; the tests
//! and the table of deliberate mistakes are here.

mod headers;

use headers::{
    check, check_against, fmi3_functions, fmi3_headers, generate, headers_or_skip, out_dir, repo,
    FMI2, FMI3,
};

#[test]
fn template_matches_the_fmi2_headers() {
    let Some(fmi2) = headers_or_skip() else {
        return;
    };
    let headers = generate(&repo().join("template/src"), FMI2);
    // The header an importer's author would read: every function, in C.
    for name in ["fmi2DoStep", "fmi2Instantiate", "fmi2GetStringStatus"] {
        assert!(
            headers.exports.contains(&format!("{name}(")),
            "{name} missing from\n{}",
            headers.exports
        );
    }
    let dir = out_dir().join("template");
    if let Err(e) = check(&headers, &fmi2, &dir) {
        panic!(
            "the headers in {} do not match the FMI 2.0 headers of {}:\n{e}",
            dir.display(),
            fmi2.display()
        );
    }
}

/// One deliberate mistake in a copy of the template's sources, and a piece of the
/// message that must refuse it.
struct Mistake {
    name: &'static str,
    file: &'static str,
    from: &'static str,
    to: &'static str,
    refused_with: &'static str,
}

const MISTAKES: [Mistake; 13] = [
    Mistake {
        name: "me_parameter_type",
        file: "fmi2/exchange.rs",
        from: "pub extern \"C\" fn fmi2SetTime(c: fmi2Component, time: fmi2Real)",
        to: "pub extern \"C\" fn fmi2SetTime(c: fmi2Component, time: f32)",
        refused_with: "conflicting types for 'fmi2SetTime'",
    },
    Mistake {
        name: "me_struct_member_order",
        file: "fmi2/ffi.rs",
        from: "    pub terminateSimulation: fmi2Boolean,\n    pub nominalsOfContinuousStatesChanged: fmi2Boolean,\n",
        to: "    pub nominalsOfContinuousStatesChanged: fmi2Boolean,\n    pub terminateSimulation: fmi2Boolean,\n",
        refused_with: "fmi2EventInfo.terminateSimulation is at another offset",
    },
    Mistake {
        name: "parameter_type",
        file: "fmi2/cosimulation.rs",
        from: "communicationStepSize: fmi2Real,",
        to: "communicationStepSize: f32,",
        refused_with: "conflicting types for 'fmi2DoStep'",
    },
    Mistake {
        name: "return_type",
        file: "fmi2/common.rs",
        from: "pub extern \"C\" fn fmi2FreeInstance(c: fmi2Component) {",
        to: "pub extern \"C\" fn fmi2FreeInstance(c: fmi2Component) -> fmi2Status {",
        refused_with: "conflicting types for 'fmi2FreeInstance'",
    },
    Mistake {
        name: "status_out_pointer",
        file: "fmi2/cosimulation.rs",
        from: "_value: *mut fmi2Status,",
        to: "_value: *mut c_int,",
        refused_with: "conflicting types for 'fmi2GetStatus'",
    },
    Mistake {
        name: "enum_value",
        file: "fmi2/ffi.rs",
        from: "fmi2Discard = 2,",
        to: "fmi2Discard = 7,",
        refused_with: "lcsfmu_fmi2Status_fmi2Discard is not the value fmi2Discard",
    },
    Mistake {
        name: "typedef",
        file: "fmi2/ffi.rs",
        from: "pub type fmi2ValueReference = c_uint;",
        to: "pub type fmi2ValueReference = c_int;",
        refused_with: "lcsfmu_fmi2ValueReference is not the type fmi2ValueReference",
    },
    Mistake {
        name: "struct_member_order",
        file: "fmi2/ffi.rs",
        from: "    pub allocateMemory: fmi2CallbackAllocateMemory,\n    pub freeMemory: fmi2CallbackFreeMemory,\n",
        to: "    pub freeMemory: fmi2CallbackFreeMemory,\n    pub allocateMemory: fmi2CallbackAllocateMemory,\n",
        refused_with: "fmi2CallbackFunctions.allocateMemory is at another offset",
    },
    Mistake {
        name: "function_not_exported",
        file: "fmi2/cosimulation.rs",
        from: "#[no_mangle]\npub extern \"C\" fn fmi2CancelStep(",
        to: "pub extern \"C\" fn fmi2CancelStep(",
        refused_with: "missing [\"fmi2CancelStep\"]",
    },
    Mistake {
        name: "fmi3_parameter_type",
        file: "fmi3/life.rs",
        from: "    communicationStepSize: fmi3Float64,",
        to: "    communicationStepSize: f32,",
        refused_with: "conflicting types for 'fmi3DoStep'",
    },
    Mistake {
        name: "fmi3_typedef",
        file: "fmi3/ffi.rs",
        from: "pub type fmi3Int16 = i16;",
        to: "pub type fmi3Int16 = u16;",
        refused_with: "lcsfmu_fmi3Int16 is not the type fmi3Int16",
    },
    Mistake {
        name: "fmi3_enum_value",
        file: "fmi3/ffi.rs",
        from: "fmi3Discard = 2,",
        to: "fmi3Discard = 7,",
        refused_with: "lcsfmu_fmi3Status_fmi3Discard is not the value fmi3Discard",
    },
    Mistake {
        name: "fmi3_function_not_exported",
        file: "fmi3/unsupported.rs",
        from: "#[no_mangle]\npub extern \"C\" fn fmi3ActivateModelPartition(",
        to: "pub extern \"C\" fn fmi3ActivateModelPartition(",
        refused_with: "missing [\"fmi3ActivateModelPartition\"]",
    },
];

#[test]
fn mistakes_are_refused() {
    let Some(fmi2) = headers_or_skip() else {
        return;
    };
    let template = repo().join("template/src");
    let fmi3 = fmi3_headers().expect("the FMI 3.0 headers beside the FMI 2.0 ones");
    for m in MISTAKES {
        let dir = out_dir().join("mistakes").join(m.name);
        let src = dir.join("src");
        for sub in ["", "fmi2", "fmi3"] {
            std::fs::create_dir_all(src.join(sub)).unwrap();
            for entry in std::fs::read_dir(template.join(sub)).unwrap() {
                let path = entry.unwrap().path();
                if path.is_file() {
                    std::fs::copy(&path, src.join(sub).join(path.file_name().unwrap())).unwrap();
                }
            }
        }
        let file = src.join(m.file);
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(
            text.matches(m.from).count(),
            1,
            "{}: '{}' in {}",
            m.name,
            m.from,
            m.file
        );
        std::fs::write(&file, text.replace(m.from, m.to)).unwrap();

        let include = dir.join("include");
        let checked = if m.file.starts_with("fmi3/") {
            let standard = fmi3_functions(&fmi3);
            let headers = generate(&src, FMI3);
            check_against(&headers, FMI3, &standard, &[&fmi2, &fmi3], &include)
        } else {
            check(&generate(&src, FMI2), &fmi2, &include)
        };
        match checked {
            Ok(()) => panic!("{}: the C check accepted '{}' in {}", m.name, m.to, m.file),
            Err(e) => assert!(
                e.contains(m.refused_with),
                "{}: refused, but not with \"{}\":\n{e}",
                m.name,
                m.refused_with
            ),
        }
    }
}

#[test]
fn template_matches_the_fmi3_headers() {
    let (Some(fmi2), Ok(fmi3)) = (headers_or_skip(), fmi3_headers()) else {
        eprintln!("skipped: the FMI 3.0 headers of the fmi-sys crate were not found");
        return;
    };
    let headers = generate(&repo().join("template/src"), FMI3);
    for name in [
        "fmi3DoStep",
        "fmi3InstantiateCoSimulation",
        "fmi3ActivateModelPartition",
    ] {
        assert!(
            headers.exports.contains(&format!("{name}(")),
            "{name} missing from\n{}",
            headers.exports
        );
    }
    let dir = out_dir().join("template-fmi3");
    let standard = fmi3_functions(&fmi3);
    if let Err(e) = check_against(&headers, FMI3, &standard, &[&fmi2, &fmi3], &dir) {
        panic!(
            "the headers in {} do not match the FMI 3.0 headers of {}:\n{e}",
            dir.display(),
            fmi3.display()
        );
    }
}
