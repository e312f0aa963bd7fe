//! How many `TokenReview`s callers of `/metrics` can make the operator
//! send: every bearer token not seen before costs one review at the
//! apiserver, so a flood of random tokens would turn into a flood of
//! reviews. Reviews of unknown tokens are limited per source address
//! (a burst of 5, then one a second), in total (a burst of 40, then 20 a
//! second) and in flight (8); past a limit the request is answered `429`
//! without asking. Known tokens (cached answers) cost nothing and are never
//! limited, so a scraper whose token was reviewed keeps being served
//! during a flood.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// Reviews in flight at once.
const IN_FLIGHT: usize = 8;
/// Reviews a second, and their burst, from all sources together.
const TOTAL: (f64, f64) = (20.0, 40.0);
/// Reviews a second, and their burst, from one source address.
const PER_SOURCE: (f64, f64) = (1.0, 5.0);
/// Source addresses remembered; past it the fullest buckets are dropped.
const MAX_SOURCES: usize = 4096;

/// A token bucket: `rate` tokens a second up to `burst`.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn full((_, burst): (f64, f64), now: Instant) -> Bucket {
        Bucket {
            tokens: burst,
            at: now,
        }
    }

    fn refill(&mut self, (rate, burst): (f64, f64), now: Instant) {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.tokens = (self.tokens + elapsed * rate).min(burst);
        self.at = now;
    }
}

/// The limits on reviews of unknown tokens.
#[derive(Debug)]
pub(super) struct ReviewLimit {
    in_flight: Arc<Semaphore>,
    buckets: parking_lot::Mutex<(Bucket, HashMap<IpAddr, Bucket>)>,
}

impl Default for ReviewLimit {
    fn default() -> Self {
        ReviewLimit {
            in_flight: Arc::new(Semaphore::new(IN_FLIGHT)),
            buckets: parking_lot::Mutex::new((Bucket::full(TOTAL, Instant::now()), HashMap::new())),
        }
    }
}

impl ReviewLimit {
    /// Leave to send one review for a request from `source`, held until
    /// the review is answered; `None` when a limit is reached.
    pub(super) fn admit(&self, source: Option<IpAddr>) -> Option<OwnedSemaphorePermit> {
        let permit = self.in_flight.clone().try_acquire_owned().ok()?;
        let now = Instant::now();
        let mut guard = self.buckets.lock();
        let (total, sources) = &mut *guard;
        total.refill(TOTAL, now);
        if total.tokens < 1.0 {
            return None;
        }
        if let Some(source) = source {
            if sources.len() >= MAX_SOURCES && !sources.contains_key(&source) {
                // Buckets that refilled are no different from new ones.
                sources.retain(|_, b| {
                    b.refill(PER_SOURCE, now);
                    b.tokens < PER_SOURCE.1
                });
                if sources.len() >= MAX_SOURCES {
                    return None;
                }
            }
            let bucket = sources
                .entry(source)
                .or_insert_with(|| Bucket::full(PER_SOURCE, now));
            bucket.refill(PER_SOURCE, now);
            if bucket.tokens < 1.0 {
                return None;
            }
            bucket.tokens -= 1.0;
        }
        total.tokens -= 1.0;
        Some(permit)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn ip(last: u8) -> Option<IpAddr> {
        Some(IpAddr::from([10, 0, 0, last]))
    }

    #[tokio::test(start_paused = true)]
    async fn one_source_gets_its_burst_then_one_a_second() {
        let limit = ReviewLimit::default();
        for _ in 0..5 {
            assert!(limit.admit(ip(1)).is_some());
        }
        assert!(limit.admit(ip(1)).is_none(), "past the burst");
        assert!(
            limit.admit(ip(2)).is_some(),
            "other sources are not held up"
        );
        tokio::time::advance(Duration::from_secs(1)).await;
        assert!(limit.admit(ip(1)).is_some());
        assert!(limit.admit(ip(1)).is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn all_sources_together_are_limited() {
        let limit = ReviewLimit::default();
        let admitted = (0..=255u8)
            .flat_map(|i| (0..5).map(move |_| i))
            .filter(|i| limit.admit(ip(*i)).is_some())
            .count();
        assert_eq!(admitted, 40, "the total burst");
        tokio::time::advance(Duration::from_secs(1)).await;
        let admitted = (0..=255u8)
            .filter(|i| limit.admit(ip(*i)).is_some())
            .count();
        assert_eq!(admitted, 20, "a second's worth");
    }

    #[tokio::test(start_paused = true)]
    async fn reviews_in_flight_are_capped() {
        let limit = ReviewLimit::default();
        let held: Vec<_> = (0..8).filter_map(|i| limit.admit(ip(i))).collect();
        assert_eq!(held.len(), 8);
        assert!(limit.admit(ip(100)).is_none(), "eight in flight");
        drop(held);
        assert!(limit.admit(ip(100)).is_some());
    }
}
