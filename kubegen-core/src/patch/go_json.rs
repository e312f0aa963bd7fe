//! Go's `encoding/json` as the apiserver reads a patch body: its syntax
//! errors word for word (the scanner's `invalid character 'x' looking
//! for beginning of value`, `unexpected end of JSON input`, its nesting
//! limit of 10,000), strings unquoted as Go unquotes them (an invalid
//! UTF-8 byte or lone surrogate becomes U+FFFD), numbers kept as written
//! (json-patch compares and copies them as raw text) and decoded as
//! sigs.k8s.io/json's `PreserveInts` decodes them (`int64` when they fit,
//! else `float64`), objects with their members in order, duplicates kept
//! (Go's maps keep the last; sigs.k8s.io/json's strict mode reports the
//! others).

use serde_json::{Map, Number, Value};

use crate::go::fmt::go_quote;

/// How deep kubegen nests: patch bodies and objects nested deeper are
/// refused (the apiserver applies bodies up to Go's `maxNestingDepth`,
/// 10,000 levels), so that every recursion here stays well within a
/// thread's stack.
pub const KUBEGEN_MAX_DEPTH: usize = 1_000;

/// A parsed JSON document.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written.
    Number(String),
    /// A string: its value, and its literal as written (quotes included).
    String {
        /// The unquoted value.
        value: String,
        /// The literal, quotes and escapes as written.
        raw: String,
    },
    /// An array.
    Array(Vec<Json>),
    /// An object's members in order, duplicate names included.
    Object(Vec<(String, Json)>),
}

/// Parses `bytes` as Go's `json.Unmarshal` does before decoding anything
/// (its `checkValid`): the syntax error's text on failure.
pub fn parse(bytes: &[u8]) -> Result<Json, String> {
    check_depth(bytes)?;
    let mut p = Parser { s: bytes, i: 0 };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    match p.peek() {
        None => Ok(v),
        Some(c) => Err(invalid(c, "after top-level value")),
    }
}

