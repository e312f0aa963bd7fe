//! Default candidate identities: the pod or host name and a random
//! suffix.

use crate::jitter::random_u64;

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
}
