//! Durations and timestamps as cel-go computes them: `duration()` and
//! `timestamp()` conversions, their arithmetic with cel-go's overflow
//! checks (`integer overflow`, `timestamp overflow`), `string()` and
//! `int()` of them, and the accessors (`getHours()`, `getFullYear()`, …)
//! in UTC. A timestamp kubegen cannot place exactly — a text with an
//! offset, an accessor with a time zone — is unsupported.

use super::value::Val;
use super::{EvalError, Res};

const SECOND: i128 = 1_000_000_000;
/// Seconds from the Unix epoch to `0001-01-01T00:00:00Z`.
const MIN_UNIX: i128 = -62_135_596_800;
/// Seconds from the Unix epoch to `9999-12-31T23:59:59Z`.
const MAX_UNIX: i128 = 253_402_300_799;

fn overflow() -> EvalError {
    EvalError::Error("integer overflow".into())
}

fn ts_overflow() -> EvalError {
    EvalError::Error("timestamp overflow".into())
}

/// A timestamp `nanos` from the epoch, within CEL's range.
fn timestamp(nanos: i128) -> Res {
    let sec = nanos.div_euclid(SECOND);
    if !(MIN_UNIX..=MAX_UNIX).contains(&sec) {
        return Err(ts_overflow());
    }
    Ok(Val::Timestamp(nanos))
}

fn duration_i64(d: i128) -> Result<i64, EvalError> {
    i64::try_from(d).map_err(|_| overflow())
}

/// The time functions and operators, `None` for other calls.
pub fn apply(function: &str, v: &[Val]) -> Option<Res> {
    use Val::{Duration, Int, String, Timestamp};
    Some(match (function, v) {
        ("_+_", [Duration(a), Duration(b)]) => (|| {
            let s = duration_i64(*a)?
                .checked_add(duration_i64(*b)?)
                .ok_or_else(overflow)?;
            Ok(Duration(i128::from(s)))
        })(),
        ("_-_", [Duration(a), Duration(b)]) => (|| {
            let s = duration_i64(*a)?
                .checked_sub(duration_i64(*b)?)
                .ok_or_else(overflow)?;
            Ok(Duration(i128::from(s)))
        })(),
        ("-_", [Duration(a)]) => duration_i64(*a)
            .and_then(|a| a.checked_neg().ok_or_else(overflow))
            .map(|n| Duration(i128::from(n))),
        ("_+_", [Timestamp(t), Duration(d)]) | ("_+_", [Duration(d), Timestamp(t)]) => {
            timestamp(t + d)
        }
        ("_-_", [Timestamp(t), Duration(d)]) => duration_i64(*d)
            .and_then(|d| d.checked_neg().ok_or_else(overflow))
            .and_then(|d| timestamp(t + i128::from(d))),
        ("_-_", [Timestamp(a), Timestamp(b)]) => (|| {
            let sec = i64::try_from(a.div_euclid(SECOND) - b.div_euclid(SECOND))
                .map_err(|_| overflow())?;
            let nsec = (a.rem_euclid(SECOND) - b.rem_euclid(SECOND)) as i64;
            let total = sec
                .checked_mul(1_000_000_000)
                .and_then(|t| t.checked_add(nsec))
                .ok_or_else(overflow)?;
            Ok(Duration(i128::from(total)))
        })(),
        ("duration", [Duration(d)]) => Ok(Duration(*d)),
        ("duration", [Int(n)]) => Ok(Duration(i128::from(*n))),
        ("duration", [String(s)]) => match crate::go::time::duration(s) {
            Some(n) => Ok(Duration(i128::from(n))),
            None => Err(EvalError::Error(
                "type conversion error from 'string' to 'google.protobuf.Duration'".into(),
            )),
        },
        ("timestamp", [Timestamp(t)]) => Ok(Timestamp(*t)),
        ("timestamp", [Int(n)]) => timestamp(i128::from(*n) * SECOND),
        ("timestamp", [String(s)]) => match crate::go::time::parse_rfc3339(s) {
            Err(_) => Err(EvalError::Error(
                "type conversion error from 'string' to 'google.protobuf.Timestamp'".into(),
            )),
            // cel-go keeps the offset's zone, which its accessors and
            // `string()` then show; kubegen's timestamps are UTC.
            Ok(_) if !s.ends_with('Z') => {
                Err(EvalError::unsupported("a timestamp text with an offset"))
            }
            Ok(t) if !(MIN_UNIX..=MAX_UNIX).contains(&i128::from(t.unix)) => Err(ts_overflow()),
            Ok(t) => Ok(Timestamp(i128::from(t.unix) * SECOND + i128::from(t.nanos))),
        },
        ("string", [Duration(d)]) => Ok(Val::str(&format!("{}s", seconds(*d)))),
        ("string", [Timestamp(t)]) => Ok(Val::str(&rfc3339_nano(*t))),
        ("int", [Timestamp(t)]) => Ok(Int(t.div_euclid(SECOND) as i64)),
        ("getHours", [Duration(d)]) => Ok(Int(go_float_unit(*d, 3_600))),
        ("getMinutes", [Duration(d)]) => Ok(Int(go_float_unit(*d, 60))),
        ("getSeconds", [Duration(d)]) => Ok(Int(go_float_unit(*d, 1))),
        ("getMilliseconds", [Duration(d)]) => Ok(Int((*d / 1_000_000) as i64)),
        (
            "getFullYear" | "getMonth" | "getDate" | "getDayOfMonth" | "getDayOfWeek"
            | "getDayOfYear" | "getHours" | "getMinutes" | "getSeconds" | "getMilliseconds",
            [Timestamp(t)],
        ) => Ok(Int(accessor(function, *t))),
        (
            "getFullYear" | "getMonth" | "getDate" | "getDayOfMonth" | "getDayOfWeek"
            | "getDayOfYear" | "getHours" | "getMinutes" | "getSeconds" | "getMilliseconds",
            [Timestamp(t), String(tz)],
        ) => zone_offset(tz).map(|east| Int(accessor(function, t + i128::from(east) * SECOND))),
        _ => return None,
    })
}

