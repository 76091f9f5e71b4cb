//! Statements into a [`Circuit`]: elements (`R C L V I D S`, the linear
//! controlled sources `E F G H`, coupled inductors `K`, subcircuit instances
//! `X`) and directives (`.param .tran .ic .model .options .save .probe`,
//! `.subckt` ... `.ends`, and the ones accepted with no effect).
//!
//! A `.subckt` block is cut out of the lines first; each `X` instance reads
//! its lines again where the instance is, with its ports on the instance's
//! nodes, its own nodes and elements named `X1.n` and `X1.R1` (node 0 is
//! global), and its `params:` evaluated (defaults over the netlist's
//! `.param`s, the instance's values where it is written). A refusal inside
//! names the body's line and the instance.
//!
//! `.param` lines are read first, in order (a parameter may use those defined
//! before it), so an element may use a parameter defined below it, as in
//! SPICE. `.model` cards (`D`, `SW`) are read before the diodes and switches
//! that name them. Every
//! refusal names the line and what is wrong; element, node, model and
//! parameter names are case-insensitive.

use super::elements::{
    Circuit, Coupling, DiodeModel, Element, Kind, Saved, SwitchModel, Tran, Waveform,
};
use super::lines::{self, Line, Token};
use super::values::{number, Params};
use super::NetError;
use std::collections::HashMap;

/// Element letters SPICE knows that this reader does not support yet.
const NOT_YET: &[(char, &str)] = &[
    ('b', "behavioural source"),
    ('j', "JFET"),
    ('m', "MOSFET"),
    ('q', "bipolar transistor"),
    ('t', "transmission line"),
    ('w', "current-controlled switch"),
    ('z', "MESFET"),
];

/// Analyses and commands that are refused: lcsfmu simulates in time only.
const ANALYSES: &[&str] = &[
    ".op", ".ac", ".dc", ".noise", ".tf", ".disto", ".pz", ".sens", ".four", ".meas", ".measure",
    ".sp", ".pss",
];

/// Directives of netlist structure that are not supported yet.
const STRUCTURE: &[&str] = &[
    ".include", ".inc", ".lib", ".endl", ".func", ".global", ".temp", ".nodeset", ".csparam",
    ".if", ".else", ".endif",
];

/// Output requests of SPICE's printer: `.save` and `.probe` choose the
/// outputs; these have no effect.
const OUTPUT_REQUESTS: &[&str] = &[".print", ".plot", ".width"];

