//! The typed clients' error: the apiserver's `Status` is kept whole, so
//! callers can tell NotFound, Conflict, Invalid and friends apart.

use kubegen_client::core::Status;

use crate::api_errors::{self, IsConflict};

/// An error from a typed client call.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The apiserver answered with a failure `Status` (404, 409, 422, ...).
    #[error("{} ({}): {}", .0.reason, .0.code, .0.message)]
    Api(Box<Status>),
    /// The request did not get an answer from the apiserver (connection,
    /// TLS, serialisation, ...).
    #[error(transparent)]
    Request(kubegen_client::Error),
    /// The object passed to `update`/`apply` has no `metadata.name`.
    #[error("the object has no metadata.name")]
    MissingName,
}

impl From<kubegen_client::Error> for Error {
    fn from(error: kubegen_client::Error) -> Self {
        match error {
            kubegen_client::Error::Api(status) => Error::Api(status),
            other => Error::Request(other),
        }
    }
}

impl Error {
    /// The apiserver's `Status`, when it answered.
    pub fn status(&self) -> Option<&Status> {
        match self {
            Error::Api(status) => Some(status),
            _ => None,
        }
    }

    /// The HTTP status code the apiserver answered with.
    pub fn code(&self) -> Option<u16> {
        self.status().map(|s| s.code)
    }

    /// 404: the object does not exist.
    pub fn is_not_found(&self) -> bool {
        self.status().is_some_and(api_errors::is_not_found)
    }

    /// 409 with reason `AlreadyExists`: a create found the name taken.
    pub fn is_already_exists(&self) -> bool {
        self.status().is_some_and(api_errors::is_already_exists)
    }

    /// 409 with reason `Conflict`: the write lost an optimistic-concurrency
    /// race (stale resourceVersion) or a server-side apply field conflict.
    pub fn is_conflict(&self) -> bool {
        self.status().is_some_and(api_errors::is_conflict)
    }

    /// 422: the object failed validation (schema, CEL rule, immutability).
    pub fn is_invalid(&self) -> bool {
        self.status().is_some_and(api_errors::is_invalid)
    }

    /// 403: RBAC (or an admission plugin) refused the request.
    pub fn is_forbidden(&self) -> bool {
        self.status().is_some_and(api_errors::is_forbidden)
    }

    /// A 4xx the same request will get again (invalid, forbidden, over
    /// quota, ...), by [`api_errors::is_refused`]: report it on the object,
    /// then back off.
    pub fn is_refused(&self) -> bool {
        self.status().is_some_and(api_errors::is_refused)
    }

    /// For a server-side apply refused with a conflict: each field another
    /// manager owns, with that manager (empty for any other error).
    pub fn apply_conflicts(&self) -> Vec<crate::apply::FieldConflict> {
        self.status()
            .map(crate::apply::conflicts)
            .unwrap_or_default()
    }

    /// For `Invalid` errors: the offending fields with their messages, as
    /// reported in the Status details (e.g. `("spec.replicas", "should be
    /// greater than or equal to 1")`).
    pub fn invalid_fields(&self) -> Vec<(String, String)> {
        self.status()
            .and_then(|s| s.details.as_ref())
            .map(|d| {
                d.causes
                    .iter()
                    .map(|c| (c.field.clone(), c.message.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Lets typed-client calls run under
/// [`retry_on_conflict`](crate::client::retry_on_conflict).
impl IsConflict for Error {
    fn is_conflict(&self) -> bool {
        Error::is_conflict(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api_error(code: u16, reason: &str) -> Error {
        let status: Status = serde_json::from_value(serde_json::json!({
            "status": "Failure", "code": code, "reason": reason, "message": "m",
            "details": { "causes": [{ "field": "spec.port", "message": "too big", "reason": "FieldValueInvalid" }] },
        }))
        .unwrap();
        kubegen_client::Error::Api(Box::new(status)).into()
    }

    #[test]
    fn classifies_status_codes() {
        let nf = api_error(404, "NotFound");
        assert!(nf.is_not_found() && !nf.is_conflict() && !nf.is_invalid());
        let exists = api_error(409, "AlreadyExists");
        assert!(exists.is_already_exists() && !exists.is_conflict());
        let conflict = api_error(409, "Conflict");
        assert!(conflict.is_conflict() && !conflict.is_already_exists());
        let invalid = api_error(422, "Invalid");
        assert!(invalid.is_invalid());
        assert_eq!(
            invalid.invalid_fields(),
            vec![("spec.port".to_string(), "too big".to_string())]
        );
        assert!(api_error(403, "Forbidden").is_forbidden());
        assert_eq!(invalid.code(), Some(422));
        assert_eq!(invalid.to_string(), "Invalid (422): m");
        assert!(Error::MissingName.status().is_none());
    }
}
