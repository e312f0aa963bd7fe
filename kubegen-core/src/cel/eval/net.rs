//! Kubernetes' IP and CIDR libraries (k8s.io/apiserver
//! `pkg/cel/library/ip.go`, `cidr.go`): `isIP`, `ip()`, `string()`,
//! `family()`, `ip.isCanonical()`, the address class tests, `isCIDR`,
//! `cidr()`, `containsIP`, `containsCIDR`, `ip()` of a prefix,
//! `masked()`, `prefixLength()`; addresses parsed as Go's
//! `netip.ParseAddr` and prefixes as `netip.ParsePrefix` parse them, with
//! zones and IPv4-mapped IPv6 addresses refused. A text that does not
//! parse makes the conversions unsupported (Go's parse errors are not
//! reproduced); `isIP` and `isCIDR` are exact.

use super::value::Val;
use super::{EvalError, Res};
use crate::go::net::std_parse_ip;

/// An address and whether it is IPv4, if `s` is one the library accepts.
pub fn parse(s: &str) -> Option<([u8; 16], bool)> {
    let ip = std_parse_ip(s)?;
    let mapped = ip[..10].iter().all(|b| *b == 0) && ip[10] == 0xff && ip[11] == 0xff;
    let written_as_v6 = s.contains(':');
    if mapped && written_as_v6 {
        // `Is4In6`: refused.
        return None;
    }
    Some((ip, mapped && !written_as_v6))
}

/// A prefix (address, IPv4, bits), if `s` is one the library accepts.
pub fn parse_cidr(s: &str) -> Option<([u8; 16], bool, u8)> {
    let (addr, bits) = s.rsplit_once('/')?;
    let b = bits.as_bytes();
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) || (b.len() > 1 && b[0] == b'0') {
        return None;
    }
    let bits: u32 = bits.parse().ok()?;
    let (ip, is4) = parse(addr)?;
    (bits <= if is4 { 32 } else { 128 }).then_some((ip, is4, bits as u8))
}

/// The address with all but the prefix's first `bits` (of its family)
/// cleared.
fn mask(ip: &[u8; 16], is4: bool, bits: u8) -> [u8; 16] {
    let keep = u32::from(bits) + if is4 { 96 } else { 0 };
    let mut out = *ip;
    for (i, byte) in out.iter_mut().enumerate() {
        let start = 8 * i as u32;
        if start >= keep {
            *byte = 0;
        } else if start + 8 > keep {
            *byte &= 0xffu8 << (8 - (keep - start));
        }
    }
    out
}

/// Go's `netip.Addr.String()`: dotted IPv4, RFC 5952 IPv6.
pub fn render(ip: &[u8; 16], is4: bool) -> String {
    if is4 {
        return format!("{}.{}.{}.{}", ip[12], ip[13], ip[14], ip[15]);
    }
    let groups: Vec<u16> = (0..8)
        .map(|i| u16::from_be_bytes([ip[2 * i], ip[2 * i + 1]]))
        .collect();
    // The longest run of two or more zero groups, the first of equals.
    let (mut best, mut best_len) = (usize::MAX, 1);
    let mut i = 0;
    while i < 8 {
        if groups[i] == 0 {
            let start = i;
            while i < 8 && groups[i] == 0 {
                i += 1;
            }
            if i - start > best_len {
                best = start;
                best_len = i - start;
            }
        } else {
            i += 1;
        }
    }
    let hex = |g: &[u16]| {
        g.iter()
            .map(|g| format!("{g:x}"))
            .collect::<Vec<_>>()
            .join(":")
    };
    if best == usize::MAX {
        hex(&groups)
    } else {
        format!(
            "{}::{}",
            hex(&groups[..best]),
            hex(&groups[best + best_len..])
        )
    }
}

fn v4(ip: &[u8; 16]) -> [u8; 4] {
    [ip[12], ip[13], ip[14], ip[15]]
}

