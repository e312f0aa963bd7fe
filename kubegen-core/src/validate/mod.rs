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
//! Metadata is read as the apiserver decodes it ([`object_meta`]), at the
//! root and in embedded resources ([`embedded`]); what it cannot decode
//! refuses the request before any check ([`Outcome::undecodable`]).
//!
//! Not yet: the name the apiserver generates from `generateName` as
//! rules on the root see it.

pub mod correlate;
pub mod embedded;
pub mod field;
pub mod lists;
pub mod meta;
pub mod object_meta;
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
    /// Why the apiserver refuses the request while it decodes it (`400
    /// Bad Request`), before any other check: metadata that is not
    /// `ObjectMeta` (Go's decoding error), an embedded resource's
    /// `apiVersion` or `kind` that is not a string or its metadata that
    /// is not `ObjectMeta`. Where there are several, the apiserver names
    /// the first it meets in Go's random map order: one of these. Nothing
    /// else is checked then.
    pub undecodable: Vec<String>,
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
    validate(crd, object, None, false)
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
    validate(crd, object, Some(old), false)
}

/// Validates `object` sent to the status subresource of `old` (as
/// stored), as the custom resource status strategy does: everything but
/// the status (and the managed fields) is the stored object's, then the
/// whole object is validated as on update.
pub fn validate_status_update(
    crd: &Value,
    object: &Value,
    old: &Value,
) -> Result<Outcome, Mismatch> {
    let mut new = old.clone();
    match object.get("status") {
        Some(status) => new["status"] = status.clone(),
        None => {
            if let Some(o) = new.as_object_mut() {
                o.remove("status");
            }
        }
    }
    match object.pointer("/metadata/managedFields") {
        Some(m) => new["metadata"]["managedFields"] = m.clone(),
        None => {
            if let Some(m) = new.get_mut("metadata").and_then(Value::as_object_mut) {
                m.remove("managedFields");
            }
        }
    }
    new["metadata"]["resourceVersion"] = object
        .pointer("/metadata/resourceVersion")
        .cloned()
        .unwrap_or(Value::Null);
    validate(crd, &new, Some(old), true)
}

/// The served version of `crd` that `object` claims: its entry, its
/// schema, and whether the CRD is namespaced.
fn served_version<'c>(
    crd: &'c Value,
    object: &Value,
) -> Result<(&'c Value, Value, bool), Mismatch> {
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
    Ok((version, schema, namespaced))
}

/// `object` as the apiserver reads a request for `crd`, before the field
/// manager or the strategy sees it: metadata decoded, unknown fields
/// pruned, nulls dropped, defaults applied. `None` when it is not one of
/// the CRD's served versions or cannot be decoded (validation says why).
pub fn read_request(crd: &Value, object: &Value) -> Option<Value> {
    let (_, schema, namespaced) = served_version(crd, object).ok()?;
    decoded(
        object.clone(),
        &schema,
        namespaced,
        object_meta::Mode::Request,
    )
    .ok()
    .map(|(o, _)| o)
}

