//! Kubernetes' URL library (k8s.io/apiserver `pkg/cel/library/urls.go`)
//! over a port of Go 1.26's `net/url` parsing: `url()` (a text
//! `url.ParseRequestURI` accepts, read by `url.Parse`), `isURL`,
//! `getScheme`, `getHost`, `getHostname`, `getPort`, `getEscapedPath`
//! and `getQuery`, with Go's error messages. Unsupported: the message of
//! a bracketed host `netip.ParseAddr` refuses while parsing it as an
//! address (whether it is refused is exact), parts that are not UTF-8
//! once unescaped (Go's strings may hold any bytes), and `==` of two URLs
//! from different texts (Go compares their `String()`).

use std::rc::Rc;

use super::opaque::Url;
use super::value::Val;
use super::{EvalError, Res};
use crate::go::fmt::go_quote;

/// Why a text is no URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UrlError {
    /// Go's message.
    Go(String),
    /// A bracketed host `netip.ParseAddr` refuses after its first `.` or
    /// `:`: its message is not reproduced.
    BadIpLiteral,
}

/// The `encoding` modes of `shouldEscape`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

/// `shouldEscape`.
fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if matches!(mode, Mode::Host | Mode::Zone) && b"!$&'()*+,;=:[]<>\"".contains(&c) {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => return c == b'?',
            Mode::UserPassword => return matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::QueryComponent => return true,
            Mode::Fragment => return false,
            Mode::Host | Mode::Zone => {}
        },
        _ => {}
    }
    if mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*') {
        return false;
    }
    true
}

fn unhex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c - b'A' + 10,
    }
}

fn go(message: String) -> UrlError {
    UrlError::Go(message)
}

/// `unescape`.
fn unescape(s: &[u8], mode: Mode) -> Result<Vec<u8>, UrlError> {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'%' => {
                if i + 2 >= s.len()
                    || !s[i + 1].is_ascii_hexdigit()
                    || !s[i + 2].is_ascii_hexdigit()
                {
                    let bad = &s[i..s.len().min(i + 3)];
                    return Err(go(format!("invalid URL escape {}", go_quote(&text(bad)))));
                }
                let escape = &s[i..i + 3];
                if mode == Mode::Host && unhex(s[i + 1]) < 8 && escape != b"%25" {
                    return Err(go(format!(
                        "invalid URL escape {}",
                        go_quote(&text(escape))
                    )));
                }
                if mode == Mode::Zone {
                    let v = unhex(s[i + 1]) << 4 | unhex(s[i + 2]);
                    if escape != b"%25" && v != b' ' && should_escape(v, Mode::Host) {
                        return Err(go(format!(
                            "invalid URL escape {}",
                            go_quote(&text(escape))
                        )));
                    }
                }
                i += 3;
            }
            c => {
                if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
                    return Err(go(format!(
                        "invalid character {} in host name",
                        go_quote(&text(&s[i..=i]))
                    )));
                }
                i += 1;
            }
        }
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'%' => {
                out.push(unhex(s[i + 1]) << 4 | unhex(s[i + 2]));
                i += 3;
            }
            b'+' if mode == Mode::QueryComponent => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// `escape` (for the modes other than the query's).
fn escape(s: &[u8], mode: Mode) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(s.len());
    for &c in s {
        if should_escape(c, mode) {
            out.extend_from_slice(&[b'%', HEX[usize::from(c >> 4)], HEX[usize::from(c & 15)]]);
        } else {
            out.push(c);
        }
    }
    out
}

/// `getScheme`: the scheme and the rest.
fn get_scheme(raw: &str) -> Result<(&str, &str), UrlError> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err(go("missing protocol scheme".into())),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// `validOptionalPort`.
fn valid_optional_port(port: &[u8]) -> bool {
    match port.split_first() {
        None => true,
        Some((b':', digits)) => digits.iter().all(u8::is_ascii_digit),
        Some(_) => false,
    }
}

/// `validUserinfo`.
fn valid_userinfo(s: &str) -> bool {
    s.chars()
        .all(|r| r.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(r))
}

