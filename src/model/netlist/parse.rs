//! Statements into a [`Circuit`]: elements (`R C L V I D`) and directives
//! (`.param .tran .ic .model .options`, and the ones accepted with no effect).
//!
//! `.param` lines are read first, in order (a parameter may use those defined
//! before it), so an element may use a parameter defined below it, as in
//! SPICE. `.model` cards are read before the diodes that name them. Every
//! refusal names the line and what is wrong; element, node, model and
//! parameter names are case-insensitive.

use super::elements::{Circuit, DiodeModel, Element, Kind, Tran, Waveform};
use super::lines::{self, Line, Token};
use super::values::{number, Params};
use super::NetError;
use std::collections::HashMap;

/// Element letters SPICE knows that this reader does not support yet.
const NOT_YET: &[(char, &str)] = &[
    ('b', "behavioural source"),
    ('e', "voltage-controlled voltage source"),
    ('f', "current-controlled current source"),
    ('g', "voltage-controlled current source"),
    ('h', "current-controlled voltage source"),
    ('j', "JFET"),
    ('k', "coupled inductors"),
    ('m', "MOSFET"),
    ('q', "bipolar transistor"),
    ('s', "voltage-controlled switch"),
    ('t', "transmission line"),
    ('w', "current-controlled switch"),
    ('x', "subcircuit instance"),
    ('z', "MESFET"),
];

/// Analyses and commands that are refused: lcsfmu simulates in time only.
const ANALYSES: &[&str] = &[
    ".op", ".ac", ".dc", ".noise", ".tf", ".disto", ".pz", ".sens", ".four", ".meas", ".measure",
    ".sp", ".pss",
];

/// Directives of netlist structure that are not supported yet.
const STRUCTURE: &[&str] = &[
    ".subckt", ".ends", ".include", ".inc", ".lib", ".endl", ".func", ".global", ".temp",
    ".nodeset", ".csparam", ".if", ".else", ".endif",
];

/// Output requests: every node voltage and branch current is an output already.
const OUTPUT_REQUESTS: &[&str] = &[".save", ".probe", ".print", ".plot", ".width"];

/// SPICE's diode parameters of the exponential model, accepted and ignored.
const EXPONENTIAL: &[&str] = &[
    "is", "n", "rs", "cjo", "cj0", "cj", "vj", "m", "tt", "bv", "ibv", "eg", "xti", "kf", "af",
    "fc", "tnom", "level", "area", "isr", "nr", "ikf", "nbv", "ibvl", "nbvl", "trs", "tbv", "ik",
    "ikr", "jsw", "pb", "mj", "mjsw", "cjp", "cjsw", "php", "xcjsw", "iave", "vpk", "mfg", "type",
];

/// Most points of a `PWL` source: its expression has a term per point, and
/// the programs are compiled and checked recursively.
const MAX_PWL_POINTS: usize = 1000;

/// Reads the logical lines of a netlist into a circuit. `inputs` are the
/// names of FMU inputs a source's value may be (`V1 in 0 {vin}`).
pub fn circuit(text: &lines::Text, inputs: &[String]) -> Result<Circuit, NetError> {
    let mut lines = Vec::with_capacity(text.lines.len());
    for line in &text.lines {
        lines.push((line, lines::tokens(line)?));
    }
    let mut reader = Reader {
        circuit: Circuit {
            title: text.title.clone().unwrap_or_default(),
            nodes: vec!["0".into()],
            node_lines: vec![0],
            ..Circuit::default()
        },
        params: Params::default(),
        node_index: HashMap::from([("0".to_string(), 0), ("gnd".to_string(), 0)]),
        names: HashMap::new(),
        models: HashMap::new(),
        diode_models: Vec::new(),
        inputs,
    };
    if !text.control_blocks.is_empty() {
        reader.circuit.notes.push(format!(
            "ngspice .control block{} at line {} skipped",
            if text.control_blocks.len() > 1 {
                "s"
            } else {
                ""
            },
            join_numbers(&text.control_blocks)
        ));
    }
    // Parameters first, then models, then the rest.
    for (line, tokens) in &lines {
        if keyword(tokens).as_deref() == Some(".param") {
            reader.param(line, tokens)?;
        }
    }
    for (line, tokens) in &lines {
        if keyword(tokens).as_deref() == Some(".model") {
            reader.model(line, tokens)?;
        }
    }
    for (line, tokens) in &lines {
        match keyword(tokens) {
            Some(k) if k == ".param" || k == ".model" => {}
            Some(k) if k.starts_with('.') => reader.directive(line, &k, tokens)?,
            _ => reader.element(line, tokens)?,
        }
    }
    reader.resolve_diodes()?;
    let mut c = reader.circuit;
    fill_source_defaults(&mut c);
    Ok(c)
}

