//! Round trips and refusals of the FMU state's bytes.

use super::*;
use crate::scheme::exchange::History;

fn sample() -> Snapshot {
    Snapshot {
        phase: Phase::StepComplete,
        time: 0.4,
        start_time: 0.0,
        stop_time: Some(2.0),
        last_successful_time: 0.4,
        terminated: false,
        consistent: true,
        cached_step: 0.2,
        params: vec![1.0, 2.5],
        inputs: vec![-3.0],
        states: vec![0.1, -0.2],
        pairs: vec![1.0, -1.0],
        active_set: vec![Bound::Upper, Bound::Lower],
        trend: None,
        exchange: None,
    }
}

fn sample_exchange() -> Snapshot {
    Snapshot {
        phase: Phase::ContinuousTimeMode,
        exchange: Some(ExchangeState {
            tolerance: Some(1e-6),
            engine: History {
                atol: 1e-6,
                active: vec![Bound::Upper, Bound::Lower],
                events: 3,
                last_event: 0.25,
                changed_at: vec![2, u64::MAX],
                step_start: vec![0.1, -0.19],
                path: 0.5,
                path_since_event_before: 0.75,
                steps_since_event: 4,
                steps_between_events: u64::MAX,
                overshoot: true,
                overshoot_before: false,
                iterate: vec![0.5, -0.25],
                next_jump: Some((0.5, 0.5f64.next_up())),
                jump: None,
                levels_at: 0.25,
            },
            samples: vec![7, u64::MAX],
        }),
        ..sample()
    }
}
fn sample_trend() -> Snapshot {
    Snapshot {
        trend: Some(Trend {
            h: 0.2,
            t: 0.4,
            rhs: vec![-0.5, 3.0],
        }),
        ..sample_exchange()
    }
}

const SIZES: Sizes = Sizes {
    np: 2,
    nw: 1,
    nx: 2,
    nu: 2,
};

#[test]
fn round_trip_is_exact() {
    for s in [sample(), sample_exchange(), sample_trend()] {
        let bytes = s.to_bytes("{guid}");
        assert_eq!(Snapshot::from_bytes(&bytes, "{guid}", SIZES).unwrap(), s);
    }
    let mut first = sample_exchange();
    first.exchange.as_mut().unwrap().engine.last_event = f64::NEG_INFINITY;
    let bytes = first.to_bytes("{guid}");
    assert_eq!(
        Snapshot::from_bytes(&bytes, "{guid}", SIZES).unwrap(),
        first
    );
}

#[test]
fn unusable_model_exchange_parts_are_refused_with_the_reason() {
    let refused = |edit: &dyn Fn(&mut History)| {
        let mut s = sample_exchange();
        edit(&mut s.exchange.as_mut().unwrap().engine);
        Snapshot::from_bytes(&s.to_bytes("{guid}"), "{guid}", SIZES).unwrap_err()
    };
    assert!(refused(&|h| h.atol = 0.0).contains("event tolerance"));
    assert!(refused(&|h| h.last_event = f64::NAN).contains("last event"));
    assert!(refused(&|h| h.changed_at[1] = 9).contains("after the last event"));
    assert!(refused(&|h| h.step_start[0] = f64::INFINITY).contains("not finite"));
    assert!(refused(&|h| h.path = -1.0).contains("not finite"));
}

#[test]
fn unusable_trends_are_refused_with_the_reason() {
    for edit in [
        |t: &mut Trend| t.h = 0.0,
        |t: &mut Trend| t.t = f64::NAN,
        |t: &mut Trend| t.rhs[1] = f64::INFINITY,
    ] {
        let mut s = sample_trend();
        edit(s.trend.as_mut().unwrap());
        let err = Snapshot::from_bytes(&s.to_bytes("{guid}"), "{guid}", SIZES).unwrap_err();
        assert!(err.contains("unusable trend"), "{err}");
    }
}

#[test]
fn damaged_bytes_are_refused_with_a_reason() {
    let bytes = sample().to_bytes("{guid}");
    let err = |b: &[u8], g: &str, s: Sizes| Snapshot::from_bytes(b, g, s).unwrap_err();
    assert!(err(&bytes, "{other}", SIZES).contains("different model"));
    assert!(err(&bytes, "{guid}", Sizes { nu: 3, ..SIZES }).contains("sizes"));
    for cut in [0, 3, 10, bytes.len() - 1] {
        assert!(
            Snapshot::from_bytes(&bytes[..cut], "{guid}", SIZES).is_err(),
            "cut at {cut}"
        );
    }
    let mut flipped = bytes.clone();
    flipped[30] ^= 0x40;
    assert!(err(&flipped, "{guid}", SIZES).contains("checksum"));
    let mut s: u64 = 7;
    for len in 0..300 {
        let junk: Vec<u8> = (0..len)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (s >> 56) as u8
            })
            .collect();
        assert!(Snapshot::from_bytes(&junk, "{guid}", SIZES).is_err());
    }
}
