//! Free loopback ports for the components of one control plane.

use std::net::TcpListener;

use anyhow::Result;

/// Asks the kernel for `n` distinct free ports on 127.0.0.1. The listeners
/// are held until all ports are chosen so that no port is handed out twice.
pub(crate) fn free_ports<const N: usize>() -> Result<[u16; N]> {
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
    fn ports_are_distinct_and_nonzero() {
        let ports = free_ports::<5>().unwrap();
        let mut sorted = ports.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 5, "{ports:?}");
        assert!(!ports.contains(&0), "{ports:?}");
    }
}