/// Most elements once every `X` instance is expanded (nested instances
/// multiply).
const MAX_ELEMENTS: usize = 100_000;

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
        lines.push((line.clone(), lines::tokens(line)?));
    }
    let (lines, subckts) = subcircuits(lines)?;
    let mut reader = Reader {
        circuit: Circuit {
            title: text.title.clone().unwrap_or_default(),
            nodes: vec!["0".into()],
            node_lines: vec![0],
            ..Circuit::default()
        },
        params: Params::default(),
        global_params: Params::default(),
        node_index: HashMap::from([("0".to_string(), 0), ("gnd".to_string(), 0)]),
        names: HashMap::new(),
        models: HashMap::new(),
        diode_models: Vec::new(),
        controls: Vec::new(),
        couplings: Vec::new(),
        saves: Vec::new(),
        save_all: false,
        subckts,
        scope: Scope::default(),
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
    // Parameters first, then models (at the top and in subcircuits: a
    // model is global), then the rest.
    for (line, tokens) in &lines {
        if keyword(tokens).as_deref() == Some(".param") {
            reader.param(line, tokens)?;
        }
    }
    reader.global_params = reader.params.clone();
    let bodies: Vec<(Line, Vec<Token>)> = reader
        .subckts
        .values()
        .flat_map(|s| s.body.iter().cloned())
        .collect();
    let mut models: Vec<&(Line, Vec<Token>)> = lines.iter().chain(&bodies).collect();
    models.sort_by_key(|(l, _)| l.number);
    for (line, tokens) in models {
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
    reader.resolve_controls()?;
    reader.resolve_couplings()?;
    reader.resolve_saves()?;
    let mut c = reader.circuit;
    fill_source_defaults(&mut c);
    Ok(c)
}

/// A `.subckt` definition: its ports, its parameters' defaults and its lines.
#[derive(Clone, Debug)]
struct Subckt {
    /// As written.
    name: String,
    line: usize,
    /// Lower-case port names.
    ports: Vec<String>,
    /// `params:` defaults (lower-case names), evaluated where the
    /// definition is (the netlist's `.param` names).
    params: Vec<(String, Token)>,
    body: Vec<(Line, Vec<Token>)>,
}

/// Where the elements being read are: the top level, or inside `X`
/// instances (`X1.X2.`).
#[derive(Clone, Debug, Default)]
struct Scope {
    /// `X1.X2.` (empty at the top level).
    prefix: String,
    /// Lower-case port name to the node it is connected to.
    ports: HashMap<String, usize>,
    /// The subcircuits being expanded, outermost first, with the instance
    /// and its line: for recursion and messages.
    stack: Vec<(String, String, usize)>,
}

/// The netlist's lines without its `.subckt` ... `.ends` blocks, and those
/// blocks by lower-case name.
#[allow(clippy::type_complexity)]
fn subcircuits(
    lines: Vec<(Line, Vec<Token>)>,
) -> Result<(Vec<(Line, Vec<Token>)>, HashMap<String, Subckt>), NetError> {
    let mut top = Vec::new();
    let mut subckts: HashMap<String, Subckt> = HashMap::new();
    let mut open: Option<Subckt> = None;
    for (line, tokens) in lines {
        let k = keyword(&tokens);
        match k.as_deref() {
            Some(".subckt") => {
                if let Some(s) = &open {
                    return Err(NetError::at(
                        line.number,
                        format!(
                            ".subckt inside .subckt {} (line {}): nested definitions are not supported; define each subcircuit at the top level",
                            s.name, s.line
                        ),
                    ));
                }
                open = Some(subckt_header(&line, &tokens)?);
            }
            Some(".ends") => {
                let Some(s) = open.take() else {
                    return Err(NetError::at(line.number, ".ends without .subckt"));
                };
                if let Some(Token::Word(w)) = tokens.get(1) {
                    if !w.eq_ignore_ascii_case(&s.name) {
                        return Err(NetError::at(
                            line.number,
                            format!(".ends {w} closes .subckt {} (line {})", s.name, s.line),
                        ));
                    }
                }
                let key = s.name.to_ascii_lowercase();
                if let Some(first) = subckts.get(&key) {
                    return Err(NetError::at(
                        s.line,
                        format!(
                            ".subckt {} is already defined at line {}",
                            s.name, first.line
                        ),
                    ));
                }
                subckts.insert(key, s);
            }
            _ => match &mut open {
                Some(s) => {
                    let allowed = k
                        .as_deref()
                        .is_none_or(|k| !k.starts_with('.') || k == ".model");
                    if !allowed {
                        return Err(NetError::at(
                            line.number,
                            format!(
                                "{} inside .subckt {} is not supported (a subcircuit holds elements, X instances and .model lines; its parameters are given with params: on the .subckt line)",
                                k.unwrap_or_default(),
                                s.name
                            ),
                        ));
                    }
                    s.body.push((line, tokens));
                }
                None => top.push((line, tokens)),
            },
        }
    }
    if let Some(s) = open {
        return Err(NetError::at(
            s.line,
            format!(".subckt {} is never closed (.ends is missing)", s.name),
        ));
    }
    Ok((top, subckts))
}

/// `.subckt name port... [params:] [name=value ...]`.
fn subckt_header(line: &Line, tokens: &[Token]) -> Result<Subckt, NetError> {
    let mut c = Cursor {
        tokens,
        pos: 1,
        line: line.number,
    };
    let name = c.word(".subckt: its name")?;
    let mut ports: Vec<String> = Vec::new();
    let mut params = Vec::new();
    while let Some(t) = c.next().cloned() {
        let Token::Word(w) = t else {
            return c.fail(format!(".subckt {name}: unexpected '{}'", t.text()));
        };
        let lower = w.to_ascii_lowercase();
        if lower == "params:" {
            continue;
        }
        if c.peek() == Some(&Token::Equals) {
            c.next();
            let Some(v) = c.next().cloned() else {
                return c.fail(format!(".subckt {name}: the value of {w} is missing"));
            };
            params.push((lower, v));
            continue;
        }
        if !params.is_empty() {
            return c.fail(format!(
                ".subckt {name}: port '{w}' after the parameters (ports come first)"
            ));
        }
        if lower == "0" || lower == "gnd" {
            return c.fail(format!(
                ".subckt {name}: the ground cannot be a port (node 0 is global: use it inside the subcircuit)"
            ));
        }
        if ports.contains(&lower) {
            return c.fail(format!(".subckt {name}: port '{w}' is listed twice"));
        }
        ports.push(lower);
    }
    Ok(Subckt {
        name,
        line: line.number,
        ports,
        params,
        body: Vec::new(),
    })
}

fn keyword(tokens: &[Token]) -> Option<String> {
    tokens.first().and_then(Token::keyword)
}

fn join_numbers(v: &[usize]) -> String {
    let s: Vec<String> = v.iter().map(usize::to_string).collect();
    s.join(", ")
}

/// A name of an element inside the scope it was written in, resolved when
/// every element is read: (full lower-case name, as written, line).
type Pending = (String, String, usize);

struct Reader<'i> {
    circuit: Circuit,
    /// The parameters where the lines being read are: the netlist's, or a
    /// subcircuit instance's.
    params: Params,
    /// The netlist's `.param` values.
    global_params: Params,
    /// Lower-case node name to index.
    node_index: HashMap<String, usize>,
    /// Lower-case element name to its line.
    names: HashMap<String, usize>,
    /// Lower-case model name to the model and its line.
    models: HashMap<String, (DeviceModel, usize)>,
    /// Diodes and switches waiting for their model: element index, model
    /// name as written.
    diode_models: Vec<(usize, String)>,
    /// `F` and `H` waiting for their controlling source: element index and
    /// the source's name.
    controls: Vec<(usize, Pending)>,
    /// `K` lines waiting for their inductors: name, line, inductors, k.
    couplings: Vec<(String, usize, Vec<Pending>, f64)>,
    /// `.save` / `.probe` requests: `V(n)`, `V(a, b)` or `I(x)`.
    saves: Vec<(SaveRequest, usize)>,
    /// A `.save all`.
    save_all: bool,
    subckts: HashMap<String, Subckt>,
    scope: Scope,
    /// FMU input names.
    inputs: &'i [String],
}

