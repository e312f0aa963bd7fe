//! Literal arguments the apiserver evaluates when it checks a rule:
//! `duration('…')` as Go's `time.ParseDuration` reads it
//! ([`crate::go::time::duration`]) and `timestamp('…')` as `time.Parse(time.RFC3339, …)` within CEL's range
//! (years 1 to 9999, UTC).

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
