//! Embedded resources (`x-kubernetes-embedded-resource`) as the apiserver
//! treats them: [`coerce`] when it decodes an object
//! (`schemaobjectmeta.CoerceWithOptions`: `apiVersion` and `kind` must be
//! strings, `metadata` is read as `ObjectMeta` and written back, its
//! unknown fields reported), and [`validate`] among the checks of a create
//! or update (`schemaobjectmeta.Validate`: `apiVersion` and `kind`
//! required and well formed, `metadata` checked as an object's metadata
//! with path-segment names).

use serde_json::{Value, json};

use super::field::FieldError;
use super::object_meta::{self, Mode, NameRule};

/// What coercing an object found.
#[derive(Debug, Default)]
pub struct Coerced {
    /// Unknown metadata fields of embedded resources, as paths.
    pub unknown: Vec<String>,
    /// What refuses the request while it is decoded (a `400 Bad
    /// Request`). The apiserver stops at the first it meets, in the order
    /// Go visits the object's maps, which is random: it reports one of
    /// these.
    pub errors: Vec<FieldError>,
}

/// `path` and `key` joined as `field.Path.Child` joins them.
fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// The schema under `key` of an object of schema `s`: its property, else
/// its `additionalProperties` schema, and the path the apiserver gives it.
fn below<'s>(s: &'s Value, path: &str, key: &str) -> Option<(&'s Value, String)> {
    if let Some(p) = s.get("properties").and_then(|p| p.get(key)) {
        return Some((p, child(path, key)));
    }
    s.get("additionalProperties")
        .filter(|a| a.is_object())
        .map(|a| (a, format!("{path}[{key}]")))
}

fn embedded(s: &Value) -> bool {
    s.get("x-kubernetes-embedded-resource")
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// Coerces the embedded resources of `x` (of schema `s`, the object's
/// root schema at first) in place: on a request (`Mode::Request`) what
/// Go refuses is an error; read from storage (`Mode::Storage`) it is
/// dropped.
pub fn coerce(x: &mut Value, s: &Value, mode: Mode) -> Coerced {
    let mut out = Coerced::default();
    walk(x, s, "", mode, &mut out);
    out.unknown.sort();
    out
}

fn walk(x: &mut Value, s: &Value, path: &str, mode: Mode, out: &mut Coerced) {
    match x {
        Value::Object(map) => {
            if embedded(s) {
                for key in ["apiVersion", "kind"] {
                    match map.get(key) {
                        Some(v) if !v.is_string() => {
                            if mode == Mode::Storage {
                                map.remove(key);
                            } else {
                                out.errors.push(FieldError::invalid(
                                    child(path, key),
                                    v.clone(),
                                    "must be a string",
                                ));
                            }
                        }
                        _ => {}
                    }
                }
                if let Some(meta) = map.get("metadata") {
                    let at = child(path, "metadata");
                    match object_meta::decode(meta, &at, mode) {
                        Ok(decoded) => {
                            out.unknown.extend(decoded.unknown);
                            map.insert("metadata".into(), decoded.meta);
                        }
                        Err(e) if mode == Mode::Request => {
                            out.errors.push(FieldError::invalid(at, meta.clone(), e));
                        }
                        // Storage keeps what it cannot read as it is.
                        Err(_) => {}
                    }
                }
            }
            for (k, v) in map.iter_mut() {
                if let Some((sub, at)) = below(s, path, k) {
                    walk(v, sub, &at, mode, out);
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = s.get("items") {
                for (i, v) in items.iter_mut().enumerate() {
                    walk(v, sub, &format!("{path}[{i}]"), mode, out);
                }
            }
        }
        _ => {}
    }
}

/// `schemaobjectmeta.Validate` of the embedded resources of `x` (of
/// schema `s`, the object's root schema at first).
pub fn validate(x: &Value, s: &Value, path: &str, out: &mut Vec<FieldError>) {
    match x {
        Value::Object(map) => {
            if embedded(s) {
                resource(map, path, out);
            }
            for (k, v) in map {
                if let Some((sub, at)) = below(s, path, k) {
                    validate(v, sub, &at, out);
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = s.get("items") {
                for (i, v) in items.iter().enumerate() {
                    validate(v, sub, &format!("{path}[{i}]"), out);
                }
            }
        }
        _ => {}
    }
}

/// `validateEmbeddedResource`.
fn resource(map: &serde_json::Map<String, Value>, path: &str, out: &mut Vec<FieldError>) {
    for key in ["apiVersion", "kind"] {
        let at = child(path, key);
        let Some(v) = map.get(key) else {
            out.push(FieldError::required(at, ""));
            continue;
        };
        match v.as_str() {
            None => out.push(FieldError::invalid(at, v.clone(), "must be a string")),
            Some("") => out.push(FieldError::invalid(at, json!(""), "must not be empty")),
            Some(s) => {
                let malformed = if key == "apiVersion" {
                    object_meta::parse_group_version(s).err()
                } else {
                    let errs = crate::go::names::is_dns1035_label(&s.to_lowercase());
                    (!errs.is_empty()).then(|| {
                        format!(
                            "may have mixed case, but should otherwise match: {}",
                            errs.join(",")
                        )
                    })
                };
                if let Some(detail) = malformed {
                    out.push(FieldError::invalid(at, json!(s), detail));
                }
            }
        }
    }
    if let Some(meta) = map.get("metadata") {
        let at = child(path, "metadata");
        match object_meta::decode(meta, &at, Mode::Request) {
            Err(e) => out.push(FieldError::invalid(at, meta.clone(), e)),
            Ok(decoded) => {
                let mut meta = decoded.meta;
                // "we have to set something to avoid an error"
                if meta
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .is_empty()
                {
                    meta["name"] = json!("fakename");
                }
                let namespaced = meta
                    .get("namespace")
                    .and_then(Value::as_str)
                    .is_some_and(|n| !n.is_empty());
                object_meta::validate(&meta, NameRule::PathSegment, namespaced, &at, out);
            }
        }
    }
}
