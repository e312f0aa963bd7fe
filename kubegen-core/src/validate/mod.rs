//! Custom resources validated offline exactly as the apiserver validates
//! them on create ([`validate_create`]) and on update
//! ([`validate_update`]: the old object read as stored, errors in values
//! left unchanged ratcheted as [`correlate`] pairs them, transition rules
//! run): unknown fields pruned (and reported, as `kubectl
//! --validate=strict` reports them), nulls dropped and defaults applied
//! ([`structural`]), then the type meta, the metadata ([`meta`]), the
//! OpenAPI schema's keywords and formats ([`openapi`]), the scale
//! subresource's replicas, list sets and maps ([`lists`]); every error a
//! [`field::FieldError`] worded as the apiserver words it. Serves
//! `kubegen validate` and, later, the in-process API server.
//!
//! Then the `x-kubernetes-validations` rules ([`rules`]), as the custom
//! resource strategy runs them: only when no error so far blocks them
//! (`hasBlockingErr`), one extra error saying so otherwise. A rule using
//! what kubegen does not evaluate yet is listed in
//! [`Outcome::rules_not_evaluated`], never passed silently.
//!
//! Not yet: the type and object metadata of embedded resources (listed in
//! [`Outcome::not_checked`] wherever an object holds one), and the name
//! the apiserver generates from `generateName` as rules on the root see
//! it.

pub mod correlate;
pub mod field;
pub mod lists;
pub mod meta;
pub mod openapi;
pub mod rules;
pub mod structural;

use serde_json::{Value, json};

use field::{ErrorType, FieldError};

/// What the apiserver would do with an object on create.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The object as it would be stored: pruned and defaulted.
    pub object: Value,
    /// The unknown fields pruned (`spec.foo`), which `kubectl
    /// --validate=strict` refuses and the apiserver otherwise drops with a
    /// warning.
    pub unknown_fields: Vec<String>,
    /// The errors that refuse it.
    pub errors: Vec<FieldError>,
    /// What an update ratchets: failed rules on values it left unchanged,
    /// which the apiserver returns as warnings.
    pub warnings: Vec<FieldError>,
    /// The CEL rules (schema path, rule) that apply to it but kubegen
    /// could not evaluate exactly (empty when an earlier error keeps the
    /// apiserver from evaluating any).
    pub rules_not_evaluated: Vec<rules::Unevaluated>,
    /// How many rules were evaluated.
    pub rules_evaluated: usize,
    /// The runtime cost the rules charged to the object's budget of
    /// 10,000,000, as the apiserver counts it (`None` when the budget ran
    /// out, a rule's cost went over the per-call limit, a rule was not
    /// evaluated, or the cost depends on the order of a map's entries,
    /// which the apiserver visits in Go's random order).
    pub rules_cost: Option<u64>,
    /// Checks the apiserver makes that kubegen does not make yet, each
    /// with where it applies: the type and object metadata of embedded
    /// resources (`x-kubernetes-embedded-resource`), which the apiserver
    /// coerces and validates (`schemaobjectmeta.Coerce` and `Validate`).
    pub not_checked: Vec<String>,
}

/// Why an object is not one of the CRD's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// Another group or kind.
    OtherKind,
    /// The CRD has no served version of that name.
    NoVersion(String),
}

/// Validates `object` as the apiserver does when it is created through
/// `crd` (an `apiextensions.k8s.io/v1` CustomResourceDefinition as JSON).
pub fn validate_create(crd: &Value, object: &Value) -> Result<Outcome, Mismatch> {
    validate(crd, object, None)
}

/// Validates `object` as the apiserver does when it replaces `old` (the
/// object as stored, which is read as the apiserver reads it from
/// storage: pruned and defaulted) through `crd`. The update keeps the old
/// `status` when the CRD has a status subresource; the name and
/// namespace cannot change; errors of values the update left unchanged
/// are ratcheted away (the OpenAPI schema's, list types' when the old
/// object had none, and failed rules', which are
/// [`Outcome::warnings`]); transition rules (`oldSelf`) run where a value
/// has an old one.
pub fn validate_update(crd: &Value, object: &Value, old: &Value) -> Result<Outcome, Mismatch> {
    validate(crd, object, Some(old))
}

