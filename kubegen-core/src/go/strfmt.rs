//! The string formats of k8s.io/kube-openapi `pkg/validation/strfmt` that
//! the apiserver keeps for custom resources, checked exactly as the Go
//! checkers check them.
//!
//! The apiserver strips every format its compatibility version does not
//! support before it builds the validator
//! (`StripUnsupportedFormatsPostProcessorForVersion` in
//! k8s.io/apiextensions-apiserver `pkg/apiserver/validation/formats.go`; the
//! default compatibility version of a 1.36 apiserver is 1.35, which keeps the
//! 1.0 set and `k8s-short-name`, `k8s-long-name`). What is kept is exactly
//! what `strfmt.Default` registers, so [`is_supported`] and [`is_known`]
//! agree; both compare names as go-openapi normalizes them, dashes dropped
//! (`date-time` is `datetime`).
//!
//! Each checker is a port of the Go function the registry calls: Go's
//! `time.Parse` for `date`, `net.ParseIP` (netip's strict parser) for
//! `ipv6`, k8s.io/utils' sloppy IPv4 and CIDR parsers (leading zeros
//! allowed), `net.ParseMAC`, `url.ParseRequestURI` (with Go 1.26's strict
//! colons in http(s) hosts), `net/mail.ParseAddress`, `time.ParseDuration`
//! and strfmt's lenient duration fallback, and govalidator's regular
//! expressions with Go's ASCII `\d` and `\s`.

use crate::go::net::{
    dtoi, netip_parse_addr, sloppy_parse_ip, sloppy_parse_ipv4, sloppy_parse_ipv6, std_parse_ip,
};
use std::sync::LazyLock;

use regex::Regex;

/// The formats `strfmt.Default` registers, normalized.
const KNOWN: &[&str] = &[
    "bsonobjectid",
    "byte",
    "cidr",
    "creditcard",
    "date",
    "datetime",
    "duration",
    "email",
    "hexcolor",
    "hostname",
    "ipv4",
    "ipv6",
    "isbn",
    "isbn10",
    "isbn13",
    "k8slongname",
    "k8sshortname",
    "mac",
    "password",
    "rgbcolor",
    "ssn",
    "uri",
    "uuid",
    "uuid3",
    "uuid4",
    "uuid5",
];

/// go-openapi's default format name normalization: dashes dropped.
pub fn normalize(name: &str) -> String {
    name.replace('-', "")
}

/// Whether the apiserver keeps `format` on a string (or untyped) schema at
/// its default compatibility version; a format it does not keep is as if
/// none were given.
pub fn is_supported(format: &str) -> bool {
    KNOWN.contains(&normalize(format).as_str())
}

/// Whether `strfmt.Default` knows `format` (`ContainsName`): only then does
/// kube-openapi check a string against it.
pub fn is_known(format: &str) -> bool {
    KNOWN.contains(&normalize(format).as_str())
}

/// `strfmt.Default.Validates(format, data)`: whether `data` is a valid
/// `format`; false for a format the registry does not know.
pub fn validates(format: &str, data: &str) -> bool {
    match normalize(format).as_str() {
        "bsonobjectid" => is_bson_object_id(data),
        "byte" => is_base64(data),
        "cidr" => is_cidr(data),
        "creditcard" => is_credit_card(data),
        "date" => is_date(data),
        "datetime" => is_date_time(data),
        "duration" => is_duration(data),
        "email" => is_email(data),
        "hexcolor" => is_hexcolor(data),
        "hostname" => is_hostname(data),
        "ipv4" => is_ipv4(data),
        "ipv6" => is_ipv6(data),
        "isbn" => is_isbn10(data) || is_isbn13(data),
        "isbn10" => is_isbn10(data),
        "isbn13" => is_isbn13(data),
        "k8slongname" => is_k8s_long_name(data),
        "k8sshortname" => is_k8s_short_name(data),
        "mac" => is_mac(data),
        "password" => true,
        "rgbcolor" => is_rgbcolor(data),
        "ssn" => is_ssn(data),
        "uri" => is_request_uri(data),
        "uuid" => UUID.is_match(data),
        "uuid3" => UUID3.is_match(data),
        "uuid4" => UUID4.is_match(data),
        "uuid5" => UUID5.is_match(data),
        _ => false,
    }
}

