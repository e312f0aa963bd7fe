//! Why a migration stopped ([`MigrationError`], [`ErrorKind`]), and how
//! the apiserver's answers are classified for retries.

use std::fmt;
use std::time::Duration;

use super::report::Checkpoint;
use crate::api_errors;

/// A migration that stopped before its end. It carries the last
/// [`Checkpoint`] (the pages done so far) whenever the listing had begun:
/// pass it to
/// [`StorageMigration::resume_from`](super::StorageMigration::resume_from)
/// to go on from there, or start again from scratch, which is always
/// correct.
///
/// ```no_run
/// use kubegen::storage_migration::{ErrorKind, StorageMigration};
///
/// # async fn demo(client: kubegen::Client) {
/// match StorageMigration::new(client, "carts.shop.example.com").run().await {
///     Ok(report) => println!("{report}"),
///     Err(error) => match error.kind() {
///         ErrorKind::StorageVersionChanged { .. } => println!("{error}: run it again"),
///         _ => eprintln!("{error}; resume from {:?}", error.checkpoint()),
///     },
/// }
/// # }
/// ```
#[derive(Debug)]
pub struct MigrationError {
    kind: Box<ErrorKind>,
    checkpoint: Option<Box<Checkpoint>>,
}

impl MigrationError {
    pub(super) fn new(kind: ErrorKind, checkpoint: Option<Checkpoint>) -> Self {
        MigrationError {
            kind: Box::new(kind),
            checkpoint: checkpoint.map(Box::new),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// Where the migration stood: the pages done before the failure
    /// (`None` when it failed before listing anything).
    pub fn checkpoint(&self) -> Option<&Checkpoint> {
        self.checkpoint.as_deref()
    }

    /// The checkpoint, by value.
    pub fn into_checkpoint(self) -> Option<Checkpoint> {
        self.checkpoint.map(|c| *c)
    }
}

impl fmt::Display for MigrationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.kind, f)
    }
}

impl std::error::Error for MigrationError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&*self.kind)
    }
}

/// The reasons a migration stops.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The CustomResourceDefinition could not be read (missing, forbidden,
    /// unreachable apiserver).
    #[error("reading CustomResourceDefinition {crd} failed: {source}")]
    ReadCrd {
        /// The CRD's name.
        crd: String,
        /// The client's error.
        #[source]
        source: kubegen_client::Error,
    },
    /// The CRD marks no version as its storage version, or serves none.
    #[error("CustomResourceDefinition {crd} is not migratable: {reason}")]
    NotMigratable {
        /// The CRD's name.
        crd: String,
        /// What is missing.
        reason: String,
    },
    /// The checkpoint passed to `resume_from` is another CRD's.
    #[error("the checkpoint belongs to {checkpoint}, not to {crd}")]
    CheckpointMismatch {
        /// The CRD being migrated.
        crd: String,
        /// The CRD the checkpoint was taken for.
        checkpoint: String,
    },
    /// The apiserver's discovery did not report the CRD's storage version
    /// (its `storageVersionHash`) in time: it may still encode objects at
    /// the previous one, so rewriting them now would not migrate them.
    #[error(
        "the apiserver did not report storage version {version} for {resource} within {waited:?} \
         (discovery storageVersionHash {seen:?}, expected {expected})"
    )]
    StorageVersionNotServed {
        /// `plural.group`.
        resource: String,
        /// The CRD's storage version.
        version: String,
        /// The hash that version has.
        expected: String,
        /// The hash discovery reported last (`None`: not listed yet).
        seen: Option<String>,
        /// How long the migration waited.
        waited: Duration,
    },
    /// Listing the objects failed.
    #[error("listing {resource} failed: {source}")]
    List {
        /// `plural.group`.
        resource: String,
        /// The client's error.
        #[source]
        source: kubegen_client::Error,
    },
    /// The list response could not be split into objects.
    #[error("the list response of {resource} is malformed: {reason}")]
    MalformedList {
        /// `plural.group`.
        resource: String,
        /// What was wrong.
        reason: String,
    },
    /// Reading or rewriting one object failed (forbidden, invalid, ...).
    #[error("rewriting {object} failed: {source}")]
    Rewrite {
        /// `namespace/name` (or `name`) and the resource.
        object: String,
        /// The client's error.
        #[source]
        source: kubegen_client::Error,
    },
    /// An object (or the CRD) kept conflicting, or kept failing
    /// transiently, through every retry.
    #[error("{object} still failed after {attempts} attempts: {last}")]
    RetriesExhausted {
        /// What was being written.
        object: String,
        /// Attempts made.
        attempts: u32,
        /// The last error.
        #[source]
        last: kubegen_client::Error,
    },
    /// The CRD's storage version changed while the migration ran: objects
    /// may now be stored at a version it did not migrate to, so
    /// `status.storedVersions` was left as it was. Run the migration again.
    #[error(
        "the storage version of {crd} changed from {from} to {to} during the migration; \
         status.storedVersions was left as it was: run the migration again"
    )]
    StorageVersionChanged {
        /// The CRD's name.
        crd: String,
        /// The storage version the migration used.
        from: String,
        /// The storage version now.
        to: String,
    },
    /// The CRD's spec changed while the migration ran (its generation
    /// moved), possibly its storage version and back again, or its
    /// `status.storedVersions` gained a version: `status.storedVersions`
    /// was left as it was. Run the migration again.
    #[error(
        "CustomResourceDefinition {crd} changed during the migration ({what}); \
         status.storedVersions was left as it was: run the migration again"
    )]
    CrdChanged {
        /// The CRD's name.
        crd: String,
        /// What changed.
        what: String,
    },
    /// Updating `status.storedVersions` failed.
    #[error("updating status.storedVersions of {crd} failed: {source}")]
    TrimStoredVersions {
        /// The CRD's name.
        crd: String,
        /// The client's error.
        #[source]
        source: kubegen_client::Error,
    },
}

