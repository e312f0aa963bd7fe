//! What a migration counts, where it stands ([`Checkpoint`]) and what it
//! reports at the end ([`MigrationReport`]).

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// What became of one listed object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    /// The apiserver wrote it again: its resourceVersion changed.
    Rewritten,
    /// The update was a no-op: it was already stored at the storage version.
    Unchanged,
    /// It was deleted between the list and its rewrite.
    Deleted,
}

/// Running totals of a migration. They add up across resumed runs: a
/// [`Checkpoint`] carries them, and `seen` always equals
/// `rewritten + unchanged + deleted` (see [`Counters::settled`]).
///
/// ```
/// # fn show(report: kubegen::storage_migration::MigrationReport) {
/// let c = report.counters;
/// assert_eq!(c.seen, c.settled());
/// println!("{} of {} objects were still at an older version", c.rewritten, c.seen);
/// # }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct Counters {
    /// List pages processed.
    pub pages: u64,
    /// Objects listed.
    pub seen: u64,
    /// Objects the apiserver wrote again (their resourceVersion changed):
    /// they were stored at another version.
    pub rewritten: u64,
    /// Objects whose update was a no-op: already stored at the storage
    /// version, so the apiserver did not write them.
    pub unchanged: u64,
    /// Objects deleted between the list and their rewrite.
    pub deleted: u64,
    /// Conflicts (409) retried after a fresh read: another writer changed
    /// the object between the read and the rewrite.
    pub conflicts: u64,
    /// Transient failures retried (429, 5xx, lost connections).
    pub retries: u64,
    /// Times the listing started over because its continue token had
    /// expired (410 Gone).
    pub restarts: u64,
}

impl Counters {
    /// Objects with a final outcome: `rewritten + unchanged + deleted`.
    pub fn settled(&self) -> u64 {
        self.rewritten + self.unchanged + self.deleted
    }

    /// Counts one object's outcome (it was seen, and settled so).
    pub(super) fn record(&mut self, outcome: Outcome) {
        self.seen += 1;
        match outcome {
            Outcome::Rewritten => self.rewritten += 1,
            Outcome::Unchanged => self.unchanged += 1,
            Outcome::Deleted => self.deleted += 1,
        }
    }

    /// Adds another set of totals (a finished page) to these.
    pub(super) fn add(&mut self, other: &Counters) {
        let Counters {
            pages,
            seen,
            rewritten,
            unchanged,
            deleted,
            conflicts,
            retries,
            restarts,
        } = *other;
        self.pages += pages;
        self.seen += seen;
        self.rewritten += rewritten;
        self.unchanged += unchanged;
        self.deleted += deleted;
        self.conflicts += conflicts;
        self.retries += retries;
        self.restarts += restarts;
    }
}

impl fmt::Display for Counters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} objects in {} pages: {} rewritten, {} unchanged, {} deleted meanwhile; \
             {} conflicts and {} transient failures retried, {} listing restarts",
            self.seen,
            self.pages,
            self.rewritten,
            self.unchanged,
            self.deleted,
            self.conflicts,
            self.retries,
            self.restarts
        )
    }
}

/// Where the listing stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Position {
    /// Nothing listed yet (or the listing starts over).
    Beginning,
    /// Some pages are done; the next one is read with this continue token.
    Continue(String),
    /// Every page is done; only the `status.storedVersions` update is left.
    End,
}

/// Enough to resume a migration where it stopped: the CRD and the storage
/// version it migrates to, the CRD's `metadata.generation` when it began,
/// where the listing stands and the totals so far. It serializes (serde),
/// so it can be kept in a ConfigMap or a file between runs.
///
/// Resuming is an optimisation only: the migration is idempotent, so
/// starting from scratch is always correct (objects already at the storage
/// version are no-op updates the apiserver does not write). A checkpoint is
/// therefore ignored, and the migration starts over, when the CRD's spec
/// changed since it was taken; and a continue token that expired meanwhile
/// (410 Gone) restarts the listing from the beginning.
///
/// ```no_run
/// use kubegen::storage_migration::StorageMigration;
///
/// # async fn demo(client: kubegen::Client) -> Result<(), Box<dyn std::error::Error>> {
/// let report = match StorageMigration::new(client.clone(), "carts.shop.example.com").run().await {
///     Ok(report) => report,
///     Err(error) => {
///         let checkpoint = error.checkpoint().cloned();
///         eprintln!("{error}; resuming");
///         let mut again = StorageMigration::new(client, "carts.shop.example.com");
///         if let Some(checkpoint) = checkpoint {
///             again = again.resume_from(checkpoint);
///         }
///         again.run().await?
///     }
/// };
/// println!("{report}");
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Checkpoint {
    /// The CustomResourceDefinition's name (`<plural>.<group>`).
    pub crd: String,
    /// The storage version objects are migrated to.
    pub storage_version: String,
    /// The CRD's `metadata.generation` when the migration began: a spec
    /// change since then voids the checkpoint.
    pub generation: i64,
    /// Where the listing stands.
    pub position: Position,
    /// Totals of the pages done so far.
    pub counters: Counters,
}

