//! The arguments random call sequences draw from, FMI 2.0 and 3.0, Co-Simulation
//! and Model Exchange alike: a small seeded generator, numbers an importer might
//! pass (start times, communication points, step sizes), value references
//! (mostly known ones), junk and bytes to deserialize, and the
//! seed and count from the environment.

/// xorshift64*: small, deterministic, good enough to pick arguments.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// Numbers an importer might pass as values, times or step sizes.
pub const NUMBERS: [f64; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.1,
    2.5,
    -100.0,
    1e-300,
    5e-324,
    1e300,
    -1e300,
    f64::MAX,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    9.81,
];

/// A start time: mostly 0, sometimes any of [`NUMBERS`].
pub fn random_start(rng: &mut Rng) -> f64 {
    if rng.chance(80) {
        0.0
    } else {
        rng.pick(&NUMBERS)
    }
}

/// A communication point: mostly the FMU's time `now`, sometimes any of [`NUMBERS`].
pub fn random_point(rng: &mut Rng, now: f64) -> f64 {
    if rng.chance(85) {
        now
    } else {
        rng.pick(&NUMBERS)
    }
}

/// A step size: mostly a sensible one, sometimes any of [`NUMBERS`].
pub fn random_step_size(rng: &mut Rng) -> f64 {
    if rng.chance(70) {
        rng.pick(&[0.01, 0.1, 1e-3, 0.25])
    } else {
        rng.pick(&NUMBERS)
    }
}

/// 1 KiB of random bytes, what a junk state pointer points to.
pub fn junk_bytes(rng: &mut Rng) -> [u8; 1024] {
    let mut junk = [0u8; 1024];
    junk.iter_mut().for_each(|b| *b = rng.next() as u8);
    junk
}

/// A random vector of value references, mostly known ones.
pub fn random_vrs(rng: &mut Rng, count: u32) -> Vec<u32> {
    let n = rng.pick(&[0usize, 1, 1, 2, 3, 5]);
    (0..n)
        .map(|_| match rng.below(10) {
            0 => rng.pick(&[count, count + 1, 1000, u32::MAX]),
            _ => rng.below(u64::from(count)) as u32,
        })
        .collect()
}

/// Bytes to deserialize: valid, truncated, with a flipped bit, random, foreign.
pub fn random_blob(rng: &mut Rng, foreign: &[u8], blobs: &[Vec<u8>]) -> Vec<u8> {
    let valid = (!blobs.is_empty()).then(|| blobs[rng.below(blobs.len() as u64) as usize].clone());
    match (rng.below(6), valid) {
        (0 | 1, Some(b)) => b,
        (2, Some(mut b)) => {
            let cut = rng.below(b.len() as u64) as usize;
            b.truncate(cut);
            b
        }
        (3, Some(mut b)) => {
            let i = rng.below(b.len() as u64) as usize;
            b[i] ^= 1 << rng.below(8);
            b
        }
        (4, _) => foreign.to_vec(),
        _ => {
            let n = rng.below(300) as usize;
            (0..n).map(|_| rng.next() as u8).collect()
        }
    }
}

/// A number from the environment (decimal, or hexadecimal with `0x`).
pub fn env_or(key: &str, default: u64) -> u64 {
    let Ok(v) = std::env::var(key) else {
        return default;
    };
    let parsed = match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => v.parse(),
    };
    parsed.unwrap_or_else(|e| panic!("{key}={v}: {e}"))
}