/// `parseHost` (with `urlstrictcolons=1`, Go 1.26's default).
fn parse_host(scheme: &str, host: &str) -> Result<Vec<u8>, UrlError> {
    let b = host.as_bytes();
    let invalid_port = |p: &[u8]| {
        go(format!(
            "invalid port {} after host",
            go_quote(&String::from_utf8_lossy(p))
        ))
    };
    match host.rfind('[') {
        Some(i) if i > 0 => return Err(go("invalid IP-literal".into())),
        Some(_) => {
            let Some(close) = host.rfind(']') else {
                return Err(go("missing ']' in host".into()));
            };
            let colon_port = &b[close + 1..];
            if !valid_optional_port(colon_port) {
                return Err(invalid_port(colon_port));
            }
            let port = unescape(colon_port, Mode::Host)?;
            let hostname = &host[1..close];
            let mut unescaped = match hostname.find("%25") {
                Some(z) => {
                    let mut h = unescape(&hostname.as_bytes()[..z], Mode::Host)?;
                    h.extend(unescape(&hostname.as_bytes()[z..], Mode::Zone)?);
                    h
                }
                None => unescape(hostname.as_bytes(), Mode::Host)?,
            };
            let text = std::str::from_utf8(&unescaped).map_err(|_| UrlError::BadIpLiteral)?;
            let Some(addr) = crate::go::net::netip_parse_addr(text) else {
                return Err(netip_error(text)
                    .map_or(UrlError::BadIpLiteral, |m| go(format!("invalid host: {m}"))));
            };
            if addr.1.is4 {
                return Err(go("invalid IP-literal".into()));
            }
            unescaped.insert(0, b'[');
            unescaped.push(b']');
            unescaped.extend(port);
            return Ok(unescaped);
        }
        None => {
            if let Some(first) = host.find(':') {
                let last = host.rfind(':').unwrap_or(first);
                let i = if scheme == "http" || scheme == "https" {
                    first
                } else {
                    last
                };
                if !valid_optional_port(&b[i..]) {
                    return Err(invalid_port(&b[i..]));
                }
            }
        }
    }
    unescape(b, Mode::Host)
}

/// `netip.ParseAddr`'s error for a text that is no address, where it
/// stops before parsing (no `.` or `:` first); `None` for the others.
fn netip_error(s: &str) -> Option<String> {
    let msg = match s.bytes().find(|c| matches!(c, b'.' | b':' | b'%')) {
        None => "unable to parse IP",
        Some(b'%') => "missing IPv6 address",
        Some(_) => return None,
    };
    Some(format!("ParseAddr({}): {msg}", go_quote(s)))
}

/// `parseAuthority`: the host (user info checked and dropped).
fn parse_authority(scheme: &str, authority: &str) -> Result<Vec<u8>, UrlError> {
    let at = authority.rfind('@');
    let host = parse_host(scheme, &authority[at.map_or(0, |i| i + 1)..])?;
    if let Some(i) = at {
        let userinfo = &authority[..i];
        if !valid_userinfo(userinfo) {
            return Err(go("net/url: invalid userinfo".into()));
        }
        let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
        unescape(user.as_bytes(), Mode::UserPassword)?;
        unescape(password.as_bytes(), Mode::UserPassword)?;
    }
    Ok(host)
}

/// `parse(rawURL, viaRequest)`.
fn parse_inner(raw: &str, via_request: bool) -> Result<Url, UrlError> {
    let mut url = Url {
        raw: raw.to_string(),
        scheme: String::new(),
        host: Vec::new(),
        path: Vec::new(),
        raw_path: Vec::new(),
        raw_query: String::new(),
    };
    if raw.bytes().any(|b| b < b' ' || b == 0x7f) {
        return Err(go("net/url: invalid control character in URL".into()));
    }
    if raw.is_empty() && via_request {
        return Err(go("empty url".into()));
    }
    if raw == "*" {
        url.path = b"*".to_vec();
        return Ok(url);
    }
    let (scheme, rest) = get_scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    let mut rest = if rest.ends_with('?') && rest.matches('?').count() == 1 {
        &rest[..rest.len() - 1]
    } else {
        let (r, q) = rest.split_once('?').unwrap_or((rest, ""));
        url.raw_query = q.to_string();
        r
    };
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            // An opaque URL: no host, no path.
            return Ok(url);
        }
        if via_request {
            return Err(go("invalid URI for request".into()));
        }
        let segment = rest.split('/').next().unwrap_or("");
        if segment.contains(':') {
            return Err(go("first path segment in URL cannot contain colon".into()));
        }
    }
    if (!url.scheme.is_empty() || !via_request && !rest.starts_with("///"))
        && rest.starts_with("//")
    {
        let authority = &rest[2..];
        let (authority, path) = match authority.find('/') {
            Some(i) => (&authority[..i], &authority[i..]),
            None => (authority, ""),
        };
        url.host = parse_authority(&url.scheme, authority)?;
        rest = path;
    }
    url.path = unescape(rest.as_bytes(), Mode::Path)?;
    if escape(&url.path, Mode::Path) != rest.as_bytes() {
        url.raw_path = rest.as_bytes().to_vec();
    }
    Ok(url)
}

