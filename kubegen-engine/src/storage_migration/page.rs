//! One page of a list response with its items kept as the exact bytes the
//! apiserver sent, so a rewrite sends every field back untouched (no typed
//! or `serde_json::Value` round trip that could drop, reorder or re-format
//! anything).

use serde::Deserialize;

/// A list page: the continue token and the text of each item.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct RawPage<'a> {
    /// `metadata.continue`; `None` (or empty) on the last page.
    pub continue_token: Option<String>,
    /// Each element of `items`, exactly as it appears in the response.
    pub items: Vec<&'a str>,
}

/// What the migration needs to know of an object: where it lives and the
/// resourceVersion it was read at.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(super) struct ObjectHead {
    pub metadata: HeadMeta,
}

/// The identifying part of an object's metadata.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct HeadMeta {
    pub name: String,
    #[serde(default)]
    pub namespace: Option<String>,
    #[serde(default)]
    pub resource_version: Option<String>,
}

impl ObjectHead {
    /// Reads the head of one object's JSON text.
    pub fn parse(text: &str) -> Result<ObjectHead, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// `namespace/name`, or `name` for a cluster-scoped object.
    pub fn key(&self) -> String {
        match &self.metadata.namespace {
            Some(ns) if !ns.is_empty() => format!("{ns}/{}", self.metadata.name),
            _ => self.metadata.name.clone(),
        }
    }

    /// The namespace, `None` for a cluster-scoped object.
    pub fn namespace(&self) -> Option<&str> {
        self.metadata
            .namespace
            .as_deref()
            .filter(|ns| !ns.is_empty())
    }
}

/// Splits a list response into its continue token and the exact text of
/// each item. The body is first checked to be one valid JSON object by
/// serde, so the scanner below only has to find boundaries.
pub(super) fn split_page(body: &str) -> Result<RawPage<'_>, String> {
    #[derive(Deserialize)]
    struct Envelope {
        // Every other field is still parsed, hence validated, by serde.
        #[serde(default)]
        metadata: Option<ListMetaHead>,
    }
    #[derive(Deserialize)]
    struct ListMetaHead {
        #[serde(default, rename = "continue")]
        continue_token: Option<String>,
    }
    let envelope: Envelope =
        serde_json::from_str(body).map_err(|e| format!("not a list response: {e}"))?;
    let continue_token = envelope
        .metadata
        .and_then(|m| m.continue_token)
        .filter(|token| !token.is_empty());
    let items = Scanner::new(body).items()?;
    Ok(RawPage {
        continue_token,
        items,
    })
}

