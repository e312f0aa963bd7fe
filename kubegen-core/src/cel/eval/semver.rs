//! Kubernetes' semver library (k8s.io/apiserver
//! `pkg/cel/library/semverlib.go`): `isSemver`, `semver()` (with the
//! optional normalization), `major()`, `minor()`, `patch()`,
//! `compareTo()`, `isLessThan()`, `isGreaterThan()`; versions parsed and
//! ordered as github.com/blang/semver/v4 parses and orders them. A text
//! that does not parse makes `semver()` unsupported (the parse error is
//! not reproduced); `isSemver` is exact.

use std::cmp::Ordering;

/// A prerelease identifier: numeric or alphanumeric.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pre {
    /// Digits only.
    Num(u64),
    /// Anything else of `[0-9A-Za-z-]`.
    Str(String),
}

/// A parsed version (build metadata does not order, so it is not kept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    /// `MAJOR`
    pub major: u64,
    /// `MINOR`
    pub minor: u64,
    /// `PATCH`
    pub patch: u64,
    /// The prerelease identifiers.
    pub pre: Vec<Pre>,
}

fn numeric(s: &str) -> Option<u64> {
    if !s.bytes().all(|c| c.is_ascii_digit()) || (s.len() > 1 && s.starts_with('0')) {
        return None;
    }
    s.parse().ok()
}

fn alphanumeric(s: &str) -> bool {
    s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-')
}

/// blang/semver's `Parse`.
pub fn parse(s: &str) -> Option<Version> {
    let parts: Vec<&str> = s.splitn(3, '.').collect();
    if parts.len() != 3 {
        return None;
    }
    let major = numeric(parts[0])?;
    let minor = numeric(parts[1])?;
    let mut patch = parts[2];
    if let Some((p, build)) = patch.split_once('+') {
        if !build.split('.').all(|b| !b.is_empty() && alphanumeric(b)) {
            return None;
        }
        patch = p;
    }
    let mut pre = Vec::new();
    if let Some((p, pres)) = patch.split_once('-') {
        for id in pres.split('.') {
            if id.is_empty() {
                return None;
            }
            if id.bytes().all(|c| c.is_ascii_digit()) {
                pre.push(Pre::Num(numeric(id)?));
            } else if alphanumeric(id) {
                pre.push(Pre::Str(id.to_string()));
            } else {
                return None;
            }
        }
        patch = p;
    }
    Some(Version {
        major,
        minor,
        patch: numeric(patch)?,
        pre,
    })
}

/// The library's `normalizeAndParse`: no `v`, no leading zeros, missing
/// minor and patch numbers filled in.
pub fn normalize_and_parse(s: &str) -> Option<Version> {
    let s = s.strip_prefix('v').unwrap_or(s);
    let mut parts: Vec<String> = s.splitn(3, '.').map(str::to_string).collect();
    for p in parts.iter_mut() {
        if p.len() > 1 {
            let mut t = p.trim_start_matches('0').to_string();
            if !t.starts_with(|c: char| c.is_ascii_digit()) {
                t.insert(0, '0');
            }
            *p = t;
        }
    }
    if parts.len() < 3 {
        if parts.last().is_some_and(|l| l.contains(['+', '-'])) {
            return None;
        }
        while parts.len() < 3 {
            parts.push("0".into());
        }
    }
    parse(&parts.join("."))
}

/// blang/semver's `Compare`.
pub fn compare(a: &Version, b: &Version) -> Ordering {
    let core = (a.major, a.minor, a.patch).cmp(&(b.major, b.minor, b.patch));
    if core != Ordering::Equal {
        return core;
    }
    match (a.pre.is_empty(), b.pre.is_empty()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Greater,
        (false, true) => return Ordering::Less,
        _ => {}
    }
    for (x, y) in a.pre.iter().zip(&b.pre) {
        let o = match (x, y) {
            (Pre::Num(_), Pre::Str(_)) => Ordering::Less,
            (Pre::Str(_), Pre::Num(_)) => Ordering::Greater,
            (Pre::Num(m), Pre::Num(n)) => m.cmp(n),
            (Pre::Str(m), Pre::Str(n)) => m.cmp(n),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    a.pre.len().cmp(&b.pre.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_order_as_blang_semver() {
        for ok in [
            "1.2.3",
            "0.0.0-alpha.1+build.5",
            "1.0.0-0.3.7",
            "1.0.0-x-y-z.--",
        ] {
            assert!(parse(ok).is_some(), "{ok}");
        }
        for bad in [
            "1.2",
            "01.2.3",
            "1.2.3-",
            "1.2.3-01",
            "1.2.3+",
            "v1.2.3",
            "1.2.3-a_b",
            "",
        ] {
            assert!(parse(bad).is_none(), "{bad}");
        }
        assert_eq!(normalize_and_parse("v01.2").map(|v| v.minor), Some(2));
        assert!(normalize_and_parse("1-rc").is_none());
        let order = [
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
        ];
        for w in order.windows(2) {
            assert_eq!(
                compare(&parse(w[0]).unwrap(), &parse(w[1]).unwrap()),
                Ordering::Less,
                "{w:?}"
            );
        }
        assert_eq!(
            compare(&parse("1.0.0+a").unwrap(), &parse("1.0.0+b").unwrap()),
            Ordering::Equal
        );
    }
}