fn keyword(tokens: &[Token]) -> Option<String> {
    tokens.first().and_then(Token::keyword)
}

fn join_numbers(v: &[usize]) -> String {
    let s: Vec<String> = v.iter().map(usize::to_string).collect();
    s.join(", ")
}

struct Reader<'i> {
    circuit: Circuit,
    params: Params,
    /// Lower-case node name to index.
    node_index: HashMap<String, usize>,
    /// Lower-case element name to its line.
    names: HashMap<String, usize>,
    /// Lower-case model name to the model and its line.
    models: HashMap<String, (DiodeModel, usize)>,
    /// Diodes waiting for their model: element index, model name as written.
    diode_models: Vec<(usize, String)>,
    /// FMU input names.
    inputs: &'i [String],
}

/// A cursor over one line's tokens.
struct Cursor<'t> {
    tokens: &'t [Token],
    pos: usize,
    line: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }
    fn next(&mut self) -> Option<&Token> {
        let t = self.tokens.get(self.pos);
        self.pos += 1;
        t
    }
    fn done(&self) -> bool {
        self.pos >= self.tokens.len()
    }
    fn fail<T>(&self, message: impl Into<String>) -> Result<T, NetError> {
        Err(NetError::at(self.line, message))
    }
    /// The next token, which must be a word (a node or model name).
    fn word(&mut self, what: &str) -> Result<String, NetError> {
        match self.next().cloned() {
            Some(Token::Word(w)) => Ok(w),
            Some(t) => self.fail(format!("expected {what}, found '{}'", t.text())),
            None => self.fail(format!("{what} is missing")),
        }
    }
    /// Consumes `key =` when the next tokens are that (any case).
    fn key(&mut self, key: &str) -> bool {
        let is_key = self.peek().and_then(Token::keyword).as_deref() == Some(key)
            && self.tokens.get(self.pos + 1) == Some(&Token::Equals);
        if is_key {
            self.pos += 2;
        }
        is_key
    }
}

