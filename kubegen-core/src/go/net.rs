//! Go's IP address parsers, as the apiserver's validators use them:
//! k8s.io/utils' sloppy `ParseIPSloppy` (Go 1.16's `net.ParseIP`, leading
//! zeros allowed in IPv4 octets) for the `ipv4`, `ipv6` and `cidr`
//! formats, and `netip.ParseAddr` (`net.ParseIP` since Go 1.17) for the
//! strict ones and the CEL IP library.

/// The forked Go 1.16 `dtoi`: a decimal prefix (value, bytes used), `None`
/// without digits or at 0xFFFFFF and beyond.
pub fn dtoi(s: &[u8]) -> Option<(u32, usize)> {
    let mut n: u32 = 0;
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        n = n * 10 + u32::from(s[i] - b'0');
        if n >= 0xFF_FFFF {
            return None;
        }
        i += 1;
    }
    (i > 0).then_some((n, i))
}

/// The forked Go 1.16 `xtoi`: a hexadecimal prefix (value, bytes used).
fn xtoi(s: &[u8]) -> Option<(u32, usize)> {
    let mut n: u32 = 0;
    let mut i = 0;
    while i < s.len() {
        let d = match s[i] {
            c @ b'0'..=b'9' => c - b'0',
            c @ b'a'..=b'f' => c - b'a' + 10,
            c @ b'A'..=b'F' => c - b'A' + 10,
            _ => break,
        };
        n = n * 16 + u32::from(d);
        if n >= 0xFF_FFFF {
            return None;
        }
        i += 1;
    }
    (i > 0).then_some((n, i))
}

/// k8s.io/utils' `ParseIPSloppy` (Go 1.16's `net.ParseIP`, leading zeros
/// allowed in IPv4 octets): the 16-byte address.
pub fn sloppy_parse_ip(s: &str) -> Option<[u8; 16]> {
    for &c in s.as_bytes() {
        match c {
            b'.' => return sloppy_parse_ipv4(s.as_bytes()),
            b':' => return sloppy_parse_ipv6(s.as_bytes()),
            _ => {}
        }
    }
    None
}

/// The forked `parseIPv4`, as an IPv4-in-IPv6 address.
pub fn sloppy_parse_ipv4(mut s: &[u8]) -> Option<[u8; 16]> {
    let mut ip = [0u8; 16];
    ip[10] = 0xff;
    ip[11] = 0xff;
    for i in 0..4 {
        if s.is_empty() {
            return None;
        }
        if i > 0 {
            if s[0] != b'.' {
                return None;
            }
            s = &s[1..];
        }
        let (n, c) = dtoi(s)?;
        if n > 0xFF {
            return None;
        }
        s = &s[c..];
        ip[12 + i] = n as u8;
    }
    s.is_empty().then_some(ip)
}

/// The forked `parseIPv6`.
pub fn sloppy_parse_ipv6(s: &[u8]) -> Option<[u8; 16]> {
    ipv6_groups(s, |s| {
        let (n, c) = xtoi(s)?;
        if n > 0xFFFF {
            return None;
        }
        if c < s.len() && s[c] == b'.' {
            let ip4 = sloppy_parse_ipv4(s)?;
            return Some(Group::V4([ip4[12], ip4[13], ip4[14], ip4[15]]));
        }
        Some(Group::Hex(n, c))
    })
}

/// One group of an IPv6 address, as a parser reads it.
enum Group {
    /// A 16-bit value, and how many characters it took.
    Hex(u32, usize),
    /// An embedded IPv4 address: the rest of the text.
    V4([u8; 4]),
}

