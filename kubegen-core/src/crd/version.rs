//! One entry of a CRD's `spec.versions`: name, served, storage and
//! deprecation, the `status` and `scale` subresources, printer columns and
//! selectable fields, each JSON path checked against the version's schema.

use serde_json::{Map, Value, json};

use super::CrdError;
use super::json_path::{check_path, resolve_json_path};
use crate::model::{PrinterColumn, ResourceModel, Scale};

/// How to keep a printer column whose path the schema does not declare.
pub const UNCHECKED_REMEDY: &str = " (if the column shows a field the schema does not declare on purpose — the apiserver accepts it and kubectl shows it empty — add `unchecked` to `printcolumn(...)`)";

/// The version entry of `res` without its `schema`: every key whose value
/// the resource attribute decides, in the order the CRD lists them; fails
/// on the first JSON path the schema `root` does not declare.
pub(super) fn version_entry(
    res: &ResourceModel,
    root: &Value,
) -> Result<Map<String, Value>, CrdError> {
    let mut version = Map::new();
    version.insert("name".into(), res.version.clone().into());
    version.insert("served".into(), res.served.into());
    version.insert("storage".into(), res.storage.into());
    if res.deprecated {
        version.insert("deprecated".into(), true.into());
    }
    if let Some(w) = &res.deprecation_warning {
        version.insert("deprecationWarning".into(), w.clone().into());
    }
    let subresources = subresources(res, root)?;
    if !subresources.is_empty() {
        version.insert("subresources".into(), Value::Object(subresources));
    }
    if !res.printer_columns.is_empty() {
        let cols = res
            .printer_columns
            .iter()
            .map(|c| printer_column(c, root))
            .collect::<Result<Vec<_>, _>>()?;
        version.insert("additionalPrinterColumns".into(), Value::Array(cols));
    }
    if !res.selectable_fields.is_empty() {
        let fields = res
            .selectable_fields
            .iter()
            .map(|p| selectable_field(p, root))
            .collect::<Result<Vec<_>, _>>()?;
        version.insert("selectableFields".into(), Value::Array(fields));
    }
    Ok(version)
}

/// The `subresources` the resource asks for: `status` when it has one,
/// `scale` with its paths checked.
fn subresources(res: &ResourceModel, root: &Value) -> Result<Map<String, Value>, CrdError> {
    let mut subresources = Map::new();
    if res.has_status {
        subresources.insert("status".into(), json!({}));
    }
    if let Some(scale) = &res.scale {
        subresources.insert("scale".into(), scale_json(scale, root)?);
    }
    Ok(subresources)
}

/// The `scale` subresource: its replica paths under `.spec.` and
/// `.status.`, its label selector path under either.
fn scale_json(scale: &Scale, root: &Value) -> Result<Value, CrdError> {
    check_scale_path(scale, root, &scale.spec_replicas_path, &[".spec."])?;
    check_scale_path(scale, root, &scale.status_replicas_path, &[".status."])?;
    let mut s = json!({
        "specReplicasPath": scale.spec_replicas_path,
        "statusReplicasPath": scale.status_replicas_path,
    });
    if let Some(sel) = &scale.label_selector_path {
        check_scale_path(scale, root, sel, &[".spec.", ".status."])?;
        s["labelSelectorPath"] = sel.clone().into();
    }
    Ok(s)
}

/// Whether a scale path may stand: the apiserver's rule is the prefix; a
/// field the schema lacks is refused as a likely typo unless the scale is
/// `unchecked`.
fn check_scale_path(
    scale: &Scale,
    root: &Value,
    path: &str,
    prefixes: &[&str],
) -> Result<(), CrdError> {
    if !prefixes.iter().any(|p| path.starts_with(p)) {
        return Err(CrdError::JsonPath {
            path: path.into(),
            message: format!("must start with `{}`", prefixes.join("` or `")),
        });
    }
    if scale.unchecked {
        return Ok(());
    }
    check_path(root, path, None).map(drop).map_err(|e| match e {
        CrdError::JsonPath { path, message } => CrdError::JsonPath {
            path,
            message: format!(
                "{message} (if the scale subresource uses a field the schema does not declare on purpose — the apiserver accepts it — add `unchecked` to `scale(...)`)"
            ),
        },
        e => e,
    })
}

