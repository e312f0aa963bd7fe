//! The API reference page of one group/version: each kind's scope, names,
//! subresources and printer columns, an example skeleton, and every field
//! with its type, whether it is required, its default, enum, bounds,
//! pattern, list semantics and CEL rules (with their messages), read off
//! the CRD kubegen generates.

use serde_json::Value;

/// One kind at this group/version.
pub struct KindPage<'a> {
    /// The CRD.
    pub crd: &'a Value,
    /// Its entry in `spec.versions`.
    pub version: &'a Value,
}

/// The page for `group`/`version`, its kinds in order.
pub fn page(group: &str, version: &str, kinds: &[KindPage<'_>]) -> String {
    let mut out = format!(
        "{}\n# {group}/{version}\n\n",
        kubegen_core::output::MARKDOWN_HEADER
    );
    out.push_str("Kinds:");
    for k in kinds {
        let kind = text(k.crd, "/spec/names/kind");
        out.push_str(&format!(" [{kind}](#{}),", kind.to_ascii_lowercase()));
    }
    out.pop();
    out.push('\n');
    for k in kinds {
        kind_section(&mut out, group, version, k);
    }
    out
}

fn text<'v>(v: &'v Value, pointer: &str) -> &'v str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

fn kind_section(out: &mut String, group: &str, version: &str, k: &KindPage<'_>) {
    let (crd, v) = (k.crd, k.version);
    let kind = text(crd, "/spec/names/kind");
    let schema = v
        .pointer("/schema/openAPIV3Schema")
        .cloned()
        .unwrap_or(Value::Null);
    out.push_str(&format!("\n## {kind}\n\n"));
    if let Some(d) = schema.get("description").and_then(Value::as_str) {
        out.push_str(&format!("{}\n\n", d.trim()));
    }
    let names = |key: &str| -> Vec<String> {
        crd.pointer(&format!("/spec/names/{key}"))
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(|s| format!("`{s}`"))
                    .collect()
            })
            .unwrap_or_default()
    };
    out.push_str(&format!(
        "- Scope: {}; resource `{}` (`{}.{group}`)\n",
        text(crd, "/spec/scope"),
        text(crd, "/spec/names/plural"),
        text(crd, "/spec/names/plural"),
    ));
    for (what, list) in [
        ("Short names", names("shortNames")),
        ("Categories", names("categories")),
    ] {
        if !list.is_empty() {
            out.push_str(&format!("- {what}: {}\n", list.join(", ")));
        }
    }
    let flag = |key: &str| v.get(key).and_then(Value::as_bool).unwrap_or(false);
    let mut state = Vec::new();
    state.push(if flag("served") {
        "served"
    } else {
        "not served"
    });
    if flag("storage") {
        state.push("the storage version");
    }
    if flag("deprecated") {
        state.push("deprecated");
    }
    out.push_str(&format!("- Version {version}: {}\n", state.join(", ")));
    if let Some(w) = v.get("deprecationWarning").and_then(Value::as_str) {
        out.push_str(&format!("- Deprecation warning: {w}\n"));
    }
    let mut subs = Vec::new();
    if v.pointer("/subresources/status").is_some() {
        subs.push("`status`".to_string());
    }
    if let Some(scale) = v.pointer("/subresources/scale") {
        subs.push(format!(
            "`scale` (spec replicas `{}`, status replicas `{}`)",
            text(scale, "/specReplicasPath"),
            text(scale, "/statusReplicasPath")
        ));
    }
    if !subs.is_empty() {
        out.push_str(&format!("- Subresources: {}\n", subs.join(", ")));
    }
    if let Some(cols) = v.get("additionalPrinterColumns").and_then(Value::as_array)
        && !cols.is_empty()
    {
        out.push_str("\n### Printer columns\n\n| Name | Type | JSON path | Description |\n|---|---|---|---|\n");
        for c in cols {
            out.push_str(&format!(
                "| {} | {} | `{}` | {} |\n",
                cell(text(c, "/name")),
                text(c, "/type"),
                text(c, "/jsonPath"),
                cell(text(c, "/description"))
            ));
        }
    }
    out.push_str(&format!(
        "\n### Example\n\nThe required fields, with their defaults or `<placeholder>` values:\n\n```yaml\napiVersion: {}\nkind: {kind}\nmetadata:\n  name: example\n",
        if group.is_empty() { version.to_string() } else { format!("{group}/{version}") }
    ));
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        let required = required_of(&schema);
        for (name, sub) in props {
            if matches!(name.as_str(), "apiVersion" | "kind" | "metadata") {
                continue;
            }
            if required.contains(name) || name == "spec" {
                example(out, name, sub, 0);
            }
        }
    }
    out.push_str("```\n\n### Fields\n");
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        let required = required_of(&schema);
        if schema.get("x-kubernetes-validations").is_some() {
            out.push_str("\nOn the whole object:\n");
            rules_of(out, &schema);
        }
        for (name, sub) in props {
            if matches!(name.as_str(), "apiVersion" | "kind" | "metadata") {
                continue;
            }
            field(out, &format!(".{name}"), sub, required.contains(name));
        }
    }
}

