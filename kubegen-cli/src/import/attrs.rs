//! `#[kubegen(...)]` keys as the importer writes them: doc comments (or
//! `description` where a doc comment would not read back exactly), JSON
//! values as compact raw strings, numbers in their JSON spelling, CEL rules
//! as `validation(...)`.

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::Value;

/// One `#[kubegen(...)]` key at a slot.
pub struct Key {
    /// The key's name (`min_length`), to tell where it may go.
    pub name: &'static str,
    /// The key as written (`min_length = 1`).
    pub tokens: TokenStream,
}

/// A description as doc comments, or as `description = "..."` when doc
/// comments would not read back as exactly the same text.
pub fn doc(description: Option<&str>) -> TokenStream {
    let Some(d) = description else {
        return TokenStream::new();
    };
    if doc_round_trips(d) {
        let lines = d.split('\n').map(|l| {
            let line = if l.is_empty() {
                String::new()
            } else {
                format!(" {l}")
            };
            quote!(#[doc = #line])
        });
        quote!(#(#lines)*)
    } else {
        quote!(#[kubegen(description = #d)])
    }
}

/// Whether a doc comment reads back as exactly `d` (kubegen trims the text
/// and each line's end).
pub fn doc_round_trips(d: &str) -> bool {
    d == d.trim() && d.split('\n').all(|l| l == l.trim_end()) && !d.contains('\r')
}

/// `#[kubegen(key, key, …)]`, or nothing for no keys.
pub fn attrs(keys: &[Key]) -> TokenStream {
    if keys.is_empty() {
        return TokenStream::new();
    }
    let k = keys.iter().map(|k| &k.tokens);
    quote!(#[kubegen(#(#k),*)])
}

/// `v` as compact canonical JSON in a raw string literal (`r#"…"#`, with
/// as many `#` as the text needs), for `schema_json`, `default_json` and
/// `example_json`.
pub fn canonical(v: &Value) -> TokenStream {
    let text = serde_json::to_string(&kubegen_core::output::canonical(v)).unwrap_or_default();
    let mut hashes = String::from("#");
    while text.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    format!("r{hashes}\"{text}\"{hashes}")
        .parse()
        .unwrap_or_else(|_| quote!(#text))
}

/// A Rust literal for a JSON scalar, if it has one (for `enum_values`).
pub fn literal(v: &Value) -> Option<TokenStream> {
    match v {
        Value::String(s) => Some(quote!(#s)),
        Value::Bool(b) => Some(quote!(#b)),
        Value::Number(n) => number(n),
        _ => None,
    }
}

/// A JSON number as a Rust literal with the same digits (floats keep a
/// fraction, so `2.0` stays a float).
pub fn number(n: &serde_json::Number) -> Option<TokenStream> {
    let text = n.to_string();
    let (neg, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d.to_owned()),
        None => (false, text.clone()),
    };
    let lit: TokenStream = if n.is_f64() && !digits.contains(['.', 'e', 'E']) {
        format!("{digits}.0").parse().ok()?
    } else {
        digits.parse().ok()?
    };
    Some(if neg { quote!(-#lit) } else { lit })
}

/// `schema_type = "..."`: the bare JSON type, whatever the Rust type writes.
pub fn schema_type(t: &str) -> Key {
    Key {
        name: "schema_type",
        tokens: quote!(schema_type = #t),
    }
}

/// A `validation(...)` key for one `x-kubernetes-validations` rule.
pub fn validation(rule: &Value) -> Option<TokenStream> {
    let r = rule.as_object()?;
    let mut parts = Vec::new();
    for (k, v) in r {
        let t = match (k.as_str(), v) {
            ("rule", Value::String(s)) => quote!(rule = #s),
            ("message", Value::String(s)) => quote!(message = #s),
            ("messageExpression", Value::String(s)) => quote!(message_expression = #s),
            ("reason", Value::String(s)) => quote!(reason = #s),
            ("fieldPath", Value::String(s)) => quote!(field_path = #s),
            ("optionalOldSelf", Value::Bool(true)) => quote!(optional_old_self),
            ("optionalOldSelf", Value::Bool(false)) => continue,
            _ => return None,
        };
        parts.push(t);
    }
    Some(quote!(validation(#(#parts),*)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_become_doc_comments_only_when_they_read_back_exactly() {
        assert!(doc_round_trips("One line."));
        assert!(doc_round_trips("Two\n\nparagraphs."));
        assert!(!doc_round_trips(" leading space"));
        assert!(!doc_round_trips("trailing space \nx"));
        assert!(!doc_round_trips("crlf\r\nx"));
        assert!(doc(Some(" x")).to_string().contains("description"));
        assert!(doc(Some("x")).to_string().contains("doc"));
    }

    #[test]
    fn json_is_a_compact_raw_string() {
        assert_eq!(
            canonical(&serde_json::json!({"b": "x\"#", "a": 1})).to_string(),
            r###"r##"{"a":1,"b":"x\"#"}"##"###
        );
    }

    #[test]
    fn numbers_keep_their_json_spelling() {
        let n = |v: Value| number(v.as_number().unwrap()).unwrap().to_string();
        assert_eq!(n(serde_json::json!(3)), "3");
        assert_eq!(n(serde_json::json!(-3)), "- 3");
        assert_eq!(n(serde_json::json!(1.5)), "1.5");
        assert_eq!(n(serde_json::json!(2.0)), "2.0");
        assert_eq!(
            literal(&serde_json::json!(null)).map(|t| t.to_string()),
            None
        );
    }
}
