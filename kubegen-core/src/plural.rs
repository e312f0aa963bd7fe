//! The one pluralizer used for resource names (`policy` → `policies`).

const UNCOUNTABLE: &[&str] = &["endpoints", "data", "metadata", "series", "species", "news"];

/// The lower-case plural of a kind, following Kubernetes conventions.
pub fn pluralize(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    if UNCOUNTABLE.contains(&lower.as_str()) {
        return lower;
    }
    let consonant_before_y = lower.len() >= 2
        && lower.ends_with('y')
        && !matches!(
            lower.as_bytes()[lower.len() - 2],
            b'a' | b'e' | b'i' | b'o' | b'u'
        );
    if consonant_before_y {
        return format!("{}ies", &lower[..lower.len() - 1]);
    }
    if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|s| lower.ends_with(s))
    {
        return format!("{lower}es");
    }
    format!("{lower}s")
}

#[cfg(test)]
mod tests {
    use super::pluralize;

    #[test]
    fn table() {
        let cases = [
            ("Policy", "policies"),
            ("NetworkPolicy", "networkpolicies"),
            ("Ingress", "ingresses"),
            ("Endpoints", "endpoints"),
            ("Status", "statuses"),
            ("Proxy", "proxies"),
            ("Gateway", "gateways"),
            ("MyApplication", "myapplications"),
            ("Box", "boxes"),
            ("Mesh", "meshes"),
            ("Patch", "patches"),
            ("Key", "keys"),
            ("Pod", "pods"),
        ];
        for (kind, want) in cases {
            assert_eq!(pluralize(kind), want, "{kind}");
        }
    }
}