fn required_of(s: &Value) -> Vec<String> {
    crate::json::strings(s.get("required"))
}

/// A table cell's text: one line, pipes escaped.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// `type (format)` as the field's type reads.
fn type_of(s: &Value) -> String {
    let flag = |k: &str| s.get(k).and_then(Value::as_bool).unwrap_or(false);
    if flag("x-kubernetes-int-or-string") {
        return "integer or string".into();
    }
    let t = s.get("type").and_then(Value::as_str).unwrap_or("any");
    let mut out = match t {
        "array" => format!("array of {}", s.get("items").map_or("any".into(), type_of)),
        "object" => match s.get("additionalProperties").filter(|v| v.is_object()) {
            Some(v) => format!("map of {}", type_of(v)),
            None if flag("x-kubernetes-embedded-resource") => "object (a Kubernetes object)".into(),
            None => "object".into(),
        },
        other => other.into(),
    };
    if let Some(f) = s.get("format").and_then(Value::as_str) {
        out.push_str(&format!(" ({f})"));
    }
    if flag("nullable") {
        out.push_str(", nullable");
    }
    out
}

fn field(out: &mut String, path: &str, s: &Value, required: bool) {
    out.push_str(&format!("\n#### `{path}`\n\n{}", type_of(s)));
    out.push_str(if required {
        " · **required**"
    } else {
        " · optional"
    });
    let mut facts = Vec::new();
    if let Some(d) = s.get("default") {
        facts.push(format!("default `{d}`"));
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = e.iter().map(|v| format!("`{v}`")).collect();
        facts.push(format!("one of {}", values.join(", ")));
    }
    let flag = |k: &str| s.get(k).and_then(Value::as_bool).unwrap_or(false);
    for (key, before, after) in [
        (
            "minimum",
            if flag("exclusiveMinimum") {
                "greater than"
            } else {
                "at least"
            },
            "",
        ),
        (
            "maximum",
            if flag("exclusiveMaximum") {
                "less than"
            } else {
                "at most"
            },
            "",
        ),
        ("multipleOf", "a multiple of", ""),
        ("minLength", "at least", " characters"),
        ("maxLength", "at most", " characters"),
        ("minItems", "at least", " items"),
        ("maxItems", "at most", " items"),
        ("minProperties", "at least", " entries"),
        ("maxProperties", "at most", " entries"),
    ] {
        if let Some(n) = s.get(key) {
            facts.push(format!("{before} {n}{after}"));
        }
    }
    if let Some(p) = s.get("pattern").and_then(Value::as_str) {
        facts.push(format!("matches `{p}`"));
    }
    match s.get("x-kubernetes-list-type").and_then(Value::as_str) {
        Some("set") => facts.push("a set (no duplicates)".into()),
        Some("map") => {
            let keys: Vec<String> = s
                .get("x-kubernetes-list-map-keys")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(|k| format!("`{k}`"))
                        .collect()
                })
                .unwrap_or_default();
            facts.push(format!("a map keyed by {}", keys.join(", ")));
        }
        _ => {}
    }
    if flag("x-kubernetes-preserve-unknown-fields") {
        facts.push("keeps unknown fields".into());
    }
    if !facts.is_empty() {
        out.push_str(&format!(" · {}", facts.join(" · ")));
    }
    out.push('\n');
    if let Some(d) = s.get("description").and_then(Value::as_str) {
        out.push_str(&format!("\n{}\n", d.trim()));
    }
    rules_of(out, s);
    let required = required_of(s);
    if let Some(props) = s.get("properties").and_then(Value::as_object) {
        for (name, sub) in props {
            field(out, &format!("{path}.{name}"), sub, required.contains(name));
        }
    }
    if let Some(items) = s.get("items").filter(|i| has_children(i)) {
        field(out, &format!("{path}[*]"), items, false);
    }
    if let Some(values) = s.get("additionalProperties").filter(|v| has_children(v)) {
        field(out, &format!("{path}[*]"), values, false);
    }
}