/// A regular expression written for Go's `regexp`, where `\d` and `\s` are
/// ASCII: the patterns below spell those classes out.
fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a valid built-in pattern")
}

static HOSTNAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$",
    )
});
static UUID: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"));
static UUID3: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
});
static UUID4: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")
});
static UUID5: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")
});
static DATE_TIME_TAIL: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$")
});
static CREDIT_CARD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35[0-9]{3})[0-9]{11})$",
    )
});
static HEXCOLOR: LazyLock<Regex> = LazyLock::new(|| re(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"));
static RGBCOLOR: LazyLock<Regex> = LazyLock::new(|| {
    let n = r"(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])";
    let s = r"[\t\n\f\r ]*";
    re(&format!(r"^rgb\({s}{n}{s},{s}{n}{s},{s}{n}{s}\)$"))
});
static BASE64: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$")
});
static SSN: LazyLock<Regex> = LazyLock::new(|| re(r"^[0-9]{3}[- ]?[0-9]{2}[- ]?[0-9]{4}$"));
static SHORT_NAME: LazyLock<Regex> = LazyLock::new(|| re(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"));
static LONG_NAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"));
static DURATION_PART: LazyLock<Regex> = LazyLock::new(|| re(r"(([0-9]+)[\t\n\f\r ]*([A-Za-zµ]+))"));

/// `IsHostname`: RFC 1034 labels (letters, digits, symbols, dashes) and
/// a top-level domain of letters, at most 255 bytes, labels at most 63.
pub fn is_hostname(s: &str) -> bool {
    HOSTNAME.is_match(s) && s.len() <= 255 && s.split('.').all(|p| p.len() <= 63)
}

/// `IsBSONObjectID`: 24 hexadecimal digits (`hex.DecodeString` to 12
/// bytes).
pub fn is_bson_object_id(s: &str) -> bool {
    s.len() == 24 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// govalidator's `IsBase64`: padded standard base64, not empty.
pub fn is_base64(s: &str) -> bool {
    BASE64.is_match(s)
}

/// govalidator's `IsHexcolor`.
pub fn is_hexcolor(s: &str) -> bool {
    HEXCOLOR.is_match(s)
}

/// govalidator's `IsRGBcolor`.
pub fn is_rgbcolor(s: &str) -> bool {
    RGBCOLOR.is_match(s)
}

/// govalidator's `IsSSN`: 11 bytes, `ddd-dd-dddd` with dashes or spaces.
pub fn is_ssn(s: &str) -> bool {
    s.len() == 11 && SSN.is_match(s)
}

/// strfmt's `k8s-short-name`: a DNS label in lower case, at most 63 bytes.
pub fn is_k8s_short_name(s: &str) -> bool {
    s.len() <= 63 && SHORT_NAME.is_match(s)
}

/// strfmt's `k8s-long-name`: dot-separated lower-case labels, at most 253
/// bytes.
pub fn is_k8s_long_name(s: &str) -> bool {
    s.len() <= 253 && LONG_NAME.is_match(s)
}

/// govalidator's `IsCreditCard`: the digits (everything else dropped) of a
/// known card number pattern whose Luhn sum is a multiple of 10.
pub fn is_credit_card(s: &str) -> bool {
    let digits: String = s.chars().filter(char::is_ascii_digit).collect();
    if !CREDIT_CARD.is_match(&digits) {
        return false;
    }
    let mut sum = 0;
    let mut double = false;
    for b in digits.bytes().rev() {
        let mut n = i64::from(b - b'0');
        if double {
            n *= 2;
            sum += if n >= 10 { n % 10 + 1 } else { n };
        } else {
            sum += n;
        }
        double = !double;
    }
    sum % 10 == 0
}

/// The ISBN with Go's ASCII whitespace and dashes dropped.
fn isbn_digits(s: &str) -> Vec<u8> {
    s.bytes()
        .filter(|b| !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'-'))
        .collect()
}

/// govalidator's `IsISBN10`.
pub fn is_isbn10(s: &str) -> bool {
    let d = isbn_digits(s);
    let shape = d.len() == 10
        && d[..9].iter().all(u8::is_ascii_digit)
        && (d[9].is_ascii_digit() || d[9] == b'X');
    if !shape {
        return false;
    }
    let mut sum: i32 = (0..9)
        .map(|i| (i as i32 + 1) * i32::from(d[i] - b'0'))
        .sum();
    sum += if d[9] == b'X' {
        100
    } else {
        10 * i32::from(d[9] - b'0')
    };
    sum % 11 == 0
}

/// govalidator's `IsISBN13`.
pub fn is_isbn13(s: &str) -> bool {
    let d = isbn_digits(s);
    if d.len() != 13 || !d.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let sum: i32 = (0..12)
        .map(|i| [1, 3][i % 2] * i32::from(d[i] - b'0'))
        .sum();
    i32::from(d[12] - b'0') - (10 - sum % 10) % 10 == 0
}

/// `IsDate`: Go's `time.Parse("2006-01-02", s)`: four-digit year,
/// two-digit month and day, the day within the month.
pub fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if b.len() != 10
        || b[4] != b'-'
        || b[7] != b'-'
        || !digits(0..4)
        || !digits(5..7)
        || !digits(8..10)
    {
        return false;
    }
    let num = |r: std::ops::Range<usize>| b[r].iter().fold(0, |n, d| n * 10 + i64::from(d - b'0'));
    let (year, month, day) = (num(0..4), num(5..7), num(8..10));
    if !(1..=12).contains(&month) {
        return false;
    }
    day >= 1 && day <= days_in(month, year)
}

/// Go's `daysIn`.
fn days_in(month: i64, year: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `IsDateTime`: at least 4 bytes; lower-cased and split at every `t`, the
/// first piece a date and the second `hh:mm:ss[<any>fraction](z|±hh:mm)`
/// with hours, minutes and seconds at most 23, 59, 59 (later pieces are
/// ignored, as strfmt ignores them).
pub fn is_date_time(s: &str) -> bool {
    if s.len() < 4 {
        return false;
    }
    let lower: String = s.chars().map(go_to_lower).collect();
    let mut pieces = lower.split('t');
    let (Some(date), Some(time)) = (pieces.next(), pieces.next()) else {
        return false;
    };
    if !is_date(date) {
        return false;
    }
    let Some(m) = DATE_TIME_TAIL.captures(time) else {
        return false;
    };
    &m[1] <= "23" && &m[2] <= "59" && &m[3] <= "59"
}

/// Go's `unicode.ToLower`: the simple lower-case mapping, one rune for one.
fn go_to_lower(c: char) -> char {
    if c == '\u{130}' {
        return 'i';
    }
    let mut l = c.to_lowercase();
    match (l.next(), l.next()) {
        (Some(x), None) => x,
        _ => c,
    }
}

/// strfmt's `IsDuration`: Go's `time.ParseDuration`, else the lenient
/// form: every `<digits>[spaces]<letters>` in the string, at least one
/// with a known unit (`ns`/`nano…`, `us`/`µs`/`micro…`, `ms`/`milli…`,
/// `s`/`sec…`, `m`/`min…`, `h`/`hr`/`hour…`, `d`/`day…`, `w`/`wk`/`week…`,
/// any case) and no number beyond int64.
pub fn is_duration(s: &str) -> bool {
    if crate::go::time::duration(s).is_some() {
        return true;
    }
    const UNITS: &[&[&str]] = &[
        &["ns", "nano"],
        &["us", "µs", "micro"],
        &["ms", "milli"],
        &["s", "sec"],
        &["m", "min"],
        &["h", "hr", "hour"],
        &["d", "day"],
        &["w", "wk", "week"],
    ];
    let mut ok = false;
    for m in DURATION_PART.captures_iter(s) {
        let digits = m[2].trim_start_matches('0');
        if digits.len() > 19 || digits.parse::<u64>().is_ok_and(|n| n > i64::MAX as u64) {
            return false;
        }
        let unit: String = m[3].chars().map(go_to_lower).collect();
        for variants in UNITS {
            let last = variants.len() - 1;
            for (i, v) in variants.iter().enumerate() {
                if (i == last && unit.starts_with(v)) || *v == unit {
                    ok = true;
                }
            }
        }
    }
    ok
}

/// strfmt's `isIPv4`: k8s.io/utils' sloppy `ParseIP` succeeds and the
/// string has a dot (so `::ffff:1.2.3.4` passes, as in Go).
pub fn is_ipv4(s: &str) -> bool {
    sloppy_parse_ip(s).is_some() && s.contains('.')
}

/// govalidator's `IsIPv6`: Go's `net.ParseIP` succeeds and the string has
/// a colon.
pub fn is_ipv6(s: &str) -> bool {
    std_parse_ip(s).is_some() && s.contains(':')
}

/// strfmt's `isCIDR`: k8s.io/utils' sloppy `ParseCIDR`.
pub fn is_cidr(s: &str) -> bool {
    let Some(i) = s.find('/') else {
        return false;
    };
    let (addr, mask) = (&s[..i], &s[i + 1..]);
    let (ip_ok, bits) = match sloppy_parse_ipv4(addr.as_bytes()) {
        Some(_) => (true, 32),
        None => (sloppy_parse_ipv6(addr.as_bytes()).is_some(), 128),
    };
    match dtoi(mask.as_bytes()) {
        Some((n, used)) => ip_ok && used == mask.len() && n <= bits,
        None => false,
    }
}

/// Go's `net.ParseMAC`: 6, 8 or 20 bytes as `xx:xx…`, `xx-xx…`,
/// `xxxx.xxxx…` or bare hex.
pub fn is_mac(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 12 {
        return false;
    }
    let hex2 = |x: &[u8], sep: Option<u8>| -> bool {
        if let Some(e) = sep
            && x.len() > 2
            && x[2] != e
        {
            return false;
        }
        x.len() >= 2 && x[0].is_ascii_hexdigit() && x[1].is_ascii_hexdigit()
    };
    let sizes = [6, 8, 20];
    if b[2] == b':' || b[2] == b'-' {
        if !(b.len() + 1).is_multiple_of(3) {
            return false;
        }
        let n = (b.len() + 1) / 3;
        if !sizes.contains(&n) {
            return false;
        }
        (0..n).all(|i| hex2(&b[3 * i..], Some(b[2])))
    } else if b[4] == b'.' {
        if !(b.len() + 1).is_multiple_of(5) {
            return false;
        }
        let n = 2 * (b.len() + 1) / 5;
        if !sizes.contains(&n) {
            return false;
        }
        (0..n / 2).all(|i| {
            let x = 5 * i;
            hex2(&b[x..x + 2], None) && hex2(&b[x + 2..], Some(b[4]))
        })
    } else {
        if !b.len().is_multiple_of(2) {
            return false;
        }
        let n = b.len() / 2;
        sizes.contains(&n) && (0..n).all(|i| hex2(&b[2 * i..2 * i + 2], None))
    }
}

/// govalidator's `IsRequestURI`: Go's `url.ParseRequestURI` succeeds (an
/// absolute URI or an absolute path; the query is not checked, the host,
/// port, user info and path escapes are).
pub fn is_request_uri(raw: &str) -> bool {
    if raw.bytes().any(|b| b < b' ' || b == 0x7f) || raw.is_empty() {
        return false;
    }
    if raw == "*" {
        return true;
    }
    let Some((scheme, rest)) = get_scheme(raw) else {
        return false;
    };
    let scheme = scheme.to_ascii_lowercase();
    let mut rest = if rest.ends_with('?') && rest.matches('?').count() == 1 {
        &rest[..rest.len() - 1]
    } else {
        rest.split_once('?').map_or(rest, |(r, _)| r)
    };
    if !rest.starts_with('/') {
        // An opaque URI with a scheme; without one, not a request URI.
        return !scheme.is_empty();
    }
    if !scheme.is_empty() && rest.starts_with("//") {
        let authority = &rest[2..];
        let (authority, path) = match authority.find('/') {
            Some(i) => (&authority[..i], &authority[i..]),
            None => (authority, ""),
        };
        if !parse_authority(&scheme, authority) {
            return false;
        }
        rest = path;
    }
    unescape(rest.as_bytes(), Escape::Path)
}

/// `getScheme`: the scheme and the rest, `None` for a leading colon.
fn get_scheme(raw: &str) -> Option<(&str, &str)> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' => {
                if i == 0 {
                    return Some(("", raw));
                }
            }
            b':' => {
                if i == 0 {
                    return None;
                }
                return Some((&raw[..i], &raw[i + 1..]));
            }
            _ => return Some(("", raw)),
        }
    }
    Some(("", raw))
}

