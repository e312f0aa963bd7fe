//! How apimachinery's `resource.ParseQuantity` reads a quantity's text
//! (`parseQuantityString` and `quantitySuffixer.interpret`): the parts it
//! splits the text into and what its suffix means. Shared by CEL's
//! quantity library (`cel::eval`) and built-in defaulting (`defaults`),
//! which each build their own amounts from them.

/// How a quantity was written, which decides how it is written back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `1e3`.
    DecimalExponent,
    /// `1Ki`.
    BinarySI,
    /// `1k`, or no suffix.
    DecimalSI,
}

/// The parts `parseQuantityString` splits a text into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parts<'a> {
    /// Not negative.
    pub positive: bool,
    /// The numeric text (sign and digits, without the suffix).
    pub value: &'a str,
    /// The integer digits, leading zeros dropped (`"0"` when none).
    pub num: &'a str,
    /// The fraction digits.
    pub denom: &'a str,
    /// The suffix.
    pub suffix: &'a str,
}

/// `parseQuantityString`: the parts of `s`, or `None` where Go answers
/// `ErrFormatWrong`.
pub fn split(s: &str) -> Option<Parts<'_>> {
    let b = s.as_bytes();
    let end = b.len();
    let mut positive = true;
    let mut pos = 0;
    match b.first() {
        Some(b'-') => {
            positive = false;
            pos = 1;
        }
        Some(b'+') => pos = 1,
        _ => {}
    }
    while pos < end && b[pos] == b'0' {
        pos += 1;
    }
    let parts = |value, num, denom, suffix| Parts {
        positive,
        value,
        num,
        denom,
        suffix,
    };
    if pos >= end {
        return Some(parts("0", "0", "", ""));
    }
    let start = pos;
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos >= end {
        return Some(parts(s, &s[start..], "", ""));
    }
    let num = if pos == start { "0" } else { &s[start..pos] };
    let mut denom = "";
    if b[pos] == b'.' {
        pos += 1;
        let d = pos;
        while pos < end && b[pos].is_ascii_digit() {
            pos += 1;
        }
        denom = &s[d..pos];
        if pos >= end {
            return Some(parts(s, num, denom, ""));
        }
    }
    let value = &s[..pos];
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < end && matches!(b[pos], b'-' | b'+') {
        pos += 1;
    }
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    (pos >= end).then(|| parts(value, num, denom, &s[suffix_start..]))
}

/// `quantitySuffixer.interpret`: the base, exponent and format of a
/// suffix, or `None` for one Go does not know.
pub fn interpret(suffix: &str) -> Option<(u32, i32, Format)> {
    let decimal = |e| Some((10, e, Format::DecimalSI));
    let binary = |e| Some((2, e, Format::BinarySI));
    match suffix {
        "Ki" => binary(10),
        "Mi" => binary(20),
        "Gi" => binary(30),
        "Ti" => binary(40),
        "Pi" => binary(50),
        "Ei" => binary(60),
        "n" => decimal(-9),
        "u" => decimal(-6),
        "m" => decimal(-3),
        "" => decimal(0),
        "k" => decimal(3),
        "M" => decimal(6),
        "G" => decimal(9),
        "T" => decimal(12),
        "P" => decimal(15),
        "E" => decimal(18),
        _ => {
            let digits = suffix.strip_prefix(['e', 'E']).filter(|d| !d.is_empty())?;
            // `strconv.ParseInt(…, 10, 64)`, then truncated to int32.
            let unsigned = digits.strip_prefix(['+', '-']).unwrap_or(digits);
            if unsigned.is_empty() || !unsigned.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let parsed: i64 = digits.strip_prefix('+').unwrap_or(digits).parse().ok()?;
            Some((10, parsed as i32, Format::DecimalExponent))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_split_and_suffixes_read_as_go_reads_them() {
        let p = split("-001.50Mi").unwrap();
        assert_eq!(
            (p.positive, p.value, p.num, p.denom, p.suffix),
            (false, "-001.50", "1", "50", "Mi")
        );
        assert_eq!(split("000").unwrap().num, "0");
        assert!(split("1x").is_none());
        assert_eq!(interpret("Gi"), Some((2, 30, Format::BinarySI)));
        assert_eq!(interpret("e-3"), Some((10, -3, Format::DecimalExponent)));
        assert_eq!(interpret("e"), None);
        assert_eq!(interpret("e+-3"), None);
    }
}
