//! The little randomness the runtime needs (retry jitter, unique suffixes),
//! without a random number crate, and client-go's jittered exponential
//! [`Backoff`] (`util/wait`).

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// 64 unpredictable bits: the standard library's randomly keyed hasher fed
/// with a counter, the process id and the time.
pub fn random_u64() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u32(std::process::id());
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    hasher.write_u128(nanos);
    hasher.finish()
}

/// A uniformly distributed number in `[0, 1)`.
pub fn random_fraction() -> f64 {
    // 53 random bits fill an f64's mantissa exactly.
    (random_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// An exponential backoff, as client-go's `wait.Backoff`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backoff {
    /// The first wait.
    pub duration: Duration,
    /// The factor each wait is multiplied by.
    pub factor: f64,
    /// Each wait grows by up to this fraction of itself, at random.
    pub jitter: f64,
    /// The number of tries.
    pub steps: u32,
}

impl Backoff {
    /// client-go's `retry.DefaultRetry`: 10 ms, factor 1, jitter 0.1, five
    /// tries.
    pub const DEFAULT_RETRY: Backoff = Backoff {
        duration: Duration::from_millis(10),
        factor: 1.0,
        jitter: 0.1,
        steps: 5,
    };

    /// The wait before try `n + 1` (after try `n`, counted from 0), given a
    /// random fraction in `[0, 1)`.
    pub fn wait(&self, n: u32, random: f64) -> Duration {
        let exponent = i32::try_from(n).unwrap_or(i32::MAX);
        let base = self.duration.mul_f64(self.factor.max(0.0).powi(exponent));
        base + base.mul_f64(self.jitter.max(0.0) * random)
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff::DEFAULT_RETRY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_stay_in_range() {
        for _ in 0..1000 {
            let f = random_fraction();
            assert!((0.0..1.0).contains(&f));
        }
    }

    #[test]
    fn default_retry_is_client_go_s() {
        let backoff = Backoff::default();
        assert_eq!(backoff.steps, 5);
        assert_eq!(backoff.wait(0, 0.0), Duration::from_millis(10));
        assert_eq!(backoff.wait(3, 0.0), Duration::from_millis(10));
        assert_eq!(
            backoff.wait(0, 0.5),
            Duration::from_millis(10) + Duration::from_micros(500)
        );
        let doubling = Backoff {
            factor: 2.0,
            jitter: 0.0,
            ..backoff
        };
        assert_eq!(doubling.wait(3, 0.9), Duration::from_millis(80));
    }
}
