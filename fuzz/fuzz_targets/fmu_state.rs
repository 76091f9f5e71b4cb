//! `fmi2DeSerializeFMUstate`: the bytes come from the importer, so any bytes
//! must give a state or an error, never a panic. A state that deserializes is
//! then what an importer would do with it: `fmi2SetFMUstate`, one
//! `fmi2DoStep` from its time, and reading every variable.
//!
//! The first byte picks the model (its low bits, see
//! `lcsfmu_fuzz::STATE_MODELS`) and, with its high bit set, has the target
//! append the checksum the format ends with: mutated bytes then pass the
//! checksum and reach the checks of every field, restoring and stepping, which
//! an importer reaches too (the checksum guards against damage, not against
//! an importer). Each input starts from the same initialized instance, so runs
//! repeat.
#![no_main]

use lcsfmu::instance::snapshot::Snapshot;
use lcsfmu::instance::{variables, Instance};
use libfuzzer_sys::fuzz_target;
use std::sync::Mutex;

/// Each model's instance and its state right after initialization, which
/// every input starts from (instances are not `Clone`; restoring is cheap).
static INSTANCES: Mutex<Vec<(Instance, Snapshot)>> = Mutex::new(Vec::new());

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let mut all = INSTANCES.lock().unwrap_or_else(|e| e.into_inner());
    if all.is_empty() {
        for (stem, defines) in lcsfmu_fuzz::STATE_MODELS {
            let i = lcsfmu_fuzz::initialized(lcsfmu_fuzz::bundled(stem, defines));
            let start = i.snapshot();
            all.push((i, start));
        }
    }
    let n = all.len();
    let (i, start) = &mut all[(pick & 0x7f) as usize % n];
    i.restore(start).expect("the initial state restores");
    let mut bytes = bytes.to_vec();
    if pick & 0x80 != 0 {
        bytes.extend(lcsfmu_fuzz::fnv1a(&bytes).to_le_bytes());
    }
    let Ok(state) = i.deserialize(&bytes) else {
        return;
    };
    if i.restore(&state).is_err() {
        return;
    }
    // A step from the state's own time, then every variable read.
    let t = i.time();
    let _ = i.do_step(t, 0.01);
    let vrs: Vec<u32> = (0..variables::variables(i.model()).len() as u32).collect();
    let mut values = vec![0.0; vrs.len()];
    let _ = i.get_reals(&vrs, &mut values);
});
