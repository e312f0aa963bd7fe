//! A custom resource's own `metadata` checked as the apiserver checks it:
//! on create (`ValidateObjectMetaAccessor` with `NameIsDNSSubdomain`)
//! after the request has filled in what it fills in (a name generated
//! from `generateName`, the namespace, the generation, managed fields),
//! and on update (`ValidateObjectMetaAccessorUpdate`: immutable name,
//! namespace and uid; labels, annotations, owner references). The
//! checks are [`super::object_meta`]'s, shared with embedded resources.

use serde_json::{Value, json};

use super::field::FieldError;
use super::object_meta::{self, NameRule};

/// The metadata errors of `object` on create (`namespaced`: the kind's
/// scope; a missing namespace of a namespaced object is the request's to
/// fill, a cluster-scoped object's namespace is cleared).
pub fn validate_create(object: &Value, namespaced: bool, out: &mut Vec<FieldError>) {
    let mut meta = object.get("metadata").cloned().unwrap_or_else(|| json!({}));
    let text = |m: &Value, k: &str| m.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let (name, generate) = (text(&meta, "name"), text(&meta, "generateName"));
    let no_namespace = text(&meta, "namespace").is_empty();
    if let Some(m) = meta.as_object_mut() {
        // On create the apiserver generates a name from generateName
        // before it validates: its first 58 bytes and five characters of
        // [bcdfghjklmnpqrstvwxz2456789]. (Go cuts bytes, which may split
        // a character of a generateName that is invalid anyway; kubegen
        // cuts before that character.)
        if name.is_empty() && !generate.is_empty() {
            let mut g = generate.clone();
            g.truncate(g.floor_char_boundary(58));
            g.push_str("x2b4z");
            m.insert("name".into(), json!(g));
        }
        if namespaced && no_namespace {
            m.insert("namespace".into(), json!("default"));
        }
        // Set by the strategy (generation 1), the field manager and
        // `BeforeCreate`, whatever the request said.
        for k in ["generation", "managedFields", "deletionTimestamp"] {
            m.remove(k);
        }
    }
    object_meta::validate(&meta, NameRule::Subdomain, namespaced, "metadata", out);
}