/// The `net/url` encoding modes `unescape` distinguishes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escape {
    Path,
    Host,
    Zone,
    UserPassword,
}

/// `shouldEscape(c, encodeHost)` (the same for zones).
fn host_should_escape(c: u8) -> bool {
    !(c.is_ascii_alphanumeric() || b"!$&'()*+,;=:[]<>\"-_.~".contains(&c))
}

/// Whether Go's `url.unescape(s, mode)` succeeds.
fn unescape(s: &[u8], mode: Escape) -> bool {
    let ishex = |c: u8| c.is_ascii_hexdigit();
    let unhex = |c: u8| match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c - b'A' + 10,
    };
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'%' => {
                if i + 2 >= s.len() || !ishex(s[i + 1]) || !ishex(s[i + 2]) {
                    return false;
                }
                let is25 = &s[i..i + 3] == b"%25";
                if mode == Escape::Host && unhex(s[i + 1]) < 8 && !is25 {
                    return false;
                }
                if mode == Escape::Zone {
                    let v = unhex(s[i + 1]) << 4 | unhex(s[i + 2]);
                    if !is25 && v != b' ' && host_should_escape(v) {
                        return false;
                    }
                }
                i += 3;
            }
            c => {
                if matches!(mode, Escape::Host | Escape::Zone)
                    && c < 0x80
                    && c != b'+'
                    && host_should_escape(c)
                {
                    return false;
                }
                i += 1;
            }
        }
    }
    true
}