/// The seconds east of UTC of cel-go's `timeZone` argument: an offset
/// (`+05:30`, `-08:00`: hours and minutes as `strconv.Atoi` reads them,
/// the minutes taken away when the text starts with `-`), or a zone name
/// as `time.LoadLocation` reads it — `UTC` and the empty name exactly; a
/// name of the time zone database (or `Local`) is the apiserver host's to
/// resolve, so unsupported.
fn zone_offset(tz: &str) -> Result<i64, EvalError> {
    let Some((hours, minutes)) = tz.split_once(':') else {
        return match tz {
            "" | "UTC" => Ok(0),
            _ if tz.contains("..") || tz.starts_with(['/', '\\']) => {
                Err(EvalError::Error("time: invalid location name".into()))
            }
            _ => Err(EvalError::unsupported(
                "a time zone by name, which the apiserver's host resolves",
            )),
        };
    };
    let hr = atoi(hours)?;
    let min = atoi(minutes)?;
    if hr.abs() > 1_000_000 || min.abs() > 1_000_000_000 {
        return Err(EvalError::unsupported(
            "a time zone offset Go's arithmetic wraps",
        ));
    }
    let offset = if tz.starts_with('-') {
        hr * 60 - min
    } else {
        hr * 60 + min
    };
    Ok(offset * 60)
}

/// Go's `strconv.Atoi`, with its error text.
fn atoi(s: &str) -> Result<i64, EvalError> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    let syntax = || {
        EvalError::Error(format!(
            "strconv.Atoi: parsing {}: invalid syntax",
            crate::go::fmt::go_quote(s)
        ))
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(syntax());
    }
    s.parse::<i64>().map_err(|_| {
        EvalError::Error(format!(
            "strconv.Atoi: parsing {}: value out of range",
            crate::go::fmt::go_quote(s)
        ))
    })
}

/// Go's `Duration.Seconds()` (`Hours()`, `Minutes()` for a unit of 3600
/// or 60 seconds) truncated to an integer as Go's conversion does.
fn go_float_unit(d: i128, unit_seconds: i64) -> i64 {
    let d = d as i64;
    let unit = unit_seconds * 1_000_000_000;
    let whole = d / unit;
    let rest = d % unit;
    (whole as f64 + rest as f64 / unit as f64) as i64
}

