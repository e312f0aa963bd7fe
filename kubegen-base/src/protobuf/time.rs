//! `metav1.Time` and `metav1.MicroTime` as their JSON writes them: RFC 3339
//! in UTC, to the second or to the microsecond, from protobuf's
//! `Timestamp { seconds, nanos }`.

use kubegen_core::go::time::civil_from_days;

use super::Error;

/// Go's zero `time.Time` (January 1, year 1, UTC) in Unix seconds; both
/// types write `null` for it.
pub(super) const ZERO_SECONDS: i64 = -62_135_596_800;

/// A time written out, held inline (a decoded object's timestamps cost no
/// allocation before the type's own `Deserialize` parses them).
#[derive(Clone, Copy)]
pub(super) struct Rfc3339 {
    bytes: [u8; 27],
    len: u8,
}

impl Rfc3339 {
    pub(super) fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).expect("ASCII digits")
    }

    /// Appends `value` as `width` decimal digits.
    fn digits(&mut self, value: u32, width: usize) {
        let start = usize::from(self.len);
        let mut rest = value;
        for slot in self.bytes[start..start + width].iter_mut().rev() {
            *slot = b'0' + (rest % 10) as u8;
            rest /= 10;
        }
        self.len += width as u8;
    }

    fn push(&mut self, byte: u8) {
        self.bytes[usize::from(self.len)] = byte;
        self.len += 1;
    }
}

impl std::fmt::Debug for Rfc3339 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq<&str> for Rfc3339 {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// `seconds` as `YYYY-MM-DDTHH:MM:SSZ`, then `.ffffff` of `micros` (below
/// a million) when given.
pub(super) fn rfc3339(seconds: i64, micros: Option<u32>) -> Result<Rfc3339, Error> {
    let days = seconds.div_euclid(86_400);
    let second_of_day = seconds.rem_euclid(86_400) as u32;
    let (year, month, day) = civil_from_days(days);
    let (month, day) = (month as u32, day as u32);
    if !(0..=9999).contains(&year) {
        return Err(Error::new(format!(
            "a time in year {year}, outside RFC 3339"
        )));
    }
    let mut out = Rfc3339 {
        bytes: [0; 27],
        len: 0,
    };
    out.digits(year as u32, 4);
    out.push(b'-');
    out.digits(month, 2);
    out.push(b'-');
    out.digits(day, 2);
    out.push(b'T');
    out.digits(second_of_day / 3600, 2);
    out.push(b':');
    out.digits(second_of_day / 60 % 60, 2);
    out.push(b':');
    out.digits(second_of_day % 60, 2);
    if let Some(micros) = micros {
        out.push(b'.');
        out.digits(micros, 6);
    }
    out.push(b'Z');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_as_go_does() {
        assert_eq!(rfc3339(0, None).unwrap(), "1970-01-01T00:00:00Z");
        assert_eq!(
            rfc3339(1_700_000_000, None).unwrap(),
            "2023-11-14T22:13:20Z"
        );
        assert_eq!(rfc3339(951_782_400, None).unwrap(), "2000-02-29T00:00:00Z");
        assert_eq!(
            rfc3339(-1, Some(999_999)).unwrap(),
            "1969-12-31T23:59:59.999999Z"
        );
        assert_eq!(rfc3339(ZERO_SECONDS, None).unwrap(), "0001-01-01T00:00:00Z");
        assert_eq!(
            rfc3339(253_402_300_799, Some(5)).unwrap(),
            "9999-12-31T23:59:59.000005Z"
        );
        assert!(rfc3339(253_402_300_800, None).is_err());
    }

    #[test]
    fn agrees_with_k8s_openapi_parsing_every_day_of_four_centuries() {
        // One step per day and a bit, across leap years and centuries.
        let mut seconds = ZERO_SECONDS + 7 * 365 * 86_400 * 57;
        while seconds < 253_402_300_799 - 146_097 * 86_400 {
            let text = rfc3339(seconds, None).unwrap();
            let parsed: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time =
                serde_json::from_value(serde_json::Value::String(text.as_str().into())).unwrap();
            assert_eq!(parsed.0.as_second(), seconds, "{text:?}");
            seconds += 86_400 * 97 + 3_607;
        }
    }
}