/// `url.ParseRequestURI`, its error as Go's `*url.Error` prints.
pub fn parse_request_uri(raw: &str) -> Result<Url, UrlError> {
    parse_inner(raw, true).map_err(|e| wrap(raw, e))
}

fn wrap(raw: &str, e: UrlError) -> UrlError {
    match e {
        UrlError::Go(m) => go(format!("parse {}: {m}", go_quote(raw))),
        other => other,
    }
}

/// `url.Parse`: the fragment cut off (and its escapes checked).
fn parse(raw: &str) -> Result<Url, UrlError> {
    let (u, frag) = raw.split_once('#').unwrap_or((raw, ""));
    let mut url = parse_inner(u, false).map_err(|e| wrap(u, e))?;
    unescape(frag.as_bytes(), Mode::Fragment).map_err(|e| wrap(raw, e))?;
    url.raw = raw.to_string();
    Ok(url)
}

impl Url {
    /// `EscapedPath`.
    fn escaped_path(&self) -> Vec<u8> {
        let valid_encoded = self
            .raw_path
            .iter()
            .all(|&c| b"!$&'()*+,;=:@[]%".contains(&c) || !should_escape(c, Mode::Path));
        if !self.raw_path.is_empty()
            && valid_encoded
            && unescape(&self.raw_path, Mode::Path).is_ok_and(|p| p == self.path)
        {
            return self.raw_path.clone();
        }
        if self.path == b"*" {
            return b"*".to_vec();
        }
        escape(&self.path, Mode::Path)
    }

    /// `splitHostPort(u.Host)`.
    fn host_port(&self) -> (&[u8], &[u8]) {
        let mut host = &self.host[..];
        let mut port: &[u8] = &[];
        if let Some(colon) = host.iter().rposition(|c| *c == b':')
            && valid_optional_port(&host[colon..])
        {
            port = &host[colon + 1..];
            host = &host[..colon];
        }
        if host.len() >= 2 && host[0] == b'[' && host[host.len() - 1] == b']' {
            host = &host[1..host.len() - 1];
        }
        (host, port)
    }