/// A cursor over JSON text already known to be valid.
struct Scanner<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str) -> Self {
        Scanner { text, pos: 0 }
    }

    fn peek(&self) -> Result<u8, String> {
        self.text
            .as_bytes()
            .get(self.pos)
            .copied()
            .ok_or_else(|| "the list response ended early".to_string())
    }

    fn skip_whitespace(&mut self) {
        while matches!(
            self.text.as_bytes().get(self.pos),
            Some(b' ' | b'\t' | b'\n' | b'\r')
        ) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        self.skip_whitespace();
        if self.peek()? == byte {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!(
                "expected '{}' at byte {} of the list response",
                byte as char, self.pos
            ))
        }
    }

    /// Skips one string starting at the cursor (a `"`), escapes included.
    fn skip_string(&mut self) -> Result<(), String> {
        self.pos += 1;
        loop {
            match self.peek()? {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => self.pos += 1,
            }
        }
    }

    /// The text of the value at the cursor; leaves the cursor after it.
    fn value(&mut self) -> Result<&'a str, String> {
        self.skip_whitespace();
        let start = self.pos;
        match self.peek()? {
            b'"' => self.skip_string()?,
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.skip_string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => depth -= 1,
                        _ => {}
                    }
                    self.pos += 1;
                    if depth == 0 {
                        break;
                    }
                }
            }
            _ => {
                while !matches!(
                    self.peek()?,
                    b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'
                ) {
                    self.pos += 1;
                }
            }
        }
        Ok(&self.text[start..self.pos])
    }

    /// The elements of the top-level object's `items` array (none when it
    /// is missing or `null`).
    fn items(mut self) -> Result<Vec<&'a str>, String> {
        self.expect(b'{')?;
        let mut items = Vec::new();
        loop {
            self.skip_whitespace();
            if self.peek()? == b'}' {
                return Ok(items);
            }
            let key = self.value()?;
            let key: String =
                serde_json::from_str(key).map_err(|e| format!("unreadable key {key}: {e}"))?;
            self.expect(b':')?;
            self.skip_whitespace();
            if key == "items" && self.peek()? == b'[' {
                self.pos += 1;
                loop {
                    self.skip_whitespace();
                    if self.peek()? == b']' {
                        self.pos += 1;
                        break;
                    }
                    let item = self.value()?;
                    if !item.starts_with('{') {
                        return Err(format!("a list item is not an object: {item}"));
                    }
                    items.push(item);
                    self.skip_whitespace();
                    if self.peek()? == b',' {
                        self.pos += 1;
                    }
                }
            } else {
                self.value()?;
            }
            self.skip_whitespace();
            if self.peek()? == b',' {
                self.pos += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    #[test]
    fn items_keep_their_exact_text_whatever_surrounds_them() {
        let body = r#"{"kind":"CartList","apiVersion":"shop.example.com/v2",
            "metadata":{"resourceVersion":"42","continue":"abc"},
            "items":[ {"metadata":{"name":"a","namespace":"n","resourceVersion":"7"},"spec":{"x":"}]\"{","n":1.50,"big":123456789012345678901234567890}} ,
            {"metadata":{"name":"b"} , "spec":[{},[]]}]}"#;
        let page = split_page(body).unwrap();
        assert_eq!(page.continue_token.as_deref(), Some("abc"));
        assert_eq!(
            page.items,
            [
                r#"{"metadata":{"name":"a","namespace":"n","resourceVersion":"7"},"spec":{"x":"}]\"{","n":1.50,"big":123456789012345678901234567890}}"#,
                r#"{"metadata":{"name":"b"} , "spec":[{},[]]}"#,
            ]
        );
        let head = ObjectHead::parse(page.items[0]).unwrap();
        assert_eq!(head.key(), "n/a");
        assert_eq!(head.metadata.resource_version.as_deref(), Some("7"));
        assert_eq!(ObjectHead::parse(page.items[1]).unwrap().key(), "b");
    }

    #[test]
    fn the_last_page_has_no_continue_token() {
        for body in [
            r#"{"metadata":{"continue":""},"items":[]}"#,
            r#"{"metadata":{},"items":null}"#,
            r#"{"items":[]}"#,
        ] {
            let page = split_page(body).unwrap();
            assert_eq!(page.continue_token, None, "{body}");
            assert!(page.items.is_empty(), "{body}");
        }
    }

    #[test]
    fn an_escaped_items_key_is_still_the_items_key() {
        let page = split_page(r#"{"\u0069tems":[{"metadata":{"name":"x"}}]}"#).unwrap();
        assert_eq!(page.items, [r#"{"metadata":{"name":"x"}}"#]);
    }

    #[test]
    fn invalid_responses_are_errors_not_panics() {
        for body in [
            "",
            "[]",
            "{",
            r#"{"items":[1]}"#,
            r#"{"items":[{"a":1}"#,
            "<html>",
        ] {
            assert!(split_page(body).is_err(), "{body}");
        }
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| json!(f)),
            // Quotes, backslashes, brackets and any Unicode.
            "[\"\\\\{}\\[\\],:a-z\\PC]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::btree_map("[\"\\\\{}a-z\\PC]{0,6}", inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn every_item_is_split_out_exactly(
            items in prop::collection::vec(json_value(), 0..6),
            token in proptest::option::of("[a-zA-Z0-9=]{1,20}"),
            pretty in any::<bool>(),
        ) {
            let items: Vec<Value> = items
                .into_iter()
                .enumerate()
                .map(|(i, spec)| json!({ "metadata": { "name": format!("o{i}") }, "spec": spec }))
                .collect();
            let list = json!({
                "kind": "List",
                "metadata": { "continue": token.clone().unwrap_or_default() },
                "items": items,
                "trailer": { "items": "not these" },
            });
            let body = if pretty {
                serde_json::to_string_pretty(&list).unwrap()
            } else {
                list.to_string()
            };
            let page = split_page(&body).unwrap();
            prop_assert_eq!(page.continue_token, token);
            prop_assert_eq!(page.items.len(), items.len());
            for (text, expected) in page.items.iter().zip(&items) {
                // A slice of the body, and the same value (both read by
                // serde_json, whose float parsing is not exact: the very
                // reason items are rewritten as text).
                prop_assert!(body.contains(text));
                let parsed: Value = serde_json::from_str(text).unwrap();
                let reread: Value = serde_json::from_str(&expected.to_string()).unwrap();
                prop_assert_eq!(parsed, reread);
            }
        }
    }
}
