//! The FMI 2.0 co-simulation state machine as the abuse tests drive it: the
//! states and functions ([`State`], [`Function`]), the standard's table of
//! where each function is allowed ([`allowed`]), the coulomb_friction fixture,
//! an instance brought into any state ([`reach`]), a call with arguments valid
//! where it is allowed ([`call`]), and what the standard allows next
//! ([`carry_on`]).

use crate::fmus::{self, Raw, DISCARD, ERROR, LAST_SUCCESSFUL_TIME, OK, TERMINATED, WARNING};
use fmi::fmi2::binding::{self, fmi2String};
use fmi::fmi2::import::Fmi2Import;
use std::ptr::{null, null_mut};

/// An enum and the array of all its variants, from one list.
macro_rules! enumerated {
    ($(#[$doc:meta])* $name:ident, $all:ident: $($variant:ident),* $(,)?) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(super) enum $name {
            $($variant),*
        }
        pub(super) const $all: [$name; [$($name::$variant),*].len()] = [$($name::$variant),*];
    };
}

enumerated!(
    /// The states of the FMI 2.0 co-simulation state machine an instance can be in
    /// between calls (no step is ever pending, so stepInProgress never occurs).
    State, ALL:
    Instantiated,
    InitializationMode,
    StepComplete,
    StepFailed,
    Terminated,
    Error,
);
pub(super) use State::*;

enumerated!(
    /// Every FMI 2.0 co-simulation function that takes an instance, except
    /// `fmi2FreeInstance` (legal in every state above).
    Function, FUNCTIONS:
    SetDebugLogging,
    SetupExperiment,
    EnterInitializationMode,
    ExitInitializationMode,
    Terminate,
    Reset,
    GetReal,
    GetInteger,
    GetBoolean,
    GetString,
    SetReal,
    SetInteger,
    SetBoolean,
    SetString,
    GetFMUstate,
    SetFMUstate,
    FreeFMUstate,
    SerializedFMUstateSize,
    SerializeFMUstate,
    DeSerializeFMUstate,
    GetDirectionalDerivative,
    SetRealInputDerivatives,
    GetRealOutputDerivatives,
    DoStep,
    CancelStep,
    GetStatus,
    GetRealStatus,
    GetIntegerStatus,
    GetBooleanStatus,
    GetStringStatus,
);
pub(super) use Function::*;

/// Where the FMI 2.0 standard allows each function (the co-simulation state
/// table of its section 4.2.4), written out here independently of the FMU's own
/// table so that the two check each other.
pub(super) fn allowed(f: Function) -> &'static [State] {
    match f {
        SetDebugLogging
        | Reset
        | GetFMUstate
        | SetFMUstate
        | FreeFMUstate
        | SerializedFMUstateSize
        | SerializeFMUstate
        | DeSerializeFMUstate => &ALL,
        SetupExperiment | EnterInitializationMode => &[Instantiated],
        ExitInitializationMode => &[InitializationMode],
        Terminate => &[StepComplete, StepFailed],
        GetReal | GetInteger | GetBoolean | GetString | GetDirectionalDerivative => &[
            InitializationMode,
            StepComplete,
            StepFailed,
            Terminated,
            Error,
        ],
        SetReal | SetInteger | SetBoolean | SetString | SetRealInputDerivatives => {
            &[Instantiated, InitializationMode, StepComplete]
        }
        GetRealOutputDerivatives => &[StepComplete, StepFailed, Terminated, Error],
        DoStep => &[StepComplete],
        // only while an asynchronous step is pending, which never happens here
        CancelStep => &[],
        GetStatus | GetRealStatus | GetIntegerStatus | GetBooleanStatus | GetStringStatus => {
            &[StepComplete, StepFailed, Terminated]
        }
    }
}

/// coulomb_friction: parameters m, g, mu; input F_a; states x, v; outputs.
pub(super) struct Friction {
    pub(super) import: Fmi2Import,
    pub(super) m: u32,
    pub(super) mu: u32,
    pub(super) f_a: u32,
    pub(super) v: u32,
    pub(super) f_f: u32,
}

pub(super) fn friction() -> Friction {
    let import = fmus::import(&fmus::bundled("coulomb_friction"));
    let vr = |n| fmus::vr(&import, n);
    Friction {
        m: vr("m"),
        mu: vr("mu"),
        f_a: vr("F_a"),
        v: vr("v"),
        f_f: vr("F_f"),
        import,
    }
}