/// kubegen's refusal of a body deeper than [`KUBEGEN_MAX_DEPTH`] (before
/// any syntax error): a scan outside strings, without recursion.
fn check_depth(bytes: &[u8]) -> Result<(), String> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &c in bytes {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > KUBEGEN_MAX_DEPTH {
                    return Err(too_deep());
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// kubegen's refusal of a body nested deeper than [`KUBEGEN_MAX_DEPTH`].
pub fn too_deep() -> String {
    format!(
        "the patch is nested more than {KUBEGEN_MAX_DEPTH} levels deep, deeper than kubegen applies"
    )
}

/// Whether `v` nests deeper than [`KUBEGEN_MAX_DEPTH`], without recursion.
pub fn too_deep_value(v: &Value) -> bool {
    let mut stack = vec![(v, 1usize)];
    while let Some((v, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        if depth > KUBEGEN_MAX_DEPTH {
            return true;
        }
        stack.extend(children.map(|c| (c, depth + 1)));
    }
    false
}

/// `invalid character 'c' <context>`, Go's `quoteChar` of the byte.
fn invalid(c: u8, context: &str) -> String {
    let quoted = match c {
        b'\'' => "'\\''".to_string(),
        b'"' => "'\"'".to_string(),
        _ => {
            let q = go_quote(&char::from(c).to_string());
            format!("'{}'", &q[1..q.len() - 1])
        }
    };
    format!("invalid character {quoted} {context}")
}

const EOF: &str = "unexpected end of JSON input";

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn next(&mut self) -> Result<u8, String> {
        let c = self.peek().ok_or(EOF)?;
        self.i += 1;
        Ok(c)
    }

    /// The next byte where a value is not over yet: at the end Go's
    /// scanner reads a space (its `eof`), so a cut literal, number or
    /// escape is an invalid `' '`.
    fn next_or_space(&mut self) -> u8 {
        self.next().unwrap_or(b' ')
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        let c = self.next()?;
        match c {
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b'"' => self.string(),
            b'-' | b'0'..=b'9' => self.number(c),
            b't' => self.literal("true", Json::Bool(true)),
            b'f' => self.literal("false", Json::Bool(false)),
            b'n' => self.literal("null", Json::Null),
            _ => Err(invalid(c, "looking for beginning of value")),
        }
    }

    fn literal(&mut self, word: &str, v: Json) -> Result<Json, String> {
        for expected in word.bytes().skip(1) {
            let c = self.next_or_space();
            if c != expected {
                return Err(invalid(
                    c,
                    &format!("in literal {word} (expecting '{}')", char::from(expected)),
                ));
            }
        }
        Ok(v)
    }

    fn object(&mut self, depth: usize) -> Result<Json, String> {
        let mut members = Vec::new();
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(Json::Object(members));
        }
        loop {
            let c = self.next()?;
            if c != b'"' {
                return Err(invalid(c, "looking for beginning of object key string"));
            }
            let Json::String { value: key, .. } = self.string()? else {
                unreachable!("string() returns strings")
            };
            self.ws();
            let c = self.next()?;
            if c != b':' {
                return Err(invalid(c, "after object key"));
            }
            self.ws();
            let v = self.value(depth)?;
            members.push((key, v));
            self.ws();
            match self.next()? {
                b',' => self.ws(),
                b'}' => return Ok(Json::Object(members)),
                c => return Err(invalid(c, "after object key:value pair")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Json, String> {
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(Json::Array(items));
        }
        loop {
            self.ws();
            items.push(self.value(depth)?);
            self.ws();
            match self.next()? {
                b',' => {}
                b']' => return Ok(Json::Array(items)),
                c => return Err(invalid(c, "after array element")),
            }
        }
    }

    /// A string after its opening quote.
    fn string(&mut self) -> Result<Json, String> {
        let start = self.i - 1;
        loop {
            match self.next()? {
                b'"' => break,
                b'\\' => match self.next_or_space() {
                    b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => {}
                    b'u' => {
                        for _ in 0..4 {
                            let c = self.next_or_space();
                            if !c.is_ascii_hexdigit() {
                                return Err(invalid(c, "in \\u hexadecimal character escape"));
                            }
                        }
                    }
                    c => return Err(invalid(c, "in string escape code")),
                },
                c if c < 0x20 => return Err(invalid(c, "in string literal")),
                _ => {}
            }
        }
        let literal = &self.s[start..self.i];
        Ok(Json::String {
            value: unquote(&literal[1..literal.len() - 1]),
            raw: String::from_utf8_lossy(literal).into_owned(),
        })
    }

    fn number(&mut self, first: u8) -> Result<Json, String> {
        let start = self.i - 1;
        let digits = |p: &mut Self| {
            while matches!(p.peek(), Some(b'0'..=b'9')) {
                p.i += 1;
            }
        };
        let mut c = first;
        if c == b'-' {
            c = self.next_or_space();
            if !c.is_ascii_digit() {
                return Err(invalid(c, "in numeric literal"));
            }
        }
        if c != b'0' {
            digits(self);
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            let c = self.next_or_space();
            if !c.is_ascii_digit() {
                return Err(invalid(c, "after decimal point in numeric literal"));
            }
            digits(self);
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            let mut c = self.next_or_space();
            if c == b'+' || c == b'-' {
                c = self.next_or_space();
            }
            if !c.is_ascii_digit() {
                return Err(invalid(c, "in exponent of numeric literal"));
            }
            digits(self);
        }
        let text = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        Ok(Json::Number(text))
    }
}

/// Go's `unquote` of a string literal's inside (already checked): escapes
/// decoded, surrogate pairs joined, anything invalid U+FFFD.
fn unquote(s: &[u8]) -> String {
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let hex4 = |at: usize| -> Option<u32> {
        if s.get(at) != Some(&b'\\') || s.get(at + 1) != Some(&b'u') {
            return None;
        }
        let h = std::str::from_utf8(s.get(at + 2..at + 6)?).ok()?;
        u32::from_str_radix(h, 16).ok()
    };
    while i < s.len() {
        if s[i] == b'\\' {
            let c = s[i + 1];
            i += 2;
            let decoded = match c {
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => {
                    let r = hex4(i - 2).unwrap_or(0xfffd);
                    i += 4;
                    if (0xd800..0xe000).contains(&r) {
                        match hex4(i) {
                            Some(r2)
                                if (0xd800..0xdc00).contains(&r)
                                    && (0xdc00..0xe000).contains(&r2) =>
                            {
                                i += 6;
                                char::from_u32(0x10000 + ((r - 0xd800) << 10) + (r2 - 0xdc00))
                                    .unwrap_or('\u{fffd}')
                            }
                            _ => '\u{fffd}',
                        }
                    } else {
                        char::from_u32(r).unwrap_or('\u{fffd}')
                    }
                }
                other => char::from(other),
            };
            out.push(decoded);
            continue;
        }
        let end = s[i..]
            .iter()
            .position(|&b| b == b'\\')
            .map_or(s.len(), |p| i + p);
        for chunk in s[i..end].utf8_chunks() {
            out.push_str(chunk.valid());
            for _ in chunk.invalid() {
                out.push('\u{fffd}');
            }
        }
        i = end;
    }
    out
}

impl Json {
    /// The JSON type Go's `UnmarshalTypeError` names: `object`, `array`,
    /// `string`, `number` or `bool` (`null` decodes into anything).
    pub fn type_name(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "bool",
            Json::Number(_) => "number",
            Json::String { .. } => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "object",
        }
    }

    /// The value as sigs.k8s.io/json decodes it into an `interface{}`
    /// with `PreserveInts`: integers that fit in an `int64` as integers,
    /// other numbers as `float64`, the last of duplicate names; the
    /// decoding error's text for a number no `float64` holds.
    pub fn to_value(&self) -> Result<Value, String> {
        Ok(match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(text) => Value::Number(number(text)?),
            Json::String { value, .. } => Value::String(value.clone()),
            Json::Array(items) => {
                Value::Array(items.iter().map(Json::to_value).collect::<Result<_, _>>()?)
            }
            Json::Object(members) => {
                let mut map = Map::new();
                for (k, v) in members {
                    map.insert(k.clone(), v.to_value()?);
                }
                Value::Object(map)
            }
        })
    }

    /// sigs.k8s.io/json's strict-mode duplicate-name errors in this value,
    /// in document order, under `path` (its field path: `a.b[0].c`).
    pub fn duplicates(&self, path: &str, out: &mut Vec<String>) {
        match self {
            Json::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    item.duplicates(&format!("{path}[{i}]"), out);
                }
            }
            Json::Object(members) => {
                let mut seen = std::collections::HashSet::new();
                for (k, v) in members {
                    let field = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    if !seen.insert(k.as_str()) {
                        let e = format!("duplicate field {}", go_quote(&field));
                        // Go reports each error once, at most 100.
                        if !out.contains(&e) && out.len() < 100 {
                            out.push(e);
                        }
                    }
                    v.duplicates(&field, out);
                }
            }
            _ => {}
        }
    }

    /// The first number in this value no `float64` holds, as
    /// sigs.k8s.io/json reports it when decoding into an `interface{}`.
    pub fn first_bad_number(&self) -> Option<String> {
        match self {
            Json::Number(text) => number(text).err(),
            Json::Array(items) => items.iter().find_map(Json::first_bad_number),
            Json::Object(members) => members.iter().find_map(|(_, v)| v.first_bad_number()),
            _ => None,
        }
    }

    /// Go's `json.Marshal` of the raw document (HTML characters escaped
    /// in strings, as `json.Compact` into a marshaled `RawMessage` does).
    pub fn marshal(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(text) => out.push_str(text),
            Json::String { raw, .. } => {
                for c in raw.chars() {
                    match c {
                        '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                            out.push_str(&format!("\\u{:04x}", c as u32))
                        }
                        c => out.push(c),
                    }
                }
            }
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.marshal(out);
                }
                out.push(']');
            }
            Json::Object(members) => {
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&crate::go::fmt::go_json(&Value::String(k.clone())));
                    out.push(':');
                    v.marshal(out);
                }
                out.push('}');
            }
        }
    }
}