/// How the migration treats a failed request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    /// 409 Conflict: read the object again, then retry.
    Conflict,
    /// 404: the object is gone.
    NotFound,
    /// 410 Gone: a continue token (or resourceVersion) expired.
    Expired,
    /// Throttled, timed out, an apiserver hiccup or a lost connection:
    /// the same request may succeed later.
    Transient,
    /// Anything else: retrying will not help.
    Fatal,
}

/// Classifies a client error.
pub(super) fn classify(error: &kubegen_client::Error) -> Class {
    match error {
        kubegen_client::Error::Api(status) if api_errors::is_conflict(status) => Class::Conflict,
        kubegen_client::Error::Api(status) if api_errors::is_not_found(status) => Class::NotFound,
        kubegen_client::Error::Api(status) => match status.code {
            410 => Class::Expired,
            408 | 429 | 500 | 502 | 503 | 504 => Class::Transient,
            _ => Class::Fatal,
        },
        kubegen_client::Error::HyperError(_) | kubegen_client::Error::Service(_) => {
            Class::Transient
        }
        _ => Class::Fatal,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(crate) fn api_error(code: u16, reason: &str) -> kubegen_client::Error {
        kubegen_client::Error::Api(Box::new(
            serde_json::from_value(serde_json::json!({
                "status": "Failure", "code": code, "reason": reason, "message": "m",
            }))
            .unwrap(),
        ))
    }

    #[test]
    fn answers_are_classified_by_what_a_retry_can_do() {
        assert_eq!(classify(&api_error(409, "Conflict")), Class::Conflict);
        assert_eq!(classify(&api_error(409, "AlreadyExists")), Class::Fatal);
        assert_eq!(classify(&api_error(404, "NotFound")), Class::NotFound);
        assert_eq!(classify(&api_error(410, "Expired")), Class::Expired);
        for code in [408, 429, 500, 502, 503, 504] {
            assert_eq!(classify(&api_error(code, "")), Class::Transient, "{code}");
        }
        for code in [400, 401, 403, 405, 413, 422] {
            assert_eq!(classify(&api_error(code, "")), Class::Fatal, "{code}");
        }
        let local = kubegen_client::Error::LinesCodecMaxLineLengthExceeded;
        assert_eq!(classify(&local), Class::Fatal);
    }

    #[test]
    fn an_error_shows_its_kind_and_keeps_its_source() {
        let error = MigrationError::new(
            ErrorKind::Rewrite {
                object: "ns/a".into(),
                source: api_error(403, "Forbidden"),
            },
            None,
        );
        assert!(error.to_string().starts_with("rewriting ns/a failed"));
        let source = std::error::Error::source(&error).expect("a source");
        assert!(source.to_string().contains("Forbidden"), "{source}");
        assert!(error.checkpoint().is_none());
    }
}