/// `parseAuthority`: the host (and port) and the user info are well formed.
fn parse_authority(scheme: &str, authority: &str) -> bool {
    let at = authority.rfind('@');
    let host = at.map_or(authority, |i| &authority[i + 1..]);
    if !parse_host(scheme, host) {
        return false;
    }
    let Some(i) = at else {
        return true;
    };
    let userinfo = &authority[..i];
    let valid = userinfo
        .chars()
        .all(|r| r.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(r));
    if !valid {
        return false;
    }
    match userinfo.split_once(':') {
        None => unescape(userinfo.as_bytes(), Escape::UserPassword),
        Some((user, password)) => {
            unescape(user.as_bytes(), Escape::UserPassword)
                && unescape(password.as_bytes(), Escape::UserPassword)
        }
    }
}

/// `parseHost`: an IP literal in brackets (not IPv4) or a host name, each
/// with an optional numeric port.
fn parse_host(scheme: &str, host: &str) -> bool {
    let valid_port = |p: &str| {
        p.is_empty() || (p.starts_with(':') && p[1..].bytes().all(|b| b.is_ascii_digit()))
    };
    match host.rfind('[') {
        Some(o) if o > 0 => return false,
        Some(_) => {
            let Some(c) = host.rfind(']') else {
                return false;
            };
            let colon_port = &host[c + 1..];
            if !valid_port(colon_port) || !unescape(colon_port.as_bytes(), Escape::Host) {
                return false;
            }
            let hostname = &host[1..c];
            let unescaped = match hostname.find("%25") {
                Some(z) => {
                    let (h, zone) = (&hostname[..z], &hostname[z..]);
                    if !unescape(h.as_bytes(), Escape::Host)
                        || !unescape(zone.as_bytes(), Escape::Zone)
                    {
                        return false;
                    }
                    format!("{}{}", go_unescape_lossy(h), go_unescape_lossy(zone))
                }
                None => {
                    if !unescape(hostname.as_bytes(), Escape::Host) {
                        return false;
                    }
                    go_unescape_lossy(hostname)
                }
            };
            return matches!(netip_parse_addr(&unescaped), Some((_, a)) if !a.is4);
        }
        None => {
            if let Some(first) = host.find(':') {
                let last = host.rfind(':').unwrap_or(first);
                let mut i = first;
                // Go 1.26 (urlstrictcolons=1): http and https take the
                // first colon; other schemes the last.
                if last != first && scheme != "http" && scheme != "https" {
                    i = last;
                }
                if !valid_port(&host[i..]) {
                    return false;
                }
            }
        }
    }
    unescape(host.as_bytes(), Escape::Host)
}

