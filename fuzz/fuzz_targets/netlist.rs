//! SPICE netlists: arbitrary text through the netlist reader (lines, tokens,
//! numbers, expressions, statements, the topology's refusals, the node
//! equations' solution and the lowering), as `lcsfmu build circuit.cir` reads
//! it. A refusal names a line of the text; an accepted circuit's model goes
//! through its JSON form, which must reproduce it.
#![no_main]

use lcsfmu::model::{netlist, Model};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let model = match netlist::read(text, Path::new("fuzz.cir"), None) {
        Ok(lowered) => lowered.model,
        Err(e) => {
            if let Some(line) = e.line() {
                assert!(line >= 1 && line <= text.lines().count().max(1), "{e}");
            }
            return;
        }
    };
    let json = model.to_json();
    let back = Model::from_json(&json).expect("a lowered circuit's JSON reads back");
    assert_eq!(back.to_json(), json, "the JSON form is not a fixed point");
});