/// `strconv.FormatFloat(d.Seconds(), 'f', -1, 64)`.
pub(super) fn seconds(d: i128) -> String {
    let d = d as i64;
    let f = (d / 1_000_000_000) as f64 + (d % 1_000_000_000) as f64 / 1e9;
    format!("{f}")
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// A timestamp's field in UTC, as cel-go's accessors give it.
fn accessor(function: &str, t: i128) -> i64 {
    let sec = t.div_euclid(SECOND) as i64;
    let nanos = t.rem_euclid(SECOND) as i64;
    let days = sec.div_euclid(86_400);
    let of_day = sec.rem_euclid(86_400);
    let (y, m, d) = crate::go::time::civil_from_days(days);
    match function {
        "getFullYear" => y,
        "getMonth" => m - 1,
        "getDate" => d,
        "getDayOfMonth" => d - 1,
        "getDayOfWeek" => (days + 4).rem_euclid(7),
        "getDayOfYear" => {
            const BEFORE: [i64; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
            BEFORE[(m - 1) as usize] + d - 1 + i64::from(m > 2 && is_leap(y))
        }
        "getHours" => of_day / 3_600,
        "getMinutes" => of_day % 3_600 / 60,
        "getSeconds" => of_day % 60,
        _ => nanos / 1_000_000,
    }
}

/// Go's `Format(time.RFC3339Nano)` of a UTC time.
pub(super) fn rfc3339_nano(t: i128) -> String {
    let sec = t.div_euclid(SECOND) as i64;
    let nanos = t.rem_euclid(SECOND) as i64;
    let (y, m, d) = crate::go::time::civil_from_days(sec.div_euclid(86_400));
    let of_day = sec.rem_euclid(86_400);
    let mut out = format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        of_day / 3_600,
        of_day % 3_600 / 60,
        of_day % 60
    );
    if nanos != 0 {
        let frac = format!("{nanos:09}");
        out.push('.');
        out.push_str(frac.trim_end_matches('0'));
    }
    out.push('Z');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Val {
        apply("timestamp", &[Val::str(s)]).unwrap().unwrap()
    }

    fn int(function: &str, v: Val) -> i64 {
        match apply(function, &[v]) {
            Some(Ok(Val::Int(i))) => i,
            other => panic!("{function}: {other:?}"),
        }
    }

    #[test]
    fn accessors_in_a_time_zone_given_as_an_offset_or_utc() {
        // 2024-01-01T00:00:00Z
        let t = Val::Timestamp(1_704_067_200 * SECOND);
        let at = |f: &str, tz: &str| apply(f, &[t.clone(), Val::str(tz)]);
        let hours = |tz: &str| match at("getHours", tz) {
            Some(Ok(Val::Int(h))) => h,
            other => panic!("{tz}: {other:?}"),
        };
        assert_eq!(hours("+05:30"), 5);
        assert_eq!(hours("-08:00"), 16);
        // cel-go takes the minutes away only after a leading `-`.
        assert_eq!(hours("-00:30"), 23);
        assert_eq!(hours("UTC"), 0);
        assert_eq!(hours(""), 0);
        assert!(matches!(
            at("getFullYear", "-00:30"),
            Some(Ok(Val::Int(2023)))
        ));
        assert!(matches!(at("getHours", "+x:00"),
            Some(Err(EvalError::Error(e))) if e == "strconv.Atoi: parsing \"+x\": invalid syntax"));
        assert!(matches!(at("getHours", "../x"),
            Some(Err(EvalError::Error(e))) if e == "time: invalid location name"));
        assert!(matches!(
            at("getHours", "Europe/Berlin"),
            Some(Err(EvalError::Unsupported(_)))
        ));
    }

    #[test]
    fn texts_that_are_no_timestamps_fail_to_convert() {
        assert_eq!(
            apply("timestamp", &[Val::str("ab")]).unwrap().unwrap_err(),
            EvalError::Error(
                "type conversion error from 'string' to 'google.protobuf.Timestamp'".into()
            )
        );
        assert!(matches!(
            apply("timestamp", &[Val::str("2024-01-01T00:00:00+01:00")]),
            Some(Err(EvalError::Unsupported(_)))
        ));
    }

    #[test]
    fn accessors_in_utc() {
        let t = ts("2024-03-01T13:45:30Z");
        assert_eq!(int("getFullYear", t.clone()), 2024);
        assert_eq!(int("getMonth", t.clone()), 2);
        assert_eq!(int("getDate", t.clone()), 1);
        assert_eq!(int("getDayOfMonth", t.clone()), 0);
        assert_eq!(int("getDayOfWeek", t.clone()), 5, "a Friday");
        assert_eq!(int("getDayOfYear", t.clone()), 60);
        assert_eq!(int("getHours", t.clone()), 13);
        assert_eq!(int("getMinutes", t.clone()), 45);
        assert_eq!(int("getSeconds", t), 30);
    }

    #[test]
    fn arithmetic_and_text_as_cel_go() {
        let d = Val::Duration(5_400 * SECOND + 500_000_000);
        assert!(
            matches!(apply("string", std::slice::from_ref(&d)), Some(Ok(Val::String(s))) if &*s == "5400.5s")
        );
        assert_eq!(int("getHours", d.clone()), 1);
        assert_eq!(int("getMinutes", d.clone()), 90);
        let t = ts("1970-01-01T00:00:00Z");
        let later = apply("_+_", &[t, d]).unwrap().unwrap();
        assert!(
            matches!(apply("string", &[later]), Some(Ok(Val::String(s))) if &*s == "1970-01-01T01:30:00.5Z")
        );
        let max = ts("9999-12-31T23:59:59Z");
        assert_eq!(
            apply("_+_", &[max, Val::Duration(SECOND)])
                .unwrap()
                .unwrap_err(),
            ts_overflow()
        );
        assert_eq!(
            apply(
                "_+_",
                &[Val::Duration(i128::from(i64::MAX)), Val::Duration(1)]
            )
            .unwrap()
            .unwrap_err(),
            overflow()
        );
    }
}
