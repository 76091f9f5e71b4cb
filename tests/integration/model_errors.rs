//! Every file in `tests/data/bad/` is refused with a message that names the file,
//! the field (`# field:` on its first line) and the problem (`# expect:`), and
//! arbitrary text never makes the front end panic.

use lcsfmu::model::validate;
use std::path::Path;

#[test]
fn each_bad_model_is_refused_with_file_field_and_reason() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bad");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let header = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key))
                .unwrap_or_else(|| panic!("{} lacks '{key}'", path.display()))
                .trim()
                .to_string()
        };
        let (field, expect) = (header("# field:"), header("# expect:"));
        let err = validate::load(&path).expect_err(&format!("{} was accepted", path.display()));
        assert_eq!(err.file, path, "{err}");
        assert_eq!(err.field, field, "{}: {err}", path.display());
        assert!(
            err.message.contains(&expect),
            "{}: expected '{expect}' in: {err}",
            path.display()
        );
        let shown = err.to_string();
        assert!(
            shown.starts_with(&format!("{}: {field}: ", path.display())),
            "{shown}"
        );
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} bad models");
}

#[test]
fn missing_file_is_an_error_naming_it() {
    let err = validate::load(Path::new("no/such/model.toml")).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("no/such/model.toml: (file): cannot read"),
        "{err}"
    );
}

#[test]
fn arbitrary_text_never_panics() {
    let good = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("models/coulomb_friction.toml"),
    )
    .unwrap();
    let bytes = good.as_bytes();
    let mut s: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let alphabet = b"[]{}=\"',.#\n -+*/^()0123456789eE_abcxyzinfnaAB";
    for _ in 0..3000 {
        let mut text = bytes.to_vec();
        for _ in 0..1 + next() % 6 {
            if text.is_empty() {
                break;
            }
            let at = (next() as usize) % text.len();
            match next() % 3 {
                0 => text[at] = alphabet[(next() as usize) % alphabet.len()],
                1 => {
                    text.remove(at);
                }
                _ => text.truncate(at),
            }
        }
        let text = String::from_utf8_lossy(&text);
        let _ = validate::from_str(&text, Path::new("fuzz.toml"));
    }
}

/// Random bytes, random sequences of the tokens model files are made of, and
/// random expressions in a matrix entry of a valid model: every one is either a
/// model or an error, never a panic.
#[test]
fn random_text_tokens_and_expressions_never_panic() {
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let path = Path::new("random.toml");
    for _ in 0..2000 {
        let n = (next() % 400) as usize;
        let bytes: Vec<u8> = (0..n).map(|_| next() as u8).collect();
        let _ = validate::from_str(&String::from_utf8_lossy(&bytes), path);
    }
    let tokens = [
        "[model]",
        "[experiment]",
        "[scheme]",
        "[system]",
        "[[states]]",
        "[[inputs]]",
        "[[parameters]]",
        "[[complementarity]]",
        "[[outputs]]",
        "name",
        "value",
        "start",
        "lo",
        "hi",
        "theta",
        "max_step",
        "A",
        "B",
        "C",
        "D",
        "E",
        "F",
        "f",
        "g",
        "=",
        "\n",
        "\"x\"",
        "\"p\"",
        "\"u\"",
        "\"1/p\"",
        "\"p^-2\"",
        "[[1]]",
        "[[1, 2], [3]]",
        "[]",
        "[[]]",
        "0",
        "-1",
        "1e308",
        "1e309",
        "nan",
        "inf",
        "-inf",
        "\"inf\"",
        "\"\"",
        "{",
        "}",
        ",",
        "true",
        "\"(\"",
        "\"sqrt(-1)\"",
        "\"log(0)\"",
        "#",
        "'",
        "\"\\u0000\"",
    ];
    for _ in 0..3000 {
        let n = 1 + (next() % 60) as usize;
        let text: Vec<&str> = (0..n)
            .map(|_| tokens[(next() as usize) % tokens.len()])
            .collect();
        let _ = validate::from_str(&text.join(" "), path);
    }
    let pieces = [
        "p", "q", "x", "u", "pi", "inf", "1", "0", "2.5e3", "1e-320", "(", ")", "+", "-", "*", "/",
        "^", "sqrt", "exp", "log", "sin", "abs", " ", ".", "e", "--", "**",
    ];
    for _ in 0..3000 {
        let n = 1 + (next() % 12) as usize;
        let expr: String = (0..n)
            .map(|_| pieces[(next() as usize) % pieces.len()])
            .collect();
        let text = format!(
            "[model]\nname = \"m\"\n[[parameters]]\nname = \"p\"\nvalue = 2.0\n\
             [[states]]\nname = \"x\"\n[[complementarity]]\nname = \"u\"\nlo = {:?}\n\
             [[outputs]]\nname = \"o\"\nvalue = {:?}\n[system]\nA = [[{:?}]]\n",
            expr, expr, expr
        );
        let _ = validate::from_str(&text, path);
    }
}