/// Percent escapes decoded (the input already checked), invalid UTF-8
/// replaced.
fn go_unescape_lossy(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// strfmt's `IsEmail`: Go's `net/mail.ParseAddress` succeeds (a single
/// RFC 5322 address, with or without a display name, or a group of one).
pub fn is_email(s: &str) -> bool {
    let mut p = MailParser { s: s.as_bytes() };
    p.parse_single_address()
}

/// `utf8.DecodeRune`: the rune and its size; (U+FFFD, 1) for an invalid
/// byte, (_, 0) at the end.
fn decode_rune(b: &[u8]) -> (char, usize) {
    if b.is_empty() {
        return ('\u{fffd}', 0);
    }
    let n = match b[0] {
        0x00..=0x7f => 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return ('\u{fffd}', 1),
    };
    match b.get(..n).and_then(|p| std::str::from_utf8(p).ok()) {
        Some(t) => (t.chars().next().unwrap_or('\u{fffd}'), n),
        None => ('\u{fffd}', 1),
    }
}

/// net/mail's `addrParser`, on bytes as Go's is.
struct MailParser<'a> {
    s: &'a [u8],
}

/// An error of the mail parser (its wording does not matter here).
struct MailError;

fn is_vchar(r: char) -> bool {
    ('!'..='~').contains(&r) || r as u32 >= 0x80
}