/// A number literal as `PreserveInts` decodes it.
pub fn number(text: &str) -> Result<Number, String> {
    if let Ok(i) = text.parse::<i64>() {
        return Ok(Number::from(i));
    }
    text.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .and_then(Number::from_f64)
        .ok_or_else(|| {
            format!("json: cannot unmarshal number {text} into Go value of type float64")
        })
}

/// `v` as Go encodes it into a document json-patch then reads: a tree
/// whose scalars carry Go's `json.Marshal` text.
pub fn from_value(v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Number(_) => Json::Number(crate::go::fmt::go_json(v)),
        Value::String(s) => Json::String {
            value: s.clone(),
            raw: crate::go::fmt::go_json(v),
        },
        Value::Array(items) => Json::Array(items.iter().map(from_value).collect()),
        Value::Object(map) => Json::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), from_value(v)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_read_as_gos() {
        for (input, message) in [
            ("", "unexpected end of JSON input"),
            ("{", "unexpected end of JSON input"),
            ("x", "invalid character 'x' looking for beginning of value"),
            (
                "{1}",
                "invalid character '1' looking for beginning of object key string",
            ),
            ("{\"a\" 1}", "invalid character '1' after object key"),
            (
                "{\"a\":1 2}",
                "invalid character '2' after object key:value pair",
            ),
            ("[1 2]", "invalid character '2' after array element"),
            (
                "[1,]",
                "invalid character ']' looking for beginning of value",
            ),
            ("01", "invalid character '1' after top-level value"),
            ("-x", "invalid character 'x' in numeric literal"),
            (
                "1.x",
                "invalid character 'x' after decimal point in numeric literal",
            ),
            (
                "1ex",
                "invalid character 'x' in exponent of numeric literal",
            ),
            (
                "tru",
                "invalid character ' ' in literal true (expecting 'e')",
            ),
            ("\"ab", "unexpected end of JSON input"),
            (
                "1.",
                "invalid character ' ' after decimal point in numeric literal",
            ),
            ("\"\\", "invalid character ' ' in string escape code"),
            (
                "trux",
                "invalid character 'x' in literal true (expecting 'e')",
            ),
            ("\"\\x\"", "invalid character 'x' in string escape code"),
            (
                "\"\\u12x4\"",
                "invalid character 'x' in \\u hexadecimal character escape",
            ),
            ("\"\n\"", "invalid character '\\n' in string literal"),
            (
                "'",
                "invalid character '\\'' looking for beginning of value",
            ),
        ] {
            assert_eq!(parse(input.as_bytes()).unwrap_err(), message, "{input:?}");
        }
        let deep = "[".repeat(KUBEGEN_MAX_DEPTH + 1);
        assert_eq!(parse(deep.as_bytes()).unwrap_err(), too_deep());
        let deep = format!(
            "{}{}",
            "[".repeat(KUBEGEN_MAX_DEPTH),
            "]".repeat(KUBEGEN_MAX_DEPTH)
        );
        assert!(parse(deep.as_bytes()).is_ok());
        assert!(!too_deep_value(
            &parse(deep.as_bytes()).unwrap().to_value().unwrap()
        ));
    }

    #[test]
    fn strings_unquote_as_gos() {
        let Json::String { value, .. } =
            parse(b"\"a\\u00e9\\ud83d\\ude00\\ud800x\\n\xff\"").unwrap()
        else {
            panic!()
        };
        assert_eq!(value, "a\u{e9}\u{1f600}\u{fffd}x\n\u{fffd}");
    }

    #[test]
    fn numbers_decode_with_preserved_ints() {
        assert_eq!(number("12").unwrap(), Number::from(12));
        assert!(number("1.0").unwrap().is_f64());
        assert!(number("9223372036854775808").unwrap().is_f64());
        assert_eq!(
            number("1e400").unwrap_err(),
            "json: cannot unmarshal number 1e400 into Go value of type float64"
        );
    }
}
