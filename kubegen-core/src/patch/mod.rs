//! The apiserver's three non-apply PATCH types, applied as kube-apiserver
//! 1.36 applies them (k8s.io/apiserver's `endpoints/handlers/patch.go`),
//! for an in-process API server: the patched object, or the error
//! [`Status`](PatchError::status) the apiserver answers with.
//!
//! - [`merge`]: JSON merge patch (gopkg.in/evanphx/json-patch.v4);
//! - [`json_patch`]: JSON patch, RFC 6902 (the same library);
//! - [`strategic`]: strategic merge patch (apimachinery's
//!   `strategicpatch`) over the built-in types' patch metadata in
//!   [`strategies`]; custom resources refuse it ([`unsupported_media_type`]);
//! - [`go_json`]: the patch body read as Go's `encoding/json` reads it.
//!
//! [`apply`] dispatches on the [`PatchType`]. The body is the request's
//! bytes (a malformed body's error is Go's, word for word); the current
//! object is the stored object as the apiserver encodes it. What comes
//! back is the patched document *before* the apiserver decodes it into the
//! resource's type: the server still decodes it (a document that is not
//! an object of the kind, a field of the wrong type, unknown fields: `422
//! Invalid` on field `patch`), defaults, admits and validates it, and
//! with field validation `Strict` turns the returned
//! [`Patched::strict_errors`] (duplicate and unknown fields of the body)
//! into that `422`, with `Warn` into warnings.
//!
//! Proven against the apiserver's own code by `tests/patch_differential.rs`
//! (a Go helper in `tests/patch/` mirroring patch.go): 60,450 cases on
//! three seeds, no differences. Known differences, by design:
//!
//! - where Go's result depends on the random order it walks a map (a
//!   strategic patch whose map holds both a list and its
//!   `$deleteFromPrimitiveList`, or two keys failing differently), kubegen
//!   walks keys sorted, which gives one of the outcomes Go gives;
//! - a number no `float64` holds (`1e400`) in a body the apiserver does not
//!   strictly decode (field validation `Ignore`) is refused here as `400
//!   BadRequest`; the apiserver fails later, decoding the result;
//! - bodies and objects nested more than
//!   [`KUBEGEN_MAX_DEPTH`](go_json::KUBEGEN_MAX_DEPTH) (1,000) levels are
//!   refused (the apiserver's limit is Go's 10,000), so that no recursion
//!   here can overflow a thread's stack;
//! - Go's strategic merge of a merging scalar list can, through slice
//!   aliasing, reorder by a stored list that already held duplicates
//!   (`finalizers: [a, a]`) together with `$setElementOrder`; kubegen
//!   orders by the stored list as it was (not seen in the tests).

pub mod go_json;
pub mod json_patch;
pub mod merge;
pub mod strategic;
pub mod strategies;

use serde_json::{Value, json};

/// A PATCH request's content type, the patch types this module applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchType {
    /// `application/json-patch+json`.
    Json,
    /// `application/merge-patch+json`.
    Merge,
    /// `application/strategic-merge-patch+json`.
    StrategicMerge,
}

impl PatchType {
    /// The type of a `Content-Type` header (any `;` parameters dropped, as
    /// the apiserver drops them), if it is one of the three.
    pub fn from_content_type(content_type: &str) -> Option<PatchType> {
        let media = content_type
            .split_once(';')
            .filter(|(m, _)| !m.is_empty())
            .map_or(content_type, |(m, _)| m);
        [PatchType::Json, PatchType::Merge, PatchType::StrategicMerge]
            .into_iter()
            .find(|t| t.content_type() == media)
    }

    /// Its media type.
    pub fn content_type(self) -> &'static str {
        match self {
            PatchType::Json => "application/json-patch+json",
            PatchType::Merge => "application/merge-patch+json",
            PatchType::StrategicMerge => "application/strategic-merge-patch+json",
        }
    }
}

/// The `fieldValidation` query parameter; the apiserver's default is
/// [`FieldValidation::Warn`]. With `Warn` or `Strict` the apiserver first
/// decodes the body strictly, which refuses bodies of the wrong shape
/// earlier and with other words than `Ignore` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FieldValidation {
    /// `Ignore`.
    Ignore,
    /// `Warn` (the default).
    #[default]
    Warn,
    /// `Strict`.
    Strict,
}

impl FieldValidation {
    /// The directive of a `fieldValidation` value (`""` is `Warn`).
    pub fn parse(directive: &str) -> Option<FieldValidation> {
        match directive {
            "Ignore" => Some(FieldValidation::Ignore),
            "" | "Warn" => Some(FieldValidation::Warn),
            "Strict" => Some(FieldValidation::Strict),
            _ => None,
        }
    }
}

/// A patch applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Patched {
    /// The patched document (not necessarily an object: a merge patch can
    /// make it an array, a JSON patch anything its `replace` of the root
    /// puts there).
    pub object: Value,
    /// The strict decoding errors of the body (`duplicate field "a.b"`,
    /// for JSON patch `json patch unknown field "[0].x"`), with field
    /// validation `Warn` or `Strict`; the apiserver adds the decoding's
    /// into the type and warns of them or refuses with `422`.
    pub strict_errors: Vec<String>,
}