/// The IPv6 form both Go parsers read: an optional leading `::`, then
/// groups read by `group`, each followed by `:` (at most one `::`), an
/// embedded IPv4 address only as the last 4 bytes or after `::`; the
/// address with the `::` filled in.
fn ipv6_groups(mut s: &[u8], group: impl Fn(&[u8]) -> Option<Group>) -> Option<[u8; 16]> {
    let mut ip = [0u8; 16];
    let mut ellipsis: Option<usize> = None;
    if s.len() >= 2 && s[0] == b':' && s[1] == b':' {
        ellipsis = Some(0);
        s = &s[2..];
        if s.is_empty() {
            return Some(ip);
        }
    }
    let mut i = 0;
    while i < 16 {
        let (n, c) = match group(s)? {
            Group::V4(ip4) => {
                if (ellipsis.is_none() && i != 12) || i + 4 > 16 {
                    return None;
                }
                ip[i..i + 4].copy_from_slice(&ip4);
                s = &[];
                i += 4;
                break;
            }
            Group::Hex(n, c) => (n, c),
        };
        ip[i] = (n >> 8) as u8;
        ip[i + 1] = n as u8;
        i += 2;
        s = &s[c..];
        if s.is_empty() {
            break;
        }
        if s[0] != b':' || s.len() == 1 {
            return None;
        }
        s = &s[1..];
        if s[0] == b':' {
            if ellipsis.is_some() {
                return None;
            }
            ellipsis = Some(i);
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return None;
    }
    expand(ip, i, ellipsis)
}

/// Moves the groups after an ellipsis to the end; `None` when there is no
/// ellipsis to fill a short address (or, with `strict`, when one fills
/// nothing).
fn expand(mut ip: [u8; 16], i: usize, ellipsis: Option<usize>) -> Option<[u8; 16]> {
    if i < 16 {
        let e = ellipsis?;
        let n = 16 - i;
        for j in (e..i).rev() {
            ip[j + n] = ip[j];
        }
        for b in &mut ip[e..e + n] {
            *b = 0;
        }
        Some(ip)
    } else if ellipsis.is_some() {
        None
    } else {
        Some(ip)
    }
}

/// An address as Go's `netip.ParseAddr` reads it: 16 bytes, whether it was
/// written as IPv4, and its zone.
pub struct NetipAddr {
    /// Written as IPv4.
    pub is4: bool,
    /// The `%zone`, if any.
    pub zone: String,
}

/// Go's `net.ParseIP`: `netip.ParseAddr` without a zone.
pub fn std_parse_ip(s: &str) -> Option<[u8; 16]> {
    let (ip, addr) = netip_parse_addr(s)?;
    addr.zone.is_empty().then_some(ip)
}

/// Go's `netip.ParseAddr`: strict dotted quads (no leading zeros), IPv6
/// with an optional trailing dotted quad and an optional `%zone`.
pub fn netip_parse_addr(s: &str) -> Option<([u8; 16], NetipAddr)> {
    for &c in s.as_bytes() {
        match c {
            b'.' => {
                let f = netip_ipv4_fields(s.as_bytes())?;
                let mut ip = [0u8; 16];
                ip[10] = 0xff;
                ip[11] = 0xff;
                ip[12..].copy_from_slice(&f);
                return Some((
                    ip,
                    NetipAddr {
                        is4: true,
                        zone: String::new(),
                    },
                ));
            }
            b':' => return netip_parse_ipv6(s),
            b'%' => return None,
            _ => {}
        }
    }
    None
}

/// `parseIPv4Fields`.
fn netip_ipv4_fields(s: &[u8]) -> Option<[u8; 4]> {
    let mut fields = [0u8; 4];
    let (mut val, mut pos, mut dig_len) = (0u32, 0usize, 0);
    for i in 0..s.len() {
        match s[i] {
            c @ b'0'..=b'9' => {
                if dig_len == 1 && val == 0 {
                    return None;
                }
                val = val * 10 + u32::from(c - b'0');
                dig_len += 1;
                if val > 255 {
                    return None;
                }
            }
            b'.' => {
                if i == 0 || i == s.len() - 1 || s[i - 1] == b'.' || pos == 3 {
                    return None;
                }
                fields[pos] = val as u8;
                pos += 1;
                val = 0;
                dig_len = 0;
            }
            _ => return None,
        }
    }
    if pos < 3 {
        return None;
    }
    fields[3] = val as u8;
    Some(fields)
}

/// netip's `parseIPv6`.
fn netip_parse_ipv6(input: &str) -> Option<([u8; 16], NetipAddr)> {
    let (body, zone) = match input.find('%') {
        Some(i) => {
            let zone = &input[i + 1..];
            if zone.is_empty() {
                return None;
            }
            (&input[..i], zone)
        }
        None => (input, ""),
    };
    let addr = NetipAddr {
        is4: false,
        zone: zone.to_string(),
    };
    let ip = ipv6_groups(body.as_bytes(), |s| {
        let mut off = 0;
        let mut acc: u32 = 0;
        while off < s.len() {
            let d = match s[off] {
                c @ b'0'..=b'9' => c - b'0',
                c @ b'a'..=b'f' => c - b'a' + 10,
                c @ b'A'..=b'F' => c - b'A' + 10,
                _ => break,
            };
            acc = (acc << 4) + u32::from(d);
            if off > 3 || acc > 0xFFFF {
                return None;
            }
            off += 1;
        }
        if off == 0 {
            return None;
        }
        if off < s.len() && s[off] == b'.' {
            return netip_ipv4_fields(s).map(Group::V4);
        }
        Some(Group::Hex(acc, off))
    })?;
    Some((ip, addr))
}