/// One `additionalPrinterColumns` entry: its path must name a declared
/// field unless the column is `unchecked`; its type, when left out, is the
/// field's.
fn printer_column(c: &PrinterColumn, root: &Value) -> Result<Value, CrdError> {
    let leaf = if c.unchecked {
        resolve_json_path(root, &c.json_path)
            .ok()
            .flatten()
            .cloned()
    } else {
        check_path(root, &c.json_path, None).map_err(|e| match e {
            CrdError::JsonPath { path, message } => CrdError::JsonPath {
                path,
                message: format!("{message}{UNCHECKED_REMEDY}"),
            },
            e => e,
        })?
    };
    let type_ = if c.type_.is_empty() {
        infer_column_type(&c.json_path, leaf.as_ref())
    } else {
        c.type_.clone()
    };
    let mut col = json!({"name": c.name, "type": type_, "jsonPath": c.json_path});
    if let Some(d) = &c.description {
        col["description"] = d.clone().into();
    }
    if let Some(f) = &c.format {
        col["format"] = f.clone().into();
    }
    if let Some(p) = c.priority {
        col["priority"] = p.into();
    }
    Ok(col)
}

/// A printer column's type when the attribute leaves it out: the schema
/// type of the field it shows (`date` for date-time strings and for
/// `.metadata.creationTimestamp`), `string` when the path is not typed.
pub fn infer_column_type(path: &str, leaf: Option<&Value>) -> String {
    if path == ".metadata.creationTimestamp" {
        return "date".into();
    }
    let Some(leaf) = leaf else {
        return "string".into();
    };
    match leaf.get("type").and_then(Value::as_str) {
        Some(t @ ("integer" | "number" | "boolean")) => t.into(),
        Some("string") if leaf.get("format").and_then(Value::as_str) == Some("date-time") => {
            "date".into()
        }
        _ => "string".into(),
    }
}

/// One `selectableFields` entry: the path must name a declared field, and
/// a typed one must be a string, integer or boolean.
fn selectable_field(p: &str, root: &Value) -> Result<Value, CrdError> {
    if let Some(leaf) = check_path(root, p, None)? {
        let t = leaf.get("type").and_then(Value::as_str);
        if !matches!(t, Some("string" | "integer" | "boolean")) {
            return Err(CrdError::JsonPath {
                path: p.to_owned(),
                message: "a selectable field must be a string, integer or boolean".into(),
            });
        }
    }
    Ok(json!({"jsonPath": p}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crd::{crd_json, fixtures};

    #[test]
    fn column_types_follow_the_schema() {
        assert_eq!(
            infer_column_type(".metadata.creationTimestamp", None),
            "date"
        );
        assert_eq!(
            infer_column_type(".spec.x", Some(&json!({"type": "integer"}))),
            "integer"
        );
        assert_eq!(
            infer_column_type(".spec.x", Some(&json!({"type": "boolean"}))),
            "boolean"
        );
        assert_eq!(
            infer_column_type(
                ".status.t",
                Some(&json!({"type": "string", "format": "date-time"}))
            ),
            "date"
        );
        assert_eq!(
            infer_column_type(".spec.x", Some(&json!({"type": "string"}))),
            "string"
        );
        assert_eq!(
            infer_column_type(".status.conditions[0].status", None),
            "string"
        );
    }

    #[test]
    fn printer_column_paths_are_checked() {
        let mut r = fixtures::res("v1", true);
        r.printer_columns.push(PrinterColumn {
            name: "S".into(),
            type_: "integer".into(),
            json_path: ".spec.sise".into(),
            description: None,
            format: None,
            priority: None,
            unchecked: false,
        });
        let e = crd_json(&r, fixtures::spec(), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("did you mean `size`"), "{e}");
        // `unchecked`: the apiserver takes it, kubectl shows it empty.
        r.printer_columns[0].unchecked = true;
        let crd = crd_json(&r, fixtures::spec(), None).unwrap();
        assert_eq!(
            crd["spec"]["versions"][0]["additionalPrinterColumns"][0]["jsonPath"],
            ".spec.sise"
        );
    }
}
