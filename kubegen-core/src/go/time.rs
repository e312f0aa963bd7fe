//! Go's `time` package where the apiserver's verdicts depend on it:
//! `time.ParseDuration`, and `time.Parse(time.RFC3339, …)` with the
//! text its errors carry.

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

/// `time.RFC3339`, the layout Go's errors name.
const RFC3339: &str = "2006-01-02T15:04:05Z07:00";

/// A time Go's `time.Parse(time.RFC3339, …)` read: seconds from the Unix
/// epoch (UTC) and nanoseconds within the second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Instant {
    /// Seconds from `1970-01-01T00:00:00Z`.
    pub unix: i64,
    /// Nanoseconds, `0..1_000_000_000`.
    pub nanos: u32,
}

/// Go's `time.Parse(time.RFC3339, s)`: its fast path, then — where that
/// fails — its general parser, which accepts more (one-digit hours,
/// `,` before a fraction, offsets up to `+24:60`), with Go's error text
/// (`parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as
/// "2006"`) where it refuses.
pub fn parse_rfc3339(s: &str) -> Result<Instant, String> {
    let value = s.as_bytes();
    let bad = |layout_elem: &str, value_elem: &[u8]| {
        format!(
            "parsing time {} as {}: cannot parse {} as {}",
            quote(s),
            quote(RFC3339),
            quote(&String::from_utf8_lossy(value_elem)),
            quote(layout_elem)
        )
    };
    let out_of_range = |what: &str| format!("parsing time {}: {what} out of range", quote(s));
    let digit = |v: &[u8], i: usize| v.get(i).is_some_and(u8::is_ascii_digit);
    // `getnum`: one or two digits (two when fixed).
    let getnum = |v: &[u8], fixed: bool| -> Option<(i64, usize)> {
        if !digit(v, 0) {
            return None;
        }
        if !digit(v, 1) {
            return (!fixed).then(|| (i64::from(v[0] - b'0'), 1));
        }
        Some((i64::from(v[0] - b'0') * 10 + i64::from(v[1] - b'0'), 2))
    };
    let mut v = value;
    let literal = |v: &mut &[u8], c: u8| -> Result<(), String> {
        if v.first() == Some(&c) {
            *v = &v[1..];
            Ok(())
        } else {
            Err(bad(&(c as char).to_string(), v))
        }
    };
    // 2006
    if v.len() < 4 || !digit(v, 0) || !v[..4].iter().all(u8::is_ascii_digit) {
        return Err(bad("2006", v));
    }
    let year = std::str::from_utf8(&v[..4])
        .ok()
        .and_then(|y| y.parse::<i64>().ok())
        .unwrap_or(0);
    v = &v[4..];
    literal(&mut v, b'-')?;
    let (month, n) = getnum(v, true).ok_or_else(|| bad("01", v))?;
    v = &v[n..];
    if !(1..=12).contains(&month) {
        return Err(out_of_range("month"));
    }
    literal(&mut v, b'-')?;
    let (day, n) = getnum(v, true).ok_or_else(|| bad("02", v))?;
    v = &v[n..];
    literal(&mut v, b'T')?;
    let (hour, n) = getnum(v, false).ok_or_else(|| bad("15", v))?;
    v = &v[n..];
    if hour >= 24 {
        return Err(out_of_range("hour"));
    }
    literal(&mut v, b':')?;
    let (minute, n) = getnum(v, true).ok_or_else(|| bad("04", v))?;
    v = &v[n..];
    if minute >= 60 {
        return Err(out_of_range("minute"));
    }
    literal(&mut v, b':')?;
    let (second, n) = getnum(v, true).ok_or_else(|| bad("05", v))?;
    v = &v[n..];
    if second >= 60 {
        return Err(out_of_range("second"));
    }
    let mut nanos: i64 = 0;
    if v.len() >= 2 && (v[0] == b'.' || v[0] == b',') && digit(v, 1) {
        let mut n = 2;
        while digit(v, n) {
            n += 1;
        }
        // `parseNanoseconds`: at most nine digits count.
        let digits = &v[1..n.min(10)];
        nanos = std::str::from_utf8(digits)
            .ok()
            .and_then(|d| d.parse().ok())
            .unwrap_or(0);
        for _ in digits.len()..9 {
            nanos *= 10;
        }
        v = &v[n..];
    }
    // Z07:00
    let offset = if v.first() == Some(&b'Z') {
        v = &v[1..];
        0
    } else {
        let hold = v;
        if v.len() < 6 || v[3] != b':' {
            return Err(bad("Z07:00", hold));
        }
        let (Some((hr, _)), Some((mm, _))) = (getnum(&v[1..3], true), getnum(&v[4..6], true))
        else {
            return Err(bad("Z07:00", hold));
        };
        if mm > 60 {
            return Err(out_of_range("time zone offset minute"));
        }
        if hr > 24 {
            return Err(out_of_range("time zone offset hour"));
        }
        let offset = (hr * 60 + mm) * 60;
        let offset = match v[0] {
            b'+' => offset,
            b'-' => -offset,
            _ => return Err(bad("Z07:00", hold)),
        };
        v = &v[6..];
        offset
    };
    if !v.is_empty() {
        return Err(format!(
            "parsing time {}: extra text: {}",
            quote(s),
            quote(&String::from_utf8_lossy(v))
        ));
    }
    if day < 1 || day > days_in_month(year, month) {
        return Err(format!("parsing time {}: day out of range", quote(s)));
    }
    let days = days_from_civil(year, month, day);
    Ok(Instant {
        unix: days * 86_400 + hour * 3_600 + minute * 60 + second - offset,
        nanos: nanos as u32,
    })
}

