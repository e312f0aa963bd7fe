//! The YAML emitter: controller-gen's block layout (sorted keys, two-space
//! indentation, sequences flush with their key, literal blocks for
//! multi-line text), written so that every YAML 1.1 and 1.2 reader —
//! kubectl's go-yaml, libyaml, PyYAML, yaml-rust2 — reads back exactly the
//! JSON value it was given.
//!
//! What that takes, rule by rule:
//! - a string is written plain only when no reader could take it for
//!   anything else: it starts with an ASCII letter, `_`, `/` or `.` and a
//!   letter (a JSON path), is not one of the YAML 1.1 booleans, nulls or
//!   special floats (`y`, `No`, `on`, `~`, `.inf`, ...), has no
//!   character outside a safe ASCII set, and no `: ` or ` #`;
//! - every other string is double-quoted, escaping `"`, `\` and every
//!   character YAML does not allow raw or reads as a line break (C0 and C1
//!   controls, DEL, NEL, U+2028/U+2029, the BOM, U+FFFE/U+FFFF);
//! - multi-line strings use a literal block only when every line survives it
//!   unchanged (no tabs, no trailing blanks, no leading blank, no escapes);
//! - floats always carry a `.` and a signed exponent (`1.0e+21`), the one
//!   form both YAML 1.1 and 1.2 resolve as a float;
//! - keys longer than YAML's 1,024-character limit for implicit keys are
//!   written as explicit `? key` / `: value` entries.

use serde_json::{Number, Value};

use super::{YAML_HEADER, canonical};

/// Longest key written as an implicit `key: value` entry; YAML limits
/// implicit keys to 1,024 characters, quotes included.
const MAX_IMPLICIT_KEY: usize = 1000;

/// YAML with sorted keys, preceded by the `@generated` header.
pub fn to_yaml(v: &Value) -> String {
    let mut out = String::from(YAML_HEADER);
    emit(&mut out, &canonical(v), 0);
    out
}

/// Whether `c` must be escaped inside a double-quoted scalar: it is not
/// printable in YAML, or a YAML 1.1 reader takes it for a line break, or it
/// is a byte-order mark.
fn needs_escape(c: char) -> bool {
    !matches!(c,
        '\u{20}'..='\u{7e}'
        | '\u{a0}'..='\u{2027}'
        | '\u{202a}'..='\u{d7ff}'
        | '\u{e000}'..='\u{fefe}'
        | '\u{ff00}'..='\u{fffd}'
        | '\u{10000}'..)
}

/// YAML 1.1 and 1.2 words that resolve to booleans or null when plain.
const RESERVED: &[&str] = &[
    "y", "yes", "n", "no", "true", "false", "on", "off", "null", "~", ".inf", ".nan",
];

/// Whether `s` reads back as the same string when written plain.
fn is_plain(s: &str) -> bool {
    let mut chars = s.chars();
    let first_ok = match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '/' => true,
        // `.spec.x` reads as a string; `.5`, `._`, `.1_0` or `.e+5` as a
        // float in YAML 1.1.
        Some('.') => chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() && !matches!(c, 'e' | 'E')),
        _ => false,
    };
    first_ok
        && !RESERVED.contains(&s.to_ascii_lowercase().as_str())
        && s.parse::<f64>().is_err()
        && !s.ends_with(' ')
        && !s.ends_with(':')
        && !s.contains(": ")
        && !s.contains(" #")
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || " _-./()=+$,;'`@&%!?*<>^".contains(c))
}

/// `s` as a double-quoted scalar.
fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if needs_escape(c) => {
                let code = u32::from(c);
                let escaped = if code <= 0xff {
                    format!("\\x{code:02X}")
                } else if code <= 0xffff {
                    format!("\\u{code:04X}")
                } else {
                    format!("\\U{code:08X}")
                };
                out.push_str(&escaped);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A string scalar, plain when that is exact, double-quoted otherwise.
fn scalar(s: &str) -> String {
    if is_plain(s) {
        s.to_owned()
    } else {
        double_quoted(s)
    }
}

/// A number in a form every YAML reader resolves to the same value.
fn number(n: &Number) -> String {
    let text = n.to_string();
    if !n.is_f64() {
        return text;
    }
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (text.as_str(), None),
    };
    let mut out = mantissa.to_string();
    if !out.contains('.') {
        out.push_str(".0");
    }
    if let Some(e) = exponent {
        out.push('e');
        if !e.starts_with(['-', '+']) {
            out.push('+');
        }
        out.push_str(e);
    }
    out
}

/// Whether `s` can be a literal block (`|-`) and read back unchanged.
fn block_ok(s: &str) -> bool {
    s.contains('\n')
        && !s.starts_with([' ', '\n'])
        && !s.ends_with('\n')
        && s.split('\n').all(|l| !l.ends_with(' '))
        && !s.chars().any(|c| c != '\n' && needs_escape(c))
}

fn indent(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// A value that is never written as a block.
fn leaf(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number(n),
        Value::String(s) => scalar(s),
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
    }
}