/// The result of a finished migration.
///
/// ```no_run
/// # async fn demo(client: kubegen::Client) -> Result<(), Box<dyn std::error::Error>> {
/// let report = kubegen::storage_migration::StorageMigration::new(client, "carts.shop.example.com")
///     .run()
///     .await?;
/// assert_eq!(report.stored_versions_after, [report.storage_version.clone()]);
/// if report.counters.rewritten == 0 {
///     println!("every object was already stored at {}", report.storage_version);
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MigrationReport {
    /// The CustomResourceDefinition's name.
    pub crd: String,
    /// The storage version every object is now stored at.
    pub storage_version: String,
    /// Totals, including those of the runs this one resumed.
    pub counters: Counters,
    /// `status.storedVersions` when this run began.
    pub stored_versions_before: Vec<String>,
    /// `status.storedVersions` at the end: exactly `[storage_version]`.
    pub stored_versions_after: Vec<String>,
    /// Conflicts retried while updating `status.storedVersions` (the CRD
    /// changed after this run read it; it was read again and compared).
    pub crd_conflicts: u64,
    /// How long this run took.
    pub elapsed: Duration,
}

impl MigrationReport {
    /// Whether this run removed versions from `status.storedVersions`.
    pub fn trimmed(&self) -> bool {
        self.stored_versions_before != self.stored_versions_after
    }
}

impl fmt::Display for MigrationReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} migrated to storage version {} in {:.1?}: {}; storedVersions {:?} -> {:?}",
            self.crd,
            self.storage_version,
            self.elapsed,
            self.counters,
            self.stored_versions_before,
            self.stored_versions_after
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_seen_object_settles_exactly_once() {
        let mut page = Counters::default();
        for outcome in [
            Outcome::Rewritten,
            Outcome::Rewritten,
            Outcome::Unchanged,
            Outcome::Deleted,
        ] {
            page.record(outcome);
        }
        assert_eq!(
            (page.seen, page.rewritten, page.unchanged, page.deleted),
            (4, 2, 1, 1)
        );
        assert_eq!(page.settled(), page.seen);
    }

    #[test]
    fn totals_add_up_field_by_field() {
        let mut total = Counters {
            pages: 1,
            seen: 7,
            rewritten: 7,
            conflicts: 1,
            ..Counters::default()
        };
        let page = Counters {
            pages: 1,
            seen: 3,
            rewritten: 1,
            unchanged: 1,
            deleted: 1,
            conflicts: 2,
            retries: 4,
            restarts: 1,
        };
        total.add(&page);
        assert_eq!(
            total,
            Counters {
                pages: 2,
                seen: 10,
                rewritten: 8,
                unchanged: 1,
                deleted: 1,
                conflicts: 3,
                retries: 4,
                restarts: 1,
            }
        );
        assert_eq!(total.settled(), total.seen);
    }

    #[test]
    fn checkpoints_survive_serialization_and_old_ones_still_read() {
        let checkpoint = Checkpoint {
            crd: "carts.shop.example.com".into(),
            storage_version: "v2".into(),
            generation: 3,
            position: Position::Continue("token".into()),
            counters: Counters {
                pages: 2,
                seen: 14,
                rewritten: 14,
                ..Counters::default()
            },
        };
        let text = serde_json::to_string(&checkpoint).unwrap();
        assert_eq!(
            serde_json::from_str::<Checkpoint>(&text).unwrap(),
            checkpoint
        );
        // Counters missing from an older checkpoint read as zero.
        let old: Checkpoint = serde_json::from_value(serde_json::json!({
            "crd": "c", "storageVersion": "v1", "generation": 1,
            "position": "end", "counters": { "pages": 1 },
        }))
        .unwrap();
        assert_eq!(old.position, Position::End);
        assert_eq!(old.counters.pages, 1);
        assert_eq!(old.counters.seen, 0);
    }

    #[test]
    fn a_report_says_whether_it_trimmed() {
        let mut report = MigrationReport {
            crd: "c".into(),
            storage_version: "v2".into(),
            counters: Counters::default(),
            stored_versions_before: vec!["v1".into(), "v2".into()],
            stored_versions_after: vec!["v2".into()],
            crd_conflicts: 0,
            elapsed: Duration::from_millis(1500),
        };
        assert!(report.trimmed());
        let line = report.to_string();
        assert!(
            line.contains(r#"storedVersions ["v1", "v2"] -> ["v2"]"#),
            "{line}"
        );
        report.stored_versions_before = vec!["v2".into()];
        assert!(!report.trimmed());
    }
}
