//! Default candidate identities and the little randomness leader election
//! needs (a unique identity suffix and retry jitter), without a random
//! number crate.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The environment variable naming the pod, set through the downward API.
const POD_NAME_ENV: &str = "POD_NAME";

/// A default identity: `$POD_NAME` (else the host name) followed by `_` and
/// 16 random hexadecimal digits, so that two processes on one host, or a
/// restarted pod, never share an identity.
pub fn default_identity() -> String {
    let base = std::env::var(POD_NAME_ENV)
        .ok()
        .filter(|name| !name.trim().is_empty())
        .or_else(hostname)
        .unwrap_or_else(|| "kubegen".to_string());
    format!("{}_{:016x}", base.trim(), random_u64())
}

/// The host name from procfs, else `$HOSTNAME`.
fn hostname() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
}

/// 64 unpredictable bits: the standard library's randomly keyed hasher fed
/// with a counter, the process id and the time.
pub(crate) fn random_u64() -> u64 {
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
pub(crate) fn random_fraction() -> f64 {
    // 53 random bits fill an f64's mantissa exactly.
    (random_u64() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_are_unique_and_keep_the_base() {
        let a = default_identity();
        let b = default_identity();
        assert_ne!(a, b);
        let (base, suffix) = a.rsplit_once('_').unwrap();
        assert!(!base.is_empty());
        assert_eq!(suffix.len(), 16);
        assert!(suffix.chars().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn fractions_stay_in_range() {
        for _ in 0..1000 {
            let f = random_fraction();
            assert!((0.0..1.0).contains(&f));
        }
    }
}