/// Writes the value of a mapping entry whose key (at `level` spaces) ends
/// the current line with `:`. Sequences are written flush with an implicit
/// key, as controller-gen does, and indented under an explicit one.
fn emit_value(out: &mut String, v: &Value, level: usize, explicit_key: bool) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            emit(out, v, level + 2);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            emit(out, v, if explicit_key { level + 2 } else { level });
        }
        Value::String(s) if block_ok(s) => {
            out.push_str(" |-\n");
            for line in s.split('\n') {
                if !line.is_empty() {
                    indent(out, level + 2);
                    out.push_str(line);
                }
                out.push('\n');
            }
        }
        other => {
            out.push(' ');
            out.push_str(&leaf(other));
            out.push('\n');
        }
    }
}

/// Writes a block value at `level` spaces of indentation.
fn emit(out: &mut String, v: &Value, level: usize) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, val) in m {
                indent(out, level);
                let key = scalar(k);
                if key.chars().count() > MAX_IMPLICIT_KEY {
                    out.push_str("? ");
                    out.push_str(&key);
                    out.push('\n');
                    indent(out, level);
                    out.push(':');
                    emit_value(out, val, level, true);
                } else {
                    out.push_str(&key);
                    out.push(':');
                    emit_value(out, val, level, false);
                }
            }
        }
        Value::Array(a) if !a.is_empty() => {
            for item in a {
                indent(out, level);
                out.push('-');
                match item {
                    Value::Object(m) if !m.is_empty() => {
                        // The first key goes on the dash line.
                        let mut tmp = String::new();
                        emit(&mut tmp, item, level + 2);
                        out.push(' ');
                        out.push_str(&tmp[level + 2..]);
                    }
                    _ => emit_value(out, item, level + 2, false),
                }
            }
        }
        other => {
            indent(out, level);
            out.push_str(&leaf(other));
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn yaml_forms() {
        let v = json!({
            "list": [{"a": 1, "b": [true, null]}, "On", "plain", "1.5", ""],
            "empty": {}, "none": [],
            "multi": "line one\nline two",
            "colon": "a: b",
        });
        let want = "# @generated by kubegen. DO NOT EDIT.\n\
colon: \"a: b\"\n\
empty: {}\n\
list:\n\
- a: 1\n  b:\n  - true\n  - null\n\
- \"On\"\n\
- plain\n\
- \"1.5\"\n\
- \"\"\n\
multi: |-\n  line one\n  line two\n\
none: []\n";
        assert_eq!(to_yaml(&v), want);
    }

    #[test]
    fn strings_a_reader_would_retype_are_quoted() {
        for s in [
            ".1_0",
            "._",
            ".5",
            "1:20",
            "0o17",
            "0x1F",
            "0b101",
            "1_000",
            "+1",
            "-0",
            ".inf",
            "-.Inf",
            ".NaN",
            "y",
            "N",
            "yes",
            "Off",
            "~",
            "null",
            "NULL",
            "2001-12-14",
            "<<",
            "=",
            "",
            " a",
            "a ",
            "a: b",
            "a #b",
            "- a",
            "? a",
            "@a",
            "`a",
            "!a",
            "&a",
            "*a",
            "|",
            ">",
            "%a",
            "#a",
            "'a'",
            "\"a\"",
            "inf",
            "NaN",
            ".e+5",
            ".E-1",
            ".e5",
            "---",
            "...",
        ] {
            assert!(scalar(s).starts_with('"'), "{s:?} written plain");
        }
        for s in [
            "plain",
            "a.b/c",
            "_x",
            "/path",
            "kind-name",
            "x_1 y",
            ".spec.image",
            ".status.x",
        ] {
            assert_eq!(scalar(s), s);
        }
    }

    #[test]
    fn unprintable_and_line_breaking_characters_are_escaped() {
        assert_eq!(
            double_quoted(
                "\u{7f}\u{80}\u{85}\u{9f}\u{2028}\u{2029}\u{feff}\u{fffe}\u{ffff}\u{0}\u{1b}"
            ),
            r#""\x7F\x80\x85\x9F\u2028\u2029\uFEFF\uFFFE\uFFFF\x00\x1B""#
        );
        assert_eq!(double_quoted("tab\tq\"b\\"), r#""tab\tq\"b\\""#);
        assert_eq!(double_quoted("é😀"), "\"é😀\"");
        assert!(!block_ok("line\n\u{2028}two"));
        assert!(!block_ok("line\n\u{85}two"));
        assert!(!block_ok("tab\n\tline"));
        assert!(block_ok("one\n  two\n\nthree"));
    }

    #[test]
    fn floats_carry_a_point_and_a_signed_exponent() {
        for (f, want) in [
            (1e21, "1.0e+21"),
            (1e-7, "1.0e-7"),
            (1.5, "1.5"),
            (-0.0, "-0.0"),
            (3.0, "3.0"),
            (1.25e300, "1.25e+300"),
        ] {
            assert_eq!(number(&Number::from_f64(f).unwrap()), want, "{f}");
        }
        assert_eq!(number(&Number::from(i64::MIN)), i64::MIN.to_string());
        assert_eq!(number(&Number::from(u64::MAX)), u64::MAX.to_string());
    }

    #[test]
    fn long_keys_are_explicit() {
        let key = "k".repeat(1500);
        let y = to_yaml(&json!({ key.clone(): [1], "short": {"a": 1} }));
        assert!(y.contains(&format!("? {key}\n:\n  - 1\n")), "{y}");
        assert!(y.contains("short:\n  a: 1\n"), "{y}");
    }
}