/// An instance brought into `state`, and its time.
pub(super) fn reach(f: &Friction, state: State, name: &str) -> (Raw, f64) {
    let mut r = Raw::new(&f.import, name);
    let h = 0.1;
    let t = match state {
        Instantiated => 0.0,
        InitializationMode => {
            assert_eq!(r.setup(0.0, None), OK);
            assert_eq!(r.enter(), OK);
            0.0
        }
        StepComplete | Terminated => {
            assert_eq!(r.init(), OK);
            assert_eq!(r.step(0.0, h), OK);
            if state == Terminated {
                assert_eq!(r.terminate(), OK);
            }
            h
        }
        StepFailed => {
            // a negative friction coefficient: no multipliers exist at all
            assert_eq!(r.set(&[f.mu], &[-1.0]), OK);
            assert_eq!(r.setup(0.0, None), OK);
            assert_eq!(r.enter(), OK);
            assert_eq!(r.exit(), WARNING);
            assert_eq!(r.step(0.0, h), DISCARD);
            0.0
        }
        Error => {
            // m = 0 makes 1/m infinite: initialization fails
            assert_eq!(r.set(&[f.m], &[0.0]), OK);
            assert_eq!(r.setup(0.0, None), OK);
            assert_eq!(r.enter(), OK);
            assert_eq!(r.exit(), ERROR);
            0.0
        }
    };
    r.logged();
    (r, t)
}

/// Calls `func` with arguments that are valid in the states where it is allowed.
pub(super) fn call(r: &mut Raw, f: &Friction, func: Function, t: f64) -> u32 {
    let (vr, v) = ([f.v], [0.0f64]);
    let mut real = [0.0f64];
    let mut int = [0i32];
    let mut string: [fmi2String; 1] = [null()];
    // SAFETY: every array holds as many elements as announced; the instance is live.
    unsafe {
        let (b, c) = (&r.b, r.c);
        match func {
            SetupExperiment => b.fmi2SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0),
            EnterInitializationMode => b.fmi2EnterInitializationMode(c),
            ExitInitializationMode => b.fmi2ExitInitializationMode(c),
            Terminate => b.fmi2Terminate(c),
            GetReal => b.fmi2GetReal(c, vr.as_ptr(), 1, real.as_mut_ptr()),
            GetInteger => b.fmi2GetInteger(c, null(), 0, int.as_mut_ptr()),
            GetBoolean => b.fmi2GetBoolean(c, null(), 0, int.as_mut_ptr()),
            GetString => b.fmi2GetString(c, null(), 0, string.as_mut_ptr()),
            SetReal => b.fmi2SetReal(c, [f.f_a].as_ptr(), 1, v.as_ptr()),
            SetInteger => b.fmi2SetInteger(c, null(), 0, int.as_ptr()),
            SetBoolean => b.fmi2SetBoolean(c, null(), 0, int.as_ptr()),
            SetString => b.fmi2SetString(c, null(), 0, string.as_ptr()),
            SetDebugLogging
            | Reset
            | GetFMUstate
            | SetFMUstate
            | FreeFMUstate
            | SerializedFMUstateSize
            | SerializeFMUstate
            | DeSerializeFMUstate => unreachable!("allowed in every state"),
            GetDirectionalDerivative => {
                b.fmi2GetDirectionalDerivative(c, null(), 0, null(), 0, null(), null_mut())
            }
            SetRealInputDerivatives => b.fmi2SetRealInputDerivatives(c, null(), 0, null(), null()),
            GetRealOutputDerivatives => {
                b.fmi2GetRealOutputDerivatives(c, null(), 0, null(), null_mut())
            }
            DoStep => b.fmi2DoStep(c, t, 0.1, 0),
            CancelStep => b.fmi2CancelStep(c),
            GetStatus => {
                let mut s = 0;
                b.fmi2GetStatus(c, binding::fmi2StatusKind_fmi2DoStepStatus, &mut s)
            }
            GetRealStatus => b.fmi2GetRealStatus(c, LAST_SUCCESSFUL_TIME, real.as_mut_ptr()),
            GetIntegerStatus => b.fmi2GetIntegerStatus(
                c,
                binding::fmi2StatusKind_fmi2DoStepStatus,
                int.as_mut_ptr(),
            ),
            GetBooleanStatus => b.fmi2GetBooleanStatus(c, TERMINATED, int.as_mut_ptr()),
            GetStringStatus => b.fmi2GetStringStatus(
                c,
                binding::fmi2StatusKind_fmi2PendingStatus,
                string.as_mut_ptr(),
            ),
        }
    }
}
/// What the standard allows next from each state, done to show the instance
/// still works after the refused calls.
pub(super) fn carry_on(r: &mut Raw, f: &Friction, state: State, t: f64) {
    let statuses = match state {
        Instantiated => vec![r.setup(0.0, None), r.enter(), r.exit(), r.step(0.0, 0.1)],
        InitializationMode => vec![r.exit(), r.step(0.0, 0.1)],
        StepComplete => vec![r.set(&[f.f_a], &[5.0]), r.step(t, 0.1), r.terminate()],
        StepFailed => vec![r.get(&[f.v, f.f_f]).0, r.terminate(), r.reset(), r.init()],
        Terminated | Error => vec![r.get(&[f.v]).0, r.reset(), r.init(), r.step(0.0, 0.1)],
    };
    assert!(
        statuses.iter().all(|s| *s == OK),
        "{}: {statuses:?}",
        r.name
    );
}
