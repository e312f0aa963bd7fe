//! Literal arguments the apiserver evaluates when it checks a rule:
//! `duration('…')` as Go's `time.ParseDuration` reads it and
//! `timestamp('…')` as `time.Parse(time.RFC3339, …)` within CEL's range
//! (years 1 to 9999, UTC).

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

/// Seconds since the Unix epoch, if `s` is an RFC 3339 timestamp Go parses
/// and CEL's range holds.
pub fn timestamp(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = b.get(from..from + len)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| std::str::from_utf8(part).ok()?.parse().ok())?
    };
    let sep = |at: usize, c: u8| b.get(at) == Some(&c);
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !(sep(4, b'-') && sep(7, b'-') && sep(10, b'T') && sep(13, b':') && sep(16, b':')) {
        return None;
    }
    let mut i = 19;
    if sep(i, b'.') || sep(i, b',') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    let offset = match b.get(i)? {
        b'Z' if i + 1 == b.len() => 0,
        sign @ (b'+' | b'-') if b.len() == i + 6 && sep(i + 3, b':') => {
            let (h, m) = (num(i + 1, 2)?, num(i + 4, 2)?);
            if h >= 24 || m >= 60 {
                return None;
            }
            let o = h * 3600 + m * 60;
            if *sign == b'-' { -o } else { o }
        }
        _ => return None,
    };
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    if hour >= 24 || minute >= 60 || second >= 60 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second - offset;
    // 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
    let (min, max) = (-62_135_596_800, 253_402_300_799);
    (min..=max).contains(&secs).then_some(secs)
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The days of `month` (1–12) in `year` of the proleptic Gregorian
/// calendar.
pub fn days_in_month(year: i64, month: i64) -> i64 {
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
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

    #[test]
    fn timestamps_parse_as_rfc_3339_in_range() {
        assert_eq!(timestamp("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            timestamp("2024-02-29T12:00:00.5+01:00"),
            Some(1_709_204_400)
        );
        assert_eq!(timestamp("9999-12-31T23:59:59Z"), Some(253_402_300_799));
        for bad in [
            "2023-02-29T00:00:00Z",
            "2024-01-01T24:00:00Z",
            "2024-01-01 00:00:00Z",
            "2024-01-01T00:00:00",
            "0001-01-01T00:00:00+01:00",
            "2024-1-01T00:00:00Z",
        ] {
            assert_eq!(timestamp(bad), None, "{bad:?}");
        }
    }
}