/// Go's `t.UTC().Format(time.RFC3339)`: whole seconds, `Z`.
pub fn format_rfc3339(unix: i64) -> String {
    let (y, m, d) = civil_from_days(unix.div_euclid(86_400));
    let of_day = unix.rem_euclid(86_400);
    let year = if y < 0 {
        format!("-{:04}", -y)
    } else {
        format!("{y:04}")
    };
    format!(
        "{year}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        of_day / 3_600,
        of_day % 3_600 / 60,
        of_day % 60
    )
}

/// The `quote` of Go's `time` package: `"…"`, with bytes outside printable
/// ASCII escaped as Go escapes them there.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='\u{7f}' => out.push(c),
            _ => {
                // Go writes `\x` and two hex digits per byte of a rune
                // it cannot print (and of an invalid byte).
                let mut buf = [0; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            }
        }
    }
    out.push('"');
    out
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

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar
/// (Howard Hinnant's `days_from_civil`).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Year, month (1–12) and day of `days` from 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
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
    fn rfc_3339_parses_and_fails_as_go_does() {
        let t = parse_rfc3339("2024-01-02T03:04:05.5+01:00").unwrap();
        assert_eq!((t.unix, t.nanos), (1_704_161_045, 500_000_000));
        assert_eq!(format_rfc3339(t.unix), "2024-01-02T02:04:05Z");
        // The general parser takes what the fast path refuses.
        assert!(parse_rfc3339("2024-01-02T3:04:05,5Z").is_ok());
        assert!(parse_rfc3339("2024-01-02T03:04:05+24:00").is_ok());
        for (text, error) in [
            (
                "bad",
                r#"parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006""#,
            ),
            (
                "2024-13-01T00:00:00Z",
                r#"parsing time "2024-13-01T00:00:00Z": month out of range"#,
            ),
            (
                "2023-02-29T00:00:00Z",
                r#"parsing time "2023-02-29T00:00:00Z": day out of range"#,
            ),
            (
                "2024-01-01T00:00:00Zx",
                r#"parsing time "2024-01-01T00:00:00Zx": extra text: "x""#,
            ),
            (
                "2024-01-01T00:00:00+01:61",
                r#"parsing time "2024-01-01T00:00:00+01:61": time zone offset minute out of range"#,
            ),
            (
                "2024-01-01 00:00:00Z",
                r#"parsing time "2024-01-01 00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 00:00:00Z" as "T""#,
            ),
        ] {
            assert_eq!(parse_rfc3339(text).unwrap_err(), error, "{text}");
        }
    }
}
