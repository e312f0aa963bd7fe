//! Free loopback ports for the components of one control plane.
//!
//! Ports come from below the kernel's ephemeral range: a port in that
//! range can be taken at any moment as the local end of an outgoing
//! connection (another test's client, the apiserver dialling etcd), which
//! makes a component fail with "address already in use" at start or when
//! a fault test restarts it on the same port.

use std::net::TcpListener;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Result, bail};

/// The lowest port handed out; well above the ports daemons usually own.
const LOWEST: u16 = 20000;

/// A loopback port that is free now and lies below the kernel's ephemeral
/// range, for a process a test starts beside the control plane (an
/// operator's metrics endpoint, say). Outgoing connections never take it.
pub fn free_loopback_port() -> Result<u16> {
    let [port] = free_ports::<1>()?;
    Ok(port)
}

/// Chooses `N` distinct ports on 127.0.0.1 that are free now and lie
/// outside the ephemeral range. The listeners are held until all ports are
/// chosen so that no port is handed out twice.
pub(crate) fn free_ports<const N: usize>() -> Result<[u16; N]> {
    let (ephemeral_low, _) = ephemeral_range();
    let pool = candidates(ephemeral_low);
    if pool.len() < N * 4 {
        // No room below the ephemeral range: let the kernel choose.
        return kernel_ports();
    }
    let start = seed() as usize % pool.len();
    let mut listeners = Vec::with_capacity(N);
    for offset in 0..pool.len() {
        let port = pool.start + ((start + offset) % pool.len()) as u16;
        if let Ok(listener) = TcpListener::bind(("127.0.0.1", port)) {
            listeners.push(listener);
            if listeners.len() == N {
                break;
            }
        }
    }
    if listeners.len() < N {
        bail!("fewer than {N} free ports in {pool:?} on 127.0.0.1");
    }
    let mut ports = [0u16; N];
    for (port, listener) in ports.iter_mut().zip(&listeners) {
        *port = listener.local_addr()?.port();
    }
    Ok(ports)
}

/// The ports below the ephemeral range that [`free_ports`] may hand out.
fn candidates(ephemeral_low: u16) -> std::ops::Range<u16> {
    LOWEST..ephemeral_low.max(LOWEST)
}

/// `net.ipv4.ip_local_port_range`, or Linux's default when unreadable.
fn ephemeral_range() -> (u16, u16) {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|text| parse_range(&text))
        .unwrap_or((32768, 60999))
}

fn parse_range(text: &str) -> Option<(u16, u16)> {
    let mut parts = text.split_whitespace().map(str::parse::<u16>);
    match (parts.next(), parts.next()) {
        (Some(Ok(low)), Some(Ok(high))) if low <= high => Some((low, high)),
        _ => None,
    }
}

/// Where the search starts: differs between processes and between calls,
/// so concurrent control planes rarely probe the same ports first.
fn seed() -> u32 {
    static CALLS: AtomicU32 = AtomicU32::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let mixed = std::process::id()
        .wrapping_mul(2_654_435_761)
        .wrapping_add(CALLS.fetch_add(1, Ordering::Relaxed).wrapping_mul(40_503))
        ^ nanos;
    mixed.rotate_left(13)
}

fn kernel_ports<const N: usize>() -> Result<[u16; N]> {
    let listeners = (0..N)
        .map(|_| TcpListener::bind("127.0.0.1:0"))
        .collect::<std::io::Result<Vec<_>>>()?;
    let mut ports = [0u16; N];
    for (port, listener) in ports.iter_mut().zip(&listeners) {
        *port = listener.local_addr()?.port();
    }
    Ok(ports)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_distinct_nonzero_and_below_the_ephemeral_range() {
        let (low, _) = ephemeral_range();
        let ports = free_ports::<5>().unwrap();
        let mut sorted = ports.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 5, "{ports:?}");
        assert!(!ports.contains(&0), "{ports:?}");
        if low > LOWEST + 20 {
            assert!(
                ports.iter().all(|&p| (LOWEST..low).contains(&p)),
                "{ports:?} vs {low}"
            );
        }
    }

    #[test]
    fn a_port_in_use_is_never_handed_out() {
        let held: Vec<_> = (0..50)
            .filter_map(|_| free_ports::<1>().ok())
            .filter_map(|[p]| TcpListener::bind(("127.0.0.1", p)).ok())
            .collect();
        let taken: Vec<u16> = held
            .iter()
            .map(|l| l.local_addr().unwrap().port())
            .collect();
        for _ in 0..50 {
            let ports = free_ports::<4>().unwrap();
            assert!(
                ports.iter().all(|p| !taken.contains(p)),
                "{ports:?} in {taken:?}"
            );
        }
    }

    #[test]
    fn the_range_is_parsed_from_procfs_text() {
        assert_eq!(parse_range("32768\t60999\n"), Some((32768, 60999)));
        assert_eq!(parse_range("1024 65535"), Some((1024, 65535)));
        assert_eq!(parse_range("60999 32768"), None);
        assert_eq!(parse_range("garbage"), None);
        assert_eq!(candidates(1024), LOWEST..LOWEST);
    }
}
