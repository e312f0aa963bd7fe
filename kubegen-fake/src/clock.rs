//! What the server makes up: timestamps (wall-clock time at the start
//! plus tokio's elapsed time, so a test with paused time controls them),
//! uids and `generateName` suffixes (from a seeded generator, so a run
//! repeats exactly).

use kubegen_core::rng::Rng;
use tokio::time::Instant;

/// The server's clock and generator.
#[derive(Debug)]
pub struct Clock {
    start_unix: i64,
    start: Instant,
    rng: Rng,
}

/// The alphabet of `generateName` suffixes
/// (`k8s.io/apimachinery/pkg/util/rand.String`: no vowels, no confusable
/// digits).
const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

impl Clock {
    /// A clock starting at `start_unix` seconds, with generator `seed`.
    pub fn new(start_unix: i64, seed: u64) -> Clock {
        Clock {
            start_unix,
            start: Instant::now(),
            rng: Rng::new(seed),
        }
    }

    /// Seconds since the Unix epoch now.
    pub fn unix(&self) -> i64 {
        self.start_unix + self.start.elapsed().as_secs() as i64
    }

    /// Now as `metav1.Time` writes it (RFC 3339, whole seconds, UTC).
    pub fn now(&self) -> String {
        rfc3339(self.unix())
    }

    /// A new uid (a version-4 UUID).
    pub fn uid(&mut self) -> String {
        let a = self.rng.next_u64();
        let b = self.rng.next_u64();
        let hex = format!("{a:016x}{b:016x}");
        format!(
            "{}-{}-4{}-{:x}{}-{}",
            &hex[0..8],
            &hex[8..12],
            &hex[13..16],
            8 + (b >> 62),
            &hex[17..20],
            &hex[20..32]
        )
    }

    /// The five characters the apiserver appends to a `generateName`.
    pub fn suffix(&mut self) -> String {
        (0..5)
            .map(|_| ALPHANUMS[self.rng.below(ALPHANUMS.len())] as char)
            .collect()
    }
}

/// Seconds since the epoch as RFC 3339 in UTC.
pub fn rfc3339(unix: i64) -> String {
    jiff::Timestamp::from_second(unix)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_else(|_| "1970-01-01T00:00:00Z".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_uids_and_suffixes_look_like_the_apiservers() {
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
        let mut c = Clock::new(1_700_000_000, 7);
        let uid = c.uid();
        assert_eq!(uid.len(), 36);
        assert_eq!(&uid[14..15], "4");
        assert_ne!(uid, c.uid());
        let s = c.suffix();
        assert_eq!(s.len(), 5);
        assert!(s.bytes().all(|b| ALPHANUMS.contains(&b)));
    }

    #[tokio::test(start_paused = true)]
    async fn paused_time_moves_the_clock() {
        let c = Clock::new(1_700_000_000, 1);
        tokio::time::advance(std::time::Duration::from_secs(61)).await;
        assert_eq!(c.unix(), 1_700_000_061);
    }
}
