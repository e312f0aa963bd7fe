//! Go's `time` package where the apiserver's verdicts depend on it:
//! `time.ParseDuration`.

/// Go's `time.ParseDuration`: the duration in nanoseconds, `None` where Go
/// returns an error.
pub fn duration(s: &str) -> Option<i64> {
    const MAX: u64 = 1 << 63;
    let mut s = s.as_bytes();
    let mut d: u64 = 0;
    let mut neg = false;
    if let Some(&c) = s.first()
        && (c == b'-' || c == b'+')
    {
        neg = c == b'-';
        s = &s[1..];
    }
    if s == b"0" {
        return Some(0);
    }
    if s.is_empty() {
        return None;
    }
    while !s.is_empty() {
        if !(s[0] == b'.' || s[0].is_ascii_digit()) {
            return None;
        }
        let before = s.len();
        let mut v: u64 = 0;
        let mut i = 0;
        while i < s.len() && s[i].is_ascii_digit() {
            if v > MAX / 10 {
                return None;
            }
            v = v * 10 + u64::from(s[i] - b'0');
            if v > MAX {
                return None;
            }
            i += 1;
        }
        s = &s[i..];
        let pre = before != s.len();
        let mut post = false;
        let (mut f, mut scale) = (0u64, 1f64);
        if s.first() == Some(&b'.') {
            s = &s[1..];
            let mut i = 0;
            let mut overflow = false;
            while i < s.len() && s[i].is_ascii_digit() {
                if !overflow {
                    if f > (MAX - 1) / 10 {
                        overflow = true;
                    } else {
                        let y = f * 10 + u64::from(s[i] - b'0');
                        if y > MAX {
                            overflow = true;
                        } else {
                            f = y;
                            scale *= 10.0;
                        }
                    }
                }
                i += 1;
            }
            post = i > 0;
            s = &s[i..];
        }
        if !pre && !post {
            return None;
        }
        let i = s
            .iter()
            .position(|&c| c == b'.' || c.is_ascii_digit())
            .unwrap_or(s.len());
        if i == 0 {
            return None;
        }
        let unit: u64 = match &s[..i] {
            b"ns" => 1,
            b"us" => 1_000,
            u if u == "µs".as_bytes() || u == "μs".as_bytes() => 1_000,
            b"ms" => 1_000_000,
            b"s" => 1_000_000_000,
            b"m" => 60_000_000_000,
            b"h" => 3_600_000_000_000,
            _ => return None,
        };
        s = &s[i..];
        if v > MAX / unit {
            return None;
        }
        v *= unit;
        if f > 0 {
            v += (f as f64 * (unit as f64 / scale)) as u64;
            if v > MAX {
                return None;
            }
        }
        d = d.wrapping_add(v);
        if d > MAX {
            return None;
        }
    }
    if neg {
        return Some((d as i64).wrapping_neg());
    }
    if d > MAX - 1 {
        return None;
    }
    Some(d as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_as_go_parses_them() {
        assert_eq!(duration("1h30m"), Some(5_400_000_000_000));
        assert_eq!(duration("1.5s"), Some(1_500_000_000));
        assert_eq!(duration("-.5ms"), Some(-500_000));
        assert_eq!(duration("0"), Some(0));
        assert_eq!(duration("1.s"), Some(1_000_000_000));
        assert_eq!(duration("9223372036854775807ns"), Some(i64::MAX));
        assert_eq!(duration("-9223372036854775808ns"), Some(i64::MIN));
        assert_eq!(duration("9223372036854775808ns"), None);
        // Go's uint64 sum wraps around at 2^64.
        assert_eq!(
            duration("9223372036854775808ns9223372036854775808ns"),
            Some(0)
        );
        assert_eq!(duration("2562047h47m16.854775807s"), Some(i64::MAX));
        for bad in ["", "1", "1d", "s", ".s", "1.5.s", "3000000h", "1 s"] {
            assert_eq!(duration(bad), None, "{bad:?}");
        }
    }
}
