//! The circuit as read: nodes, elements with their values, the analysis.
//!
//! Nothing here knows matrices; [`super::parse`] fills these structs from
//! the netlist's statements and [`super::topology`] and `mna` read
//! them. Node 0 is the ground (`0` or `gnd`); the others are numbered in the
//! order they first appear.

/// A piecewise-linear diode: `Ron` while conducting, `Roff` while blocking,
/// the knee at `Vf`. The default is the ideal diode (0, infinite, 0).
#[derive(Clone, Debug, PartialEq)]
pub struct DiodeModel {
    pub ron: f64,
    pub roff: f64,
    pub vf: f64,
}

impl DiodeModel {
    pub const IDEAL: DiodeModel = DiodeModel {
        ron: 0.0,
        roff: f64::INFINITY,
        vf: 0.0,
    };

    /// The series resistance of the switched branch, whose current is added
    /// to the `Roff` branch's: `1/R2 = 1/Ron - 1/Roff`.
    pub fn switched_resistance(&self) -> f64 {
        if self.roff.is_infinite() {
            self.ron
        } else {
            self.ron * self.roff / (self.roff - self.ron)
        }
    }
}

/// A voltage-controlled switch's `.model name SW(...)`: closed (`Ron`)
/// while the control voltage is above `Vt + Vh`, open (`Roff`) below
/// `Vt - Vh`, unchanged between (ngspice's `SW`). Defaults as ngspice's:
/// `Vt = 0`, `Vh = 0`, `Ron = 1`, `Roff = 1e12` (`1/GMIN`).
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchModel {
    pub vt: f64,
    pub vh: f64,
    pub ron: f64,
    pub roff: f64,
}

impl SwitchModel {
    pub const DEFAULT: SwitchModel = SwitchModel {
        vt: 0.0,
        vh: 0.0,
        ron: 1.0,
        roff: 1e12,
    };

    /// The series resistance of the gated branch beside the `Roff` branch:
    /// `1/R2 = 1/Ron - 1/Roff`, so that both in parallel give `Ron`.
    pub fn switched_resistance(&self) -> f64 {
        self.ron * self.roff / (self.roff - self.ron)
    }
}

/// A source's value in time, as SPICE defines its transient forms. Times
/// left out are filled from `.tran` when the netlist is complete.
#[derive(Clone, Debug, PartialEq)]
pub enum Waveform {
    Dc(f64),
    /// `SIN(VO VA FREQ TD THETA PHASE)`, phase in degrees.
    Sin {
        vo: f64,
        va: f64,
        freq: f64,
        td: f64,
        theta: f64,
        phase: f64,
    },
    /// `PULSE(V1 V2 TD TR TF PW PER)`.
    Pulse {
        v1: f64,
        v2: f64,
        td: f64,
        tr: f64,
        tf: f64,
        pw: f64,
        per: f64,
    },
    /// `PWL(T1 V1 T2 V2 ...)`, times increasing.
    Pwl(Vec<(f64, f64)>),
    /// `{name}` of an FMU input (a netlist inside a TOML model): input `j`.
    Input(usize),
}

impl Waveform {
    /// The value, when it does not change in time (`DC`, a one-point `PWL`):
    /// such a source is a constant of the rows, not a program of `time`.
    pub fn constant(&self) -> Option<f64> {
        match self {
            Waveform::Dc(v) => Some(*v),
            Waveform::Pwl(points) if points.len() == 1 => Some(points[0].1),
            _ => None,
        }
    }
}

