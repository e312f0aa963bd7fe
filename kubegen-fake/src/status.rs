//! Errors as the apiserver returns them: a `Status` object with the same
//! HTTP code, reason, message, details and causes (the texts of
//! `k8s.io/apimachinery/pkg/api/errors`).

use kubegen_core::validate::field::FieldError;
use serde_json::{Value, json};

/// One refused request: the `Status` the apiserver answers with.
#[derive(Clone, Debug, PartialEq)]
pub struct ApiError {
    /// HTTP status code.
    pub code: u16,
    /// `reason` (`NotFound`, `Conflict`, …).
    pub reason: String,
    /// `message`.
    pub message: String,
    /// `details`, when the apiserver fills them.
    pub details: Option<Value>,
}

fn details(name: &str, group: &str, kind: &str) -> Value {
    let mut d = serde_json::Map::new();
    if !name.is_empty() {
        d.insert("name".into(), json!(name));
    }
    if !group.is_empty() {
        d.insert("group".into(), json!(group));
    }
    d.insert("kind".into(), json!(kind));
    Value::Object(d)
}

impl ApiError {
    fn new(code: u16, reason: &str, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            reason: reason.to_string(),
            message: message.into(),
            details: None,
        }
    }

    fn with(mut self, details: Value) -> ApiError {
        self.details = Some(details);
        self
    }

    /// `NewNotFound`: `deployments.apps "web" not found`.
    pub fn not_found(qualified: &str, group: &str, plural: &str, name: &str) -> ApiError {
        ApiError::new(404, "NotFound", format!("{qualified} \"{name}\" not found"))
            .with(details(name, group, plural))
    }

    /// `NewAlreadyExists`.
    pub fn already_exists(qualified: &str, group: &str, plural: &str, name: &str) -> ApiError {
        ApiError::new(
            409,
            "AlreadyExists",
            format!("{qualified} \"{name}\" already exists"),
        )
        .with(details(name, group, plural))
    }

    /// `NewConflict` for a stale `resourceVersion`.
    pub fn modified(qualified: &str, group: &str, plural: &str, name: &str) -> ApiError {
        ApiError::conflict(
            qualified,
            group,
            plural,
            name,
            "the object has been modified; please apply your changes to the latest version and try again",
        )
    }

    /// `NewConflict(qualified, name, err)`.
    pub fn conflict(qualified: &str, group: &str, plural: &str, name: &str, why: &str) -> ApiError {
        ApiError::new(
            409,
            "Conflict",
            format!("Operation cannot be fulfilled on {qualified} \"{name}\": {why}"),
        )
        .with(details(name, group, plural))
    }

    /// `NewInvalid`: `Kind.group "name" is invalid: [...]`, one cause per
    /// field error.
    pub fn invalid(kind: &str, group: &str, name: &str, errors: &[FieldError]) -> ApiError {
        let qualified = if group.is_empty() {
            kind.to_string()
        } else {
            format!("{kind}.{group}")
        };
        // `errors.NewAggregate(...).Error()`: duplicates once, no
        // brackets around a single message.
        let mut lines: Vec<String> = Vec::new();
        for e in errors {
            let line = e.to_string();
            if !lines.contains(&line) {
                lines.push(line);
            }
        }
        let text = match lines.as_slice() {
            [one] => one.clone(),
            many => format!("[{}]", many.join(", ")),
        };
        let causes: Vec<Value> = errors
            .iter()
            .map(|e| {
                json!({
                    "reason": e.kind.reason(),
                    "message": e.body(),
                    "field": e.field,
                })
            })
            .collect();
        let mut d = details(name, group, kind);
        d["causes"] = Value::Array(causes);
        ApiError::new(
            422,
            "Invalid",
            format!("{qualified} \"{name}\" is invalid: {text}"),
        )
        .with(d)
    }

    /// `NewInvalid` raised by the registry store itself, which names the
    /// resource (`widgets.example.com`) rather than the kind.
    pub fn invalid_resource(
        qualified: &str,
        group: &str,
        plural: &str,
        name: &str,
        errors: &[FieldError],
    ) -> ApiError {
        let mut e = ApiError::invalid(plural, group, name, errors);
        let text = e
            .message
            .split_once(" is invalid: ")
            .map(|(_, t)| t.to_string())
            .unwrap_or_default();
        e.message = format!("{qualified} \"{name}\" is invalid: {text}");
        e
    }

    /// The 409 of a failed delete precondition (`uid` or
    /// `resourceVersion`), naming the kind as the store does.
    pub fn precondition(
        kind: &str,
        group: &str,
        name: &str,
        what: &str,
        want: &str,
        have: &str,
    ) -> ApiError {
        let qualified = if group.is_empty() {
            kind.to_string()
        } else {
            format!("{kind}.{group}")
        };
        let tail = if what == "UID" {
            "The object might have been deleted and then recreated"
        } else {
            "The object might have been modified"
        };
        ApiError::new(
            409,
            "Conflict",
            format!(
                "Operation cannot be fulfilled on {qualified} \"{name}\": the {what} in the precondition ({want}) does not match the {what} in record ({have}). {tail}"
            ),
        )
        .with(details(name, group, kind))
    }

    /// `NewBadRequest`.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(400, "BadRequest", message)
    }

    /// `NewMethodNotSupported`.
    pub fn method_not_supported(
        qualified: &str,
        group: &str,
        plural: &str,
        verb: &str,
    ) -> ApiError {
        ApiError::new(
            405,
            "MethodNotAllowed",
            format!("{verb} is not supported on resources of kind \"{qualified}\""),
        )
        .with(details("", group, plural))
    }

    /// The 404 for a path that names no resource.
    pub fn no_route() -> ApiError {
        ApiError::new(
            404,
            "NotFound",
            "the server could not find the requested resource",
        )
        .with(json!({}))
    }

    /// `NewResourceExpired` (410) for a watch or list at a compacted
    /// revision.
    pub fn expired(message: impl Into<String>) -> ApiError {
        ApiError::new(410, "Expired", message)
    }

    /// `NewTooManyRequests`-style fault, or any code a test injects.
    pub fn injected(code: u16) -> ApiError {
        let (reason, message) = match code {
            409 => ("Conflict", "injected conflict"),
            429 => (
                "TooManyRequests",
                "injected: too many requests, please try again later",
            ),
            500 => ("InternalError", "Internal error occurred: injected"),
            503 => (
                "ServiceUnavailable",
                "injected: the server is currently unable to handle the request",
            ),
            504 => (
                "Timeout",
                "injected: the server was unable to return a response in the time allotted",
            ),
            _ => ("Unknown", "injected error"),
        };
        let mut e = ApiError::new(code, reason, message);
        if code == 429 {
            e.details = Some(json!({"retryAfterSeconds": 1}));
        }
        e
    }

    /// `NewForbidden` for a namespace being deleted.
    pub fn terminating(
        qualified: &str,
        group: &str,
        plural: &str,
        name: &str,
        ns: &str,
    ) -> ApiError {
        let mut d = details(name, group, plural);
        d["causes"] = json!([{
            "reason": "NamespaceTerminating",
            "message": format!("namespace {ns} is being terminated"),
            "field": "metadata.namespace",
        }]);
        ApiError::new(
            403,
            "Forbidden",
            format!(
                "{qualified} \"{name}\" is forbidden: unable to create new content in namespace {ns} because it is being terminated"
            ),
        )
        .with(d)
    }

    /// The 415 of content negotiation, for a media type no handler
    /// takes.
    pub fn unsupported_media_type() -> ApiError {
        ApiError::new(415, "UnsupportedMediaType", "415: Unsupported Media Type").with(json!({}))
    }

    /// A `Status` from an error the patch or apply engines return.
    pub fn from_parts(
        code: u16,
        reason: &str,
        message: String,
        details: Option<Value>,
    ) -> ApiError {
        ApiError {
            code,
            reason: reason.to_string(),
            message,
            details,
        }
    }

    /// The `Status` object (no `reason` when it is empty, as for the
    /// apiserver's internal errors).
    pub fn to_status(&self) -> Value {
        let mut s = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        });
        if self.reason.is_empty()
            && let Some(o) = s.as_object_mut()
        {
            o.remove("reason");
        }
        if let Some(d) = &self.details {
            s["details"] = d.clone();
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_as_the_apiservers() {
        let e = ApiError::not_found("deployments.apps", "apps", "deployments", "web");
        assert_eq!(e.message, "deployments.apps \"web\" not found");
        assert_eq!(
            e.to_status()["details"],
            json!({"name": "web", "group": "apps", "kind": "deployments"})
        );
        let c = ApiError::modified("pods", "", "pods", "p");
        assert_eq!(
            c.message,
            "Operation cannot be fulfilled on pods \"p\": the object has been modified; please apply your changes to the latest version and try again"
        );
        let i = ApiError::invalid(
            "Web",
            "example.com",
            "w",
            &[
                FieldError::required("spec.image", ""),
                FieldError::required("spec.port", ""),
            ],
        );
        assert_eq!(
            i.message,
            "Web.example.com \"w\" is invalid: [spec.image: Required value, spec.port: Required value]"
        );
        assert_eq!(
            i.to_status()["details"]["causes"][1]["reason"],
            "FieldValueRequired"
        );
    }
}
