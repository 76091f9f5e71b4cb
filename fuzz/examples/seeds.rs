//! Writes the seed corpora of the four fuzz targets under `fuzz/corpus/`:
//! every bundled and test model file (model_file), the bundled and bad
//! netlists (netlist), serialized states of the
//! state target's models at a few times (fmu_state, prefixed with the byte that
//! picks the model; each also without its checksum, for the target to append),
//! and each bundled model packed as an FMU with its real
//! description, model and page but 64-byte stand-ins for the binaries (linux64
//! and win64), which keep the seeds small (check_archive: the archive, XML and
//! model checks see what a built FMU holds; the ELF and PE readers get headers
//! and nothing more).
//!
//! Run with `cargo run --release --example seeds` in `fuzz/`; existing corpus
//! files are kept, so what libFuzzer added survives.

use lcsfmu::fmi::version::{FmiVersion, Interfaces};
use lcsfmu::fmi::{description, pack};
use std::path::Path;

fn main() {
    let root = lcsfmu_fuzz::root();
    let corpus = root.join("fuzz/corpus");
    let dir = |name: &str| {
        let d = corpus.join(name);
        std::fs::create_dir_all(&d).unwrap();
        d
    };
    let (models, states, archives) = (dir("model_file"), dir("fmu_state"), dir("check_archive"));
    let netlists = dir("netlist");
    for folder in ["models", "tests/data/bad_netlist"] {
        for entry in std::fs::read_dir(root.join(folder)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|x| x == "cir") {
                let name = format!("{}-{}", folder.replace('/', "_"), file_name(&path));
                std::fs::copy(&path, netlists.join(name)).unwrap();
            }
        }
    }

    for folder in ["models", "tests/data", "tests/data/bad"] {
        for entry in std::fs::read_dir(root.join(folder)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|x| x == "toml") {
                let name = format!("{}-{}", folder.replace('/', "_"), file_name(&path));
                std::fs::copy(&path, models.join(name)).unwrap();
            }
        }
    }

    for (k, (stem, defines)) in lcsfmu_fuzz::STATE_MODELS.iter().enumerate() {
        let mut i = lcsfmu_fuzz::initialized(lcsfmu_fuzz::bundled(stem, defines));
        for n in 0..4 {
            let state = i.serialize(&i.snapshot());
            let mut bytes = vec![k as u8];
            bytes.extend(&state);
            std::fs::write(states.join(format!("{stem}-{n}")), bytes).unwrap();
            // Without its checksum, which the target appends (high bit of the first byte).
            let mut bytes = vec![0x80 | k as u8];
            bytes.extend(&state[..state.len() - 8]);
            std::fs::write(states.join(format!("{stem}-{n}-unsummed")), bytes).unwrap();
            for _ in 0..25 {
                let t = i.time();
                if i.do_step(t, 0.01).is_err() {
                    break;
                }
            }
        }
    }

    // The first bytes of an ELF header: 64-bit, little-endian, shared object, x86-64.
    let mut binary = vec![0u8; 64];
    binary[..8].copy_from_slice(b"\x7fELF\x02\x01\x01\x00");
    binary[16] = 3;
    binary[18] = 62;
    // The first bytes of a PE image: MZ, the PE header at 0x40, x86-64, a DLL.
    let mut dll = vec![0u8; 128];
    dll[..2].copy_from_slice(b"MZ");
    dll[0x3c] = 0x40;
    dll[0x40..0x44].copy_from_slice(b"PE\0\0");
    dll[0x44..0x46].copy_from_slice(&0x8664u16.to_le_bytes());
    dll[0x56..0x58].copy_from_slice(&0x2000u16.to_le_bytes());
    for entry in std::fs::read_dir(root.join("models")).unwrap() {
        let path = entry.unwrap().path();
        let Ok(model) = lcsfmu::model::validate::load(&path) else {
            continue;
        };
        // The 1,000-bead default of the chain would make a 1 MB seed.
        if model.nx() > 50 {
            continue;
        }
        let guid = description::guid(&model);
        let xml = description::write(&model, &guid, FmiVersion::V2, Interfaces::CO_SIMULATION);
        let out = archives.join(format!("{}.fmu", model.name));
        pack::pack(
            &out,
            &model.name,
            &xml,
            &[("linux64", binary.as_slice()), ("win64", dll.as_slice())],
            &model.to_json(),
            "<html></html>",
        )
        .unwrap();
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}
