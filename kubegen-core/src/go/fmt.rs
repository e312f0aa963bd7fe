//! Go's text for decoded JSON values, as the apiserver's messages carry
//! it: `%v` of numbers and booleans, `%q` of strings (`strconv.Quote`),
//! `json.Marshal` of anything else.

use serde_json::Value;

/// A decoded JSON value as `ErrorBody` prints it: numbers and booleans as
/// `%v`, strings as `%q`, anything else as Go's `json.Marshal` writes it.
pub fn go_value(v: &Value) -> String {
    match v {
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(f)) => go_float(f),
            _ => n.to_string(),
        },
        Value::String(s) => go_quote(s),
        other => go_json(other),
    }
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)` (`%v` of a float64).
pub fn go_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // Shortest round-trip digits, then Go's %g layout: exponent form when
    // the exponent is < -4 or >= 6 (the precision %g takes for the
    // shortest form).
    let shortest = format!("{f:e}");
    // As many digits, the exact value rounded half to even: where two
    // shortest forms are as near (`…274.25` as `…274.2` or `…274.3`), Go
    // picks the even one, Rust's shortest form the other.
    let digits = shortest
        .split_once('e')
        .map_or(1, |(m, _)| m.bytes().filter(u8::is_ascii_digit).count());
    let sci = format!("{f:.*e}", digits.saturating_sub(1));
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let eprec = 6;
    let sign = if negative { "-" } else { "" };
    if exp < -4 || exp >= eprec {
        let mut m = digits[..1].to_string();
        if digits.len() > 1 {
            m.push('.');
            m.push_str(&digits[1..]);
        }
        let es = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{m}e{es}{:02}", exp.abs());
    }
    if exp < 0 {
        return format!("{sign}0.{}{digits}", "0".repeat((-exp - 1) as usize));
    }
    let point = (exp + 1) as usize;
    if digits.len() <= point {
        format!("{sign}{digits}{}", "0".repeat(point - digits.len()))
    } else {
        format!("{sign}{}.{}", &digits[..point], &digits[point..])
    }
}

/// Go's `strconv.Quote`.
pub fn go_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if is_go_printable(c) => out.push(c),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// Go's `strconv.IsPrint` for the characters field values hold: letters,
/// marks, numbers, punctuation, symbols and the ASCII space; not other
/// spaces, controls, format characters or private use. Without Unicode's
/// category tables it cannot tell unassigned code points (Go escapes
/// them; this prints them).
pub fn is_go_printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    !matches!(c as u32, 0xad | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x200b..=0x200f
        | 0x202a..=0x202e | 0x2060..=0x2064 | 0x2066..=0x206f | 0xfeff | 0xfff9..=0xfffb
        | 0xe000..=0xf8ff | 0xf0000..=0x10ffff | 0xd800..=0xdfff | 0xfffe | 0xffff)
}

/// Go's `%#U` of a rune: `U+0001`, or `U+0041 'A'` when it prints.
pub fn go_unicode(c: char) -> String {
    if is_go_printable(c) {
        format!("U+{:04X} '{c}'", c as u32)
    } else {
        format!("U+{:04X}", c as u32)
    }
}

/// Go's `json.Marshal` of a decoded value: keys sorted, `<`, `>`, `&`,
/// U+2028 and U+2029 escaped, numbers as Go writes float64 and int64.
pub fn go_json(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(f)) => go_json_float(f),
            _ => n.to_string(),
        },
        Value::String(s) => {
            let mut out = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    '\u{8}' => out.push_str("\\b"),
                    '\u{c}' => out.push_str("\\f"),
                    '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                        out.push_str(&format!("\\u{:04x}", c as u32))
                    }
                    c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        }
        Value::Array(a) => format!("[{}]", a.iter().map(go_json).collect::<Vec<_>>().join(",")),
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            crate::sorting::sort(&mut keys);
            let members: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", go_json(&Value::String(k.clone())), go_json(&o[k])))
                .collect();
            format!("{{{}}}", members.join(","))
        }
    }
}

/// A float64 as Go's `encoding/json` writes it: `%f`-like between 1e-6 and
/// 1e21, else exponent form with a two-digit exponent at least.
fn go_json_float(f: f64) -> String {
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        // 'e' format, then Go trims "e-07" to "e-7".
        let s = go_float(f);
        if let Some((m, e)) = s.split_once('e') {
            let (sign, digits) = e.split_at(1);
            let digits = digits.trim_start_matches('0');
            return format!("{m}e{sign}{}", if digits.is_empty() { "0" } else { digits });
        }
        return s;
    }
    let s = go_float(f);
    if s.contains('e') {
        // %f layout for the middle range.
        return format!("{f}");
    }
    s
}

/// The Go type of a decoded JSON value (`%T`): k8s.io/apimachinery's
/// JSON decoding makes integers `int64`, other numbers (`2.0` too)
/// `float64`.
pub fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// Go's `%v` of a decoded JSON value in an `interface{}` (maps as
/// `map[k:v …]` with their keys sorted, slices as `[a b]`, `<nil>`), or
/// with `s_verb` its `%s` (`%!s(int64=1)` for what is no string; a nested
/// `nil` still `<nil>`). Integers are `int64`, other numbers `float64`
/// ([`go_type`]).
pub fn go_sprint(v: &Value, s_verb: bool) -> String {
    let mut out = String::new();
    sprint(v, s_verb, true, &mut out);
    out
}

fn sprint(v: &Value, s_verb: bool, top: bool, out: &mut String) {
    let scalar = match v {
        Value::Null if top && s_verb => "%!s(<nil>)".to_string(),
        Value::Null => "<nil>".to_string(),
        Value::String(s) => s.clone(),
        Value::Bool(_) | Value::Number(_) => {
            let text = go_value(v);
            if s_verb {
                format!("%!s({}={text})", go_type(v))
            } else {
                text
            }
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                sprint(item, s_verb, false, out);
            }
            out.push(']');
            return;
        }
        Value::Object(map) => {
            out.push_str("map[");
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                sprint(item, s_verb, false, out);
            }
            out.push(']');
            return;
        }
    };
    out.push_str(&scalar);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_go_prints_them() {
        for (f, go) in [
            (1.5, "1.5"),
            (100000.0, "100000"),
            (1e21, "1e+21"),
            (1e20, "1e+20"),
            (100000.0, "100000"),
            (1e6, "1e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5e-7, "-2.5e-07"),
            (123456789.125, "1.23456789125e+08"),
            // Two shortest forms as near: Go's is the even one.
            (
                f64::from_bits(0x431f_d70a_3d6b_8a69),
                "2.2405408145332742e+15",
            ),
        ] {
            assert_eq!(go_float(f), go, "{f}");
        }
        assert_eq!(go_quote("a\"b\n\u{1}é"), "\"a\\\"b\\n\\x01é\"");
        assert_eq!(go_json(&serde_json::json!(1e20)), "100000000000000000000");
        assert_eq!(go_json(&serde_json::json!(1e-7)), "1e-7");
        assert_eq!(go_json(&serde_json::json!("\u{8}\u{c}")), "\"\\b\\f\"");
    }
}
