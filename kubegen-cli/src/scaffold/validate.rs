//! Checks on `kubegen new`'s inputs: the API group, version and kind, the
//! package name taken from the directory, the target directory and the
//! kubegen source tree. Each check returns a message; the caller collects
//! them all before anything is written.

use std::path::Path;

/// Rust keywords: a group's first label becomes an accessor method
/// (`factory.stable()`), so it cannot be one of these.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// Group accessors the scaffolded crate's built-in kinds already use.
const RESERVED_ACCESSORS: &[&str] = &["apps", "core"];

/// Checks an API group: a DNS subdomain (RFC 1123, at most 253
/// characters, lower-case labels of at most 63) with at least one dot, whose
/// first label can serve as a Rust accessor.
pub fn group(group: &str) -> Result<(), String> {
    if group.is_empty() {
        return Err("the API group is empty".into());
    }
    if !group.contains('.') {
        return Err(format!(
            "`{group}` must contain a dot: custom resources need a domain-qualified group, e.g. `{group}.example.com`"
        ));
    }
    if group.len() > 253 {
        return Err(format!(
            "`{group}` is {} characters long; a DNS subdomain has at most 253",
            group.len()
        ));
    }
    for label in group.split('.') {
        dns_label(label).map_err(|why| format!("`{group}` is not a DNS subdomain: {why}"))?;
    }
    let first = group.split('.').next().unwrap_or(group);
    if !first.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Err(format!(
            "`{group}`: its first label `{first}` names the generated group accessor, so it must start with a letter"
        ));
    }
    let accessor = first.replace('-', "_");
    if KEYWORDS.contains(&accessor.as_str()) {
        return Err(format!(
            "`{group}`: its first label `{first}` is a Rust keyword and cannot name the generated group accessor"
        ));
    }
    if RESERVED_ACCESSORS.contains(&accessor.as_str()) {
        return Err(format!(
            "`{group}`: its first label `{first}` would share the generated accessor `{accessor}()` with a built-in API group"
        ));
    }
    Ok(())
}

fn dns_label(label: &str) -> Result<(), String> {
    if label.is_empty() {
        return Err("it has an empty label".into());
    }
    if label.len() > 63 {
        return Err(format!("the label `{label}` is longer than 63 characters"));
    }
    if !label
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(format!(
            "the label `{label}` may contain only lower-case letters, digits and `-`"
        ));
    }
    if label.starts_with('-') || label.ends_with('-') {
        return Err(format!(
            "the label `{label}` must start and end with a letter or digit"
        ));
    }
    Ok(())
}

/// Checks an API version: `v` and a positive number, optionally followed by
/// `alpha` or `beta` and a positive number (`v1`, `v1beta1`, `v2alpha1`).
pub fn version(version: &str) -> Result<(), String> {
    let bad = || {
        format!(
            "`{version}` is not a Kubernetes API version; use e.g. `v1`, `v1beta1` or `v2alpha1`"
        )
    };
    let rest = version.strip_prefix('v').ok_or_else(bad)?;
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let (major, rest) = rest.split_at(digits);
    if !positive_number(major) {
        return Err(bad());
    }
    if rest.is_empty() {
        return Ok(());
    }
    let number = rest
        .strip_prefix("alpha")
        .or_else(|| rest.strip_prefix("beta"))
        .ok_or_else(bad)?;
    if positive_number(number) {
        Ok(())
    } else {
        Err(bad())
    }
}

fn positive_number(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_digit()) && !s.starts_with('0')
}

/// Checks a kind: PascalCase ASCII (an upper-case letter, then letters and
/// digits), at most 63 characters.
pub fn kind(kind: &str) -> Result<(), String> {
    let pascal = kind.starts_with(|c: char| c.is_ascii_uppercase())
        && kind.chars().all(|c| c.is_ascii_alphanumeric())
        && kind.chars().any(|c| c.is_ascii_lowercase());
    if !pascal {
        return Err(format!(
            "`{kind}` is not a PascalCase kind; use e.g. `MyApplication`"
        ));
    }
    if kind.len() > 63 {
        return Err(format!(
            "`{kind}` is {} characters long; a kind has at most 63",
            kind.len()
        ));
    }
    Ok(())
}

/// Checks that `kind`'s module (`snake`, its snake case) can be a Rust
/// module's name: not a keyword.
pub fn kind_module(kind: &str, snake: &str) -> Result<(), String> {
    if KEYWORDS.contains(&snake) {
        return Err(format!(
            "`{kind}`'s module would be `{snake}`, a Rust keyword; choose another kind"
        ));
    }
    Ok(())
}

/// Checks the package name taken from the target directory: ASCII letters,
/// digits, `-` and `_`, starting with a letter, and not a Rust keyword once
/// `-` become `_`.
pub fn package(name: &str) -> Result<(), String> {
    let ok = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !ok {
        return Err(format!(
            "the directory name `{name}` is not a valid package name: use ASCII letters, digits, `-` and `_`, starting with a letter"
        ));
    }
    let ident = name.replace('-', "_");
    if KEYWORDS.contains(&ident.as_str()) || ["std", "core", "alloc", "test"].contains(&name) {
        return Err(format!(
            "the directory name `{name}` cannot be a package name: it is reserved"
        ));
    }
    Ok(())
}