impl Reader<'_> {
    fn value(&self, c: &mut Cursor, what: &str) -> Result<f64, NetError> {
        match c.next().cloned() {
            Some(t) => self.params.value(&t, c.line, what),
            None => c.fail(format!("{what} is missing")),
        }
    }

    fn node(&mut self, c: &mut Cursor, element: &str, which: &str) -> Result<usize, NetError> {
        let name = match c.next().cloned() {
            Some(Token::Word(w)) => w,
            Some(t) => {
                return c.fail(format!(
                    "{element}: expected its {which} node, found '{}'",
                    t.text()
                ))
            }
            None => return c.fail(format!("{element}: its {which} node is missing")),
        };
        let key = name.to_ascii_lowercase();
        if let Some(&i) = self.node_index.get(&key) {
            return Ok(i);
        }
        let i = self.circuit.nodes.len();
        self.node_index.insert(key, i);
        self.circuit.nodes.push(name);
        self.circuit.node_lines.push(c.line);
        Ok(i)
    }

    fn param(&mut self, line: &Line, tokens: &[Token]) -> Result<(), NetError> {
        let mut c = Cursor {
            tokens,
            pos: 1,
            line: line.number,
        };
        if c.done() {
            return c.fail(".param needs NAME = VALUE");
        }
        while !c.done() {
            let name = c.word("a parameter name")?;
            if c.next() != Some(&Token::Equals) {
                return c.fail(format!(".param {name}: expected '=' and a value"));
            }
            let ok = name
                .chars()
                .next()
                .is_some_and(|ch| ch.is_ascii_alphabetic() || ch == '_')
                && name
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '_');
            let reserved = crate::model::functions::FUNCS
                .iter()
                .any(|(f, _)| f.eq_ignore_ascii_case(&name))
                || ["pi", "inf", "time", "min", "max", "atan2"]
                    .iter()
                    .any(|r| r.eq_ignore_ascii_case(&name));
            if !ok || reserved {
                return c.fail(format!(
                    ".param: '{name}' cannot be a parameter name (letters, digits and '_', not a function or constant of expressions)"
                ));
            }
            let v = self.value(&mut c, &format!("parameter {name}"))?;
            self.params.define(&name, v);
        }
        Ok(())
    }

    fn model(&mut self, line: &Line, tokens: &[Token]) -> Result<(), NetError> {
        let mut c = Cursor {
            tokens,
            pos: 1,
            line: line.number,
        };
        let name = c.word("a model name")?;
        let kind = c.word(&format!(".model {name}: its type"))?;
        if !kind.eq_ignore_ascii_case("d") {
            return c.fail(format!(
                ".model {name}: type '{kind}' is not supported (diode models, type D, are)"
            ));
        }
        let key = name.to_ascii_lowercase();
        if let Some((_, first)) = self.models.get(&key) {
            return c.fail(format!(".model {name} is already defined at line {first}"));
        }
        let paren = c.peek() == Some(&Token::Open);
        if paren {
            c.next();
        }
        let mut model = DiodeModel::IDEAL;
        let mut ignored = Vec::new();
        loop {
            match c.peek() {
                None if paren => return c.fail(format!(".model {name}: ')' is missing")),
                None => break,
                Some(Token::Close) if paren => {
                    c.next();
                    if !c.done() {
                        return c.fail(format!(
                            ".model {name}: unexpected '{}' after ')'",
                            c.peek().unwrap().text()
                        ));
                    }
                    break;
                }
                _ => {}
            }
            let p = c.word(&format!(".model {name}: a parameter name"))?;
            if c.next() != Some(&Token::Equals) {
                return c.fail(format!(".model {name}: expected '=' after '{p}'"));
            }
            let what = format!(".model {name}: {p}");
            let v = self.value(&mut c, &what)?;
            match p.to_ascii_lowercase().as_str() {
                "ron" => model.ron = v,
                "roff" => model.roff = v,
                "vf" => model.vf = v,
                lower if EXPONENTIAL.contains(&lower) => ignored.push(p.clone()),
                _ => {
                    return c.fail(format!(
                        ".model {name}: unknown diode parameter '{p}' (the piecewise-linear diode takes Ron, Roff and Vf; SPICE's exponential parameters are accepted and ignored)"
                    ))
                }
            }
        }
        if !(model.ron >= 0.0) || !model.ron.is_finite() {
            return c.fail(format!(
                ".model {name}: Ron = {} must be finite and >= 0",
                model.ron
            ));
        }
        if !(model.roff > model.ron) {
            return c.fail(format!(
                ".model {name}: Roff = {} must be above Ron = {}",
                model.roff, model.ron
            ));
        }
        if !ignored.is_empty() {
            self.circuit.notes.push(format!(
                ".model {name} (line {}): SPICE's exponential parameters {} ignored: the diode is piecewise linear (Ron = {}, Roff = {}, Vf = {})",
                line.number,
                ignored.join(", "),
                model.ron,
                model.roff,
                model.vf
            ));
        }
        self.models.insert(key, (model, line.number));
        Ok(())
    }

    fn directive(&mut self, line: &Line, k: &str, tokens: &[Token]) -> Result<(), NetError> {
        let mut c = Cursor {
            tokens,
            pos: 1,
            line: line.number,
        };
        match k {
            ".tran" => self.tran(&mut c),
            ".ic" => self.ic(&mut c),
            ".options" | ".option" | ".opt" => self.options(&mut c),
            ".title" => {
                let rest = line.text.trim_start();
                self.circuit.title = rest[".title".len()..].trim().to_string();
                Ok(())
            }
            k if OUTPUT_REQUESTS.contains(&k) => {
                self.circuit.notes.push(format!(
                    "{k} (line {}) has no effect: every node voltage and branch current is an output",
                    line.number
                ));
                Ok(())
            }
            k if ANALYSES.contains(&k) => c.fail(format!(
                "{k} is not supported: lcsfmu simulates in time (.tran) only"
            )),
            k if STRUCTURE.contains(&k) => c.fail(format!("{k} is not supported yet")),
            _ => c.fail(format!("unknown directive '{k}'")),
        }
    }

    fn tran(&mut self, c: &mut Cursor) -> Result<(), NetError> {
        if let Some(t) = self.circuit.tran {
            return c.fail(format!("a second .tran (the first is at line {})", t.line));
        }
        let mut values = Vec::new();
        while let Some(t) = c.next().cloned() {
            if t.keyword().as_deref() == Some("uic") {
                continue;
            }
            let what = [".tran TSTEP", ".tran TSTOP", ".tran TSTART", ".tran TMAX"]
                .get(values.len())
                .copied()
                .unwrap_or(".tran");
            if values.len() == 4 {
                return c.fail(format!(
                    ".tran takes TSTEP TSTOP [TSTART [TMAX]] [UIC]; '{}' is one too many",
                    t.text()
                ));
            }
            values.push(self.params.value(&t, c.line, what)?);
        }
        if values.len() < 2 {
            return c.fail(".tran needs TSTEP and TSTOP");
        }
        let (step, stop) = (values[0], values[1]);
        let start = values.get(2).copied().unwrap_or(0.0);
        let max = values.get(3).copied();
        if !(step > 0.0) {
            return c.fail(format!(".tran: TSTEP = {step} must be positive"));
        }
        if !(stop > 0.0) {
            return c.fail(format!(".tran: TSTOP = {stop} must be positive"));
        }
        if !(start >= 0.0 && start < stop) {
            return c.fail(format!(".tran: TSTART = {start} must be in [0, TSTOP)"));
        }
        if let Some(m) = max {
            if !(m > 0.0) {
                return c.fail(format!(".tran: TMAX = {m} must be positive"));
            }
        }
        if start > 0.0 {
            self.circuit.notes.push(format!(
                ".tran TSTART = {start} (line {}) ignored: the FMU's experiment starts at 0",
                c.line
            ));
        }
        self.circuit.tran = Some(Tran {
            step,
            stop,
            start,
            max,
            line: c.line,
        });
        Ok(())
    }

    fn ic(&mut self, c: &mut Cursor) -> Result<(), NetError> {
        if c.done() {
            return c.fail(".ic needs V(node) = value");
        }
        while !c.done() {
            let v = c.word("V(node)")?;
            if !v.eq_ignore_ascii_case("v") || c.next() != Some(&Token::Open) {
                return c.fail(format!(
                    ".ic: expected V(node) = value, found '{v}' (initial currents are given with IC= on the inductor)"
                ));
            }
            let name = c.word(".ic: a node name")?;
            if c.next() != Some(&Token::Close) || c.next() != Some(&Token::Equals) {
                return c.fail(format!(".ic: expected V({name}) = value"));
            }
            let value = self.value(c, &format!(".ic V({name})"))?;
            let Some(&node) = self.node_index.get(&name.to_ascii_lowercase()) else {
                return c.fail(format!(".ic: node '{name}' is not in the circuit"));
            };
            if node == 0 {
                return c.fail(".ic: the ground node's voltage is 0");
            }
            self.circuit.ic.push((node, value, c.line));
        }
        Ok(())
    }

    fn options(&mut self, c: &mut Cursor) -> Result<(), NetError> {
        let mut ignored = Vec::new();
        while let Some(t) = c.next().cloned() {
            let Some(key) = t.keyword() else {
                return c.fail(format!(".options: unexpected '{}'", t.text()));
            };
            let value = if c.peek() == Some(&Token::Equals) {
                c.next();
                match c.next().cloned() {
                    Some(v) => Some(v),
                    None => return c.fail(format!(".options {key}: its value is missing")),
                }
            } else {
                None
            };
            match (key.as_str(), value.as_ref().and_then(Token::keyword)) {
                ("method", Some(m)) if m == "trap" || m == "trapezoidal" => {
                    self.circuit.trapezoidal = true
                }
                ("method", Some(m)) => {
                    return c.fail(format!(
                        ".options method={m} is not supported (method=trap is the theta-method at theta = 1/2; without it, backward Euler)"
                    ))
                }
                _ => ignored.push(t.text()),
            }
        }
        if !ignored.is_empty() {
            self.circuit.notes.push(format!(
                ".options (line {}): {} ignored (SPICE's solver settings; the scheme is the theta-method)",
                c.line,
                ignored.join(", ")
            ));
        }
        Ok(())
    }

    fn element(&mut self, line: &Line, tokens: &[Token]) -> Result<(), NetError> {
        let mut c = Cursor {
            tokens,
            pos: 0,
            line: line.number,
        };
        let name = match c.next().cloned() {
            Some(Token::Word(w)) => w,
            Some(t) => return c.fail(format!("a line cannot start with '{}'", t.text())),
            None => return Ok(()),
        };
        let letter = name
            .chars()
            .next()
            .map(|ch| ch.to_ascii_lowercase())
            .unwrap_or(' ');
        if !"rclvid".contains(letter) {
            if let Some((_, what)) = NOT_YET.iter().find(|(l, _)| *l == letter) {
                return c.fail(format!(
                    "{name}: element type '{}' ({what}) is not supported yet",
                    letter.to_ascii_uppercase()
                ));
            }
            return c.fail(format!(
                "{name}: unknown element letter '{}' (supported: R, C, L, V, I, D)",
                name.chars().next().unwrap_or(' ')
            ));
        }
        let key = name.to_ascii_lowercase();
        if let Some(first) = self.names.get(&key) {
            return c.fail(format!(
                "{name}: an element of that name is already defined at line {first}"
            ));
        }
        let p = self.node(&mut c, &name, "first")?;
        let n = self.node(&mut c, &name, "second")?;
        let kind = match letter {
            'r' => {
                let r = self.value(&mut c, &format!("{name}: its resistance"))?;
                if !(r > 0.0) {
                    return c.fail(format!("{name}: resistance {r} must be positive"));
                }
                Kind::Resistor(r)
            }
            'c' | 'l' => {
                let what = if letter == 'c' {
                    "capacitance"
                } else {
                    "inductance"
                };
                let v = self.value(&mut c, &format!("{name}: its {what}"))?;
                if !(v > 0.0) {
                    return c.fail(format!("{name}: {what} {v} must be positive"));
                }
                let ic = if c.key("ic") {
                    Some(self.value(&mut c, &format!("{name}: IC"))?)
                } else {
                    None
                };
                if letter == 'c' {
                    Kind::Capacitor { c: v, ic }
                } else {
                    Kind::Inductor { l: v, ic }
                }
            }
            'v' | 'i' => {
                let w = self.source(&mut c, &name)?;
                if letter == 'v' {
                    Kind::Voltage(w)
                } else {
                    Kind::Current(w)
                }
            }
            _ => {
                let model = c.word(&format!("{name}: its model name"))?;
                self.diode_models.push((self.circuit.elements.len(), model));
                if c.peek().and_then(Token::keyword).as_deref() == Some("off") {
                    c.next();
                }
                Kind::Diode(DiodeModel::IDEAL)
            }
        };
        if let Some(t) = c.peek() {
            return c.fail(format!(
                "{name}: unexpected '{}' (a {} takes {})",
                t.text(),
                kind.noun(),
                match letter {
                    'r' => "two nodes and a value",
                    'c' | 'l' => "two nodes, a value and IC=",
                    'v' | 'i' => "two nodes, [DC] value and SIN, PULSE or PWL",
                    _ => "anode, cathode and a model name",
                }
            ));
        }
        self.names.insert(key, line.number);
        self.circuit.elements.push(Element {
            name,
            line: line.number,
            nodes: [p, n],
            kind,
        });
        Ok(())
    }

    /// `[[DC] value] [AC mag [phase]] [SIN(...) | PULSE(...) | PWL(...)]`.
    fn source(&mut self, c: &mut Cursor, name: &str) -> Result<Waveform, NetError> {
        let mut dc: Option<f64> = None;
        let mut wave: Option<Waveform> = None;
        while let Some(t) = c.peek().cloned() {
            match t.keyword().as_deref() {
                Some("dc") => {
                    c.next();
                    match c.peek().and_then(|t| self.input(t)) {
                        Some(j) => {
                            c.next();
                            wave = Some(Waveform::Input(j));
                        }
                        None => dc = Some(self.value(c, &format!("{name}: DC"))?),
                    }
                }
                Some("ac") => {
                    c.next();
                    // Magnitude and phase: small-signal analysis, not simulated.
                    for _ in 0..2 {
                        if c.peek().is_some_and(|t| match t {
                            Token::Word(w) => number(w).is_some(),
                            Token::Expr(_) => true,
                            _ => false,
                        }) {
                            c.next();
                        }
                    }
                    self.circuit.notes.push(format!(
                        "{name} (line {}): AC specification ignored (small-signal analysis)",
                        c.line
                    ));
                }
                Some(k @ ("sin" | "pulse" | "pwl")) => {
                    if wave.is_some() {
                        return c.fail(format!("{name}: a second waveform '{}'", t.text()));
                    }
                    c.next();
                    let args = self.arguments(c, name, k)?;
                    wave = Some(waveform(c, name, k, &args)?);
                }
                Some(k @ ("exp" | "sffm" | "am" | "trnoise" | "trrandom")) => {
                    return c.fail(format!(
                        "{name}: waveform {} is not supported (DC, SIN, PULSE and PWL are)",
                        k.to_ascii_uppercase()
                    ));
                }
                _ if dc.is_none() && wave.is_none() && self.input(&t).is_some() => {
                    c.next();
                    wave = self.input(&t).map(Waveform::Input);
                }
                _ if dc.is_none() && wave.is_none() => {
                    c.next();
                    dc = Some(
                        self.params
                            .value(&t, c.line, &format!("{name}: its value"))?,
                    );
                }
                _ => {
                    return c.fail(format!(
                        "{name}: unexpected '{}' in the source's value",
                        t.text()
                    ))
                }
            }
        }
        Ok(wave.unwrap_or(Waveform::Dc(dc.unwrap_or(0.0))))
    }

    /// The FMU input a `{name}` value names (case-insensitive, as SPICE).
    fn input(&self, t: &Token) -> Option<usize> {
        let Token::Expr(e) = t else { return None };
        self.inputs
            .iter()
            .position(|n| n.eq_ignore_ascii_case(e.trim()))
    }

    /// A waveform's numbers, with or without parentheses. `None` stands for
    /// a left-out trailing argument.
    fn arguments(&self, c: &mut Cursor, name: &str, k: &str) -> Result<Vec<f64>, NetError> {
        let paren = c.peek() == Some(&Token::Open);
        if paren {
            c.next();
        }
        let mut args = Vec::new();
        loop {
            match c.peek() {
                Some(Token::Close) if paren => {
                    c.next();
                    return Ok(args);
                }
                None if paren => {
                    return c.fail(format!("{name}: ')' of {} is missing", k.to_uppercase()))
                }
                None => return Ok(args),
                Some(Token::Word(w)) if !paren && number(w).is_none() => return Ok(args),
                Some(Token::Word(w)) if number(w).is_none() && w.contains(char::is_alphabetic) => {
                    let w = w.clone();
                    return c.fail(format!(
                        "{name}: {}: '{w}' is not a number (keyword arguments such as r= and td= are not supported)",
                        k.to_uppercase()
                    ));
                }
                _ => {}
            }
            let what = format!("{name}: {} argument {}", k.to_uppercase(), args.len() + 1);
            args.push(self.value(c, &what)?);
        }
    }

    fn resolve_diodes(&mut self) -> Result<(), NetError> {
        for (i, model) in std::mem::take(&mut self.diode_models) {
            let e = &mut self.circuit.elements[i];
            let Some((m, _)) = self.models.get(&model.to_ascii_lowercase()) else {
                return Err(NetError::at(
                    e.line,
                    format!(
                        "{}: model '{model}' is not defined (.model {model} D(...))",
                        e.name
                    ),
                ));
            };
            e.kind = Kind::Diode(m.clone());
        }
        Ok(())
    }
}