/// The address class tests of `netip.Addr`.
fn class(function: &str, ip: &[u8; 16], is4: bool) -> bool {
    let a = v4(ip);
    let unspecified = ip.iter().all(|b| *b == 0) || (is4 && a == [0; 4]);
    let loopback = if is4 {
        a[0] == 127
    } else {
        ip[..15].iter().all(|b| *b == 0) && ip[15] == 1
    };
    let multicast = if is4 {
        a[0] & 0xf0 == 0xe0
    } else {
        ip[0] == 0xff
    };
    let link_local_unicast = if is4 {
        a[0] == 169 && a[1] == 254
    } else {
        ip[0] == 0xfe && ip[1] & 0xc0 == 0x80
    };
    let link_local_multicast = if is4 {
        a[0] == 224 && a[1] == 0 && a[2] == 0
    } else {
        ip[0] == 0xff && ip[1] & 0x0f == 0x02
    };
    match function {
        "isUnspecified" => unspecified,
        "isLoopback" => loopback,
        "isLinkLocalMulticast" => link_local_multicast,
        "isLinkLocalUnicast" => link_local_unicast,
        _ => {
            !(unspecified || (is4 && a == [255; 4]) || loopback || multicast || link_local_unicast)
        }
    }
}

/// The IP library's calls, `None` for others.
pub fn apply(function: &str, v: &[Val]) -> Option<Res> {
    Some(match (function, v) {
        ("isIP", [Val::String(s)]) => Ok(Val::Bool(parse(s).is_some())),
        ("ip", [Val::String(s)]) => match parse(s) {
            Some((ip, is4)) => Ok(Val::Ip(ip, is4)),
            None => Err(EvalError::unsupported("Go's IP parse error")),
        },
        ("ip.isCanonical", [Val::String(s)]) => match parse(s) {
            Some((ip, is4)) => Ok(Val::Bool(render(&ip, is4) == **s)),
            None => Err(EvalError::unsupported("Go's IP parse error")),
        },
        ("string", [Val::Ip(ip, is4)]) => Ok(Val::str(&render(ip, *is4))),
        ("family", [Val::Ip(_, is4)]) => Ok(Val::Int(if *is4 { 4 } else { 6 })),
        (
            "isUnspecified"
            | "isLoopback"
            | "isLinkLocalMulticast"
            | "isLinkLocalUnicast"
            | "isGlobalUnicast",
            [Val::Ip(ip, is4)],
        ) => Ok(Val::Bool(class(function, ip, *is4))),
        ("isCIDR", [Val::String(s)]) => Ok(Val::Bool(parse_cidr(s).is_some())),
        ("cidr", [Val::String(s)]) => match parse_cidr(s) {
            Some((ip, is4, bits)) => Ok(Val::Cidr(ip, is4, bits)),
            None => Err(EvalError::unsupported("Go's prefix parse error")),
        },
        ("string", [Val::Cidr(ip, is4, bits)]) => {
            Ok(Val::str(&format!("{}/{bits}", render(ip, *is4))))
        }
        ("ip", [Val::Cidr(ip, is4, _)]) => Ok(Val::Ip(*ip, *is4)),
        ("masked", [Val::Cidr(ip, is4, bits)]) => Ok(Val::Cidr(mask(ip, *is4, *bits), *is4, *bits)),
        ("prefixLength", [Val::Cidr(_, _, bits)]) => Ok(Val::Int(i64::from(*bits))),
        ("containsIP", [Val::Cidr(..), Val::String(s)]) => match parse(s) {
            Some((ip, is4)) => return apply(function, &[v[0].clone(), Val::Ip(ip, is4)]),
            None => Err(EvalError::unsupported("no such overload")),
        },
        ("containsIP", [Val::Cidr(net, is4, bits), Val::Ip(ip, ip4)]) => Ok(Val::Bool(
            is4 == ip4 && mask(net, *is4, *bits) == mask(ip, *is4, *bits),
        )),
        ("containsCIDR", [Val::Cidr(..), Val::String(s)]) => match parse_cidr(s) {
            Some((ip, is4, bits)) => {
                return apply(function, &[v[0].clone(), Val::Cidr(ip, is4, bits)]);
            }
            None => Err(EvalError::unsupported("no such overload")),
        },
        ("containsCIDR", [Val::Cidr(a, a4, abits), Val::Cidr(b, b4, bbits)]) => {
            // `Overlaps` and no longer a prefix than the other's.
            let shorter = (*abits).min(*bbits);
            Ok(Val::Bool(
                a4 == b4 && mask(a, *a4, shorter) == mask(b, *b4, shorter) && abits <= bbits,
            ))
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(function: &str, s: &str) -> String {
        let ip = match apply("ip", &[Val::str(s)]) {
            Some(Ok(ip)) => ip,
            other => return format!("{other:?}"),
        };
        match apply(function, &[ip]) {
            Some(Ok(Val::String(s))) => s.to_string(),
            Some(Ok(Val::Bool(b))) => b.to_string(),
            Some(Ok(Val::Int(i))) => i.to_string(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn prefixes_as_netip() {
        let c = |s: &str| apply("cidr", &[Val::str(s)]).unwrap().unwrap();
        let text = |v: Option<Res>| match v {
            Some(Ok(Val::String(s))) => s.to_string(),
            Some(Ok(Val::Bool(b))) => b.to_string(),
            Some(Ok(Val::Int(i))) => i.to_string(),
            other => format!("{other:?}"),
        };
        assert_eq!(text(apply("string", &[c("10.1.2.3/8")])), "10.1.2.3/8");
        let masked = apply("masked", &[c("10.1.2.3/8")]).unwrap().unwrap();
        assert_eq!(text(apply("string", &[masked])), "10.0.0.0/8");
        assert_eq!(text(apply("prefixLength", &[c("fd00::/64")])), "64");
        assert_eq!(
            text(apply(
                "containsIP",
                &[c("10.0.0.0/8"), Val::str("10.9.9.9")]
            )),
            "true"
        );
        assert_eq!(
            text(apply(
                "containsCIDR",
                &[c("10.0.0.0/8"), Val::str("10.1.0.0/16")]
            )),
            "true"
        );
        assert_eq!(
            text(apply(
                "containsCIDR",
                &[c("10.1.0.0/16"), Val::str("10.0.0.0/8")]
            )),
            "false"
        );
        for bad in [
            "10.0.0.0/33",
            "10.0.0.0/08",
            "10.0.0.0",
            "::ffff:1.2.3.4/120",
            "10.0.0.0/+8",
        ] {
            assert!(
                matches!(
                    apply("isCIDR", &[Val::str(bad)]),
                    Some(Ok(Val::Bool(false)))
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn addresses_as_netip() {
        assert_eq!(call("string", "2001:db8:0:0:1:0:0:1"), "2001:db8::1:0:0:1");
        assert_eq!(call("string", "::"), "::");
        assert_eq!(call("string", "fe80::1"), "fe80::1");
        assert_eq!(call("string", "1.2.3.4"), "1.2.3.4");
        assert_eq!(call("family", "::1"), "6");
        assert_eq!(call("family", "10.0.0.1"), "4");
        assert_eq!(call("isLoopback", "127.0.0.2"), "true");
        assert_eq!(call("isGlobalUnicast", "10.0.0.1"), "true");
        assert_eq!(call("isGlobalUnicast", "255.255.255.255"), "false");
        assert_eq!(call("isLinkLocalMulticast", "ff02::1"), "true");
        assert_eq!(call("isUnspecified", "0.0.0.0"), "true");
        for bad in ["::ffff:1.2.3.4", "fe80::1%eth0", "1.2.3", "01.2.3.4"] {
            assert!(
                matches!(apply("isIP", &[Val::str(bad)]), Some(Ok(Val::Bool(false)))),
                "{bad}"
            );
        }
        assert!(matches!(
            apply("ip.isCanonical", &[Val::str("2001:DB8::1")]),
            Some(Ok(Val::Bool(false)))
        ));
    }
}
