//! A small seeded random number generator (SplitMix64): the soak's
//! choices — which fault, how long the outage, which application, which
//! change — all come from one seed, printed at start, so that a failing run
//! can be replayed with `KUBEGEN_CHAOS_SEED`. (Timing still varies between
//! runs; the seed fixes the sequence of decisions, not the interleaving.)

use std::time::Duration;

/// SplitMix64 (Steele, Lea and Flood): one 64-bit state, a Weyl increment
/// and a mixing function; good enough for test decisions.
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`; the modulo bias is irrelevant here).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `[0, 1)`.
    pub fn fraction(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Whether an event of probability `p` happens.
    pub fn chance(&mut self, p: f64) -> bool {
        self.fraction() < p
    }

    /// A duration uniformly in `[low, high]`.
    pub fn between(&mut self, low: Duration, high: Duration) -> Duration {
        low + (high.saturating_sub(low)).mul_f64(self.fraction())
    }

    /// Shuffles `items` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }

    /// A seed for another generator, so that concurrent tasks each draw
    /// from their own sequence and do not perturb each other's.
    pub fn fork(&mut self) -> Rng {
        Rng::new(self.next_u64())
    }
}

/// The seed: `KUBEGEN_CHAOS_SEED` if set (decimal or `0x` hex), else one
/// derived from the clock and the process id.
pub fn seed_from_env() -> u64 {
    if let Ok(text) = std::env::var("KUBEGEN_CHAOS_SEED") {
        let text = text.trim();
        let parsed = match text.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => text.parse(),
        };
        match parsed {
            Ok(seed) => return seed,
            Err(e) => panic!("KUBEGEN_CHAOS_SEED={text:?} is not a number: {e}"),
        }
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut mix = Rng::new(nanos ^ (u64::from(std::process::id()) << 32));
    mix.next_u64()
}
