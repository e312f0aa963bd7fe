//! The one set of predicates over the apiserver's failure `Status`
//! (apimachinery's `api/errors`): not found, already exists, conflict,
//! invalid, forbidden. Every part of the runtime classifies errors here.
//!
//! As in client-go, a `409` is `AlreadyExists` when its reason says so and a
//! conflict otherwise (stale `resourceVersion`, server-side apply field
//! conflict); the other predicates go by the HTTP code, so a `Status` whose
//! reason the client does not know is still classified.
//!
//! ```
//! use kubegen::api_errors::{is_not_found, IsConflict};
//!
//! fn outcome(result: Result<(), kubegen::Error>) -> &'static str {
//!     match result {
//!         Ok(()) => "written",
//!         Err(kubegen::Error::Api(status)) if is_not_found(&status) => "gone",
//!         Err(error) if error.is_conflict() => "retry with a fresh read",
//!         Err(_) => "failed",
//!     }
//! }
//! # assert_eq!(outcome(Ok(())), "written");
//! ```

use kubegen_client::core::Status;

/// The reason of a `409` answering a create whose name is taken.
const ALREADY_EXISTS: &str = "AlreadyExists";

/// 404: the object (or its type) does not exist.
pub fn is_not_found(status: &Status) -> bool {
    status.code == 404
}

/// 409 with reason `AlreadyExists`: a create found the name taken.
pub fn is_already_exists(status: &Status) -> bool {
    status.code == 409 && status.reason == ALREADY_EXISTS
}

/// 409 that is not `AlreadyExists`: the write lost an optimistic-concurrency
/// race (stale resourceVersion) or a server-side apply field conflict.
pub fn is_conflict(status: &Status) -> bool {
    status.code == 409 && status.reason != ALREADY_EXISTS
}

/// 422: the object failed validation (schema, CEL rule, immutability).
pub fn is_invalid(status: &Status) -> bool {
    status.code == 422
}

/// 403: RBAC (or an admission plugin) refused the request.
pub fn is_forbidden(status: &Status) -> bool {
    status.code == 403
}

/// A 4xx that the same request will get again: the request itself is
/// refused — invalid (422, 400), forbidden by RBAC, a quota or an admission
/// plugin (403), its namespace gone (404), too large (413) — unlike 408
/// (timeout), 409 (conflict or already exists: re-read, then retry), 410
/// (expired) and 429 (throttled), which a retry resolves. Controllers
/// report such refusals on the object (a condition, a Warning event) and
/// back off, instead of only retrying silently.
pub fn is_refused(status: &Status) -> bool {
    (400..500).contains(&status.code) && !matches!(status.code, 408 | 409 | 410 | 429)
}

/// An error that may be an optimistic concurrency conflict, as
/// [`retry_on_conflict`](crate::client::retry_on_conflict) asks.
pub trait IsConflict {
    /// Whether this error is a `409 Conflict` (not `AlreadyExists`), by
    /// [`is_conflict`].
    fn is_conflict(&self) -> bool;
}

impl IsConflict for kubegen_client::Error {
    fn is_conflict(&self) -> bool {
        matches!(self, kubegen_client::Error::Api(status) if is_conflict(status))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(code: u16, reason: &str) -> Status {
        serde_json::from_value(serde_json::json!({
            "status": "Failure", "code": code, "reason": reason, "message": "m",
        }))
        .unwrap()
    }

    #[test]
    fn a_409_is_a_conflict_unless_the_name_was_taken() {
        assert!(is_conflict(&status(409, "Conflict")));
        assert!(is_conflict(&status(409, "")));
        assert!(!is_already_exists(&status(409, "Conflict")));
        assert!(is_already_exists(&status(409, "AlreadyExists")));
        assert!(!is_conflict(&status(409, "AlreadyExists")));
        assert!(!is_conflict(&status(404, "Conflict")));
    }

    #[test]
    fn the_other_predicates_go_by_the_code() {
        assert!(is_not_found(&status(404, "NotFound")));
        assert!(is_not_found(&status(404, "")));
        assert!(!is_not_found(&status(410, "Gone")));
        assert!(is_invalid(&status(422, "Invalid")));
        assert!(is_forbidden(&status(403, "Forbidden")));
        assert!(!is_forbidden(&status(401, "Unauthorized")));
    }

    #[test]
    fn refusals_are_the_4xx_a_retry_does_not_cure() {
        for code in [400, 401, 403, 404, 405, 413, 415, 422] {
            assert!(is_refused(&status(code, "")), "{code}");
        }
        for code in [200, 408, 409, 410, 429, 500, 503, 504] {
            assert!(!is_refused(&status(code, "")), "{code}");
        }
    }

    #[test]
    fn kube_errors_are_conflicts_only_when_the_apiserver_said_so() {
        let conflict = kubegen_client::Error::Api(Box::new(status(409, "Conflict")));
        assert!(conflict.is_conflict());
        let exists = kubegen_client::Error::Api(Box::new(status(409, "AlreadyExists")));
        assert!(!exists.is_conflict());
        let local = kubegen_client::Error::LinesCodecMaxLineLengthExceeded;
        assert!(!local.is_conflict());
    }
}