fn validate(crd: &Value, object: &Value, old: Option<&Value>) -> Result<Outcome, Mismatch> {
    let text = |v: &Value, p: &str| {
        v.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let group = text(crd, "/spec/group");
    let kind = text(crd, "/spec/names/kind");
    let api_version = text(object, "/apiVersion");
    let (obj_group, obj_version) = match api_version.rsplit_once('/') {
        Some((g, v)) => (g.to_string(), v.to_string()),
        None => (String::new(), api_version.clone()),
    };
    if obj_group != group || text(object, "/kind") != kind {
        return Err(Mismatch::OtherKind);
    }
    let version = crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .and_then(|vs| {
            vs.iter().find(|v| {
                v["name"] == obj_version.as_str()
                    && v.get("served").and_then(Value::as_bool).unwrap_or(false)
            })
        })
        .ok_or_else(|| Mismatch::NoVersion(obj_version.clone()))?;
    let schema = version
        .pointer("/schema/openAPIV3Schema")
        .cloned()
        .unwrap_or_else(|| json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}));
    let namespaced = text(crd, "/spec/scope") == "Namespaced";

    let mut object = object.clone();
    if !namespaced && let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        // `rest.BeforeCreate` clears a cluster-scoped object's namespace.
        meta.remove("namespace");
    }
    let unknown_fields = structural::prune(&mut object, &schema, true);
    structural::prune_nulls(&mut object, Some(&schema));
    structural::default(&mut object, &schema);
    let old = old.map(|old| {
        let mut old = old.clone();
        structural::prune(&mut old, &schema, true);
        structural::prune_nulls(&mut old, Some(&schema));
        structural::default(&mut old, &schema);
        old
    });
    if version.pointer("/subresources/status").is_some()
        && let Some(new) = object.as_object_mut()
    {
        // `PrepareForCreate` drops the status, `PrepareForUpdate` keeps
        // the old one: only the status subresource writes it.
        match old.as_ref().and_then(|o| o.get("status")) {
            Some(status) => {
                new.insert("status".into(), status.clone());
            }
            None => {
                new.remove("status");
            }
        }
    }

    let mut errors = Vec::new();
    meta::validate(&object, namespaced, &mut errors);
    if let Some(old) = &old {
        for key in ["name", "namespace"] {
            let (new_value, old_value) = (&object["metadata"][key], &old["metadata"][key]);
            let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
            if text(new_value) != text(old_value) {
                errors.push(FieldError::invalid(
                    format!("metadata.{key}"),
                    json!(text(new_value)),
                    "field is immutable",
                ));
            }
        }
    }
    let openapi_schema = openapi::Schema::from_json(&schema);
    errors.extend(match &old {
        Some(old) => {
            openapi_schema.validate_update(correlate::Correlated::root(&object, old, &schema), "")
        }
        None => openapi_schema.validate(&object, ""),
    });
    if let Some(scale) = version.pointer("/subresources/scale") {
        for key in ["specReplicasPath", "statusReplicasPath"] {
            if let Some(path) = scale.get(key).and_then(Value::as_str) {
                replicas(&object, path, &mut errors);
            }
        }
    }
    // An update checks list types only when the old object passed them.
    let mut old_list_errors = Vec::new();
    if let Some(old) = &old {
        lists::validate("", &schema, old, &mut old_list_errors);
    }
    if old_list_errors.is_empty() {
        lists::validate("", &schema, &object, &mut errors);
    }
    let mut rules_not_evaluated = Vec::new();
    let mut rules_evaluated = 0;
    let mut rules_cost = Some(0);
    let mut warnings = Vec::new();
    if rules::has_rules(&schema) {
        if errors.iter().any(blocks_rules) {
            errors.push(FieldError::invalid(
                "<nil>",
                Value::Null,
                "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
            ));
        } else {
            let outcome = rules::validate_update(&schema, &object, old.as_ref());
            warnings = outcome.warnings;
            errors.extend(outcome.errors);
            rules_not_evaluated = outcome.not_evaluated;
            rules_evaluated = outcome.evaluated;
            rules_cost = outcome.cost;
        }
    }
    let not_checked = embedded_resources(&schema, &object, "");
    Ok(Outcome {
        object,
        unknown_fields,
        errors,
        rules_not_evaluated,
        rules_evaluated,
        rules_cost,
        warnings,
        not_checked,
    })
}