/// A patch refused: the `Status` the apiserver answers with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchError {
    /// The HTTP status code.
    pub code: u16,
    /// The `Status` reason (`""` for a Go error the apiserver did not
    /// classify).
    pub reason: &'static str,
    /// The `Status` message.
    pub message: String,
    /// Whether the `Status` carries a (empty) `details` object, as the
    /// apiserver's generic 422 does.
    pub details: bool,
}

impl std::fmt::Display for PatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.code, self.reason, self.message)
    }
}

impl std::error::Error for PatchError {}

impl PatchError {
    /// `errors.NewBadRequest`.
    pub fn bad_request(message: String) -> PatchError {
        PatchError {
            code: 400,
            reason: "BadRequest",
            message,
            details: false,
        }
    }

    /// A Go error the apiserver returns unclassified: 500, no reason.
    pub fn internal(message: String) -> PatchError {
        PatchError {
            code: 500,
            reason: "",
            message,
            details: false,
        }
    }

    /// `errors.NewRequestEntityTooLargeError`.
    pub fn too_large(message: String) -> PatchError {
        PatchError {
            code: 413,
            reason: "RequestEntityTooLarge",
            message: format!("Request entity too large: {message}"),
            details: false,
        }
    }

    /// `errors.NewGenericServerResponse(422, …)`, whose message is fixed:
    /// the apiserver's answer to any failed JSON patch operation and to
    /// some strategic merge patch errors.
    pub fn unprocessable() -> PatchError {
        PatchError {
            code: 422,
            reason: "Invalid",
            message: "the server rejected our request due to an error in our request".into(),
            details: true,
        }
    }

    fn json_patch_failed() -> PatchError {
        PatchError::unprocessable()
    }

    /// A Go panic in the patch code: the apiserver's panic filter answers
    /// 500 with this text (as `text/plain`, not a `Status`).
    pub fn panic() -> PatchError {
        PatchError::internal(
            "This request caused apiserver to panic. Look in the logs for details.".into(),
        )
    }

    /// A number in the result no `float64` holds.
    fn unrepresentable(message: String) -> PatchError {
        PatchError::bad_request(message)
    }

    /// The `Status` object (`kind: Status`, `apiVersion: v1`) the
    /// apiserver writes.
    pub fn status(&self) -> Value {
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "code": self.code,
        });
        if !self.reason.is_empty() {
            status["reason"] = json!(self.reason);
        }
        if self.details {
            status["details"] = json!({});
        }
        status
    }
}

/// The media types a custom resource's PATCH accepts (no strategic merge
/// patch; `application/apply-patch+cbor` only with the
/// `CBORServingAndStorage` feature gate, off by default in 1.36).
pub const CUSTOM_RESOURCE_PATCH_TYPES: [&str; 3] = [
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/apply-patch+yaml",
];

/// The media types a built-in resource's PATCH accepts.
pub const BUILT_IN_PATCH_TYPES: [&str; 4] = [
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
];

/// The apiserver's `415 UnsupportedMediaType` for a PATCH whose content
/// type is not among `accepted` ([`CUSTOM_RESOURCE_PATCH_TYPES`] for a
/// strategic merge patch of a custom resource).
pub fn unsupported_media_type(accepted: &[&str]) -> PatchError {
    PatchError {
        code: 415,
        reason: "UnsupportedMediaType",
        message: format!(
            "the body of the request was in an unknown format - accepted media types include: {}",
            accepted.join(", ")
        ),
        details: false,
    }
}

/// kubegen's refusal of a current object nested deeper than
/// [`go_json::KUBEGEN_MAX_DEPTH`].
pub(crate) fn check_current(current: &Value) -> Result<(), PatchError> {
    if go_json::too_deep_value(current) {
        return Err(PatchError::internal(format!(
            "the object is nested more than {} levels deep, deeper than kubegen applies",
            go_json::KUBEGEN_MAX_DEPTH
        )));
    }
    Ok(())
}

/// Applies `body`, a patch of type `patch_type`, to `current`. A strategic
/// merge patch needs `definition`, the OpenAPI definition name of the
/// resource's type ([`strategies::definition_for`]); without one (a
/// custom resource) it is [`unsupported_media_type`].
pub fn apply(
    patch_type: PatchType,
    current: &Value,
    body: &[u8],
    definition: Option<&str>,
    validation: FieldValidation,
) -> Result<Patched, PatchError> {
    match patch_type {
        PatchType::Json => json_patch::apply(current, body, validation),
        PatchType::Merge => merge::apply(current, body, validation),
        PatchType::StrategicMerge => match definition {
            Some(definition) => strategic::apply(current, body, definition, validation),
            None => Err(unsupported_media_type(&CUSTOM_RESOURCE_PATCH_TYPES)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_and_the_custom_resource_refusal() {
        assert_eq!(
            PatchType::from_content_type("application/merge-patch+json; charset=utf-8"),
            Some(PatchType::Merge)
        );
        assert_eq!(PatchType::from_content_type("application/json"), None);
        let e = apply(
            PatchType::StrategicMerge,
            &json!({}),
            b"{}",
            None,
            FieldValidation::Warn,
        )
        .unwrap_err();
        assert_eq!(
            e.status(),
            json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
                "reason": "UnsupportedMediaType", "code": 415})
        );
    }
}
