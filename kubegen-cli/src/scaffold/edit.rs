//! Line edits `kubegen add` makes to the files of an existing crate: an
//! insertion next to an anchor line that must be there exactly once, a
//! module declaration (where rustfmt would keep it), an entry added to a kind's `#[kubegen(...)]`
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
                "the line `{}` is not there (kubegen puts its addition next to it); restore it, or make the change by hand",
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

/// `insert` (whole lines) before the one line equal to `anchor`.
pub fn insert_before(text: &str, anchor: &str, insert: &str) -> Result<String, Refusal> {
    match find_line(text, anchor)? {
        0 => Ok(format!("{insert}{text}")),
        index => Ok(splice(text, index - 1, insert)),
    }
}

/// The module a line declares (`mod name;` or `pub mod name;`).
fn declared_mod(line: &str) -> Option<&str> {
    let line = line.trim_end();
    let rest = line.strip_prefix("pub ").unwrap_or(line);
    rest.strip_prefix("mod ")?.strip_suffix(';')
}

/// `name` split into runs of digits (compared as numbers) and of other
/// characters, the order rustfmt sorts module declarations in (`v2`
/// before `v10`).
fn version_key(name: &str) -> Vec<(u8, u128, String)> {
    let mut key = Vec::new();
    let mut rest = name;
    while let Some(c) = rest.chars().next() {
        let digit = c.is_ascii_digit();
        let end = rest
            .find(|c: char| c.is_ascii_digit() != digit)
            .unwrap_or(rest.len());
        let (run, tail) = rest.split_at(end);
        key.push(match run.parse::<u128>() {
            Ok(n) if digit => (0, n, String::new()),
            _ => (1, 0, run.to_string()),
        });
        rest = tail;
    }
    key
}

/// `pub mod <name>;` declared in a module's file, where rustfmt keeps
/// it: in order among the last run of plain module declarations (ones
/// without attributes or comments, which rustfmt sorts), else after the
/// last declaration, else after the `//!` documentation. Refused when the
/// module is declared already.
pub fn add_mod(text: &str, name: &str) -> Result<String, Refusal> {
    let lines: Vec<&str> = text.lines().collect();
    if let Some(i) = lines.iter().position(|l| declared_mod(l) == Some(name)) {
        return Err(Refusal::new(
            i + 1,
            format!("the module `{name}` is declared already"),
        ));
    }
    let declaration = format!("pub mod {name};\n");
    let plain = |i: usize| {
        let attached = |l: &str| {
            let l = l.trim_start();
            l.starts_with("#[") || (l.starts_with("//") && !l.starts_with("//!"))
        };
        declared_mod(lines[i]).is_some() && (i == 0 || !attached(lines[i - 1]))
    };
    if let Some(last) = lines.iter().rposition(|l| declared_mod(l).is_some()) {
        let mut first = last;
        while first > 0 && plain(first) && plain(first - 1) {
            first -= 1;
        }
        let later = (first..=last)
            .filter(|i| plain(*i))
            .find(|i| declared_mod(lines[*i]).map(version_key) > Some(version_key(name)));
        return Ok(match later {
            Some(0) => format!("{declaration}{text}"),
            Some(i) => splice(text, i - 1, &declaration),
            None => splice(text, last, &declaration),
        });
    }
    match lines.iter().position(|l| !l.starts_with("//!")) {
        Some(0) | None => Ok(format!("{declaration}\n{text}")),
        Some(first) => Ok(splice(text, first - 1, &format!("\n{declaration}"))),
    }
}

/// An attribute's `entry` as a line at `indent`, or, when it is a
/// `name(...)` whose parenthesized arguments are wider than rustfmt's
/// `attr_fn_like_width` (70 columns; or the line than 100), as rustfmt
/// breaks it: one argument per line.
fn layout_entry(indent: &str, entry: &str) -> String {
    let call = entry
        .strip_suffix(')')
        .and_then(|e| e.split_once('('))
        .filter(|(name, _)| !name.contains(['=', ' ', '"']));
    match call {
        Some((name, args)) if args.len() + 2 > 70 || indent.len() + entry.len() > 100 => {
            let args: Vec<String> = args
                .split(", ")
                .map(|a| format!("{indent}    {a}"))
                .collect();
            format!("{indent}{name}(\n{}\n{indent})\n", args.join(",\n"))
        }
        _ => format!("{indent}{entry}\n"),
    }
}