    /// `Query()`: each key's values, in order (keys with `;` or bad
    /// escapes skipped).
    fn query(&self) -> Result<Vec<(String, Vec<String>)>, EvalError> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        if self.raw_query.matches('&').count() + 1 > 10_000 {
            return Ok(out);
        }
        for key in self.raw_query.split('&') {
            if key.contains(';') || key.is_empty() {
                continue;
            }
            let (k, v) = key.split_once('=').unwrap_or((key, ""));
            let (Ok(k), Ok(v)) = (
                unescape(k.as_bytes(), Mode::QueryComponent),
                unescape(v.as_bytes(), Mode::QueryComponent),
            ) else {
                continue;
            };
            let (k, v) = (utf8(k)?, utf8(v)?);
            match out.iter_mut().find(|(key, _)| *key == k) {
                Some((_, values)) => values.push(v),
                None => out.push((k, vec![v])),
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }
}

/// A Go string as a CEL string: unsupported unless UTF-8.
fn utf8(b: Vec<u8>) -> Result<String, EvalError> {
    String::from_utf8(b).map_err(|_| EvalError::unsupported("a URL part that is not UTF-8"))
}

fn string(b: &[u8]) -> Res {
    Ok(Val::str(&utf8(b.to_vec())?))
}

/// The URL library's calls, `None` for others.
pub fn apply(function: &str, v: &[Val]) -> Option<Res> {
    Some(match (function, v) {
        ("isURL", [Val::String(s)]) => Ok(Val::Bool(parse_request_uri(s).is_ok())),
        ("url", [Val::String(s)]) => match parse_request_uri(s).and_then(|_| parse(s)) {
            Ok(u) => Ok(Val::Url(Rc::new(u))),
            Err(UrlError::Go(m)) => Err(EvalError::Error(format!(
                "URL parse error during conversion from string: {m}"
            ))),
            Err(UrlError::BadIpLiteral) => Err(EvalError::unsupported("netip's parse error")),
        },
        ("getScheme", [Val::Url(u)]) => Ok(Val::str(&u.scheme)),
        ("getHost", [Val::Url(u)]) => string(&u.host),
        ("getHostname", [Val::Url(u)]) => string(u.host_port().0),
        ("getPort", [Val::Url(u)]) => string(u.host_port().1),
        ("getEscapedPath", [Val::Url(u)]) => string(&u.escaped_path()),
        ("getQuery", [Val::Url(u)]) => u.query().map(|q| {
            Val::Map(Rc::new(
                q.into_iter()
                    .map(|(k, vs)| {
                        let values = vs.iter().map(|v| Val::str(v)).collect();
                        (Val::str(&k), Val::list(values))
                    })
                    .collect(),
            ))
        }),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(function: &str, s: &str) -> String {
        let u = match apply("url", &[Val::str(s)]) {
            Some(Ok(u)) => u,
            Some(Err(EvalError::Error(e))) => return format!("error: {e}"),
            other => return format!("{other:?}"),
        };
        match apply(function, &[u]) {
            Some(Ok(Val::String(s))) => s.to_string(),
            Some(Ok(Val::Map(m))) => format!("{m:?}").replace("String(", "").replace(')', ""),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn parts_as_net_url() {
        assert_eq!(call("getHost", "https://u:p@a.b:80/x"), "a.b:80");
        assert_eq!(call("getHostname", "https://[::1]:80/x"), "::1");
        assert_eq!(call("getPort", "https://[::1]:80/x"), "80");
        assert_eq!(call("getScheme", "HTTPS://a/"), "https");
        assert_eq!(call("getEscapedPath", "https://a/a%20b/ü"), "/a%20b/%C3%BC");
        assert_eq!(call("getEscapedPath", "https://a/a%2fb"), "/a%2fb");
        assert_eq!(call("getHost", "//a/b"), "a");
        assert_eq!(
            call("getHost", "a/b"),
            "error: URL parse error during conversion from string: parse \"a/b\": invalid URI for request"
        );
        assert_eq!(
            call("getHost", "/a#%zz"),
            "error: URL parse error during conversion from string: parse \"/a#%zz\": invalid URL escape \"%zz\""
        );
        assert_eq!(
            call("getHost", "a b"),
            "error: URL parse error during conversion from string: parse \"a b\": invalid URI for request"
        );
        assert_eq!(
            call("getHost", "http://a:b:80/"),
            "error: URL parse error during conversion from string: parse \"http://a:b:80/\": invalid port \":b:80\" after host"
        );
        assert_eq!(call("getHost", "ftp://a:b:80/"), "a:b:80");
        assert_eq!(
            call("getHost", "http://[zz]/"),
            "error: URL parse error during conversion from string: parse \"http://[zz]/\": invalid host: ParseAddr(\"zz\"): unable to parse IP"
        );
        assert_eq!(
            call("getHost", "http://a%41/"),
            "error: URL parse error during conversion from string: parse \"http://a%41/\": invalid URL escape \"%41\""
        );
        let q = call("getQuery", "https://a/?y=1&y=2&x&a;b=3&%zz=4&q=a+b%21");
        assert!(q.contains("\"q\", List([\"a b!\"]"), "{q}");
        assert!(
            q.contains("\"x\", List([\"\"]") && !q.contains("a;b"),
            "{q}"
        );
    }

    #[test]
    fn is_url_as_parse_request_uri() {
        for (s, ok) in [
            ("https://a", true),
            ("/p", true),
            ("*", true),
            ("mailto:x", true),
            ("", false),
            ("p", false),
            (":x", false),
            ("http://[::1", false),
            ("http://[zz]/", false),
            ("http://[1.2.3.4]/", false),
            ("http://a\u{7f}", false),
        ] {
            assert_eq!(
                apply("isURL", &[Val::str(s)])
                    .unwrap()
                    .unwrap()
                    .type_name()
                    .unwrap(),
                "bool"
            );
            assert_eq!(parse_request_uri(s).is_ok(), ok, "{s}");
        }
    }
}