/// The embedded resources in `object` (of schema `schema`, at the field
/// path `path`), whose metadata kubegen does not check yet.
fn embedded_resources(schema: &Value, object: &Value, path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let join = |sep: &str, k: &str| {
        if path.is_empty() {
            k.to_string()
        } else if sep == "." {
            format!("{path}.{k}")
        } else {
            format!("{path}[{k}]")
        }
    };
    match object {
        Value::Object(map) => {
            let embedded = schema
                .get("x-kubernetes-embedded-resource")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            if embedded && !path.is_empty() {
                out.push(format!(
                    "{path}: the apiVersion, kind and metadata of an embedded resource (the apiserver coerces and validates them; kubegen does not yet)"
                ));
            }
            for (k, v) in map {
                if let Some(sub) = schema.get("properties").and_then(|p| p.get(k)) {
                    out.extend(embedded_resources(sub, v, &join(".", k)));
                } else if let Some(sub) =
                    schema.get("additionalProperties").filter(|a| a.is_object())
                {
                    out.extend(embedded_resources(sub, v, &join("[", k)));
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = schema.get("items") {
                for (i, v) in items.iter().enumerate() {
                    let at = format!("{path}[{i}]");
                    out.extend(embedded_resources(sub, v, &at));
                }
            }
        }
        _ => {}
    }
    out
}

/// The scale subresource's check of a replicas path: an integer between 0
/// and 2^31-1 when present.
fn replicas(object: &Value, path: &str, errors: &mut Vec<FieldError>) {
    let pointer: String = path
        .trim_start_matches('.')
        .split('.')
        .map(|p| format!("/{p}"))
        .collect();
    let Some(v) = object.pointer(&pointer) else {
        return;
    };
    match v.as_i64() {
        Some(n) if n < 0 => errors.push(FieldError::invalid(
            path,
            json!(n),
            "should be a non-negative integer",
        )),
        Some(n) if n > i64::from(i32::MAX) => errors.push(FieldError::invalid(
            path,
            json!(n),
            format!("should be less than or equal to {}", i32::MAX),
        )),
        Some(_) => {}
        None => errors.push(FieldError::invalid(
            path,
            json!(0),
            format!(
                ".{} accessor error: {} is of the type {}, expected int64",
                path.trim_start_matches('.'),
                go_print(v),
                crate::go::fmt::go_type(v)
            ),
        )),
    }
}

/// A decoded value as Go's `%v` prints it (strings unquoted).
fn go_print(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "<nil>".into(),
        other => crate::go::fmt::go_value(other),
    }
}

/// Whether an error stops the apiserver from evaluating CEL rules
/// (`hasBlockingErr`).
pub fn blocks_rules(e: &FieldError) -> bool {
    matches!(
        e.kind,
        ErrorType::NotSupported
            | ErrorType::Required
            | ErrorType::TooLong
            | ErrorType::TooMany
            | ErrorType::TypeInvalid
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn embedded_resources_are_listed_as_not_checked() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"templates": {"type": "array", "items": {"type": "object",
                "x-kubernetes-embedded-resource": true,
                "x-kubernetes-preserve-unknown-fields": true}}}}}});
        let crd = json!({"spec": {"group": "example.com", "scope": "Cluster",
            "names": {"kind": "Widget", "plural": "widgets"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": schema}}]}});
        let widget = |templates: Value| {
            json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                "spec": {"templates": templates}})
        };
        let outcome = validate_create(
            &crd,
            &widget(json!([{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "Bad_Name"}}])),
        )
        .unwrap();
        assert_eq!(outcome.not_checked.len(), 1);
        assert!(
            outcome.not_checked[0]
                .starts_with("spec.templates[0]: the apiVersion, kind and metadata"),
            "{:?}",
            outcome.not_checked
        );
        let none = validate_create(&crd, &widget(json!([]))).unwrap();
        assert!(
            none.not_checked.is_empty(),
            "no embedded resource, nothing unchecked"
        );
    }
}
