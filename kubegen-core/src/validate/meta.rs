//! A custom resource's `metadata` checked as the apiserver checks it on
//! create (`ValidateObjectMetaAccessor` with `NameIsDNSSubdomain`): the
//! name (or the name generated from `generateName`), the namespace,
//! labels, annotation keys and total size, finalizers.
//! The messages are apimachinery's, word for word.

use std::borrow::Cow;

use regex::Regex;
use serde_json::{Value, json};

use super::field::{ErrorType, FieldError};

pub(crate) const DNS1123_LABEL: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
pub(crate) const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const LABEL_KEY: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
/// `TotalAnnotationSizeLimitB`.
const ANNOTATIONS_LIMIT: usize = 256 * 1024;

pub(crate) fn subdomain() -> String {
    format!("{DNS1123_LABEL}(\\.{DNS1123_LABEL})*")
}

pub(crate) fn full(re: &str) -> Regex {
    Regex::new(&format!("^(?:{re})$")).expect("a fixed pattern")
}

/// `RegexError(msg, fmt, examples...)`.
pub(crate) fn regex_error(msg: &str, re: &str, examples: &[&str]) -> String {
    let mut out = msg.to_string();
    out.push_str(" (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            out.push_str(" or ");
        }
        out.push_str(&format!("'{e}', "));
    }
    out.push_str(&format!("regex used for validation is '{re}')"));
    out
}

/// util/validation's `IsDNS1123Subdomain` (lengths in characters).
pub(crate) fn is_dns1123_subdomain(v: &str, unit: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 253 {
        errs.push(format!("must be no more than 253 {unit}"));
    }
    if !full(&subdomain()).is_match(v) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_MSG,
            &subdomain(),
            &["example.com"],
        ));
    }
    errs
}

/// `IsDNS1123Label`.
fn is_dns1123_label(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    if !full(DNS1123_LABEL).is_match(v) {
        errs.push(regex_error(
            DNS1123_LABEL_MSG,
            DNS1123_LABEL,
            &["my-name", "123-abc"],
        ));
    }
    errs
}

/// `maskTrailingDash` when `prefix`: a name that is only a prefix may end
/// with `-`.
pub(crate) fn mask_trailing_dash(name: &str, prefix: bool) -> Cow<'_, str> {
    if prefix && name.len() > 1 && name.ends_with('-') {
        // Go cuts bytes: a character cut in two leaves bytes no pattern
        // matches, as `!` matches none; the length in bytes is kept.
        let cut = name.len() - 2;
        let whole = (0..=cut)
            .rev()
            .find(|i| name.is_char_boundary(*i))
            .unwrap_or(0);
        Cow::Owned(format!("{}{}a", &name[..whole], "!".repeat(cut - whole)))
    } else {
        Cow::Borrowed(name)
    }
}

/// `NameIsDNSSubdomain`: a `generateName` may end with `-`.
fn name_errors(name: &str, prefix: bool) -> Vec<String> {
    is_dns1123_subdomain(&mask_trailing_dash(name, prefix), "characters")
}

/// content's `IsLabelKey` (`IsQualifiedName`).
pub(crate) fn label_key(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                for m in is_dns1123_subdomain(prefix, "bytes") {
                    errs.push(format!("prefix part {m}"));
                }
            }
            *name
        }
        _ => {
            errs.push(format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(LABEL_KEY_MSG, LABEL_KEY, &["MyName", "my.name", "123-abc"])
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push("name part must be no more than 63 bytes".to_string());
    }
    if !full(LABEL_KEY).is_match(name) {
        errs.push(format!(
            "name part {}",
            regex_error(LABEL_KEY_MSG, LABEL_KEY, &["MyName", "my.name", "123-abc"])
        ));
    }
    errs
}

/// content's `IsLabelValue`.
pub(crate) fn label_value(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push("must be no more than 63 bytes".to_string());
    }
    let re = format!("({LABEL_KEY})?");
    if !full(&re).is_match(value) {
        errs.push(regex_error(
            LABEL_VALUE_MSG,
            &re,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

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