/// What an element is, with its values.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Resistor(f64),
    Capacitor {
        c: f64,
        ic: Option<f64>,
    },
    Inductor {
        l: f64,
        ic: Option<f64>,
    },
    Voltage(Waveform),
    Current(Waveform),
    Diode(DiodeModel),
    /// `E`: `v(n+) - v(n-) = gain (v(nc+) - v(nc-))`.
    Vcvs {
        control: [usize; 2],
        gain: f64,
    },
    /// `G`: a current `gm (v(nc+) - v(nc-))` from `n+` through it to `n-`.
    Vccs {
        control: [usize; 2],
        gain: f64,
    },
    /// `F`: a current `gain i(Vc)` from `n+` through it to `n-`; `source`
    /// is the element index of the voltage source `Vc` whose current
    /// (from its `n+` through it to its `n-`) controls it.
    Cccs {
        source: usize,
        gain: f64,
    },
    /// `H`: `v(n+) - v(n-) = gain i(Vc)`.
    Ccvs {
        source: usize,
        gain: f64,
    },
    /// `S`: a resistance between `n+` and `n-`, `Ron` or `Roff` by the
    /// voltage `v(nc+) - v(nc-)` (see [`SwitchModel`]); `on` is the
    /// `ON`/`OFF` keyword (the state before the first instant).
    Switch {
        control: [usize; 2],
        model: SwitchModel,
        on: bool,
    },
}

impl Kind {
    /// What the element is, in messages.
    pub fn noun(&self) -> &'static str {
        match self {
            Kind::Resistor(_) => "resistor",
            Kind::Capacitor { .. } => "capacitor",
            Kind::Inductor { .. } => "inductor",
            Kind::Voltage(_) => "voltage source",
            Kind::Current(_) => "current source",
            Kind::Diode(_) => "diode",
            Kind::Vcvs { .. } => "voltage-controlled voltage source",
            Kind::Vccs { .. } => "voltage-controlled current source",
            Kind::Cccs { .. } => "current-controlled current source",
            Kind::Ccvs { .. } => "current-controlled voltage source",
            Kind::Switch { .. } => "switch",
        }
    }
}

/// One element: its name as written, its line, its nodes `(n+, n-)`
/// (anode and cathode for a diode; a source's current flows from `n+`
/// through it to `n-`).
#[derive(Clone, Debug, PartialEq)]
pub struct Element {
    pub name: String,
    pub line: usize,
    pub nodes: [usize; 2],
    pub kind: Kind,
}

/// `K name L1 L2 [L3 ...] k`: the inductors (element indices) coupled
/// pairwise with mutual inductance `M = k sqrt(Li Lj)`; the first node of
/// each inductor carries the dot.
#[derive(Clone, Debug, PartialEq)]
pub struct Coupling {
    pub name: String,
    pub line: usize,
    pub inductors: Vec<usize>,
    pub k: f64,
}

/// A quantity a `.save` or `.probe` line asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Saved {
    /// `V(n)`, or a bare node name.
    Node(usize),
    /// `V(a, b)`: the voltage between two nodes, as an output.
    Between(usize, usize),
    /// `I(X)`: the current of element `X` (by index).
    Current(usize),
}

/// `.tran TSTEP TSTOP [TSTART [TMAX]] [UIC]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tran {
    pub step: f64,
    pub stop: f64,
    pub start: f64,
    pub max: Option<f64>,
    pub line: usize,
}

/// A netlist, read and checked line by line.
#[derive(Clone, Debug, Default)]
pub struct Circuit {
    pub title: String,
    /// Node names as first written; `nodes[0]` is the ground.
    pub nodes: Vec<String>,
    /// Line of each node's first appearance (0 for the ground).
    pub node_lines: Vec<usize>,
    pub elements: Vec<Element>,
    pub tran: Option<Tran>,
    /// `.ic V(n)=value`: node, value, line.
    pub ic: Vec<(usize, f64, usize)>,
    /// `K` lines.
    pub couplings: Vec<Coupling>,
    /// `.save` / `.probe`: the outputs asked for, with their lines; `None`
    /// when no line names one (or one says `all`): every node voltage and
    /// branch current is an output.
    pub saves: Option<Vec<(Saved, usize)>>,
    /// `.options method=trap`: the trapezoidal rule (theta = 1/2).
    pub trapezoidal: bool,
    /// What was accepted and has no effect, for `check`.
    pub notes: Vec<String>,
}
