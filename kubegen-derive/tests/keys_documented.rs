//! The documentation of `#[kubegen]` keys agrees with the one key table
//! (`kubegen_core::vocabulary::keys::ALL`): every key is documented in the
//! derive docs (`kubegen-derive/src/lib.rs`), every key the derive docs or
//! `docs/markers.md` name exists, and `docs/keys.md` is the reference the
//! table writes (`KUBEGEN_BLESS=1` rewrites it).

use std::collections::BTreeSet;
use std::path::Path;

use kubegen_core::vocabulary::{keys::ALL, reference};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// `text` without string literals (`"…"`, `r#"…"#`).
fn without_strings(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(['"', 'r']) {
        let (head, tail) = rest.split_at(i);
        out.push_str(head);
        if let Some(raw) = tail.strip_prefix("r#\"") {
            rest = raw.split_once("\"#").map_or("", |(_, r)| r);
        } else if let Some(quoted) = tail.strip_prefix('"') {
            rest = quoted.split_once('"').map_or("", |(_, r)| r);
        } else {
            out.push('r');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

/// The keys a code span such as `#[kubegen(a = 1, b(c = 2))]`, `a = 1` or
/// `b(...)` names: identifiers at the outermost level that are not a
/// value (after `=`).
fn keys_in_span(span: &str) -> Vec<String> {
    let span = span.trim();
    if span.starts_with("#[serde") || span.starts_with("#[derive") {
        return Vec::new();
    }
    let span = span
        .strip_prefix("#[kubegen(")
        .and_then(|s| s.strip_suffix(")]"))
        .unwrap_or(span);
    let text = without_strings(span);
    // Rust paths (`String::is_empty`, `KubeSchema`) are not keys.
    if text.contains("::") {
        return Vec::new();
    }
    let (mut depth, mut found, mut after_eq) = (0i32, Vec::new(), false);
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '(' | '[' | '<' | '{' => depth += 1,
            ')' | ']' | '>' | '}' => depth -= 1,
            '=' => after_eq = true,
            ',' => after_eq = false,
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut end = i + 1;
                while let Some(&(j, d)) = chars.peek() {
                    if d.is_ascii_alphanumeric() || d == '_' {
                        end = j + 1;
                        chars.next();
                    } else {
                        break;
                    }
                }
                let lowercase = !c.is_ascii_uppercase();
                if depth == 0 && !after_eq && lowercase {
                    found.push(text[i..end].to_owned());
                }
            }
            _ => {}
        }
    }
    found
}

/// The backticked spans of `line`.
fn code_spans(line: &str) -> Vec<&str> {
    line.split('`').skip(1).step_by(2).collect()
}

/// The keys the derive docs document: those named in `##` headings (of the
/// derives' docs, not `#[rbac]`'s, which follow them).
fn derive_doc_keys() -> BTreeSet<String> {
    let src = std::fs::read_to_string(root().join("kubegen-derive/src/lib.rs")).unwrap();
    let derives = src
        .split("/// Declares RBAC permissions")
        .next()
        .unwrap_or_default();
    derives
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("/// ## "))
        .flat_map(|h| {
            code_spans(h)
                .into_iter()
                .flat_map(keys_in_span)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The keys `docs/markers.md` gives as kubegen's spelling (its tables'
/// second column).
fn markers_keys() -> BTreeSet<String> {
    let md = std::fs::read_to_string(root().join("docs/markers.md")).unwrap();
    let mut keys = BTreeSet::new();
    for row in md
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("|---"))
    {
        let cells: Vec<&str> = row.replace("\\|", "¦").leak().split(" | ").collect();
        if let Some(cell) = cells.get(1) {
            keys.extend(code_spans(cell).into_iter().flat_map(keys_in_span));
        }
    }
    keys.remove("kubegen");
    keys
}

#[test]
fn the_span_reader_finds_keys_not_values() {
    assert_eq!(
        keys_in_span(
            r#"#[kubegen(scale(spec_replicas_path = ".a"), storage = false, items(min_length = 1))]"#
        ),
        ["scale", "storage", "items"]
    );
    assert_eq!(
        keys_in_span(r##"default_json = r#"{"a": 1}"#"##),
        ["default_json"]
    );
    assert!(keys_in_span("#[serde(default)]").is_empty());
}

#[test]
fn every_key_is_documented_in_the_derive_docs() {
    let documented = derive_doc_keys();
    let missing: Vec<&str> = ALL
        .iter()
        .map(|k| k.name)
        .filter(|k| !documented.contains(*k))
        .collect();
    assert!(
        missing.is_empty(),
        "keys without a `## ` heading in kubegen-derive/src/lib.rs: {missing:?}"
    );
}

#[test]
fn every_documented_key_exists() {
    let table: BTreeSet<&str> = ALL.iter().map(|k| k.name).collect();
    for (place, keys) in [
        ("kubegen-derive/src/lib.rs", derive_doc_keys()),
        ("docs/markers.md", markers_keys()),
    ] {
        let unknown: Vec<&String> = keys
            .iter()
            .filter(|k| !table.contains(k.as_str()))
            .collect();
        assert!(
            unknown.is_empty(),
            "{place} documents keys kubegen does not have: {unknown:?}"
        );
    }
}

#[test]
fn the_key_reference_is_the_tables() {
    let path = root().join("docs/keys.md");
    let want = reference::markdown();
    if std::env::var_os("KUBEGEN_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/keys.md is not the key table's reference; run `KUBEGEN_BLESS=1 cargo test -p kubegen-derive --test keys_documented`"
    );
}