/// `call` (e.g. `.validate::<K>(f)`) added to the method chain that
/// starts with the one line beginning with `head`, laid out as rustfmt
/// lays it out: on `head`'s line when it is the chain's only call and
/// fits in 100 columns, else one call per line, indented one level more.
/// Unchanged when the chain has the call already.
pub fn add_to_chain(text: &str, head: &str, call: &str) -> Result<String, Refusal> {
    let lines: Vec<&str> = text.lines().collect();
    let starts: Vec<usize> = (0..lines.len())
        .filter(|i| lines[*i].starts_with(head))
        .collect();
    let start = match starts.as_slice() {
        [one] => *one,
        [] => find_line(text, head)?,
        [_, second, ..] => {
            return Err(Refusal::new(
                second + 1,
                format!(
                    "`{}` starts {} lines, so where to add is ambiguous; make the change by hand",
                    head.trim(),
                    starts.len()
                ),
            ));
        }
    };
    let indent = &head[..head.len() - head.trim_start().len()];
    let inner = format!("{indent}    .");
    let mut calls: Vec<&str> = Vec::new();
    let rest = lines[start][head.len()..].trim();
    if !rest.is_empty() {
        calls.push(rest);
    }
    let mut end = start + 1;
    while end < lines.len() && lines[end].starts_with(&inner) {
        calls.push(lines[end].trim());
        end += 1;
    }
    let call = call.trim();
    if calls.contains(&call) {
        return Ok(text.to_string());
    }
    calls.push(call);
    let chain = match calls.as_slice() {
        [one] if head.len() + one.len() <= 100 => format!("{head}{one}\n"),
        _ => std::iter::once(format!("{head}\n"))
            .chain(calls.iter().map(|c| format!("{indent}    {c}\n")))
            .collect(),
    };
    let mut out = String::with_capacity(text.len() + chain.len());
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i == start {
            out.push_str(&chain);
        } else if i < start || i >= end {
            out.push_str(line);
        }
    }
    Ok(out)
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
/// the attribute declaring `kind` at `version`, without a trailing comma
/// (as rustfmt leaves it). Refused when the attribute has a `key(` entry
/// already.
pub fn add_attribute_entry(
    text: &str,
    kind: &str,
    version: &str,
    key: &str,
    entry: &str,
) -> Result<String, Refusal> {
    let (first, last) = kind_attribute(text, kind, version)?;
    let entry = entry.trim_end().trim_end_matches(',');
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
            out.push_str(&layout_entry(&indent, entry));
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
        assert_eq!(
            insert_before("a\nb\nc\n", "b", "x\n").unwrap(),
            "a\nx\nb\nc\n"
        );
        assert_eq!(insert_before("b\n", "b", "x\n").unwrap(), "x\nb\n");
        assert!(insert_before("a\n", "b", "x\n").is_err());
    }

    #[test]
    fn chains_are_laid_out_as_rustfmt_does() {
        let server = "fn f() -> B {\n    B::new(c)\n}\n";
        let one = add_to_chain(server, "    B::new(c)", ".a(x)").unwrap();
        assert_eq!(one, "fn f() -> B {\n    B::new(c).a(x)\n}\n");
        let two = add_to_chain(&one, "    B::new(c)", "        .b(y)").unwrap();
        assert_eq!(
            two,
            "fn f() -> B {\n    B::new(c)\n        .a(x)\n        .b(y)\n}\n"
        );
        assert_eq!(add_to_chain(&two, "    B::new(c)", ".a(x)").unwrap(), two);
        let long = format!(".a({})", "x".repeat(90));
        assert_eq!(
            add_to_chain(server, "    B::new(c)", &long).unwrap(),
            format!("fn f() -> B {{\n    B::new(c)\n        {long}\n}}\n")
        );
        assert!(add_to_chain("fn f() {}\n", "    B::new(c)", ".a(x)").is_err());
        let twice = add_to_chain("    B::new(c)\n    B::new(c)\n", "    B::new(c)", ".a(x)");
        assert_eq!(twice.unwrap_err().line, 2);
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
        // In rustfmt's order among the last plain declarations, never
        // between an attribute and its module.
        assert_eq!(
            add_mod(lib, "aaa").unwrap(),
            "//! Doc.\n\npub mod api;\n#[rustfmt::skip]\npub mod generated;\npub mod aaa;\n"
        );
        let versions = "//! Doc.\n\npub mod v2;\npub mod v3;\n\nuse x;\n";
        assert_eq!(
            add_mod(versions, "backup").unwrap(),
            "//! Doc.\n\npub mod backup;\npub mod v2;\npub mod v3;\n\nuse x;\n"
        );
        assert_eq!(
            add_mod(versions, "v10").unwrap(),
            "//! Doc.\n\npub mod v2;\npub mod v3;\npub mod v10;\n\nuse x;\n"
        );
        assert_eq!(add_mod("mod b;\n", "a").unwrap(), "pub mod a;\nmod b;\n");
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
            added.contains("    namespaced,\n    conversion(x)\n)]\npub struct ThingSpec"),
            "{added}"
        );
        let again =
            add_attribute_entry(&added, "Thing", "v1", "conversion", "conversion(y),").unwrap_err();
        assert_eq!(again.line, 7);
        let other = add_attribute_entry(API, "Other", "v1", "admission", "admission(v),").unwrap();
        assert!(
            other.contains("    kind = \"Other\",\n    admission(v)\n)]"),
            "{other}"
        );
        assert_eq!(
            add_attribute_entry(API, "Thing", "v2", "conversion", "c,")
                .unwrap_err()
                .line,
            0
        );
        let wide = add_attribute_entry(
            &other,
            "Other",
            "v1",
            "conversion",
            "conversion(service = \"a-rather-long-operator-name-webhook\", namespace = \"a-system\"),",
        )
        .unwrap();
        assert!(
            wide.contains("    admission(v),\n    conversion(\n        service = \"a-rather-long-operator-name-webhook\",\n        namespace = \"a-system\"\n    )\n)]"),
            "{wide}"
        );
        let after =
            add_attribute_entry(&wide, "Other", "v1", "storage", "storage = false").unwrap();
        assert!(
            after.contains("\n    ),\n    storage = false\n)]"),
            "{after}"
        );
        let one_line = "#[kubegen(group = \"a.b\", version = \"v1\", kind = \"Thing\")]\n";
        assert!(kind_attribute(one_line, "Thing", "v1").is_err());
    }
}
