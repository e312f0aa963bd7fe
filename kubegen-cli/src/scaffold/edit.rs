//! Line edits `kubegen add` makes to the files of an existing crate: an
//! insertion next to an anchor line that must be there exactly once, a
//! module declaration, an entry added to a kind's `#[kubegen(...)]`
//! attribute. Each edit either applies where it is sure of its place or
//! refuses with the line that stopped it; it never guesses.

/// Why an edit was refused: where (1-based line, 0 for the whole file)
/// and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The 1-based line, 0 when no line is to blame.
    pub line: usize,
    /// What is wrong and the remedy.
    pub message: String,
}

impl Refusal {
    fn new(line: usize, message: impl Into<String>) -> Refusal {
        Refusal {
            line,
            message: message.into(),
        }
    }
}

/// The index of the one line of `text` equal to `anchor` (trailing
/// whitespace ignored).
fn find_line(text: &str, anchor: &str) -> Result<usize, Refusal> {
    let found: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_end() == anchor)
        .map(|(i, _)| i)
        .collect();
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(Refusal::new(
            0,
            format!(
                "the line `{}` is not there (kubegen puts its addition after it); restore it, or make the change by hand",
                anchor.trim()
            ),
        )),
        [_, second, ..] => Err(Refusal::new(
            second + 1,
            format!(
                "the line `{}` is there {} times, so where to add is ambiguous; make the change by hand",
                anchor.trim(),
                found.len()
            ),
        )),
    }
}

