//! `kubegen explain`: `kubectl explain`-style text for a kind or one of
//! its fields, from the storage version's schema of the crate's CRD, and
//! the reference of every `#[kubegen]` key (`--keys`).

use serde_json::Value;

use crate::generate::Api;
use crate::source::Diagnostic;
use kubegen_core::vocabulary::keywords;

/// The error for a kind the crate does not define, listing those it does.
pub fn unknown_kind(api: &Api, kind: &str) -> Diagnostic {
    let known: std::collections::BTreeSet<&str> =
        api.resources().map(|(_, m)| m.kind.as_str()).collect();
    let known: Vec<&str> = known.into_iter().collect();
    Diagnostic::file(
        &api.root.join("Cargo.toml"),
        format!(
            "no kind `{kind}` in this crate (kinds: {})",
            known.join(", ")
        ),
    )
}

/// `kubectl explain`-style text for `Kind[.field.path]`, from the storage
/// version's schema.
pub fn explain(api: &Api, target: &str) -> Result<String, Vec<Diagnostic>> {
    let (kind, path) = target.split_once('.').unwrap_or((target, ""));
    let crds = api.crds()?;
    let crd = crds
        .values()
        .find(|crd| crd["spec"]["names"]["kind"] == kind)
        .ok_or_else(|| vec![unknown_kind(api, kind)])?;
    let versions = crd["spec"]["versions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let version = versions
        .iter()
        .find(|v| v["storage"] == true)
        .or(versions.first())
        .cloned()
        .unwrap_or(Value::Null);
    let mut schema = &version["schema"]["openAPIV3Schema"];
    let mut walked = Vec::new();
    for segment in path.split('.').filter(|s| !s.is_empty()) {
        let next = &schema["properties"][segment];
        let next = if next.is_null() {
            &schema["items"]["properties"][segment]
        } else {
            next
        };
        if next.is_null() {
            return Err(vec![Diagnostic::file(
                &api.root.join("Cargo.toml"),
                format!(
                    "`{kind}` has no field `{}` (fields here: {})",
                    [walked.clone(), vec![segment]].concat().join("."),
                    field_names(schema).join(", ")
                ),
            )]);
        }
        walked.push(segment);
        schema = next;
    }
    let mut text = format!(
        "GROUP:      {}\nKIND:       {kind}\nVERSION:    {}\n\n",
        crd["spec"]["group"].as_str().unwrap_or(""),
        version["name"].as_str().unwrap_or("")
    );
    if !walked.is_empty() {
        text.push_str(&format!(
            "FIELD:      {} <{}>\n\n",
            walked.join("."),
            type_label(schema)
        ));
    }
    let constraints = constraint_lines(schema);
    if !constraints.is_empty() {
        text.push_str("CONSTRAINTS:\n");
        for c in constraints {
            text.push_str(&format!("    {c}\n"));
        }
        text.push('\n');
    }
    text.push_str("DESCRIPTION:\n");
    text.push_str(&format!(
        "    {}\n",
        schema["description"]
            .as_str()
            .unwrap_or("<empty>")
            .replace('\n', "\n    ")
    ));
    let object = if schema["properties"].is_object() {
        schema
    } else {
        &schema["items"]
    };
    if let Some(props) = object["properties"].as_object() {
        let required: Vec<&str> = object["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        text.push_str("\nFIELDS:\n");
        for (name, prop) in props {
            let req = if required.contains(&name.as_str()) {
                " -required-"
            } else {
                ""
            };
            text.push_str(&format!("  {name}\t<{}>{req}\n", type_label(prop)));
            if let Some(d) = prop["description"].as_str() {
                text.push_str(&format!("    {}\n", d.lines().next().unwrap_or("")));
            }
        }
    }
    Ok(text)
}

/// The property names of an object node (or of a list's items).
fn field_names(schema: &Value) -> Vec<String> {
    let object = if schema["properties"].is_object() {
        schema
    } else {
        &schema["items"]
    };
    object["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// A node's type as `kubectl explain` writes it (`[]string`, `map[string]Object`).
fn type_label(schema: &Value) -> String {
    if schema["x-kubernetes-int-or-string"] == true {
        return "IntOrString".into();
    }
    match schema["type"].as_str() {
        Some("array") => format!("[]{}", type_label(&schema["items"])),
        Some("object") if schema["additionalProperties"].is_object() => {
            format!("map[string]{}", type_label(&schema["additionalProperties"]))
        }
        Some("object") => "Object".into(),
        Some(t) => t.to_string(),
        None => "any".into(),
    }
}

/// The constraints of one schema node, one line each: the keywords the
/// vocabulary marks `explained`, then the CEL rules.
fn constraint_lines(schema: &Value) -> Vec<String> {
    let mut lines: Vec<String> = keywords::names_where(|k| k.explained)
        .filter(|k| !schema[*k].is_null())
        .map(|k| format!("{k}: {}", schema[k]))
        .collect();
    if let Some(rules) = schema["x-kubernetes-validations"].as_array() {
        for r in rules {
            let message = r["message"]
                .as_str()
                .map(|m| format!(" ({m})"))
                .unwrap_or_default();
            lines.push(format!(
                "rule: {}{message}",
                r["rule"].as_str().unwrap_or("")
            ));
        }
    }
    lines
}

/// The reference of every `#[kubegen]` key (`kubegen explain --keys`).
pub fn keys() -> String {
    kubegen_core::vocabulary::reference::text()
}
