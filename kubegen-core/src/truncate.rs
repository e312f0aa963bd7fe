//! Description truncation as controller-gen's `maxDescLen` does it
//! (`pkg/crd/desc_visitor.go`): a description longer than the limit is cut
//! to the limit, then back to its last sentence terminal (kept), or else to
//! its last whitespace (followed by `...`), or else kept at the limit
//! (followed by `...`); [`truncate_descriptions`] does it to every
//! schema node of a schema, as the visitor does.
//!
//! Lengths are in bytes, as in Go. Where controller-gen would cut inside a
//! multi-byte character (Go slices bytes; its JSON encoder then writes
//! U+FFFD), kubegen cuts before that character, and keeps a multi-byte
//! sentence terminal whole: the output stays valid UTF-8. ASCII text is cut
//! exactly as controller-gen cuts it.

use serde_json::Value;

/// The Unicode `Sentence_Terminal` property as Go 1.26's `unicode.STerm`
/// has it (Unicode 15.0.0): `(first, last, stride)` ranges.
const SENTENCE_TERMINALS: &[(u32, u32, u32)] = &[
    (0x21, 0x2E, 13),
    (0x3F, 0x589, 1354),
    (0x61D, 0x61F, 1),
    (0x6D4, 0x700, 44),
    (0x701, 0x702, 1),
    (0x7F9, 0x837, 62),
    (0x839, 0x83D, 4),
    (0x83E, 0x964, 294),
    (0x965, 0x104A, 1765),
    (0x104B, 0x1362, 791),
    (0x1367, 0x1368, 1),
    (0x166E, 0x1735, 199),
    (0x1736, 0x1803, 205),
    (0x1809, 0x1944, 315),
    (0x1945, 0x1AA8, 355),
    (0x1AA9, 0x1AAB, 1),
    (0x1B5A, 0x1B5B, 1),
    (0x1B5E, 0x1B5F, 1),
    (0x1B7D, 0x1B7E, 1),
    (0x1C3B, 0x1C3C, 1),
    (0x1C7E, 0x1C7F, 1),
    (0x203C, 0x203D, 1),
    (0x2047, 0x2049, 1),
    (0x2E2E, 0x2E3C, 14),
    (0x2E53, 0x2E54, 1),
    (0x3002, 0xA4FF, 29949),
    (0xA60E, 0xA60F, 1),
    (0xA6F3, 0xA6F7, 4),
    (0xA876, 0xA877, 1),
    (0xA8CE, 0xA8CF, 1),
    (0xA92F, 0xA9C8, 153),
    (0xA9C9, 0xAA5D, 148),
    (0xAA5E, 0xAA5F, 1),
    (0xAAF0, 0xAAF1, 1),
    (0xABEB, 0xFE52, 21095),
    (0xFE56, 0xFE57, 1),
    (0xFF01, 0xFF0E, 13),
    (0xFF1F, 0xFF61, 66),
    (0x10A56, 0x10A57, 1),
    (0x10F55, 0x10F59, 1),
    (0x10F86, 0x10F89, 1),
    (0x11047, 0x11048, 1),
    (0x110BE, 0x110C1, 1),
    (0x11141, 0x11143, 1),
    (0x111C5, 0x111C6, 1),
    (0x111CD, 0x111DE, 17),
    (0x111DF, 0x11238, 89),
    (0x11239, 0x1123B, 2),
    (0x1123C, 0x112A9, 109),
    (0x1144B, 0x1144C, 1),
    (0x115C2, 0x115C3, 1),
    (0x115C9, 0x115D7, 1),
    (0x11641, 0x11642, 1),
    (0x1173C, 0x1173E, 1),
    (0x11944, 0x11946, 2),
    (0x11A42, 0x11A43, 1),
    (0x11A9B, 0x11A9C, 1),
    (0x11C41, 0x11C42, 1),
    (0x11EF7, 0x11EF8, 1),
    (0x11F43, 0x11F44, 1),
    (0x16A6E, 0x16A6F, 1),
    (0x16AF5, 0x16B37, 66),
    (0x16B38, 0x16B44, 12),
    (0x16E98, 0x1BC9F, 19975),
    (0x1DA88, 0x1DA88, 1),
];

fn is_sentence_terminal(c: char) -> bool {
    let c = c as u32;
    SENTENCE_TERMINALS
        .iter()
        .any(|&(lo, hi, stride)| (lo..=hi).contains(&c) && (c - lo).is_multiple_of(stride))
}