/// The metadata errors of `object` replacing `old` (both as decoded).
pub fn validate_update(object: &Value, old: &Value, out: &mut Vec<FieldError>) {
    let text = |o: &Value, k: &str| {
        o.pointer(&format!("/metadata/{k}"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    for key in ["name", "namespace", "uid"] {
        let (new_value, old_value) = (text(object, key), text(old, key));
        // An update without a uid keeps the stored one.
        if new_value != old_value && !(key == "uid" && new_value.is_empty()) {
            out.push(FieldError::invalid(
                format!("metadata.{key}"),
                json!(new_value),
                "field is immutable",
            ));
        }
    }
    if old.pointer("/metadata/deletionTimestamp").is_some() {
        no_new_finalizers(object, old, out);
    }
    let meta = object.get("metadata").cloned().unwrap_or_else(|| json!({}));
    object_meta::labels_and_annotations(&meta, "metadata", out);
    object_meta::owner_references(&meta, "metadata.ownerReferences", out);
}

/// `ValidateNoNewFinalizers`: an object being deleted takes no new
/// finalizer.
fn no_new_finalizers(object: &Value, old: &Value, out: &mut Vec<FieldError>) {
    let set = |o: &Value| -> std::collections::BTreeSet<String> {
        o.pointer("/metadata/finalizers")
            .and_then(Value::as_array)
            .map(|f| {
                f.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let (new, old) = (set(object), set(old));
    let extra: Vec<String> = new.difference(&old).map(|f| format!("{f:?}")).collect();
    if !extra.is_empty() {
        out.push(FieldError::new(
            super::field::ErrorType::Forbidden,
            "metadata.finalizers",
            None,
            format!(
                "no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}",
                extra.join(", ")
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(object: Value, namespaced: bool) -> Vec<String> {
        let mut out = Vec::new();
        validate_create(&object, namespaced, &mut out);
        out.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_namespace_with_dots_is_no_label() {
        let out = errors(
            json!({"metadata": {"name": "n", "namespace": "team.a"}}),
            true,
        );
        assert_eq!(
            out,
            ["metadata.namespace: Invalid value: \"team.a\": must not contain dots"]
        );
    }

    #[test]
    fn names_labels_and_scope_as_the_apiserver_checks_them() {
        assert!(
            errors(
                json!({"metadata": {"name": "web-1", "labels": {"app.kubernetes.io/name": "web"}}}),
                true
            )
            .is_empty()
        );
        assert!(errors(json!({"metadata": {"generateName": "web-"}}), true).is_empty());
        assert_eq!(
            errors(json!({"metadata": {}}), true),
            ["metadata.name: Required value: name or generateName is required"]
        );
        assert_eq!(
            errors(json!({"metadata": {"name": "Web"}}), true),
            [
                "metadata.name: Invalid value: \"Web\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
            ]
        );
        assert_eq!(
            errors(json!({"metadata": {"name": "a", "namespace": "X"}}), true).len(),
            1
        );
        let bad = errors(
            json!({"metadata": {"name": "a", "labels": {"-x": "y z"}}}),
            true,
        );
        assert_eq!(bad.len(), 2, "{bad:?}");
        assert!(
            bad[0].starts_with("metadata.labels: Invalid value: \"-x\": name part must consist of"),
            "{bad:?}"
        );
        assert!(
            bad[1].starts_with("metadata.labels: Invalid value: \"y z\": a valid label must be"),
            "{bad:?}"
        );
    }

    #[test]
    fn a_long_generate_name_with_wide_characters_is_refused_not_a_crash() {
        let generate = format!("a{}", "é".repeat(40));
        let out = errors(json!({"metadata": {"generateName": generate}}), true);
        assert!(
            out.iter()
                .any(|e| e.starts_with("metadata.generateName: Invalid value")),
            "{out:?}"
        );
        assert!(
            out.iter()
                .any(|e| e.starts_with("metadata.name: Invalid value")),
            "{out:?}"
        );
    }

    #[test]
    fn owner_references_and_finalizers_of_the_resource_itself() {
        let out = errors(
            json!({"metadata": {"name": "a", "finalizers": ["orphan", "foregroundDeletion"],
                "ownerReferences": [
                    {"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "1", "controller": true},
                    {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d", "uid": "2", "controller": true}]}}),
            false,
        );
        assert_eq!(
            out,
            [
                "metadata.ownerReferences: Invalid value: {\"apiVersion\":\"v1\",\"kind\":\"Event\",\"name\":\"e\",\"uid\":\"1\",\"controller\":true}: /v1, Kind=Event is disallowed from being an owner",
                "metadata.ownerReferences: Invalid value: [{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"name\":\"e\",\"uid\":\"1\",\"controller\":true},{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"name\":\"d\",\"uid\":\"2\",\"controller\":true}]: Only one reference can have Controller set to true. Found \"true\" in references for Event/e and Deployment/d",
                "metadata.finalizers: Invalid value: [\"orphan\",\"foregroundDeletion\"]: finalizer orphan and foregroundDeletion cannot be both set",
            ]
        );
    }

    #[test]
    fn an_object_being_deleted_takes_no_new_finalizer() {
        let old = json!({"metadata": {"name": "a", "uid": "u", "deletionTimestamp": "2026-01-01T00:00:00Z", "finalizers": ["x/a"]}});
        let update = |finalizers: Value| {
            let mut out = Vec::new();
            let new = json!({"metadata": {"name": "a", "uid": "u", "finalizers": finalizers}});
            validate_update(&new, &old, &mut out);
            out.iter().map(ToString::to_string).collect::<Vec<_>>()
        };
        assert_eq!(
            update(json!(["x/a", "x/c", "x/b"])),
            [
                "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{\"x/b\", \"x/c\"}"
            ]
        );
        assert!(update(json!([])).is_empty());
        assert!(update(json!(["x/a"])).is_empty());
    }
}
