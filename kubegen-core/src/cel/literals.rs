//! Literal arguments the apiserver evaluates when it checks a rule:
//! `duration('…')` as Go's `time.ParseDuration` reads it
//! ([`crate::go::time::duration`]) and `timestamp('…')` as `time.Parse(time.RFC3339, …)` within CEL's range
//! (years 1 to 9999, UTC).

/// Seconds since the Unix epoch, if `s` is an RFC 3339 timestamp Go parses
/// ([`crate::go::time::parse_rfc3339`]) and CEL's range holds.
pub fn timestamp(s: &str) -> Option<i64> {
    let t = crate::go::time::parse_rfc3339(s).ok()?;
    // 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
    let (min, max) = (-62_135_596_800, 253_402_300_799);
    (min..=max).contains(&t.unix).then_some(t.unix)
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
        // Go's general parser takes what its fast path refuses.
        assert_eq!(timestamp("1970-01-01T1:00:00,5Z"), Some(3_600));
        assert_eq!(timestamp("1970-01-02T00:00:00+24:00"), Some(0));
        for bad in [
            "2023-02-29T00:00:00Z",
            "2024-01-01T24:00:00Z",
            "2024-01-01 00:00:00Z",
            "2024-01-01T00:00:00",
            "0001-01-01T00:00:00+01:00",
            "2024-1-01T00:00:00Z",
            "2024-01-01T00:00:00+24:61",
        ] {
            assert_eq!(timestamp(bad), None, "{bad:?}");
        }
    }
}