/// Checks a sharded operator's partition count: 1 to 256, what the
/// runtime's `ShardingConfig` accepts.
pub fn partitions(partitions: u32) -> Result<(), String> {
    if (1..=256).contains(&partitions) {
        Ok(())
    } else {
        Err(format!(
            "{partitions} partitions: a shard set has 1 to 256 (more partitions balance the objects more evenly across replicas, and cost one Lease each)"
        ))
    }
}

/// Checks that `dir` does not exist or is an empty directory.
pub fn target_dir(dir: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot inspect the target directory: {e}")),
        Ok(meta) if !meta.is_dir() => Err("exists and is not a directory".into()),
        Ok(_) => {
            let mut entries =
                std::fs::read_dir(dir).map_err(|e| format!("cannot read the directory: {e}"))?;
            if entries.next().is_some() {
                Err("the directory is not empty; choose a new or empty directory".into())
            } else {
                Ok(())
            }
        }
    }
}

/// Checks that `repo` is a kubegen source tree: it has the runtime crate,
/// the test harness the new crate depends on and the CLI.
pub fn kubegen_repo(repo: &Path) -> Result<(), String> {
    for crate_dir in ["kubegen-runtime", "tests/kubegen-testenv", "kubegen-cli"] {
        if !repo.join(crate_dir).join("Cargo.toml").is_file() {
            return Err(format!(
                "not a kubegen source tree: `{}` is missing; pass --kubegen-path <kubegen repository>",
                repo.join(crate_dir).join("Cargo.toml").display()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups() {
        for ok in [
            "stable.example.com",
            "my-group.example.com",
            "a1.b",
            "batch.tutorial.kubebuilder.io",
        ] {
            assert_eq!(group(ok), Ok(()), "{ok}");
        }
        for (bad, says) in [
            ("", "empty"),
            ("stable", "must contain a dot"),
            ("Stable.example.com", "lower-case"),
            ("stable..com", "empty label"),
            ("-a.example.com", "start and end"),
            ("a-.example.com", "start and end"),
            ("a_b.example.com", "lower-case"),
            ("1a.example.com", "must start with a letter"),
            ("type.example.com", "Rust keyword"),
            ("apps.example.com", "built-in API group"),
            ("example.com.", "empty label"),
        ] {
            let err = group(bad).unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
        let long = format!("{}.com", "a".repeat(64));
        assert!(group(&long).unwrap_err().contains("longer than 63"));
        let huge = vec!["a".repeat(60); 5].join(".");
        assert!(group(&huge).unwrap_err().contains("at most 253"));
    }

    #[test]
    fn versions() {
        for ok in ["v1", "v2", "v10", "v1beta1", "v2alpha1", "v1beta12"] {
            assert_eq!(version(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "v",
            "1",
            "v0",
            "v01",
            "V1",
            "v1beta",
            "v1beta0",
            "v1gamma1",
            "v1alpha1x",
            "v1.0",
            "v1-beta1",
            "vbeta1",
        ] {
            assert!(version(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn kinds() {
        for ok in ["MyApplication", "Pod", "CronJob", "Http2Route", "Cluster"] {
            assert_eq!(kind(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "myApplication",
            "my_application",
            "My-Application",
            "My Application",
            "2Fast",
            "HTTP",
            "Ünicode",
        ] {
            assert!(kind(bad).is_err(), "{bad}");
        }
        assert!(kind(&format!("A{}", "b".repeat(63))).is_err());
        assert_eq!(kind_module("Backup", "backup"), Ok(()));
        assert!(kind_module("Type", "type").unwrap_err().contains("keyword"));
    }

    #[test]
    fn packages() {
        for ok in ["my-operator", "op", "my_op2"] {
            assert_eq!(package(ok), Ok(()), "{ok}");
        }
        for bad in ["", "1op", "-op", "my.op", "my op", "fn", "std", "self"] {
            assert!(package(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn partition_counts() {
        for ok in [1, 16, 256] {
            assert_eq!(partitions(ok), Ok(()), "{ok}");
        }
        for bad in [0, 257, u32::MAX] {
            assert!(partitions(bad).unwrap_err().contains("1 to 256"), "{bad}");
        }
    }

    #[test]
    fn target_dirs() {
        let tmp = std::env::temp_dir().join(format!("kubegen-validate-{}", std::process::id()));
        std::fs::create_dir_all(&tmp).unwrap();
        assert_eq!(target_dir(&tmp.join("missing")), Ok(()));
        assert_eq!(target_dir(&tmp), Ok(()));
        std::fs::write(tmp.join("file"), "x").unwrap();
        assert!(target_dir(&tmp).unwrap_err().contains("not empty"));
        assert!(
            target_dir(&tmp.join("file"))
                .unwrap_err()
                .contains("not a directory")
        );
        std::fs::remove_dir_all(&tmp).unwrap();
    }

    #[test]
    fn kubegen_repos() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        assert_eq!(kubegen_repo(&repo), Ok(()));
        assert!(
            kubegen_repo(Path::new("/nonexistent"))
                .unwrap_err()
                .contains("not a kubegen source tree")
        );
    }
}