/// Whether an item or value schema has more to say than its type.
fn has_children(s: &Value) -> bool {
    s.get("properties").is_some()
        || s.get("x-kubernetes-validations").is_some()
        || s.get("items").is_some_and(has_children)
        || s.get("additionalProperties").is_some_and(has_children)
}

fn rules_of(out: &mut String, s: &Value) {
    let Some(rules) = s.get("x-kubernetes-validations").and_then(Value::as_array) else {
        return;
    };
    out.push_str("\nRules:\n\n");
    for r in rules {
        let rule = text(r, "/rule");
        let message = match (r.get("message"), r.get("messageExpression")) {
            (Some(m), _) => format!(" — {}", m.as_str().unwrap_or("")),
            (None, Some(m)) => format!(" — message: `{}`", m.as_str().unwrap_or("")),
            _ => String::new(),
        };
        let reason = r
            .get("reason")
            .and_then(Value::as_str)
            .map(|x| format!(" ({x})"))
            .unwrap_or_default();
        out.push_str(&format!("- `{rule}`{message}{reason}\n"));
    }
}

/// The YAML skeleton of a required field: its default, a value its
/// bounds accept, or a placeholder; objects with their required fields.
fn example(out: &mut String, name: &str, s: &Value, depth: usize) {
    let indent = "  ".repeat(depth);
    let value = if let Some(d) = s.get("default") {
        Some(serde_json::to_string(d).unwrap_or_default())
    } else if let Some(first) = s
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        Some(first.to_string())
    } else {
        match s.get("type").and_then(Value::as_str) {
            Some("object") if s.get("properties").is_some() => None,
            Some("object") => Some("{}".into()),
            Some("array") => Some("[]".into()),
            Some("integer") | Some("number") => {
                Some(s.get("minimum").map_or("0".into(), |m| m.to_string()))
            }
            Some("boolean") => Some("false".into()),
            Some("string") => Some(format!("\"<{name}>\"")),
            _ => Some("0".into()),
        }
    };
    match value {
        Some(v) => out.push_str(&format!("{indent}{name}: {v}\n")),
        None => {
            let props = s.get("properties").and_then(Value::as_object);
            let required = required_of(s);
            let present: Vec<(&String, &Value)> = props
                .into_iter()
                .flatten()
                .filter(|(n, _)| required.contains(n))
                .collect();
            if present.is_empty() {
                out.push_str(&format!("{indent}{name}: {{}}\n"));
            } else {
                out.push_str(&format!("{indent}{name}:\n"));
                for (n, sub) in present {
                    example(out, n, sub, depth + 1);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_page_lists_every_field_with_what_bounds_it() {
        let crd = json!({"spec": {"scope": "Namespaced", "names": {"kind": "Widget", "plural": "widgets", "shortNames": ["wd"]}}});
        let version = json!({"name": "v1", "served": true, "storage": true,
        "subresources": {"status": {}},
        "additionalPrinterColumns": [{"name": "Ready", "type": "string", "jsonPath": ".status.ready"}],
        "schema": {"openAPIV3Schema": {"type": "object", "description": "A widget.", "required": ["spec"], "properties": {
            "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
            "spec": {"type": "object", "required": ["replicas"],
                "x-kubernetes-validations": [{"rule": "self.replicas <= 5", "message": "at most five"}],
                "properties": {
                    "replicas": {"type": "integer", "format": "int32", "minimum": 1, "default": 1, "description": "How many."},
                    "mode": {"type": "string", "enum": ["a", "b"]},
                    "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                        "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "maxLength": 15}}}},
                }},
        }}}});
        let page = page(
            "example.com",
            "v1",
            &[KindPage {
                crd: &crd,
                version: &version,
            }],
        );
        for expected in [
            "<!-- @generated by kubegen. DO NOT EDIT. -->\n# example.com/v1\n",
            "## Widget\n\nA widget.\n",
            "- Short names: `wd`",
            "- Version v1: served, the storage version",
            "- Subresources: `status`",
            "| Ready | string | `.status.ready` |  |",
            "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: example\nspec:\n  replicas: 1\n```",
            "#### `.spec.replicas`\n\ninteger (int32) · **required** · default `1` · at least 1\n\nHow many.\n",
            "#### `.spec.mode`\n\nstring · optional · one of `\"a\"`, `\"b\"`",
            "#### `.spec.ports`\n\narray of object · optional · a map keyed by `name`",
            "#### `.spec.ports[*].name`\n\nstring · **required** · at most 15 characters",
            "- `self.replicas <= 5` — at most five",
        ] {
            assert!(page.contains(expected), "{expected:?} in\n{page}");
        }
    }
}
