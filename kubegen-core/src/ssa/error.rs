//! Errors as the apiserver returns them from an apply: a `Status` with
//! code, reason, message and causes — 409 `Conflict` with one
//! `FieldManagerConflict` cause per conflicting field, 400 `BadRequest`
//! for a configuration of the wrong kind or version or one that sets
//! managedFields, 500 with no reason for anything the field manager
//! itself fails on (a configuration the schema does not accept).

use serde_json::{Map, Value, json};

/// One cause of a failure (`metav1.StatusCause`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cause {
    /// `type`: `FieldManagerConflict` for conflicts.
    pub kind: String,
    /// `message`: `conflict with "mgr" using v1`.
    pub message: String,
    /// `field`: the conflicting path (`.spec.replicas`).
    pub field: String,
}

/// A failed request, as the apiserver's `Status` describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApplyError {
    /// The HTTP status code: 400, 409 or 500.
    pub code: u16,
    /// `reason`: `BadRequest`, `Conflict`, or empty (500s).
    pub reason: String,
    /// `message`.
    pub message: String,
    /// `details.causes` (conflicts only).
    pub causes: Vec<Cause>,
}

impl ApplyError {
    /// A 400 `BadRequest` (`errors.NewBadRequest`).
    pub fn bad_request(message: impl Into<String>) -> Self {
        ApplyError {
            code: 400,
            reason: "BadRequest".into(),
            message: message.into(),
            causes: Vec::new(),
        }
    }

    /// A 500 with no reason: what `ErrorToAPIStatus` makes of an error
    /// that is not a `Status`.
    pub fn internal(message: impl Into<String>) -> Self {
        ApplyError {
            code: 500,
            reason: String::new(),
            message: message.into(),
            causes: Vec::new(),
        }
    }

    /// The `Status` object the apiserver answers with.
    pub fn to_status(&self) -> Value {
        let mut status = Map::new();
        status.insert("kind".into(), json!("Status"));
        status.insert("apiVersion".into(), json!("v1"));
        status.insert("metadata".into(), json!({}));
        status.insert("status".into(), json!("Failure"));
        status.insert("message".into(), json!(self.message));
        if !self.reason.is_empty() {
            status.insert("reason".into(), json!(self.reason));
        }
        if !self.causes.is_empty() {
            let causes: Vec<Value> = self
                .causes
                .iter()
                .map(|c| json!({"reason": c.kind, "message": c.message, "field": c.field}))
                .collect();
            status.insert("details".into(), json!({ "causes": causes }));
        }
        status.insert("code".into(), json!(self.code));
        Value::Object(status)
    }
}

impl std::fmt::Display for ApplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ApplyError {}