fn validate(
    crd: &Value,
    object: &Value,
    old: Option<&Value>,
    status_update: bool,
) -> Result<Outcome, Mismatch> {
    let (version, schema, namespaced) = served_version(crd, object)?;

    let (mut object, unknown_fields) = match decoded(
        object.clone(),
        &schema,
        namespaced,
        object_meta::Mode::Request,
    ) {
        Ok(read) => read,
        Err((object, undecodable)) => {
            return Ok(Outcome {
                object,
                unknown_fields: Vec::new(),
                errors: Vec::new(),
                warnings: Vec::new(),
                rules_not_evaluated: Vec::new(),
                rules_evaluated: 0,
                rules_cost: Some(0),
                undecodable,
            });
        }
    };
    // The old object as read from storage, which drops what it cannot
    // decode rather than refusing it.
    let old = old.and_then(|old| {
        decoded(old.clone(), &schema, namespaced, object_meta::Mode::Storage)
            .ok()
            .map(|(old, _)| old)
    });
    if !status_update
        && version.pointer("/subresources/status").is_some()
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
    match &old {
        Some(old) => meta::validate_update(&object, old, &mut errors),
        None => meta::validate_create(&object, namespaced, &mut errors),
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
    embedded::validate(&object, &schema, "", &mut errors);
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
    Ok(Outcome {
        object,
        unknown_fields,
        errors,
        rules_not_evaluated,
        rules_evaluated,
        rules_cost,
        warnings,
        undecodable: Vec::new(),
    })
}

/// `object` as the apiserver decodes it, in its order: the metadata read
/// as `ObjectMeta`, a cluster-scoped object's namespace cleared, unknown
/// fields pruned, nulls the schema neither allows nor defaults dropped,
/// embedded resources coerced, defaults applied; with the unknown fields,
/// sorted. On a request (`mode`), what Go cannot decode refuses it: the
/// object as far as it was read, and the refusals.
fn decoded(
    mut object: Value,
    schema: &Value,
    namespaced: bool,
    mode: object_meta::Mode,
) -> Result<(Value, Vec<String>), (Value, Vec<String>)> {
    let mut unknown = Vec::new();
    // `GetObjectMetaWithOptions`: the metadata as `ObjectMeta`.
    if let Some(meta) = object.get("metadata") {
        match object_meta::decode(meta, "metadata", mode) {
            Ok(decoded) => {
                unknown.extend(decoded.unknown);
                object["metadata"] = decoded.meta;
            }
            Err(e) if mode == object_meta::Mode::Request => return Err((object, vec![e])),
            Err(_) => {}
        }
    }
    if !namespaced && let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        // `rest.BeforeCreate` clears a cluster-scoped object's namespace.
        meta.remove("namespace");
    }
    unknown.extend(structural::prune(&mut object, schema, true));
    structural::prune_nulls(&mut object, Some(schema));
    let coerced = embedded::coerce(&mut object, schema, mode);
    if !coerced.errors.is_empty() {
        let mut why: Vec<String> = coerced.errors.iter().map(ToString::to_string).collect();
        why.sort();
        return Err((object, why));
    }
    unknown.extend(coerced.unknown);
    unknown.sort();
    structural::default(&mut object, schema);
    Ok((object, unknown))
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

    fn crd() -> Value {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"templates": {"type": "array", "items": {"type": "object",
                "x-kubernetes-embedded-resource": true,
                "x-kubernetes-preserve-unknown-fields": true}}}}}});
        json!({"spec": {"group": "example.com", "scope": "Cluster",
            "names": {"kind": "Widget", "plural": "widgets"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": schema}}]}})
    }

    fn widget(metadata: Value, templates: Value) -> Value {
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": metadata,
            "spec": {"templates": templates}})
    }

    #[test]
    fn metadata_go_cannot_decode_refuses_the_request_before_any_check() {
        let root = validate_create(
            &crd(),
            &widget(json!({"name": "w", "labels": {"a": 1}}), json!([])),
        )
        .unwrap();
        assert_eq!(
            root.undecodable,
            ["json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string"]
        );
        assert!(root.errors.is_empty());
        let embedded = validate_create(
            &crd(),
            &widget(json!({"name": "Bad_Name"}), json!([{"apiVersion": 1, "kind": "Pod"}, {"apiVersion": "v1", "kind": "Pod", "metadata": {"generation": 1.5}}])),
        )
        .unwrap();
        assert_eq!(
            embedded.undecodable,
            [
                "spec.templates[0].apiVersion: Invalid value: 1: must be a string",
                "spec.templates[1].metadata: Invalid value: {\"generation\":1.5}: json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.generation of type int64",
            ]
        );
        assert!(embedded.errors.is_empty(), "nothing else is checked");
    }

    #[test]
    fn embedded_resources_are_coerced_and_checked() {
        let outcome = validate_create(
            &crd(),
            &widget(
                json!({"name": "w"}),
                json!([{"apiVersion": "a/b/c", "kind": "Pod", "metadata": {"name": "x/y", "labels": {},
                    "creationTimestamp": "2024-01-02T03:04:05.5+01:00", "foo": 1}}]),
            ),
        )
        .unwrap();
        assert_eq!(outcome.unknown_fields, ["spec.templates[0].metadata.foo"]);
        assert_eq!(
            outcome.object["spec"]["templates"][0]["metadata"],
            json!({"name": "x/y", "creationTimestamp": "2024-01-02T02:04:05Z"})
        );
        let errors: Vec<String> = outcome.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            errors,
            [
                "spec.templates[0].apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c",
                "spec.templates[0].metadata.name: Invalid value: \"x/y\": may not contain '/'",
            ]
        );
    }
}