/// A `.model` card: a diode's (type `D`) or a switch's (type `SW`).
#[derive(Clone)]
enum DeviceModel {
    Diode(DiodeModel),
    Switch(SwitchModel),
}

/// A `.save` request as written, resolved once every node is known.
enum SaveRequest {
    Node(String),
    Between(String, String),
    Current(String),
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
        if let Some(&i) = self.scope.ports.get(&key) {
            return Ok(i);
        }
        // Node 0 is global; the others inside a subcircuit are its own.
        let (name, key) = if key == "0" || key == "gnd" || self.scope.prefix.is_empty() {
            (name, key)
        } else {
            let full = format!("{}{name}", self.scope.prefix);
            let key = full.to_ascii_lowercase();
            (full, key)
        };
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
        let switch = kind.eq_ignore_ascii_case("sw");
        if !kind.eq_ignore_ascii_case("d") && !switch {
            return c.fail(format!(
                ".model {name}: type '{kind}' is not supported (diode models, type D, and voltage-controlled switch models, type SW, are)"
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
        let mut sw = SwitchModel::DEFAULT;
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
            if switch {
                match p.to_ascii_lowercase().as_str() {
                    "vt" => sw.vt = v,
                    "vh" => sw.vh = v,
                    "ron" => sw.ron = v,
                    "roff" => sw.roff = v,
                    _ => {
                        return c.fail(format!(
                            ".model {name}: unknown switch parameter '{p}' (a voltage-controlled switch, type SW, takes VT, VH, RON and ROFF)"
                        ))
                    }
                }
                continue;
            }
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
        if switch {
            self.switch_model(&c, &name, &sw)?;
            self.models
                .insert(key, (DeviceModel::Switch(sw), line.number));
            return Ok(());
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
        self.models
            .insert(key, (DeviceModel::Diode(model), line.number));
        Ok(())
    }

    /// Refuses a switch model that is not a resistance between two
    /// positive finite values, or whose threshold or hysteresis is not a
    /// number the switch can use (`VH < 0` leaves no band).
    fn switch_model(&self, c: &Cursor, name: &str, m: &SwitchModel) -> Result<(), NetError> {
        if !(m.ron > 0.0) || !m.ron.is_finite() {
            return c.fail(format!(
                ".model {name}: RON = {} must be finite and positive (a zero resistance would short the switch's nodes and leave its current undetermined)",
                m.ron
            ));
        }
        if !(m.roff > m.ron) || !m.roff.is_finite() {
            return c.fail(format!(
                ".model {name}: ROFF = {} must be finite and above RON = {}",
                m.roff, m.ron
            ));
        }
        if !m.vt.is_finite() {
            return c.fail(format!(".model {name}: VT = {} must be finite", m.vt));
        }
        if !(m.vh >= 0.0) || !m.vh.is_finite() {
            return c.fail(format!(
                ".model {name}: VH = {} must be finite and >= 0 (the hysteresis band is VT - VH to VT + VH)",
                m.vh
            ));
        }
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
            ".save" | ".probe" => self.save(&mut c, k),
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
        let local = match c.next().cloned() {
            Some(Token::Word(w)) => w,
            Some(t) => return c.fail(format!("a line cannot start with '{}'", t.text())),
            None => return Ok(()),
        };
        let letter = local
            .chars()
            .next()
            .map(|ch| ch.to_ascii_lowercase())
            .unwrap_or(' ');
        if !"rclviddefghksx".contains(letter) {
            if let Some((_, what)) = NOT_YET.iter().find(|(l, _)| *l == letter) {
                return c.fail(format!(
                    "{local}: element type '{}' ({what}) is not supported yet",
                    letter.to_ascii_uppercase()
                ));
            }
            return c.fail(format!(
                "{local}: unknown element letter '{}' (supported: R, C, L, K, V, I, E, F, G, H, D, S, X)",
                local.chars().next().unwrap_or(' ')
            ));
        }
        // Inside a subcircuit, X1's R2 is X1.R2.
        let name = format!("{}{local}", self.scope.prefix);
        let key = name.to_ascii_lowercase();
        if let Some(first) = self.names.get(&key) {
            return c.fail(format!(
                "{name}: an element of that name is already defined at line {first}"
            ));
        }
        if self.circuit.elements.len() >= MAX_ELEMENTS {
            return c.fail(format!(
                "{name}: more than {MAX_ELEMENTS} elements once the subcircuits are expanded"
            ));
        }
        match letter {
            'x' => {
                self.names.insert(key, line.number);
                return self.instance(&mut c, &name);
            }
            'k' => {
                let coupling = self.coupling(&mut c, &name)?;
                self.names.insert(key, line.number);
                self.couplings.push(coupling);
                return Ok(());
            }
            _ => {}
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
            'd' => {
                let model = c.word(&format!("{name}: its model name"))?;
                self.diode_models.push((self.circuit.elements.len(), model));
                if c.peek().and_then(Token::keyword).as_deref() == Some("off") {
                    c.next();
                }
                Kind::Diode(DiodeModel::IDEAL)
            }
            's' => {
                let cp = self.node(&mut c, &name, "positive control")?;
                let cn = self.node(&mut c, &name, "negative control")?;
                let model = c.word(&format!("{name}: its model name"))?;
                self.diode_models.push((self.circuit.elements.len(), model));
                let on = match c.peek().and_then(Token::keyword).as_deref() {
                    Some("on") => {
                        c.next();
                        true
                    }
                    Some("off") => {
                        c.next();
                        false
                    }
                    _ => false,
                };
                Kind::Switch {
                    control: [cp, cn],
                    model: SwitchModel::DEFAULT,
                    on,
                }
            }
            'e' | 'g' => {
                self.linear_only(&c, &name)?;
                let cp = self.node(&mut c, &name, "positive control")?;
                let cn = self.node(&mut c, &name, "negative control")?;
                let gain = self.gain(&mut c, &name, letter)?;
                if letter == 'e' {
                    Kind::Vcvs {
                        control: [cp, cn],
                        gain,
                    }
                } else {
                    Kind::Vccs {
                        control: [cp, cn],
                        gain,
                    }
                }
            }
            _ => {
                // 'f' | 'h': the controlling voltage source, then the gain.
                let source = c.word(&format!("{name}: its controlling voltage source"))?;
                let full = format!("{}{source}", self.scope.prefix);
                let pending = (full.to_ascii_lowercase(), source, c.line);
                self.controls.push((self.circuit.elements.len(), pending));
                let gain = self.gain(&mut c, &name, letter)?;
                if letter == 'f' {
                    Kind::Cccs { source: 0, gain }
                } else {
                    Kind::Ccvs { source: 0, gain }
                }
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
                    'd' => "anode, cathode and a model name",
                    's' => "two nodes, two control nodes, a model name and ON or OFF",
                    'e' | 'g' => "two nodes, two control nodes and a gain",
                    _ => "two nodes, a voltage source's name and a gain",
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

    /// A controlled source's gain: a number or `{expression}`; SPICE's
    /// nonlinear forms are refused.
    fn gain(&self, c: &mut Cursor, name: &str, letter: char) -> Result<f64, NetError> {
        let what = match letter {
            'e' => "voltage gain",
            'f' => "current gain",
            'g' => "transconductance",
            _ => "transresistance",
        };
        self.linear_only(c, name)?;
        let v = self.value(c, &format!("{name}: its {what}"))?;
        Ok(v)
    }

    /// Refuses SPICE's nonlinear forms of a controlled source (`POLY`,
    /// `VALUE=`, `TABLE`, ...) where its control or gain would be.
    fn linear_only(&self, c: &Cursor, name: &str) -> Result<(), NetError> {
        if let Some(k) = c.peek().and_then(Token::keyword) {
            if ["poly", "value", "table", "laplace", "vol", "cur", "freq"].contains(&k.as_str()) {
                return c.fail(format!(
                    "{name}: {} is not supported (a controlled source is linear: a gain alone)",
                    k.to_ascii_uppercase()
                ));
            }
        }
        Ok(())
    }

    /// `K name L1 L2 [L3 ...] k`.
    fn coupling(
        &mut self,
        c: &mut Cursor,
        name: &str,
    ) -> Result<(String, usize, Vec<Pending>, f64), NetError> {
        let mut inductors: Vec<Pending> = Vec::new();
        while let Some(Token::Word(w)) = c.peek().cloned() {
            let last = c.pos + 1 == c.tokens.len();
            if last {
                break;
            }
            c.next();
            if !w.to_ascii_lowercase().starts_with('l') {
                return c.fail(format!(
                    "{name}: '{w}' is not an inductor (K couples inductors: K1 L1 L2 k)"
                ));
            }
            let full = format!("{}{w}", self.scope.prefix);
            if inductors
                .iter()
                .any(|(k, _, _)| *k == full.to_ascii_lowercase())
            {
                return c.fail(format!("{name}: {w} is listed twice"));
            }
            inductors.push((full.to_ascii_lowercase(), w, c.line));
        }
        if inductors.len() < 2 {
            return c.fail(format!(
                "{name}: K takes two or more inductors and the coupling coefficient (K1 L1 L2 k)"
            ));
        }
        let k = self.value(c, &format!("{name}: its coupling coefficient"))?;
        if !(k.abs() <= 1.0) {
            return c.fail(format!(
                "{name}: coupling coefficient {k} is outside [-1, 1] (M = k sqrt(L1 L2) cannot exceed sqrt(L1 L2))"
            ));
        }
        if let Some(t) = c.peek() {
            return c.fail(format!("{name}: unexpected '{}' after k", t.text()));
        }
        Ok((name.to_string(), c.line, inductors, k))
    }

    /// `X name node... subckt [params:] [p=value ...]`: the subcircuit's
    /// lines read again with its ports on `node...`, its own nodes and
    /// elements named `name.node` and `name.element`.
    fn instance(&mut self, c: &mut Cursor, name: &str) -> Result<(), NetError> {
        let mut words: Vec<String> = Vec::new();
        let mut overrides: Vec<(String, Token)> = Vec::new();
        while let Some(t) = c.next().cloned() {
            let Token::Word(w) = t else {
                return c.fail(format!("{name}: unexpected '{}'", t.text()));
            };
            if w.eq_ignore_ascii_case("params:") {
                continue;
            }
            if c.peek() == Some(&Token::Equals) {
                c.next();
                let Some(v) = c.next().cloned() else {
                    return c.fail(format!("{name}: the value of {w} is missing"));
                };
                overrides.push((w.to_ascii_lowercase(), v));
            } else if !overrides.is_empty() {
                return c.fail(format!(
                    "{name}: '{w}' after the parameters (nodes and the subcircuit's name come first)"
                ));
            } else {
                words.push(w);
            }
        }
        let Some(sub_name) = words.pop() else {
            return c.fail(format!(
                "{name}: X takes its nodes and a subcircuit's name (X1 a b name)"
            ));
        };
        let Some(sub) = self.subckts.get(&sub_name.to_ascii_lowercase()).cloned() else {
            return c.fail(format!(
                "{name}: subcircuit '{sub_name}' is not defined (.subckt {sub_name} ... .ends)"
            ));
        };
        if let Some(k) = self.scope.stack.iter().position(|(s, _, _)| *s == sub.name) {
            let chain: Vec<String> = self.scope.stack[k..]
                .iter()
                .map(|(s, x, l)| format!("{x} ({s}, line {l})"))
                .collect();
            return c.fail(format!(
                "{name}: subcircuit {} instances itself ({} -> {name}): recursion has no end",
                sub.name,
                chain.join(" -> ")
            ));
        }
        if words.len() != sub.ports.len() {
            return c.fail(format!(
                "{name}: subcircuit {} (line {}) has {} port{}, the instance gives {} node{}",
                sub.name,
                sub.line,
                sub.ports.len(),
                if sub.ports.len() == 1 { "" } else { "s" },
                words.len(),
                if words.len() == 1 { "" } else { "s" },
            ));
        }
        let mut ports = HashMap::new();
        for (port, node) in sub.ports.iter().zip(&words) {
            let token = [Token::Word(node.clone())];
            let mut one = Cursor {
                tokens: &token,
                pos: 0,
                line: c.line,
            };
            let index = self.node(&mut one, name, "port")?;
            ports.insert(port.clone(), index);
        }
        // Defaults at the definition (the netlist's parameters), then the
        // instance's values where it is written.
        let mut params = self.global_params.clone();
        for (p, v) in &sub.params {
            let value =
                self.global_params
                    .value(v, sub.line, &format!(".subckt {}: {p}", sub.name))?;
            params.define(p, value);
        }
        for (p, v) in &overrides {
            if !sub.params.iter().any(|(q, _)| q == p) {
                return c.fail(format!(
                    "{name}: subcircuit {} has no parameter '{p}' (its params: {})",
                    sub.name,
                    if sub.params.is_empty() {
                        "none".to_string()
                    } else {
                        sub.params
                            .iter()
                            .map(|(q, _)| q.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ));
            }
            let value = self.params.value(v, c.line, &format!("{name}: {p}"))?;
            params.define(p, value);
        }
        let mut stack = self.scope.stack.clone();
        stack.push((sub.name.clone(), name.to_string(), c.line));
        let inner = Scope {
            prefix: format!("{name}."),
            ports,
            stack,
        };
        let outer_scope = std::mem::replace(&mut self.scope, inner);
        let outer_params = std::mem::replace(&mut self.params, params);
        let mut result = Ok(());
        for (line, tokens) in &sub.body {
            if keyword(tokens).as_deref() == Some(".model") {
                continue;
            }
            if let Err(mut e) = self.element(line, tokens) {
                if !e.message.contains(" (in ") {
                    e.message = format!(
                        "{} (in {name}, an instance of .subckt {} at line {})",
                        e.message, sub.name, c.line
                    );
                }
                result = Err(e);
                break;
            }
        }
        self.scope = outer_scope;
        self.params = outer_params;
        result
    }

    /// `.save` / `.probe`: `V(n)`, `V(a, b)`, `I(x)`, a bare node name,
    /// `all`.
    fn save(&mut self, c: &mut Cursor, k: &str) -> Result<(), NetError> {
        while let Some(t) = c.next().cloned() {
            let Token::Word(w) = t else {
                return c.fail(format!("{k}: unexpected '{}'", t.text()));
            };
            let lower = w.to_ascii_lowercase();
            if lower == "all" {
                self.save_all = true;
                self.circuit.notes.push(format!(
                    "{k} all (line {}): every node voltage and branch current is an output",
                    c.line
                ));
                continue;
            }
            if ["tran", "dc", "ac", "op"].contains(&lower.as_str()) && self.saves.is_empty() {
                // `.probe tran v(out)`: the analysis named first.
                continue;
            }
            if c.peek() != Some(&Token::Open) {
                if lower.starts_with('@') || lower.contains('#') {
                    return c.fail(format!(
                        "{k}: '{w}' is not supported (V(node), V(a, b), I(element) or a node name)"
                    ));
                }
                self.saves.push((SaveRequest::Node(w), c.line));
                continue;
            }
            c.next();
            let first = c.word(&format!("{k} {w}(...): a name"))?;
            let second = if c.peek() != Some(&Token::Close) {
                Some(c.word(&format!("{k} {w}({first}, ...): a node"))?)
            } else {
                None
            };
            if c.next() != Some(&Token::Close) {
                return c.fail(format!("{k}: ')' of {w}({first} is missing"));
            }
            let request = match (lower.as_str(), second) {
                ("v", None) => SaveRequest::Node(first),
                ("v", Some(b)) => SaveRequest::Between(first, b),
                ("i", None) => SaveRequest::Current(first),
                _ => {
                    return c.fail(format!(
                        "{k}: '{w}(...)' is not supported (V(node), V(a, b) or I(element))"
                    ))
                }
            };
            self.saves.push((request, c.line));
        }
        Ok(())
    }

    fn element_index(&self, key: &str) -> Option<usize> {
        self.circuit
            .elements
            .iter()
            .position(|e| e.name.eq_ignore_ascii_case(key))
    }

    fn resolve_controls(&mut self) -> Result<(), NetError> {
        for (i, (key, written, line)) in std::mem::take(&mut self.controls) {
            let e = &self.circuit.elements[i];
            let found = self.element_index(&key);
            let Some(v) =
                found.filter(|&v| matches!(self.circuit.elements[v].kind, Kind::Voltage(_)))
            else {
                return Err(NetError::at(
                    line,
                    match found {
                        Some(v) => format!(
                            "{}: {written} is a {}; a current-controlled source reads the current of a voltage source (add a 0 V source in series to sense it)",
                            e.name,
                            self.circuit.elements[v].kind.noun()
                        ),
                        None => format!(
                            "{}: voltage source '{written}' is not in the circuit",
                            e.name
                        ),
                    },
                ));
            };
            match &mut self.circuit.elements[i].kind {
                Kind::Cccs { source, .. } | Kind::Ccvs { source, .. } => *source = v,
                _ => unreachable!("controls are F and H"),
            }
        }
        Ok(())
    }

    fn resolve_couplings(&mut self) -> Result<(), NetError> {
        let mut coupled: HashMap<(usize, usize), (String, usize)> = HashMap::new();
        for (name, line, inductors, k) in std::mem::take(&mut self.couplings) {
            let mut list = Vec::new();
            for (key, written, _) in &inductors {
                let found = self.element_index(key);
                match found.map(|i| &self.circuit.elements[i].kind) {
                    Some(Kind::Inductor { .. }) => list.push(found.unwrap()),
                    Some(other) => {
                        return Err(NetError::at(
                            line,
                            format!("{name}: {written} is a {}, not an inductor", other.noun()),
                        ))
                    }
                    None => {
                        return Err(NetError::at(
                            line,
                            format!("{name}: inductor '{written}' is not in the circuit"),
                        ))
                    }
                }
            }
            for (a, &i) in list.iter().enumerate() {
                for &j in &list[a + 1..] {
                    let pair = (i.min(j), i.max(j));
                    if let Some((other, first)) = coupled.get(&pair) {
                        return Err(NetError::at(
                            line,
                            format!(
                                "{name}: {} and {} are already coupled by {other} (line {first})",
                                self.circuit.elements[pair.0].name,
                                self.circuit.elements[pair.1].name
                            ),
                        ));
                    }
                    coupled.insert(pair, (name.clone(), line));
                }
            }
            self.circuit.couplings.push(Coupling {
                name,
                line,
                inductors: list,
                k,
            });
        }
        Ok(())
    }

    fn resolve_saves(&mut self) -> Result<(), NetError> {
        if self.save_all || self.saves.is_empty() {
            return Ok(());
        }
        let node = |name: &str, line: usize| -> Result<usize, NetError> {
            self.node_index
                .get(&name.to_ascii_lowercase())
                .copied()
                .ok_or_else(|| {
                    NetError::at(line, format!(".save: node '{name}' is not in the circuit"))
                })
        };
        let mut out = Vec::new();
        for (request, line) in &self.saves {
            let saved = match request {
                SaveRequest::Node(n) => Saved::Node(node(n, *line)?),
                SaveRequest::Between(a, b) => Saved::Between(node(a, *line)?, node(b, *line)?),
                SaveRequest::Current(x) => {
                    let Some(i) = self.element_index(x) else {
                        return Err(NetError::at(
                            *line,
                            format!(".save: element '{x}' is not in the circuit"),
                        ));
                    };
                    Saved::Current(i)
                }
            };
            if !out.iter().any(|(s, _)| *s == saved) {
                out.push((saved, *line));
            }
        }
        self.circuit.saves = Some(out);
        Ok(())
    }

    fn resolve_diodes(&mut self) -> Result<(), NetError> {
        for (i, model) in std::mem::take(&mut self.diode_models) {
            let e = &mut self.circuit.elements[i];
            let switch = matches!(e.kind, Kind::Switch { .. });
            let Some((m, at)) = self.models.get(&model.to_ascii_lowercase()) else {
                return Err(NetError::at(
                    e.line,
                    format!(
                        "{}: model '{model}' is not defined (.model {model} {}(...))",
                        e.name,
                        if switch { "SW" } else { "D" }
                    ),
                ));
            };
            let wrong = |is: &str, needs: &str| {
                Err(NetError::at(
                    e.line,
                    format!(
                        "{}: model '{model}' (line {at}) is a {is} model; a {} needs a .model of type {needs}",
                        e.name,
                        if switch { "switch" } else { "diode" }
                    ),
                ))
            };
            match (m, &mut e.kind) {
                (DeviceModel::Diode(m), Kind::Diode(d)) => *d = m.clone(),
                (DeviceModel::Switch(m), Kind::Switch { model, .. }) => *model = m.clone(),
                (DeviceModel::Diode(_), _) => return wrong("diode (type D)", "SW"),
                (DeviceModel::Switch(_), _) => return wrong("switch (type SW)", "D"),
            }
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