/// A waveform from its arguments; `None` entries are SPICE's defaults that
/// depend on `.tran`, filled in by [`fill_source_defaults`] (NaN until then).
fn waveform(c: &Cursor, name: &str, k: &str, a: &[f64]) -> Result<Waveform, NetError> {
    let upper = k.to_uppercase();
    let arg = |i: usize| a.get(i).copied();
    let (min, max) = match k {
        "sin" => (2, 6),
        "pulse" => (2, 7),
        _ => (2, usize::MAX),
    };
    if a.len() < min || a.len() > max {
        let form = match k {
            "sin" => "SIN(VO VA [FREQ [TD [THETA [PHASE]]]])",
            "pulse" => "PULSE(V1 V2 [TD [TR [TF [PW [PER]]]]])",
            _ => "PWL(T1 V1 T2 V2 ...)",
        };
        return c.fail(format!(
            "{name}: {upper} takes {form}, found {} value{}",
            a.len(),
            if a.len() == 1 { "" } else { "s" }
        ));
    }
    let w = match k {
        "sin" => Waveform::Sin {
            vo: a[0],
            va: a[1],
            freq: arg(2).unwrap_or(f64::NAN),
            td: arg(3).unwrap_or(0.0),
            theta: arg(4).unwrap_or(0.0),
            phase: arg(5).unwrap_or(0.0),
        },
        "pulse" => Waveform::Pulse {
            v1: a[0],
            v2: a[1],
            td: arg(2).unwrap_or(0.0),
            tr: arg(3).unwrap_or(f64::NAN),
            tf: arg(4).unwrap_or(f64::NAN),
            pw: arg(5).unwrap_or(f64::NAN),
            per: arg(6).unwrap_or(f64::NAN),
        },
        _ => {
            if !a.len().is_multiple_of(2) {
                return c.fail(format!(
                    "{name}: PWL takes pairs of time and value, found {} numbers",
                    a.len()
                ));
            }
            let points: Vec<(f64, f64)> = a.chunks(2).map(|p| (p[0], p[1])).collect();
            if points.len() > MAX_PWL_POINTS {
                return c.fail(format!(
                    "{name}: PWL with {} points; at most {MAX_PWL_POINTS} are read (each is a term of the source's expression)",
                    points.len()
                ));
            }
            if let Some(k) = points.windows(2).position(|w| !(w[1].0 >= w[0].0)) {
                return c.fail(format!(
                    "{name}: PWL times must not decrease: {} after {}",
                    points[k + 1].0,
                    points[k].0
                ));
            }
            if points[0].0 < 0.0 {
                return c.fail(format!(
                    "{name}: PWL's first time {} is negative",
                    points[0].0
                ));
            }
            Waveform::Pwl(points)
        }
    };
    if let Waveform::Sin { freq, theta, .. } = w {
        if freq < 0.0 || !theta.is_finite() {
            return c.fail(format!("{name}: SIN's FREQ must be >= 0"));
        }
    }
    if let Waveform::Pulse {
        td,
        tr,
        tf,
        pw,
        per,
        ..
    } = w
    {
        let given = [("TD", td), ("TR", tr), ("TF", tf), ("PW", pw), ("PER", per)];
        if let Some((n, v)) = given.iter().find(|(_, v)| *v < 0.0) {
            return c.fail(format!("{name}: PULSE's {n} = {v} must not be negative"));
        }
    }
    Ok(w)
}

/// SPICE's defaults of left-out (or zero) waveform settings: `FREQ = 1/TSTOP`;
/// `TR = TF = TSTEP`, `PW = PER = TSTOP` (as ngspice fills them).
fn fill_source_defaults(c: &mut Circuit) {
    let (step, stop) = c.tran.map_or((0.01, 1.0), |t| (t.step, t.stop));
    for e in &mut c.elements {
        let (Kind::Voltage(w) | Kind::Current(w)) = &mut e.kind else {
            continue;
        };
        match w {
            Waveform::Sin { freq, .. } if freq.is_nan() || *freq == 0.0 => *freq = 1.0 / stop,
            Waveform::Pulse {
                tr, tf, pw, per, ..
            } => {
                for (v, default) in [(tr, step), (tf, step), (pw, stop), (per, stop)] {
                    if v.is_nan() || *v == 0.0 {
                        *v = default;
                    }
                }
            }
            _ => {}
        }
    }
}