/// `text` split after line `index` (0-based), the halves joined around
/// `insert` (whole lines, each ending in a newline).
fn splice(text: &str, index: usize, insert: &str) -> String {
    let mut out = String::with_capacity(text.len() + insert.len());
    let mut lines = text.split_inclusive('\n');
    for line in lines.by_ref().take(index + 1) {
        out.push_str(line);
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(insert);
    for line in lines {
        out.push_str(line);
    }
    out
}

/// `insert` (whole lines) after the one line equal to `anchor`.
pub fn insert_after(text: &str, anchor: &str, insert: &str) -> Result<String, Refusal> {
    Ok(splice(text, find_line(text, anchor)?, insert))
}

/// `pub mod <name>;` declared in a module's file: after its last module
/// declaration, else after its `//!` documentation. Refused when the
/// module is declared already.
pub fn add_mod(text: &str, name: &str) -> Result<String, Refusal> {
    let is_mod = |line: &str| {
        let line = line.trim_end();
        let rest = line.strip_prefix("pub ").unwrap_or(line);
        rest.strip_prefix("mod ")
            .and_then(|m| m.strip_suffix(';'))
            .map(str::to_string)
    };
    let lines: Vec<&str> = text.lines().collect();
    if let Some(i) = lines
        .iter()
        .position(|l| is_mod(l).as_deref() == Some(name))
    {
        return Err(Refusal::new(
            i + 1,
            format!("the module `{name}` is declared already"),
        ));
    }
    if let Some(last) = lines.iter().rposition(|l| is_mod(l).is_some()) {
        return Ok(splice(text, last, &format!("pub mod {name};\n")));
    }
    match lines.iter().position(|l| !l.starts_with("//!")) {
        Some(0) | None => Ok(format!("pub mod {name};\n\n{text}")),
        Some(first) => Ok(splice(text, first - 1, &format!("\npub mod {name};\n"))),
    }
}

/// The `#[kubegen(` … `)]` attribute (0-based first and last lines) that
/// declares `kind` at `version`: its opening line is `#[kubegen(` alone,
/// its closing line `)]`, as rustfmt writes a long attribute.
pub fn kind_attribute(text: &str, kind: &str, version: &str) -> Result<(usize, usize), Refusal> {
    let lines: Vec<&str> = text.lines().collect();
    let mut start = None;
    for (i, line) in lines.iter().enumerate() {
        match line.trim() {
            "#[kubegen(" => start = Some(i),
            ")]" => {
                if let Some(first) = start.take() {
                    let body = lines[first..i].join("\n");
                    if body.contains(&format!("kind = \"{kind}\""))
                        && body.contains(&format!("version = \"{version}\""))
                    {
                        return Ok((first, i));
                    }
                }
            }
            _ => {}
        }
    }
    Err(Refusal::new(
        0,
        format!(
            "no `#[kubegen(` … `)]` attribute with `kind = \"{kind}\"` and `version = \"{version}\"` laid out one key per line (as rustfmt writes it); add the entry by hand"
        ),
    ))
}

/// `entry` (e.g. `conversion(service = "…")`) added as the last entry of
/// the attribute declaring `kind` at `version`. Refused when the attribute
/// has a `key(` entry already.
pub fn add_attribute_entry(
    text: &str,
    kind: &str,
    version: &str,
    key: &str,
    entry: &str,
) -> Result<String, Refusal> {
    let (first, last) = kind_attribute(text, kind, version)?;
    let lines: Vec<&str> = text.lines().collect();
    if let Some(i) = (first..last).find(|i| lines[*i].trim_start().starts_with(&format!("{key}(")))
    {
        return Err(Refusal::new(
            i + 1,
            format!("{kind} {version} declares `{key}(...)` already"),
        ));
    }
    let indent: String = lines[first + 1..last]
        .first()
        .map(|l| l.chars().take_while(|c| c.is_whitespace()).collect())
        .unwrap_or_else(|| "    ".into());
    let mut out = String::with_capacity(text.len() + entry.len() + 8);
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i + 1 == last && last > first + 1 && !line.trim_end().ends_with(',') {
            out.push_str(line.trim_end());
            out.push_str(",\n");
        } else {
            out.push_str(line);
        }
        if i + 1 == last {
            out.push_str(&format!("{indent}{entry}\n"));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_after_a_unique_anchor_only() {
        assert_eq!(
            insert_after("a\nb\nc\n", "b", "x\n").unwrap(),
            "a\nb\nx\nc\n"
        );
        assert_eq!(
            insert_after("a\nb  \nc", "b", "x\n").unwrap(),
            "a\nb  \nx\nc"
        );
        let missing = insert_after("a\nc\n", "b", "x\n").unwrap_err();
        assert_eq!(missing.line, 0);
        assert!(missing.message.contains("`b` is not there"), "{missing:?}");
        let twice = insert_after("b\na\nb\n", "b", "x\n").unwrap_err();
        assert_eq!(twice.line, 3);
        assert!(twice.message.contains("2 times"), "{twice:?}");
    }

    #[test]
    fn module_declarations() {
        let lib = "//! Doc.\n\npub mod api;\n#[rustfmt::skip]\npub mod generated;\n";
        assert_eq!(
            add_mod(lib, "webhook").unwrap(),
            "//! Doc.\n\npub mod api;\n#[rustfmt::skip]\npub mod generated;\npub mod webhook;\n"
        );
        let refused = add_mod(lib, "api").unwrap_err();
        assert_eq!(refused.line, 3);
        assert_eq!(
            add_mod("//! Doc.\n//! More.\n\nuse x;\n", "v2").unwrap(),
            "//! Doc.\n//! More.\n\npub mod v2;\n\nuse x;\n"
        );
        assert_eq!(
            add_mod("use x;\n", "v2").unwrap(),
            "pub mod v2;\n\nuse x;\n"
        );
    }

    const API: &str = r#"#[derive(CustomResource)]
#[kubegen(
    group = "a.example.com",
    version = "v1",
    kind = "Thing",
    namespaced
)]
pub struct ThingSpec {}

#[kubegen(
    group = "a.example.com",
    version = "v1",
    kind = "Other",
)]
pub struct OtherSpec {}
"#;

    #[test]
    fn attribute_entries() {
        let added =
            add_attribute_entry(API, "Thing", "v1", "conversion", "conversion(x),").unwrap();
        assert!(
            added.contains("    namespaced,\n    conversion(x),\n)]\npub struct ThingSpec"),
            "{added}"
        );
        let again =
            add_attribute_entry(&added, "Thing", "v1", "conversion", "conversion(y),").unwrap_err();
        assert_eq!(again.line, 7);
        let other = add_attribute_entry(API, "Other", "v1", "admission", "admission(v),").unwrap();
        assert!(
            other.contains("    kind = \"Other\",\n    admission(v),\n)]"),
            "{other}"
        );
        assert_eq!(
            add_attribute_entry(API, "Thing", "v2", "conversion", "c,")
                .unwrap_err()
                .line,
            0
        );
        let one_line = "#[kubegen(group = \"a.b\", version = \"v1\", kind = \"Thing\")]\n";
        assert!(kind_attribute(one_line, "Thing", "v1").is_err());
    }
}