fn is_wsp(r: char) -> bool {
    r == ' ' || r == '\t'
}

fn is_atext(r: char, dot: bool) -> bool {
    match r {
        '.' => dot,
        '(' | ')' | '<' | '>' | '[' | ']' | ':' | ';' | '@' | '\\' | ',' | '"' => false,
        _ => is_vchar(r),
    }
}

fn is_qtext(r: char) -> bool {
    r != '\\' && r != '"' && is_vchar(r)
}

fn is_dtext(r: char) -> bool {
    r != '[' && r != ']' && r != '\\' && is_vchar(r)
}

impl MailParser<'_> {
    fn parse_single_address(&mut self) -> bool {
        let Ok(n) = self.parse_address(true) else {
            return false;
        };
        self.skip_cfws() && self.s.is_empty() && n == 1
    }

    /// `parseAddress`: how many addresses.
    fn parse_address(&mut self, handle_group: bool) -> Result<usize, MailError> {
        self.skip_space();
        if self.s.is_empty() {
            return Err(MailError);
        }
        if self.consume_addr_spec().is_ok() {
            self.skip_space();
            if self.s.first() == Some(&b'(') {
                self.consume_display_name_comment()?;
            }
            return Ok(1);
        }
        if self.s.first() != Some(&b'<') {
            self.consume_phrase()?;
        }
        self.skip_space();
        if handle_group && self.consume(b':') {
            return self.consume_group_list();
        }
        if !self.consume(b'<') {
            return Err(MailError);
        }
        self.consume_addr_spec()?;
        if !self.consume(b'>') {
            return Err(MailError);
        }
        Ok(1)
    }

    fn consume_group_list(&mut self) -> Result<usize, MailError> {
        let mut n = 0;
        self.skip_space();
        if self.consume(b';') {
            return if self.skip_cfws() {
                Ok(0)
            } else {
                Err(MailError)
            };
        }
        loop {
            self.skip_space();
            n += self.parse_address(false)?;
            if !self.skip_cfws() {
                return Err(MailError);
            }
            if self.consume(b';') {
                if !self.skip_cfws() {
                    return Err(MailError);
                }
                return Ok(n);
            }
            if !self.consume(b',') {
                return Err(MailError);
            }
        }
    }

    /// `consumeAddrSpec`: restores the input on failure.
    fn consume_addr_spec(&mut self) -> Result<(), MailError> {
        let orig = self.s;
        let r = self.addr_spec();
        if r.is_err() {
            self.s = orig;
        }
        r
    }

    fn addr_spec(&mut self) -> Result<(), MailError> {
        self.skip_space();
        if self.s.is_empty() {
            return Err(MailError);
        }
        if self.s[0] == b'"' {
            if self.consume_quoted_string()?.is_empty() {
                return Err(MailError);
            }
        } else {
            self.consume_atom(true, false)?;
        }
        if !self.consume(b'@') {
            return Err(MailError);
        }
        self.skip_space();
        if self.s.is_empty() {
            return Err(MailError);
        }
        if self.s[0] == b'[' {
            self.consume_domain_literal()
        } else {
            self.consume_atom(true, false).map(|_| ())
        }
    }

    fn consume_phrase(&mut self) -> Result<(), MailError> {
        // Flushed words, and whether decoded encoded words are pending
        // (Go's `words` and a non-empty `sb`).
        let mut words = 0usize;
        let mut pending = false;
        let mut failed = false;
        loop {
            if words > 0 && !self.skip_cfws() {
                return Err(MailError);
            }
            self.skip_space();
            if self.s.is_empty() {
                break;
            }
            let word = if self.s[0] == b'"' {
                self.consume_quoted_string().map(|_| None)
            } else {
                self.consume_atom(true, true)
                    .and_then(|w| decode_rfc2047_word(&w))
            };
            match word {
                Err(_) => {
                    failed = true;
                    break;
                }
                Ok(Some(non_empty)) => pending |= non_empty,
                Ok(None) => {
                    if pending {
                        words += 1;
                        pending = false;
                    }
                    words += 1;
                }
            }
        }
        if pending {
            words += 1;
        }
        if failed && words == 0 {
            return Err(MailError);
        }
        Ok(())
    }

    fn consume_quoted_string(&mut self) -> Result<String, MailError> {
        let mut i = 1;
        let mut out = String::new();
        let mut escaped = false;
        loop {
            let (r, size) = decode_rune(&self.s[i.min(self.s.len())..]);
            if size == 0 || (size == 1 && r == '\u{fffd}') {
                return Err(MailError);
            }
            if escaped {
                if !is_vchar(r) && !is_wsp(r) {
                    return Err(MailError);
                }
                out.push(r);
                escaped = false;
            } else if is_qtext(r) || is_wsp(r) {
                out.push(r);
            } else if r == '"' {
                break;
            } else if r == '\\' {
                escaped = true;
            } else {
                return Err(MailError);
            }
            i += size;
        }
        self.s = &self.s[i + 1..];
        Ok(out)
    }

    fn consume_atom(&mut self, dot: bool, permissive: bool) -> Result<String, MailError> {
        let mut i = 0;
        loop {
            let (r, size) = decode_rune(&self.s[i..]);
            if size == 1 && r == '\u{fffd}' {
                return Err(MailError);
            }
            if size == 0 || !is_atext(r, dot) {
                break;
            }
            i += size;
        }
        if i == 0 {
            return Err(MailError);
        }
        let atom = String::from_utf8_lossy(&self.s[..i]).into_owned();
        self.s = &self.s[i..];
        if !permissive && (atom.starts_with('.') || atom.contains("..") || atom.ends_with('.')) {
            return Err(MailError);
        }
        Ok(atom)
    }

    fn consume_domain_literal(&mut self) -> Result<(), MailError> {
        if !self.consume(b'[') {
            return Err(MailError);
        }
        let start = self.s;
        let mut len = 0;
        loop {
            if self.s.is_empty() {
                return Err(MailError);
            }
            if self.s[0] == b']' {
                break;
            }
            let (r, size) = decode_rune(self.s);
            if (size == 1 && r == '\u{fffd}') || !is_dtext(r) {
                return Err(MailError);
            }
            len += size;
            self.s = &self.s[size..];
        }
        let dtext = String::from_utf8_lossy(&start[..len]).into_owned();
        if !self.consume(b']') || std_parse_ip(&dtext).is_none() {
            return Err(MailError);
        }
        Ok(())
    }

    fn consume_display_name_comment(&mut self) -> Result<(), MailError> {
        if !self.consume(b'(') {
            return Err(MailError);
        }
        let Some(comment) = self.consume_comment() else {
            return Err(MailError);
        };
        let comment = String::from_utf8_lossy(&comment).into_owned();
        for word in comment.split([' ', '\t']).filter(|w| !w.is_empty()) {
            decode_rfc2047_word(word)?;
        }
        Ok(())
    }

    fn consume(&mut self, c: u8) -> bool {
        if self.s.first() == Some(&c) {
            self.s = &self.s[1..];
            true
        } else {
            false
        }
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t') = self.s.first() {
            self.s = &self.s[1..];
        }
    }

    fn skip_cfws(&mut self) -> bool {
        self.skip_space();
        while self.consume(b'(') {
            if self.consume_comment().is_none() {
                return false;
            }
            self.skip_space();
        }
        true
    }

    /// `consumeComment` after the opening parenthesis: the comment's bytes,
    /// `None` when it is not closed.
    fn consume_comment(&mut self) -> Option<Vec<u8>> {
        let mut depth = 1;
        let mut comment = Vec::new();
        while !self.s.is_empty() && depth > 0 {
            if self.s[0] == b'\\' && self.s.len() > 1 {
                self.s = &self.s[1..];
            } else if self.s[0] == b'(' {
                depth += 1;
            } else if self.s[0] == b')' {
                depth -= 1;
            }
            if depth > 0 {
                comment.push(self.s[0]);
            }
            self.s = &self.s[1..];
        }
        (depth == 0).then_some(comment)
    }
}