/// `desc` cut as controller-gen's `maxDescLen={max}` cuts it (see the
/// module docs); unchanged when it is at most `max` bytes long.
pub fn truncate(desc: &str, max: usize) -> String {
    if desc.len() <= max {
        return desc.to_owned();
    }
    let mut end = max;
    while !desc.is_char_boundary(end) {
        end -= 1;
    }
    let cut = &desc[..end];
    if let Some((n, c)) = cut
        .char_indices()
        .rev()
        .find(|&(_, c)| is_sentence_terminal(c))
        && n > 0
    {
        return cut[..n + c.len_utf8()].to_owned();
    }
    if let Some((n, _)) = cut.char_indices().rev().find(|&(_, c)| c.is_whitespace())
        && n > 0
    {
        return format!("{}...", &cut[..n]);
    }
    format!("{cut}...")
}

/// Cuts the description of `schema`, and of every schema nested in it, as
/// controller-gen's `maxDescLen=max` does ([`truncate`]: back to a
/// sentence end, or to a word end followed by `...`); `0` removes them.
/// Only schema nodes are visited: a `description` key inside `default`,
/// `example` or `enum` values is data and stays as it is.
pub fn truncate_descriptions(schema: &mut Value, max: usize) {
    let Value::Object(m) = schema else {
        return;
    };
    if max == 0 {
        m.remove("description");
    }
    if let Some(Value::String(s)) = m.get_mut("description")
        && s.len() > max
    {
        *s = truncate(s, max);
    }
    for (key, value) in m.iter_mut() {
        match (key.as_str(), value) {
            ("properties" | "patternProperties" | "definitions", Value::Object(map)) => {
                map.values_mut().for_each(|s| truncate_descriptions(s, max))
            }
            ("items" | "allOf" | "anyOf" | "oneOf", Value::Array(list)) => {
                list.iter_mut().for_each(|s| truncate_descriptions(s, max))
            }
            ("items" | "additionalProperties" | "additionalItems" | "not", s) => {
                truncate_descriptions(s, max)
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{truncate, truncate_descriptions};

    /// controller-gen's own cases (`desc_visitor_test.go` style) and the
    /// byte-boundary rule.
    #[test]
    fn cuts_as_controller_gen() {
        let cases = [
            ("short", 10, "short"),
            (
                "Extras holds the markers whose twins differ.",
                30,
                "Extras holds the markers...",
            ),
            (
                "One sentence. Another one follows here.",
                30,
                "One sentence.",
            ),
            ("Wait! Or not, this is longer than the limit", 20, "Wait!"),
            ("nowhitespaceatallinthisdescription", 10, "nowhitespa..."),
            ("a very long word", 1, "a..."),
            (". leading terminal is not a cut point", 10, ". leading..."),
            (" leading space", 5, " lead..."),
            ("héllo wörld and more", 8, "héllo..."),
            ("日本語の説明です。次の文", 30, "日本語の説明です。"),
        ];
        for (desc, max, want) in cases {
            assert_eq!(truncate(desc, max), want, "{desc:?} at {max}");
        }
    }

    #[test]
    fn truncation() {
        let mut v =
            json!({"description": "abcdef", "properties": {"a": {"description": "xyzxyz"}}});
        truncate_descriptions(&mut v, 3);
        assert_eq!(v["description"], "abc...");
        assert_eq!(v["properties"]["a"]["description"], "xyz...");

        // Data is not schema: descriptions inside defaults, examples and
        // enum values are kept whole; nested schemas are still cut.
        let mut v = json!({
            "type": "object",
            "default": {"description": "a default description"},
            "properties": {
                "description": {"type": "string", "description": "long long", "enum": [{"description": "enum value"}]},
                "list": {"type": "array", "items": {"description": "item item", "example": {"description": "example value"}}},
                "map": {"type": "object", "additionalProperties": {"description": "value value"}},
                "any": {"anyOf": [{"description": "first first"}]},
            },
        });
        truncate_descriptions(&mut v, 4);
        assert_eq!(v["default"]["description"], "a default description");
        assert_eq!(v["properties"]["description"]["description"], "long...");
        assert_eq!(
            v["properties"]["description"]["enum"][0]["description"],
            "enum value"
        );
        assert_eq!(v["properties"]["list"]["items"]["description"], "item...");
        assert_eq!(
            v["properties"]["list"]["items"]["example"]["description"],
            "example value"
        );
        assert_eq!(
            v["properties"]["map"]["additionalProperties"]["description"],
            "valu..."
        );
        assert_eq!(v["properties"]["any"]["anyOf"][0]["description"], "firs...");
    }
}
