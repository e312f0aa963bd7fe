//! A custom resource's `metadata` checked as the apiserver checks it on
//! create (`ValidateObjectMetaAccessor` with `NameIsDNSSubdomain`): the
//! name (or the name generated from `generateName`), the namespace,
//! labels, annotation keys and total size, finalizers.
//! The messages are apimachinery's, word for word.

use serde_json::{Value, json};

use super::field::{ErrorType, FieldError};
use crate::go::names::{is_dns1123_label, label_key, label_value, name_errors};

/// `TotalAnnotationSizeLimitB`.
const ANNOTATIONS_LIMIT: usize = 256 * 1024;

/// The metadata errors of `object` (`namespaced`: the kind's scope; a
/// missing namespace of a namespaced object is the request's to fill, a
/// cluster-scoped object's namespace is cleared).
pub fn validate(object: &Value, namespaced: bool, out: &mut Vec<FieldError>) {
    let meta = object.get("metadata").cloned().unwrap_or_else(|| json!({}));
    let text = |k: &str| {
        meta.get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let (name, generate) = (text("name"), text("generateName"));
    if !generate.is_empty() {
        for m in name_errors(&generate, true) {
            out.push(FieldError::invalid(
                "metadata.generateName",
                json!(generate),
                m,
            ));
        }
    }
    // On create the apiserver generates a name from generateName before
    // it validates: five characters of [bcdfghjklmnpqrstvwxz2456789].
    let name = if name.is_empty() && !generate.is_empty() {
        let mut g = generate.clone();
        g.truncate(58);
        g.push_str("x2b4z");
        g
    } else {
        name
    };
    if name.is_empty() {
        out.push(FieldError::required(
            "metadata.name",
            "name or generateName is required",
        ));
    } else {
        for m in name_errors(&name, false) {
            out.push(FieldError::invalid("metadata.name", json!(name), m));
        }
    }
    // A cluster-scoped object's namespace is cleared before validation
    // (`rest.BeforeCreate`); a namespaced one's is the request's.
    let namespace = text("namespace");
    if namespaced && !namespace.is_empty() {
        for m in is_dns1123_label(&namespace) {
            out.push(FieldError::invalid(
                "metadata.namespace",
                json!(namespace),
                m,
            ));
        }
    }
    if let Some(labels) = meta.get("labels").and_then(Value::as_object) {
        for (k, v) in labels {
            for m in label_key(k) {
                out.push(FieldError::invalid("metadata.labels", json!(k), m));
            }
            let v = v.as_str().unwrap_or("");
            for m in label_value(v) {
                out.push(FieldError::invalid("metadata.labels", json!(v), m));
            }
        }
    }
    if let Some(annotations) = meta.get("annotations").and_then(Value::as_object) {
        let mut size = 0;
        for (k, v) in annotations {
            for m in label_key(&k.to_lowercase()) {
                out.push(FieldError::invalid("metadata.annotations", json!(k), m));
            }
            size += k.len() + v.as_str().map_or(0, str::len);
        }
        if size > ANNOTATIONS_LIMIT {
            out.push(FieldError::new(
                ErrorType::TooLong,
                "metadata.annotations",
                None,
                format!("may not be more than {ANNOTATIONS_LIMIT} bytes"),
            ));
        }
    }
    if let Some(finalizers) = meta.get("finalizers").and_then(Value::as_array) {
        for (i, f) in finalizers.iter().enumerate() {
            let f = f.as_str().unwrap_or("");
            for m in label_key(f) {
                out.push(FieldError::invalid(
                    format!("metadata.finalizers[{i}]"),
                    json!(f),
                    m,
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(object: Value, namespaced: bool) -> Vec<String> {
        let mut out = Vec::new();
        validate(&object, namespaced, &mut out);
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
        assert!(
            errors(json!({"metadata": {"name": "a", "namespace": "x"}}), false).is_empty(),
            "cleared on create"
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
}