/// `decodeRFC2047Word` with the default decoder: `None` for a word that is
/// not an encoded word, `Some(decoded text is not empty)` for one in
/// utf-8, iso-8859-1 or us-ascii; an error for a well-formed encoded word
/// in any other charset (there is no charset reader).
fn decode_rfc2047_word(s: &str) -> Result<Option<bool>, MailError> {
    if s.len() < 8 || !s.starts_with("=?") || !s.ends_with("?=") || s.matches('?').count() != 4 {
        return Ok(None);
    }
    let inner = &s[2..s.len() - 2];
    let (charset, text) = inner.split_once('?').unwrap_or((inner, ""));
    if charset.is_empty() {
        return Ok(None);
    }
    let (encoding, text) = text.split_once('?').unwrap_or((text, ""));
    let decodes = match encoding {
        "B" | "b" => go_base64_std_valid(text.as_bytes()),
        "Q" | "q" => q_decode_valid(text.as_bytes()),
        _ => false,
    };
    if !decodes {
        return Ok(None);
    }
    if ["utf-8", "iso-8859-1", "us-ascii"]
        .iter()
        .any(|c| go_equal_fold_ascii(c, charset))
    {
        Ok(Some(!text.is_empty()))
    } else {
        Err(MailError)
    }
}

/// Go's `strings.EqualFold(ascii, t)` for an ASCII `ascii`: besides ASCII
/// case, U+017F folds to `s` and U+212A to `k`.
fn go_equal_fold_ascii(ascii: &str, t: &str) -> bool {
    let folded: Option<String> = t
        .chars()
        .map(|c| match c {
            '\u{17f}' => Some('s'),
            '\u{212a}' => Some('k'),
            c if c.is_ascii() => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect();
    folded.is_some_and(|f| f == ascii.to_ascii_lowercase())
}

/// Whether Go's `base64.StdEncoding.DecodeString` accepts `b` (padding
/// required, CR and LF ignored, trailing bits not checked).
fn go_base64_std_valid(b: &[u8]) -> bool {
    let b: Vec<u8> = b
        .iter()
        .copied()
        .filter(|&c| c != b'\r' && c != b'\n')
        .collect();
    if !b.len().is_multiple_of(4) {
        return false;
    }
    let alpha = |c: u8| c.is_ascii_alphanumeric() || c == b'+' || c == b'/';
    let quanta = b.len() / 4;
    b.chunks(4).enumerate().all(|(i, q)| {
        if i + 1 < quanta {
            q.iter().all(|&c| alpha(c))
        } else {
            alpha(q[0])
                && alpha(q[1])
                && match (q[2], q[3]) {
                    (b'=', b'=') => true,
                    (c, b'=') => alpha(c),
                    (c, d) => alpha(c) && alpha(d),
                }
        }
    })
}

/// Whether mime's `qDecode` accepts `b`.
fn q_decode_valid(b: &[u8]) -> bool {
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'_' => {}
            b'=' => {
                if i + 2 >= b.len()
                    || !b[i + 1].is_ascii_hexdigit()
                    || !b[i + 2].is_ascii_hexdigit()
                {
                    return false;
                }
                i += 2;
            }
            c if (b' '..=b'~').contains(&c) || c == b'\n' || c == b'\r' || c == b'\t' => {}
            _ => return false,
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests;
