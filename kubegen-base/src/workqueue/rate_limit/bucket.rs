//! An overall token bucket (client-go's `BucketRateLimiter`).

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::clock::{Clock, TokioClock};
use super::limiter::RateLimiter;

/// A token bucket shared by all items: `burst` retries pass at once, later
/// ones are spaced `1 / qps` seconds apart.
///
/// Each call to `when` reserves a token: the bucket may go into debt, and the
/// returned delay is the time until the reserved token is refilled (as
/// `golang.org/x/time/rate`'s `Reserve`, which client-go uses). The default is
/// client-go's: 10 qps, burst 100. A bucket has no per-item memory, so
/// `forget` does nothing and `num_requeues` is always 0.
pub struct Bucket {
    qps: f64,
    burst: f64,
    clock: Arc<dyn Clock>,
    state: Mutex<Tokens>,
}

/// The bucket's level (negative when in debt) as of `at`.
#[derive(Debug)]
struct Tokens {
    level: f64,
    at: Instant,
}

impl Bucket {
    /// A bucket refilled at `qps` tokens per second, holding at most `burst`
    /// (at least 1), starting full. A `qps` that is not positive never refills;
    /// an infinite one never delays.
    pub fn new(qps: f64, burst: u32) -> Self {
        Self::with_clock(qps, burst, Arc::new(TokioClock))
    }

    /// Like [`Bucket::new`], reading the time from `clock`.
    pub fn with_clock(qps: f64, burst: u32, clock: Arc<dyn Clock>) -> Self {
        let burst = f64::from(burst.max(1));
        let at = clock.now();
        Self {
            qps,
            burst,
            clock,
            state: Mutex::new(Tokens { level: burst, at }),
        }
    }

    /// Takes one token and returns how long until it is available.
    fn reserve(&self) -> Duration {
        if self.qps == f64::INFINITY {
            return Duration::ZERO;
        }
        let refills = self.qps > 0.0;
        let now = self.clock.now();
        let mut tokens = self.state.lock();
        if refills {
            let elapsed = now.saturating_duration_since(tokens.at).as_secs_f64();
            tokens.level = (tokens.level + elapsed * self.qps).min(self.burst);
        }
        tokens.at = tokens.at.max(now);
        tokens.level -= 1.0;
        if tokens.level >= 0.0 {
            Duration::ZERO
        } else if refills {
            Duration::try_from_secs_f64(-tokens.level / self.qps).unwrap_or(Duration::MAX)
        } else {
            Duration::MAX
        }
    }
}

impl Default for Bucket {
    fn default() -> Self {
        Self::new(10.0, 100)
    }
}

impl fmt::Debug for Bucket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bucket")
            .field("qps", &self.qps)
            .field("burst", &self.burst)
            .field("tokens", &*self.state.lock())
            .finish_non_exhaustive()
    }
}

impl<T> RateLimiter<T> for Bucket {
    fn when(&self, _item: &T) -> Duration {
        self.reserve()
    }

    fn forget(&self, _item: &T) {}

    fn num_requeues(&self, _item: &T) -> u32 {
        0
    }
}
