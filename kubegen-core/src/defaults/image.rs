//! The image pull policy defaulting reads from an image reference:
//! kubelet's `parsers.ParseImageName` over distribution/reference v0.6.0's
//! `ParseNormalizedNamed` (its grammar, Docker Hub normalization, the
//! 255-byte path limit, and go-digest's check of `sha256`/`sha384`/
//! `sha512` digests).

use std::sync::OnceLock;

use regex::Regex;

/// `reference.ReferenceRegexp` and `anchoredNameRegexp`, as Go compiles
/// them (leftmost-first, as Rust's `regex` matches).
fn regexes() -> &'static Option<(Regex, Regex)> {
    static RE: OnceLock<Option<(Regex, Regex)>> = OnceLock::new();
    RE.get_or_init(|| {
        let alphanumeric = "[a-z0-9]+";
        let separator = "(?:[._]|__|[-]+)";
        let component = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
        let domain_name = format!(r"{component}(?:\.{component})*");
        let host = format!(r"(?:{domain_name}|\[(?:[a-fA-F0-9:]+)\])");
        let domain_and_port = format!("{host}(?::[0-9]+)?");
        let path_component = format!("{alphanumeric}(?:{separator}{alphanumeric})*");
        let remote_name = format!("{path_component}(?:/{path_component})*");
        let name = format!("(?:{domain_and_port}/)?{remote_name}");
        let tag = r"[0-9A-Za-z_][0-9A-Za-z_.-]{0,127}";
        let digest = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}";
        let reference = Regex::new(&format!("^({name})(?::({tag}))?(?:@({digest}))?$")).ok()?;
        let anchored_name =
            Regex::new(&format!("^(?:({domain_and_port})/)?({remote_name})$")).ok()?;
        Some((reference, anchored_name))
    })
}

/// go-digest's `Digest.Validate` for the algorithms it has.
fn valid_digest(d: &str) -> bool {
    let Some((algorithm, encoded)) = d.split_once(':') else {
        return false;
    };
    let len = match algorithm {
        "sha256" => 64,
        "sha384" => 96,
        "sha512" => 128,
        _ => return false,
    };
    encoded.len() == len
        && encoded
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Docker Hub's normalization (`splitDockerDomain`): the domain and the
/// rest.
fn split_domain(name: &str) -> (&str, String) {
    let Some((maybe_domain, maybe_remote)) = name.split_once('/') else {
        return ("docker.io", format!("library/{name}"));
    };
    let (domain, remote) = if maybe_domain == "localhost"
        || maybe_domain.contains(['.', ':'])
        || maybe_domain.to_lowercase() != maybe_domain
    {
        (maybe_domain, maybe_remote.to_string())
    } else if maybe_domain == "index.docker.io" {
        ("docker.io", maybe_remote.to_string())
    } else {
        ("docker.io", name.to_string())
    };
    if domain == "docker.io" && !remote.contains('/') {
        return (domain, format!("library/{remote}"));
    }
    (domain, remote)
}

/// The tag `parsers.ParseImageName` gives: the reference's tag, `latest`
/// when it has neither tag nor digest, `""` when it has only a digest or
/// does not parse.
pub(super) fn tag(image: &str) -> String {
    let Some((reference, anchored_name)) = regexes() else {
        return String::new();
    };
    if image.len() == 64
        && image
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        return String::new();
    }
    let (domain, remainder) = split_domain(image);
    let remote = remainder
        .split_once(':')
        .map_or(remainder.as_str(), |(r, _)| r);
    if remote.to_lowercase() != remote {
        return String::new();
    }
    let full = format!("{domain}/{remainder}");
    let Some(m) = reference.captures(&full) else {
        return String::new();
    };
    let name = m.get(1).map_or("", |g| g.as_str());
    let path = anchored_name
        .captures(name)
        .and_then(|n| n.get(2))
        .map_or(name, |g| g.as_str());
    if path.len() > 255 {
        return String::new();
    }
    let tag = m.get(2).map_or("", |g| g.as_str());
    match m.get(3) {
        Some(d) if !valid_digest(d.as_str()) => String::new(),
        Some(_) => tag.to_string(),
        None if tag.is_empty() => "latest".to_string(),
        None => tag.to_string(),
    }
}
