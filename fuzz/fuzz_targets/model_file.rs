//! Model files: arbitrary text through the TOML reader, `[defines]` and `for`
//! expansion, the expression parser and the validator, as `lcsfmu build` and
//! `simulate` read them. A validated model also goes through its JSON form (what
//! an FMU embeds and reads back in `fmi2Instantiate`), which must reproduce it.
#![no_main]

use lcsfmu::model::{validate, Model};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(model) = validate::from_str(text, Path::new("fuzz.toml")) else {
        return;
    };
    let json = model.to_json();
    let back = Model::from_json(&json).expect("a validated model's JSON reads back");
    assert_eq!(back.to_json(), json, "the JSON form is not a fixed point");
});
