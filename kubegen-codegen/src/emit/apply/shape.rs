//! What an apply configuration is made of, whatever schema it comes from:
//! structs of optional fields, each field a [`Shape`], and the rule that
//! maps a schema leaf (no properties to walk) to a Rust type ([`leaf`]).

use std::collections::BTreeMap;

use serde_json::Value;

/// The Rust type of a schema node in an apply configuration.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Shape {
    /// A scalar (or any JSON value).
    Scalar(Scalar),
    /// Another apply configuration struct, by module and type name; boxed
    /// where it holds itself.
    Struct {
        module: String,
        name: String,
        boxed: bool,
    },
    /// A list of elements.
    List(Box<Shape>),
    /// A map from strings to elements.
    Map(Box<Shape>),
    /// `metadata`: the runtime's `ObjectMetaApply`.
    Meta,
}

/// The scalars of JSON and the k8s-openapi types for the ones Kubernetes
/// gives a type of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scalar {
    String,
    I32,
    I64,
    F64,
    Bool,
    Time,
    MicroTime,
    Quantity,
    IntOrString,
    Bytes,
    /// Any JSON value: schemaless, `x-kubernetes-preserve-unknown-fields`,
    /// objects with neither properties nor additional properties.
    Json,
}

/// One field of an apply configuration struct.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Field {
    /// The JSON name.
    pub json: String,
    /// The first sentence of its description.
    pub doc: Option<String>,
    pub shape: Shape,
}

/// One apply configuration struct.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Struct {
    /// The first paragraph of its description.
    pub doc: Option<String>,
    /// What it configures when it has no description (a definition name or
    /// a schema path).
    pub what: String,
    /// Sorted by JSON name.
    pub fields: Vec<Field>,
}

/// Structs by module, then type name.
pub(crate) type Modules = BTreeMap<String, BTreeMap<String, Struct>>;

/// The type of a schema node that is not walked further: `None` for an
/// array, or an object with properties or additional properties (the
/// walkers' business).
pub(crate) fn leaf(node: &Value) -> Option<Scalar> {
    if node.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) {
        return Some(Scalar::Json);
    }
    if node.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return Some(if node.get("pattern").is_some() {
            Scalar::Quantity
        } else {
            Scalar::IntOrString
        });
    }
    let format = node.get("format").and_then(Value::as_str);
    Some(match node.get("type").and_then(Value::as_str) {
        Some("string") => match format {
            Some("date-time") => Scalar::Time,
            Some("byte") => Scalar::Bytes,
            _ => Scalar::String,
        },
        Some("integer") => match format {
            Some("int32") => Scalar::I32,
            _ => Scalar::I64,
        },
        Some("number") => Scalar::F64,
        Some("boolean") => Scalar::Bool,
        Some("array") => return None,
        Some("object") => {
            let properties = node
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| !p.is_empty());
            let additional = node
                .get("additionalProperties")
                .is_some_and(Value::is_object);
            if properties || additional {
                return None;
            }
            Scalar::Json
        }
        _ => Scalar::Json,
    })
}

/// A description's first paragraph on one line, with what rustdoc would
/// read as markup (links, HTML, code blocks) made plain text.
pub(crate) fn paragraph(node: &Value) -> Option<String> {
    let description = node.get("description")?.as_str()?;
    let first = description.trim().split("\n\n").next()?;
    let line = first.split_whitespace().collect::<Vec<_>>().join(" ");
    let line = line
        .replace('\\', "\\\\")
        .replace('[', "\\[")
        .replace(']', "\\]")
        .replace('<', "\\<")
        .replace('>', "\\>")
        .replace('`', "'");
    let line = line.split(' ').map(autolink).collect::<Vec<_>>().join(" ");
    (!line.is_empty()).then_some(line)
}

/// A word with its URL, if it holds one, as a rustdoc autolink
/// (`<https://…>`; rustdoc refuses bare URLs); punctuation after the URL
/// stays outside.
fn autolink(word: &str) -> String {
    let Some(start) = word.find("https://").or_else(|| word.find("http://")) else {
        return word.to_owned();
    };
    let (before, url) = word.split_at(start);
    let trimmed = url.trim_end_matches(['.', ',', ';', ':', ')', '\'', '"']);
    let after = &url[trimmed.len()..];
    format!("{before}<{trimmed}>{after}")
}

/// A description's first sentence (its first paragraph up to the first
/// `. `), as [`paragraph`] cleans it.
pub(crate) fn sentence(node: &Value) -> Option<String> {
    let paragraph = paragraph(node)?;
    Some(match paragraph.find(". ") {
        Some(end) => paragraph[..=end].to_string(),
        None => paragraph,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn descriptions_become_plain_rustdoc() {
        let node =
            json!({"description": "See https://k8s.io/a#b. Uses [x] and\n    <y> `z`.\n\nMore."});
        assert_eq!(
            super::paragraph(&node).unwrap(),
            "See <https://k8s.io/a#b>. Uses \\[x\\] and \\<y\\> 'z'."
        );
        assert_eq!(super::sentence(&node).unwrap(), "See <https://k8s.io/a#b>.");
    }
}
