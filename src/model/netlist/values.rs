//! Values in a netlist: SPICE numbers with their scale factors, and
//! `{expression}`s over the `.param` names.
//!
//! A number is `[sign] digits [. digits] [e [sign] digits]` followed by
//! letters: a scale factor (`t g meg k mil m u n p f`, any case; note that
//! `F` is femto, `M` milli and `MEG` mega, as in every SPICE) and then any
//! letters, which are ignored (`10uF`, `1kOhm`, `5V`). An expression is the
//! model language's (`+ - * / ^`, `sin`, `exp`, `min`, `pi`, ...), over the
//! parameters defined so far, and must be finite. Names are case-insensitive,
//! as everything in SPICE.
//!
//! The parameters are evaluated to numbers when the netlist is read: the
//! circuit's matrices are computed from them (see `mna`), so they are not
//! FMU parameters.

use super::lines::Token;
use super::NetError;
use crate::model::expr::{self, Expr};

/// The `.param` values, in definition order.
#[derive(Clone, Debug, Default)]
pub struct Params {
    /// Lower-case names.
    names: Vec<String>,
    values: Vec<f64>,
}

impl Params {
    /// Defines `name` (a later definition replaces an earlier one, as in SPICE).
    pub fn define(&mut self, name: &str, value: f64) {
        let name = name.to_ascii_lowercase();
        match self.names.iter().position(|n| *n == name) {
            Some(i) => self.values[i] = value,
            None => {
                self.names.push(name);
                self.values.push(value);
            }
        }
    }

    /// The value of a number or an expression token at `line`; `what` names
    /// the value in messages ("the resistance of R1").
    pub fn value(&self, token: &Token, line: usize, what: &str) -> Result<f64, NetError> {
        match token {
            Token::Word(w) => number(w).ok_or_else(|| {
                let hint = if self.names.contains(&w.to_ascii_lowercase()) {
                    format!(" (write {{{w}}} to use the parameter)")
                } else {
                    String::new()
                };
                NetError::at(line, format!("{what}: '{w}' is not a number{hint}"))
            }),
            Token::Expr(e) => self.expression(e, line, what),
            other => Err(NetError::at(
                line,
                format!("{what}: expected a value, found '{}'", other.text()),
            )),
        }
    }

    /// The value of expression text (without its braces).
    pub fn expression(&self, text: &str, line: usize, what: &str) -> Result<f64, NetError> {
        let lower = text.to_ascii_lowercase();
        let fail = |m: String| NetError::at(line, format!("{what}: in {{{text}}}: {m}"));
        let node = expr::parse(&lower).map_err(|e| fail(e.to_string()))?;
        let index = |n: &str| self.names.iter().position(|p| p == n);
        let compiled = Expr::compile(&node, &index).map_err(|e| {
            let hint = if e.message.starts_with("unknown name") {
                " (names in expressions are parameters defined with .param)"
            } else {
                ""
            };
            fail(format!("{e}{hint}"))
        })?;
        let v = compiled.eval(&self.values);
        if !v.is_finite() {
            return Err(fail(format!("evaluates to {v}")));
        }
        Ok(v)
    }
}

/// A SPICE number with an optional scale factor and unit letters, or `None`.
pub fn number(word: &str) -> Option<f64> {
    let b = word.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut mantissa_digits = i - digits_start;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let frac = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        mantissa_digits += i - frac;
    }
    if mantissa_digits == 0 {
        return None;
    }
    let mantissa_end = i;
    // An exponent needs digits after `e` (and its sign); otherwise the `e`
    // is a unit letter.
    let mut exponent = 0i32;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if b.get(j).is_some_and(u8::is_ascii_digit) {
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            exponent = word[i + 1..j].parse().ok()?;
            i = j;
        }
    }
    let rest = word[i..].to_ascii_lowercase();
    if !rest.bytes().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    // The scale as a power of ten, so that `10u` is the double nearest to
    // 1e-5 (as `10e-6` reads), not `10 * 1e-6`.
    let (power, factor) = if rest.starts_with("meg") {
        (6, 1.0)
    } else if rest.starts_with("mil") {
        (0, 25.4e-6)
    } else {
        let p = match rest.bytes().next() {
            Some(b't') => 12,
            Some(b'g') => 9,
            Some(b'k') => 3,
            Some(b'm') => -3,
            Some(b'u') => -6,
            Some(b'n') => -9,
            Some(b'p') => -12,
            Some(b'f') => -15,
            _ => 0,
        };
        (p, 1.0)
    };
    let total = exponent.checked_add(power)?;
    let v: f64 = format!("{}e{total}", &word[..mantissa_end]).parse().ok()?;
    let v = v * factor;
    v.is_finite().then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spice_numbers() {
        let cases = [
            ("1", 1.0),
            ("-2.5", -2.5),
            (".5", 0.5),
            ("5.", 5.0),
            ("1e-3", 1e-3),
            ("1E3", 1e3),
            ("1k", 1e3),
            ("1K", 1e3),
            ("2.2uF", 2.2e-6),
            ("10MEG", 1e7),
            ("10m", 1e-2),
            ("1F", 1e-15),
            ("3mil", 3.0 * 25.4e-6),
            ("10u", 1e-5),
            ("4.7k", 4700.0),
            ("5V", 5.0),
            ("1kOhm", 1e3),
            ("4n", 4e-9),
            ("1p", 1e-12),
            ("2g", 2e9),
            ("1t", 1e12),
        ];
        for (w, v) in cases {
            let got = number(w).unwrap_or_else(|| panic!("{w}"));
            assert_eq!(got, v, "{w}");
        }
        for bad in ["", "k", "1k5", "abc", "1.2.3", "--1", "1e5x2", "1e999"] {
            assert_eq!(number(bad), None, "{bad}");
        }
    }

    #[test]
    fn expressions_read_parameters_defined_before() {
        let mut p = Params::default();
        p.define("Rload", 100.0);
        assert_eq!(p.expression("2*RLOAD + 1", 3, "x").unwrap(), 201.0);
        let e = p.expression("2*r2", 3, "the resistance of R1").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("unknown name 'r2'"), "{}", e.message);
        assert!(p.expression("1/0", 3, "x").is_err());
    }
}
